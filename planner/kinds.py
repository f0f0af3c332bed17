"""The part kinds, declared once: plain data, importable without pydantic (the CLI's parser needs them for
`planner --help`). Everything that lists, reads, labels or picks parts by kind derives it from `KINDS`: the
catalog reader (the file), the CLI (plurals and aliases), the build file (the key an accessory is written under),
the resolver and the parts lists (accessories are resolved, listed and priced), the exports (labels), the TUI's
picker and its session (pickable, one part or a list). A kind's model is the class of the same entry in
`planner.models.parts.KIND_MODELS`.

An **accessory** is a part a build may name once (`ups = "apc-smt1500c"`) that no check of the machine reads: it
is resolved against its catalog, listed and priced in every parts list and export, and offered by the TUI's
picker — a new one is its declaration here, its model, its catalog file and their tests.
"""

from typing import NamedTuple


class Kind(NamedTuple):
    name: str  # the catalog kind (`planner catalog list NAME`)
    file: str  # its catalog file in catalogs/ (and in a user's catalog directory)
    label: str  # how parts lists and exports name it ("Power Supply": PCPartPicker's category where it has one)
    plural: str  # accepted wherever a kind is (`planner catalog list psus`)
    aliases: tuple[str, ...] = ()  # other accepted spellings
    build_key: str | None = None  # the build file's key for it (None: builds do not name it directly)
    many: bool = False  # a build lists it in tables (`[[psu]]`) rather than naming one
    pick: int = 0  # where the TUI's picker offers it (1 first); 0: it does not
    accessory: bool = False  # optional, read by no check of the machine: resolved, listed and priced (above)


KINDS: dict[str, Kind] = {kind.name: kind for kind in (
    Kind("gpu-chip", "gpu-chips.toml", "GPU chip", "gpu-chips", ("chips", "chip")),
    Kind("gpu", "gpus.toml", "Video Card", "gpus", build_key="gpu", many=True, pick=1),
    Kind("psu", "psus.toml", "Power Supply", "psus", build_key="psu", many=True, pick=5),
    Kind("case", "cases.toml", "Case", "cases", build_key="case", pick=2),
    Kind("motherboard", "motherboards.toml", "Motherboard", "motherboards", ("boards",), build_key="motherboard",
         pick=3),
    Kind("cpu", "cpus.toml", "CPU", "cpus", build_key="cpu", pick=4),
    Kind("riser", "risers.toml", "Riser", "risers", pick=7),
    Kind("outlet", "outlets.toml", "Outlet", "outlets", pick=6),
    Kind("llm", "llms.toml", "LLM", "llms", ("model", "models")),
    Kind("base-part", "base-parts.toml", "Base part", "base-parts"),
    Kind("pdu", "pdus.toml", "PDU", "pdus"),
    Kind("ups", "ups.toml", "UPS", "upses", build_key="ups", pick=8, accessory=True),
    Kind("nic", "nics.toml", "Network Card", "nics"),
    Kind("switch", "switches.toml", "Network Switch", "switches"),
    Kind("cable", "cables.toml", "Cable", "cables"),
)}

#: Catalog file of each kind.
KIND_FILES: dict[str, str] = {kind.name: kind.file for kind in KINDS.values()}

#: Plural and other names accepted for catalog kinds (`planner catalog list gpus`).
ALIASES: dict[str, str] = {alias: kind.name for kind in KINDS.values() for alias in (kind.plural, *kind.aliases)}

#: The accessories, in declaration order (see the module's docstring).
ACCESSORIES: tuple[Kind, ...] = tuple(kind for kind in KINDS.values() if kind.accessory)

#: The kinds a build names once, by their build key: what the TUI sets and removes as a single part.
SINGLE_PARTS: tuple[str, ...] = tuple(kind.build_key for kind in KINDS.values()
                                      if kind.build_key is not None and not kind.many)

#: The kinds the TUI's picker offers, in its order.
PICKABLE: tuple[str, ...] = tuple(kind.name for kind in sorted(KINDS.values(), key=lambda k: k.pick) if kind.pick)


def label(kind: str) -> str:
    """How a parts list names a kind (the kind itself, title-cased, when it is not one of the catalog's)."""
    declared = KINDS.get(kind)
    return declared.label if declared is not None else kind.title()
