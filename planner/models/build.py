"""The build file (README: Build files), as written by the user (before part references are resolved)."""

from typing import Annotated, Any, Literal

from planner.kinds import ACCESSORIES
from planner.models.parts import RamType
from planner.util.record import Field, JsonSchema, Record, StrictInt
from planner.util.units import Power, Temperature

Workload = Literal["llm-inference", "llm-finetune", "llm-train", "image-generation", "vision-train", "general"]
Region = Literal["us", "eu", "uk", "jp", "cn", "au"]

#: A part reference: a catalog id, or an inline table `{ base = "id", field = value, … }`.
PartRef = Annotated[
    str | dict[str, Any],
    JsonSchema({
        "anyOf": [
            {"type": "string", "pattern": "^[a-z0-9]+(-[a-z0-9.]+)*$", "description": "a catalog id"},
            {"type": "object", "description": "an inline part: base = catalog id (optional) plus fields; owned = true: "
                                              "you own it already (planner solve counts it at no cost)",
             "properties": {"base": {"type": "string"}, "owned": {"type": "boolean"}}},
        ]
    }),
]

MAX_GPUS = 16  # the most GPUs any workstation or 4U chassis in the catalogs can carry


class _Strict(Record):
    """A table of the build file (unknown keys refused, frozen: every record is)."""


class CircuitSpec(_Strict):
    """A branch circuit (wall outlet + breaker) that PSUs plug into."""

    name: str = Field(min_length=1, description="A name to refer to it from [[psu]] circuit = ….")
    outlet: PartRef = Field(description="Outlet id from outlets.toml (e.g. nema-5-15) or an inline outlet.")
    other_load: Power = Field(default=0, ge=0, le=20_000,
                              description="Other equipment on the same breaker (monitors…), W.")


class PsuSpec(_Strict):
    """A PSU in the build, plugged into a circuit."""

    part: PartRef = Field(description="PSU id from psus.toml or an inline PSU.")
    circuit: str | None = Field(default=None, description="Name of the [[circuit]] it plugs into.")
    owned: bool = Field(default=False, description="You own it already: `planner solve` counts it at no cost and "
                                                   "never replaces it.")


class GpuSpec(_Strict):
    """One kind of GPU in the build, `count` times."""

    part: PartRef = Field(description="GPU board id from gpus.toml or an inline board.")
    count: StrictInt = Field(default=1, ge=1, le=MAX_GPUS, description="How many of this card.")
    power_limit: Power | None = Field(default=None, gt=0, le=2_000,
                                      description="Power limit per card, W; default = the card's tdp.")
    slot: str | list[str] | None = Field(
        default=None, description="Motherboard slot name(s) to use, e.g. PCIE1; one per card.")
    riser: PartRef | None = Field(default=None, description="Riser id for these cards (to a vertical mount).")
    psu: StrictInt | None = Field(default=None, ge=1, le=16, description="Which [[psu]] (1-based) feeds these cards.")
    owned: bool = Field(default=False, description="You own these cards already: `planner solve` counts them at no "
                                                   "cost (and `planner recommend --add` keeps them).")


class Extras(_Strict):
    """Smaller loads of the DC budget (README: DC budget); defaults are in planner/physics/params.py."""

    ram_modules: StrictInt | None = Field(default=None, ge=1, le=64,
                                          description="DIMMs installed (at least 1: a board needs memory).")
    ram_type: RamType | None = Field(
        default=None, description="Their kind: ddr4 or ddr5 (unbuffered DIMMs, ECC or not), ddr4-rdimm or ddr5-rdimm "
                                  "(registered, LRDIMM included); checked against the motherboard's memory_types.")
    drives: StrictInt | None = Field(default=None, ge=0, le=64, description="SSDs and HDDs.")
    fans: StrictInt | None = Field(default=None, ge=0, le=40, description="Case fans.")
    board: Power | None = Field(default=None, ge=0, le=500, description="Motherboard power, W.")
    other: Power = Field(default=0, ge=0, le=5_000, description="Anything else on the PSUs, W.")


class BuildFile(_Strict):
    """A build: the parts, how they are wired to the wall, and the workload."""

    name: str | None = Field(default=None, description="Build name (default: the file name).")
    ambient: Temperature = Field(default=25, ge=-10, le=50, description="Room temperature, °C.")
    workload: Workload = Field(default="llm-train",
                               description="What the machine runs (the workload kinds of docs/performance-model.md).")
    region: Region | None = Field(default=None, description="Region for the default circuit when none is given.")
    case: PartRef = Field(description="Case id or inline case.")
    motherboard: PartRef = Field(description="Motherboard id or inline motherboard.")
    cpu: PartRef = Field(description="CPU id or inline CPU.")
    circuit: list[CircuitSpec] = Field(default=[], max_length=16, description="Branch circuits.")
    psu: list[PsuSpec] = Field(min_length=1, max_length=8, description="PSUs.")
    gpu: list[GpuSpec] = Field(default=[], max_length=MAX_GPUS, description="GPUs.")
    extras: Extras = Field(default=Extras(), description="Smaller loads.")
    # One optional key per accessory kind (planner/kinds.py: `ups = "apc-smt1500c"`), from the declarations.
    __annotations__.update({kind.build_key or kind.name: PartRef | None for kind in ACCESSORIES})
    vars().update({kind.build_key or kind.name: Field(
        default=None, description=f"{kind.label} id or inline {kind.label} (listed and priced; no check reads it).")
        for kind in ACCESSORIES})
    max_circuits: int = Field(
        default=1, ge=1, le=4,
        description="Circuits `planner solve` may use in all: it adds the region's standard outlet up to this many "
                    "(default 1).")
