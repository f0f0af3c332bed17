"""Generators for the fuzz harness (tests/properties/test_fuzz.py): build files, catalog files and settings files as
bytes — mutated real files, hostile shapes (wrong types, huge numbers, deep nesting, unicode, control
characters), random bytes, and extreme-but-valid builds drawn from the built-in catalog."""

from __future__ import annotations

import re
import string
from functools import cache
from pathlib import Path

import tomlkit
from hypothesis import strategies as st

from planner.catalog import Catalog, builtin_dir
from planner.kinds import KIND_FILES

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE_TEXTS = [p.read_text() for p in sorted((ROOT / "examples" / "builds").glob("*.toml"))]
MAX_GPUS = 16

# -- values ------------------------------------------------------------------------------------------------
#: Numbers no input needs: past 2**53, past a float (309 digits), past int()'s 4,300-digit limit.
HUGE_NUMBERS = ["9007199254740993", "-9223372036854775809", "1" + "0" * 309, "-" + "9" * 400, "1" + "0" * 4400,
                "0x" + "f" * 300, "1e308", "-1e308", "1e309", "inf", "-inf", "nan", "5e-324", "-0.0", "0", "-1"]
#: TOML escapes of characters that must never reach a terminal raw, and other awkward unicode.
ODD_CHARACTERS = ["\\u0000", "\\u001b]0;title\\u0007", "\\u001b[8m", "\\r=cmd|' /C calc'!A0", "\\u0085", "\\u2028",
                  "\\u202e", "\\u2066", "\\u007f", "\\ud7ff", "\\U0010ffff", "é", "名前", "🔥" * 10, "\\t", "\\f",
                  "x" * 5000]
ODD_STRINGS = [f'"{c}"' for c in ODD_CHARACTERS] + [f'"{c} W"' for c in ODD_CHARACTERS[:6]]
UNIT_STRINGS = ['"350 W"', '"1.6 kW"', '"1e400 W"', '"-0 W"', '"nan W"', '"inf W"', '"1e308 kW"', '"350 W W"',
                '"12 zorks"', '"13.5 in"', '"77 degF"', '"-300 degC"', '"120 cfm"', '"$1,499"', '"0 W"', '""',
                '"1_000 W"', '"0x10 W"']
WRONG_TYPES = ["true", "false", "[]", "{}", "[1, 2]", '["a", 1]', "{ a = 1 }", "1979-05-27T07:32:00Z", "07:32:00",
               "1979-05-27", '"""multi\nline"""', "'''raw\\n'''"]
IDS = ['"nvidia-rtx-3090-fe"', '"corsair-ax1600i"', '"nema-5-15"', '"nema-6-20"', '"fractal-meshify-2-xl"',
       '"asus-pro-ws-wrx80e-sage-se"', '"amd-threadripper-pro-5975wx"', '"no-such-part"', '"PCIEX16_1"',
       '{ base = "nvidia-rtx-3090-fe", slot_width = 1 }', '{ base = "corsair-ax1600i", wattage = 0 }',
       '{ base = "nema-5-15", voltage = 0 }', '{ base = "nvidia-rtx-3090-fe", tdp = 1e308 }']


def toml_string(text: str) -> str:
    """Any text as a TOML basic string (escaping what TOML requires)."""
    def escape(c: str) -> str:
        if c.isprintable() and c not in '"\\':
            return c
        return f"\\u{ord(c):04x}" if ord(c) <= 0xFFFF else f"\\U{ord(c):08x}"

    return '"' + "".join(escape(c) for c in text) + '"'


def nested(depth: int, table: bool = False) -> str:
    return "{ a = " * depth + "1" + " }" * depth if table else "[" * depth + "]" * depth


NESTED = [nested(d, t) for d in (2, 31, 32, 33, 100, 500, 3000) for t in (False, True)]

VALUES = st.one_of(
    st.sampled_from(HUGE_NUMBERS + ODD_STRINGS + UNIT_STRINGS + WRONG_TYPES + IDS + NESTED),
    st.integers(min_value=-(10**6), max_value=10**6).map(str),
    st.floats().map(repr),
    st.text(max_size=12).map(lambda s: toml_string(s)),
)
KEYS = ["name", "ambient", "workload", "region", "case", "motherboard", "cpu", "count", "power_limit", "part",
        "outlet", "circuit", "other_load", "slot", "base", "slot_width", "riser", "psu", "ram_modules", "fans",
        "drives", "board", "other", "tdp", "wattage", "voltage", "length", '"quoted key"', "a.b.c", "名前"]
HEADERS = ["[[gpu]]", "[[psu]]", "[[circuit]]", "[extras]", "[gpu]", "[psu.x]", "[[extras]]", "[case]", "[[gpu.part]]"]


# -- mutations of real files ---------------------------------------------------------------------------------
@st.composite
def mutated(draw: st.DrawFn, texts: list[str]) -> bytes:
    """A real file with a few lines set to hostile values, dropped, duplicated, inserted or garbled."""
    lines = draw(st.sampled_from(texts)).splitlines()
    for _ in range(draw(st.integers(1, 4))):
        if not lines:
            lines = [""]
        index = draw(st.integers(0, len(lines) - 1))
        action = draw(st.sampled_from(["set", "set", "set", "drop", "duplicate", "insert", "header", "garble",
                                       "truncate"]))
        if action == "set" and "=" in lines[index]:
            lines[index] = lines[index].split("=", 1)[0] + "= " + draw(VALUES)
        elif action == "drop":
            lines.pop(index)
        elif action == "duplicate":
            lines.insert(index, lines[index])
        elif action == "insert":
            lines.insert(index, f"{draw(st.sampled_from(KEYS))} = {draw(VALUES)}")
        elif action == "header":
            lines.insert(index, draw(st.sampled_from(HEADERS)))
        elif action == "garble":
            lines[index] = draw(st.text(alphabet=string.printable, max_size=30))
        elif action == "truncate":
            lines = lines[:index]
    return "\n".join(lines).encode("utf-8", "surrogatepass")


# -- hostile whole files -----------------------------------------------------------------------------------
WHOLE_FILES = [
    'gpu = "x"', "gpu = 5", "psu = []", "[gpu]\npart = 1", "circuit = [1, 2]", "[[gpu]]\n" * 200,
    '[[gpu]]\npart = "nvidia-rtx-3090-fe"\n' * 20, "extras = 1", "[extras]\nfans = 1e309",
    "name = " + nested(500), "x = " + nested(400, table=True), "ambient = " + "1" + "0" * 309,
    "[[psu]]\npart = \"corsair-ax1600i\"\npart = \"corsair-ax1600i\"", '"" = 1', "a.b.c.d.e.f.g.h = 1",
    "\ufeffname = \"bom\"", "name = \"x\"\r\n[[gpu]]\r\npart = \"nvidia-rtx-3090-fe\"\r\n", "\x00", "",
    "# only a comment", "[" * 1000, "x = '" + "a" * 100_000 + "'", "x = [" + "1," * 20_000 + "]",
]


@st.composite
def hostile(draw: st.DrawFn, texts: list[str]) -> bytes:
    """A hostile shape on its own, or spliced into a real file."""
    shape = draw(st.sampled_from(WHOLE_FILES))
    if draw(st.booleans()):
        return shape.encode("utf-8", "surrogatepass")
    lines = draw(st.sampled_from(texts)).splitlines()
    index = draw(st.integers(0, len(lines)))
    return "\n".join([*lines[:index], shape, *lines[index:]]).encode("utf-8", "surrogatepass")


@st.composite
def random_bytes(draw: st.DrawFn, texts: list[str]) -> bytes:
    """Bytes: random, or a real file with random bytes (often not UTF-8) spliced in."""
    noise = draw(st.binary(max_size=200))
    if draw(st.booleans()):
        return noise
    text = draw(st.sampled_from(texts)).encode()
    at = draw(st.integers(0, len(text)))
    return text[:at] + noise + text[at:]


# -- extreme but valid builds ----------------------------------------------------------------------------------
@cache
def _ids() -> dict[str, list[str]]:
    catalog = Catalog([builtin_dir()])
    ids = {kind: sorted(catalog.entries(kind)) for kind in ("case", "motherboard", "cpu", "gpu", "psu", "outlet",
                                                             "riser")}
    curated = Catalog([builtin_dir()])
    ids["gpu-curated"] = sorted(p.id for p in curated.all("gpu", curated=True))
    ids["psu-curated"] = sorted(p.id for p in curated.all("psu", curated=True))
    return ids


def _quantity(draw: st.DrawFn, low: float, high: float, unit: str) -> object:
    value = draw(st.one_of(st.integers(int(low), int(high)), st.floats(low, high, allow_nan=False)))
    return f"{value:g} {unit}" if draw(st.booleans()) else value


@st.composite
def extreme_builds(draw: st.DrawFn) -> bytes:
    """A build that validates (or nearly: ids are real, numbers in range), at the edges of every range."""
    ids = _ids()
    pick = lambda kind: draw(st.sampled_from(ids[kind]))  # noqa: E731
    build: dict[str, object] = {"name": draw(st.text(max_size=20))}
    if draw(st.booleans()):
        build["ambient"] = _quantity(draw, -10, 50, "degC")
    build["workload"] = draw(st.sampled_from(["llm-inference", "llm-finetune", "llm-train", "image-generation",
                                              "vision-train", "general"]))
    if draw(st.booleans()):
        build["region"] = draw(st.sampled_from(["us", "eu", "uk", "jp", "cn", "au"]))
    build["case"], build["motherboard"], build["cpu"] = pick("case"), pick("motherboard"), pick("cpu")
    circuits = [{"name": f"c{i}", "outlet": pick("outlet"), "other_load": _quantity(draw, 0, 20_000, "W")}
                for i in range(draw(st.integers(0, 3)))]
    if circuits:
        build["circuit"] = circuits
    psus = []
    # Each PSU past the first multiplies the ways to split the cards (and the optimiser re-splits per trial):
    # one PSU in half the builds keeps the average check near 100 ms.
    for _ in range(draw(st.sampled_from([1, 1, 1, 1, 1, 2, 2, 2, 3, 4]))):
        psu: dict[str, object] = {"part": pick(draw(st.sampled_from(["psu", "psu-curated"])))}
        if circuits and (len(circuits) > 1 or draw(st.booleans())):
            psu["circuit"] = draw(st.sampled_from(circuits))["name"]
        psus.append(psu)
    build["psu"] = psus
    gpus, left = [], MAX_GPUS
    for _ in range(draw(st.integers(1, 4))):
        if left < 1:
            break
        part: object = pick(draw(st.sampled_from(["gpu", "gpu-curated", "gpu-curated"])))
        if draw(st.integers(0, 5)) == 0:
            part = {"base": part, "slot_width": draw(st.sampled_from([1, 1.5, 2, 2.5, 3, 4])),
                    "cooler": draw(st.sampled_from(["blower", "open-air", "liquid", "passive"]))}
        count = draw(st.integers(1, min(left, 8)))
        left -= count
        gpu: dict[str, object] = {"part": part, "count": count}
        if draw(st.booleans()):
            gpu["power_limit"] = _quantity(draw, 1, 2_000, "W")
        if draw(st.integers(0, 6)) == 0:
            gpu["riser"] = pick("riser")
        if len(psus) > 1 and draw(st.booleans()):
            gpu["psu"] = draw(st.integers(1, len(psus)))
        gpus.append(gpu)
    build["gpu"] = gpus
    if draw(st.booleans()):
        build["extras"] = {"ram_modules": draw(st.integers(0, 64)), "drives": draw(st.integers(0, 64)),
                           "fans": draw(st.integers(0, 40)), "other": _quantity(draw, 0, 5_000, "W")}
    return tomlkit.dumps(build).encode()


def build_files() -> st.SearchStrategy[bytes]:
    """Build files of every family. An extreme build takes ~180 ms to check (its fixes are verified by
    re-checking, the optimiser searches limits for up to 16 GPUs), a rejected file ~3 ms: one in 16 is extreme,
    so a few thousand inputs take well under a minute."""
    return st.sampled_from([mutated] * 7 + [hostile] * 5 + [random_bytes] * 3 + [None]).flatmap(
        lambda family: extreme_builds() if family is None else family(EXAMPLE_TEXTS))


# -- catalog files and the settings file ---------------------------------------------------------------------
@cache
def _catalog_entries() -> dict[str, list[str]]:
    """Each curated catalog file's entries as text blocks (`[id]` up to the next entry)."""
    entries = {}
    for kind in ("gpu", "psu", "case", "motherboard", "cpu", "outlet", "gpu-chip", "riser"):
        text = (builtin_dir() / KIND_FILES[kind]).read_text()
        blocks = re.split(r"\n(?=\[[^\[])", text)
        entries[KIND_FILES[kind]] = [b for b in blocks if b.startswith("[")][:12]
    return entries


@st.composite
def catalog_files(draw: st.DrawFn) -> tuple[str, bytes]:
    """(file name, content): real entries of one kind (their ids override the built-in ones), mutated."""
    name = draw(st.sampled_from(sorted(_catalog_entries())))
    blocks = _catalog_entries()[name]
    chosen = draw(st.lists(st.sampled_from(blocks), min_size=1, max_size=3, unique=True))
    texts = ["\n".join(chosen)]
    content = draw(st.one_of(mutated(texts), mutated(texts), hostile(texts), random_bytes(texts)))
    return name, content


SETTINGS = ['region = "eu"\n', 'region = "us"\n# a comment\n']


def settings_files() -> st.SearchStrategy[bytes]:
    return st.one_of(mutated(SETTINGS), hostile(SETTINGS), random_bytes(SETTINGS),
                     st.sampled_from(['region = "mars"', "colour = 1", 'region = ["eu"]', "[region]"]).map(str.encode))
