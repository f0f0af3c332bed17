#!/usr/bin/env python3
"""Import real parts from the BuildCores OpenDB snapshot into `catalogs/imported/*.toml`.

    python tools/import_buildcores.py [--source DIR] [--out DIR] [--chips FILE]

Reads one JSON record per part from `open-db/{GPU,PSU,PCCase,Motherboard,CPU}/` of the snapshot named in
catalogs/ATTRIBUTION.md and writes gpus.toml, psus.toml, cases.toml, motherboards.toml and cpus.toml: one
line `id = {…}` per entry (the catalog loader finds an imported entry by its line), sorted by id, each
entry validated against the part models, each file written atomically. Curated catalogs override imported
entries with the same id. Re-running on the same snapshot and gpu-chips.toml gives the same bytes.

Ids are `<maker>-<name words>` (GPU boards: `<maker>-<chip id>-<name words>`) without colours, memory
sizes, form-factor and marketing words; records with the same id and the same figures (colour variants,
repeated listings) are imported once; other collisions get the memory size, colour, variant or part
number appended, or the record uuid's first 8 digits as a last resort.

Every figure comes from the source record unless the entry lists its field in `estimated`; those are
filled by these rules (summarised in catalogs/ATTRIBUTION.md):

GPU boards (8 GB and up; chip valid in gpu-chips.toml with the same memory size and type):
  chip               source chipset name matched to a chip's id or name (vendor words, memory size and type
                     dropped); the board's memory (then memory type) decides between chips of the same name.
  tdp                source board power; the chip's tdp when missing (estimated). Boards below 0.75× or
                     above 2× the chip's tdp are left out as implausible.
  power_limit_min    round to 5 W of max(floor, fraction × chip tdp), at most tdp: turing 0.40 / 125 W,
                     ampere 0.22 / 100 W, ada 0.33 / 150 W, blackwell 0.70 / 150 W (professional 0.50);
                     other architectures 0.90 (the AMD and Intel drivers allow about −10 %). Fitted to the
                     nvidia-smi ranges of the curated boards, erring high where they differ.
  power_limit_max    max(board tdp, chip tdp): no overclocking headroom assumed.
  temp_target/_max   not in the source: the model defaults (83/93 °C) apply.
  height             not in the source: 111.15 mm (full-height bracket); many open-air cards are taller.
  slot_width         total_slot_width (thickness); the bracket width case_expansion_slot_width when the
                     thickness is missing or smaller (estimated).
  cooler             "blower"/"turbo" in the name → blower; source Blower / Passive / Water Cooled / Hybrid
                     → blower / passive / liquid / liquid; Founders Editions from Ampere on → flow-through;
                     2+ fans → open-air. Estimated: "1 Fan" (the source lists blowers so) → blower for
                     professional and Titan chipsets, open-air otherwise; no cooling given → open-air.
  pcie_gen/lanes     from the interface; when it names no generation, the most common generation and width
                     among records of the same chipset that name one, else the architecture's (estimated).
  power_connectors   6-pin, 8-pin, 12VHPWR and 12V-2x6 counts; "none" for slot-powered cards (≤ 75 W); boards
                     with no counts above 75 W are left out. RTX
                     A4500/A5000/A5500/A6000 take an 8-pin CPU (EPS) plug the source lists as PCIe (estimated).
PSUs (500 W and up; ATX, SFX or SFX-L; with an 80 PLUS or Cybenetics rating and connector counts):
  atx_version        "ATX 3.0/3.1" in the name; else "PCIe 5.0" → 3.0, "PCIe 5.1" → 3.1, otherwise 2.x
                     (estimated).
  ac_inlet           not in the source: c20 from 1600 W (over 15 A at 115 V), else c14 (estimated).
Cases (taking an ATX-family board, with a slot count and a maximum GPU length):
  intake_airflow     not in the source: left out (unknown; the thermal checks assume fans and say so).
  psu_bays           not in the source: the model default 1 (estimated).
  vertical_gpu_mounts  1 when the source lists riser slots, else 0 (estimated).
Motherboards (ATX family; PCIe 3.0/DDR4-era platforms or newer; two or more physical x16 slots):
  slots              the source gives slot counts per generation and width only. Only x16 slots are written:
                     at positions 1, 3, 5… (1, 2, 3… when that does not fit the 4 positions of micro-ATX,
                     8 of XL-ATX, 7 of the others), highest generation first, generation capped at the
                     platform's; the first 16 lanes from the CPU; the others 4 lanes from the chipset on
                     desktop platforms, 16 from the CPU on 128-lane platforms, alternately 8 and 16 from the
                     CPU on other HEDT ones. Names PCIE1… top to bottom.
CPUs (same platforms; APUs, whose lane counts differ by model, left out):
  pcie_lanes/gen     not in the source: the family's published usable lanes (table in cpu_lanes()).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import re
import sys
import tempfile
import time
import tomllib
import unicodedata
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from pydantic import ValidationError  # noqa: E402  (after the repo is on the path, with the planner's)

from planner.models.parts import (  # noqa: E402
    KIND_FILES,
    KIND_MODELS,
    GpuChip,
    connector_capacity,
)

DEFAULT_SOURCE = REPO.parent / "shared" / "data" / "buildcores-open-db"
DEFAULT_OUT = REPO / "catalogs" / "imported"
DEFAULT_CHIPS = REPO / "catalogs" / "gpu-chips.toml"
DEFAULT_CURATED = REPO / "catalogs"
SNAPSHOT_COMMIT = "136a77aec16a30ba81a7cc6b448a8bace9a25359"
SOURCE_LABEL = "BuildCores OpenDB (ODC-By)"

#: kind -> source folder
SOURCE_DIRS = {"gpu": "GPU", "psu": "PSU", "case": "PCCase", "motherboard": "Motherboard", "cpu": "CPU"}

MIN_GPU_MEMORY = 8  # GB
MIN_PSU_WATTAGE = 500  # W
C20_FROM_WATTS = 1600  # PSUs this big draw over 15 A at 115 V: a C20 inlet (C14 below)
MIN_X16_SLOTS = 2  # motherboards: physical x16 slots
BRACKET_HEIGHT = 111.15  # mm, full-height PCIe bracket

COLOURS = {
    "black", "white", "silver", "grey", "gray", "red", "blue", "green", "gold", "orange", "purple", "pink",
    "yellow", "brown", "titanium", "gunmetal", "snow", "pitch", "chalk", "charcoal", "matte", "frost",
}


class Skip(Exception):
    """A record that is not imported; `reason` is the category counted in the summary."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


@dataclass
class Candidate:
    """One mapped entry before its final id is known."""

    base_id: str
    data: dict[str, Any]
    uuid: str
    discriminators: tuple[str, ...] = ()
    maker: str = ""  # with `words` and `part_numbers`: what matches the listing to a curated part
    words: tuple[str, ...] = ()  # the model's words (the id's words after the maker, uncapped)
    part_numbers: tuple[str, ...] = ()


@dataclass
class KindResult:
    kind: str
    entries: dict[str, dict[str, Any]] = field(default_factory=dict)
    skipped: Counter[str] = field(default_factory=Counter)
    read: int = 0
    matched: dict[str, set[str]] = field(default_factory=dict)  # curated id -> the record uuids it stands for


# -- text helpers -------------------------------------------------------------------------------------

def ascii_fold(text: str) -> str:
    return unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()


def tokens(text: str) -> list[str]:
    """Lowercase id tokens: runs of ASCII letters and digits ("Rev. 2.0" → rev, 2, 0; ids have no dots, so
    each is a bare TOML key the catalog loader can find by its line)."""
    text = re.sub(r"(?<=[A-Za-z0-9])\+", " plus", ascii_fold(re.sub("[™®©]", " ", text))).lower()
    return re.findall(r"[a-z0-9]+", text)


def slug(text: str) -> str:
    return "-".join(tokens(text))


def clean_name(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


def strip_prefix(words: list[str], prefix: list[str]) -> list[str]:
    """Drop the leading run of `words` that repeats `prefix` (e.g. the maker at the start of a name)."""
    i = 0
    while i < len(words) and i < len(prefix) and words[i] == prefix[i]:
        i += 1
    return words[i:]


def remove_run(words: list[str], run: list[str]) -> list[str]:
    """Remove every occurrence of the contiguous token run `run`."""
    if not run:
        return words
    out: list[str] = []
    i = 0
    while i < len(words):
        if words[i:i + len(run)] == run:
            i += len(run)
        else:
            out.append(words[i])
            i += 1
    return out


def make_id(maker: str, middle: list[str], rest: list[str], max_rest: int = 6) -> str:
    """`<maker>-<middle>-<rest>` without repeated tokens, the rest capped to keep ids readable."""
    seen: set[str] = set()
    parts: list[str] = []
    for word in [*tokens(maker), *middle]:
        parts.append(word)
        seen.add(word)
    kept = 0
    for word in rest:
        if word in seen or kept >= max_rest:
            continue
        parts.append(word)
        seen.add(word)
        kept += 1
    return "-".join(parts)


def colour_slug(record: dict[str, Any]) -> str:
    meta = record.get("metadata") or {}
    named = meta.get("manufacturer_color")
    if named:
        return slug(named)
    colours = record.get("color") or []
    return "-".join(slug(c) for c in colours if isinstance(c, str))


def first_part_number(record: dict[str, Any]) -> str:
    numbers = (record.get("metadata") or {}).get("part_numbers") or []
    return slug(numbers[0]) if numbers and isinstance(numbers[0], str) else ""


def part_numbers(record: dict[str, Any]) -> tuple[str, ...]:
    """The record's part numbers that look like part numbers, compacted (`CP-9020201-NA` → cp9020201na)."""
    numbers = (record.get("metadata") or {}).get("part_numbers") or []
    return tuple(sorted({c for n in numbers if isinstance(n, str) and is_part_number(c := compact(n))}))


def compact(text: str) -> str:
    """Letters and digits only, lowercase: how part numbers are compared."""
    return "".join(tokens(text))


PART_NUMBER = re.compile(r"(?=[a-z]*\d)(?=\d*[a-z])[a-z0-9]{5,}")
NOT_PART_NUMBER = re.compile(r"(atx|pcie|gen|ddr|rev|v)\d")  # "ATX 3.1", "PCIe 5.0": versions, not parts


def is_part_number(text: str) -> bool:
    return bool(PART_NUMBER.fullmatch(text)) and not NOT_PART_NUMBER.match(text)


def number(value: Any) -> float | None:
    """A positive finite number or None."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    if not math.isfinite(value) or value <= 0:
        return None
    return float(value)


def whole(value: float) -> int | float:
    return int(value) if float(value).is_integer() else value


def round5(value: float) -> int:
    return int(5 * round(value / 5))


def source_of(uuid: str) -> str:
    return f"{SOURCE_LABEL}, {uuid}"


# -- makers ---------------------------------------------------------------------------------------------

class Makers:
    """Canonical maker spelling per kind: the most common spelling of each case-folded name."""

    def __init__(self, records: Iterable[dict[str, Any]]) -> None:
        spellings: dict[str, Counter[str]] = defaultdict(Counter)
        for record in records:
            maker = (record.get("metadata") or {}).get("manufacturer")
            if isinstance(maker, str) and maker.strip():
                spellings[slug(maker)][clean_name(maker)] += 1
        self.canonical = {key: sorted(c.items(), key=lambda kv: (-kv[1], kv[0]))[0][0]
                          for key, c in spellings.items()}

    def __call__(self, record: dict[str, Any]) -> str:
        maker = (record.get("metadata") or {}).get("manufacturer")
        if not isinstance(maker, str) or not slug(maker):
            raise Skip("no manufacturer")
        return self.canonical.get(slug(maker), clean_name(maker))


def record_name(record: dict[str, Any]) -> str:
    name = (record.get("metadata") or {}).get("name")
    if not isinstance(name, str) or not name.strip():
        raise Skip("no name")
    return clean_name(name)


# -- GPU chips ------------------------------------------------------------------------------------------

CHIP_VENDOR_WORDS = {"nvidia", "amd", "intel", "geforce", "radeon", "quadro", "arc", "lhr", "generation",
                     "workstation", "edition", "graphics", "card", "gb"}
MEMORY_TYPE_RE = re.compile(r"^(gddr\d+x?|hbm\d*e?|ddr\d)$")
ARCH_WORDS = {"ada", "ampere", "blackwell", "turing", "hopper", "lovelace"}


@dataclass(frozen=True)
class ChipInfo:
    id: str
    memory: float
    memory_type: str | None
    tdp: float
    architecture: str
    name: str = ""


def chip_key(text: str, drop_arch: bool = False) -> str:
    """Normalised chip name: vendor words, memory sizes and memory types dropped."""
    out = []
    for word in tokens(re.sub(r"\b\d+\s*GB\b", " ", text, flags=re.I)):
        if word in CHIP_VENDOR_WORDS or MEMORY_TYPE_RE.match(word) or re.fullmatch(r"\d+gb?", word):
            continue
        if drop_arch and word in ARCH_WORDS:
            continue
        out.append(word)
    return " ".join(out)


class ChipIndex:
    """The chips of gpu-chips.toml, looked up by a board's chipset name, memory and memory type."""

    def __init__(self, chips: dict[str, Any]) -> None:
        self.chips: dict[str, ChipInfo] = {}
        self.invalid: set[str] = set()
        self.by_key: dict[str, set[str]] = defaultdict(set)
        self.by_loose_key: dict[str, set[str]] = defaultdict(set)
        self.read = len(chips)
        for chip_id, data in chips.items():
            if not isinstance(data, dict):
                continue
            try:
                chip = GpuChip.model_validate({**data, "id": chip_id})
            except ValueError:
                self.invalid.add(chip_id)
                continue
            if chip.form != "pcie" or not chip.workstation_installable:
                continue
            self.chips[chip_id] = ChipInfo(chip_id, chip.memory, chip.memory_type, chip.tdp, chip.architecture,
                                           chip.name)
            for text in (chip_id.replace("-", " "), chip.name):
                self.by_key[chip_key(text)].add(chip_id)
                self.by_loose_key[chip_key(text, drop_arch=True)].add(chip_id)

    def match(self, chipset: str, memory: float, memory_type: str | None) -> ChipInfo:
        found = self.by_key.get(chip_key(chipset)) or self.by_loose_key.get(chip_key(chipset, drop_arch=True))
        if not found:
            raise Skip("chip not in gpu-chips.toml")
        same_memory = [self.chips[c] for c in sorted(found) if self.chips[c].memory == memory]
        if not same_memory:
            raise Skip("memory size differs from every matching chip")
        if len(same_memory) > 1:
            same_memory = [c for c in same_memory if same_type(c.memory_type, memory_type)]
        if len(same_memory) != 1:
            raise Skip("ambiguous chip")
        chip = same_memory[0]
        if chip.memory_type and memory_type and not same_type(chip.memory_type, memory_type):
            raise Skip("memory type differs from the chip's")
        return chip


def same_type(a: str | None, b: str | None) -> bool:
    return bool(a and b and a.lower() == b.lower())


# -- GPU boards -----------------------------------------------------------------------------------------

#: (fraction of chip tdp, floor W) for power_limit_min, by architecture, fitted to the nvidia-smi ranges of
#: the curated boards (3090/3090 Ti/A6000 100 W; 4080/4090 150 W; 5090 400 W, 5080 250 W; RTX PRO 4000/
#: 4500/5000 Blackwell half their tdp; 2080 Ti 100 W); others: the ~−10 % the AMD and Intel drivers allow.
POWER_LIMIT_MIN_RULE: dict[str, tuple[float, float]] = {
    "turing": (0.40, 125.0), "ampere": (0.22, 100.0), "ada": (0.33, 150.0), "blackwell": (0.70, 150.0),
}
PRO_POWER_LIMIT_MIN_RULE: dict[str, tuple[float, float]] = {"blackwell": (0.50, 0.0)}
DEFAULT_POWER_LIMIT_MIN_RULE = (0.90, 0.0)
#: Architectures whose Founders Edition coolers are flow-through.
FLOW_THROUGH_FE = {"ampere", "ada", "blackwell"}
#: PCIe generation by chip architecture, used when no record of the chipset states one.
ARCH_PCIE_GEN = {"pascal": 3, "volta": 3, "turing": 3, "ampere": 4, "ada": 4, "blackwell": 5, "rdna1": 4,
                 "rdna2": 4, "rdna3": 4, "rdna4": 5, "cdna2": 4, "cdna3": 5, "alchemist": 4, "battlemage": 5}
#: NVIDIA professional boards whose single 8-pin input is an 8-pin CPU (EPS) plug.
EPS_AUX_CHIPSETS = {"RTX A4500", "RTX A5000", "RTX A5500", "RTX A6000"}
#: Professional and Titan chipsets: their single-fan coolers are blowers.
PRO_CHIPSET = re.compile(r"(RTX (A\d|PRO |\d{4} )|Quadro|Radeon (AI )?PRO|Arc Pro|(GeForce )?Titan)", re.I)
INTERFACE_RE = re.compile(r"PCIe\s*(?:(\d)(?:\.\d)?\s*)?x(\d+)", re.I)


def pcie_interface(text: Any) -> tuple[int | None, int | None]:
    match = INTERFACE_RE.search(text) if isinstance(text, str) else None
    if not match:
        return None, None
    return (int(match.group(1)) if match.group(1) else None), int(match.group(2))


def chipset_links(records: Iterable[dict[str, Any]]) -> dict[str, tuple[int, int]]:
    """Most common (generation, lanes) per chipset among records whose interface states a generation."""
    seen: dict[str, Counter[tuple[int, int]]] = defaultdict(Counter)
    for record in records:
        gen, lanes = pcie_interface(record.get("interface"))
        if gen and lanes and isinstance(record.get("chipset"), str):
            seen[record["chipset"]][(gen, lanes)] += 1
    return {chipset: sorted(c.items(), key=lambda kv: (-kv[1], kv[0]))[0][0] for chipset, c in seen.items()}


def power_limits(chip: ChipInfo, tdp: float, professional: bool) -> tuple[int | float, int | float]:
    """power_limit_min and power_limit_max by the documented rule."""
    arch = chip.architecture.lower()
    rule = (PRO_POWER_LIMIT_MIN_RULE.get(arch) if professional else None) or POWER_LIMIT_MIN_RULE.get(arch)
    fraction, floor = rule or DEFAULT_POWER_LIMIT_MIN_RULE
    low = min(float(round5(max(floor, fraction * chip.tdp))), tdp)
    return whole(low), whole(max(tdp, chip.tdp))


def gpu_connectors(record: dict[str, Any], tdp: float) -> tuple[list[str], bool]:
    """Power inputs, and whether they were corrected by rule."""
    pc = record.get("power_connectors") or {}
    counts = {key: int(number(pc.get(key)) or 0) for key in
              ("pcie_6_pin", "pcie_8_pin", "pcie_12VHPWR", "pcie_12V_2x6")}
    connectors = (["pcie-8pin"] * counts["pcie_8_pin"] + ["pcie-6pin"] * counts["pcie_6_pin"]
                  + ["12vhpwr"] * counts["pcie_12VHPWR"] + ["12v-2x6"] * counts["pcie_12V_2x6"])
    corrected = False
    if record.get("chipset") in EPS_AUX_CHIPSETS and connectors == ["pcie-8pin"]:
        connectors, corrected = ["eps-8pin"], True
    if not connectors:
        if tdp > connector_capacity(["none"]):
            raise Skip("power connectors missing")
        connectors = ["none"]
    return connectors, corrected  # the part model checks that they can deliver tdp


def gpu_slot_width(record: dict[str, Any]) -> tuple[int | float, bool]:
    """Slot positions covered, and whether it is estimated (bracket width instead of thickness)."""
    thickness = number(record.get("total_slot_width"))
    bracket = number(record.get("case_expansion_slot_width"))
    thickness = thickness if thickness and thickness <= 5 else None
    bracket = bracket if bracket and bracket <= 5 else None
    if thickness and bracket and bracket > thickness:
        return whole(bracket), True
    if thickness:
        return whole(thickness), False
    if bracket:
        return whole(bracket), True
    raise Skip("no usable slot width")


def gpu_cooler(name: str, cooling: Any, chipset: str, architecture: str) -> tuple[str, bool]:
    """Cooler type, and whether it is estimated."""
    lower = name.lower()
    if re.search(r"\b(blower|turbo)\b", lower):
        return "blower", False
    if "passive" in lower or cooling == "Passive":
        return "passive", False
    if cooling == "Blower":
        return "blower", False
    if cooling in ("Water Cooled", "Hybrid"):
        return "liquid", False
    if "founders edition" in lower and architecture.lower() in FLOW_THROUGH_FE:
        return "flow-through", False
    if isinstance(cooling, str) and re.match(r"[2-9] Fans", cooling):
        return "open-air", False
    if cooling == "1 Fan" and PRO_CHIPSET.match(chipset):
        return "blower", True
    return "open-air", True


def gpu_link(record: dict[str, Any], links: dict[str, tuple[int, int]],
             chip: ChipInfo) -> tuple[int, int, list[str]]:
    gen, lanes = pcie_interface(record.get("interface"))
    if gen and lanes:
        return gen, lanes, []
    estimated = ["pcie_gen"]
    common = links.get(record.get("chipset") or "")
    if common:
        if lanes != common[1]:
            estimated.append("pcie_lanes")
        return common[0], common[1], estimated
    arch_gen = ARCH_PCIE_GEN.get(chip.architecture.lower())
    if arch_gen is None:
        raise Skip("PCIe generation unknown")
    return arch_gen, lanes or 16, estimated


GPU_NOISE = re.compile(r"\b(graphics cards?|video cards?|pci[- ]?express(\s*\d\.\d)?|pcie(\s*\d\.\d)?|"
                       r"gddr\d+x?|hbm\d*e?|dlss\s*\d|with)\b", re.I)


def gpu_id_rest(name: str, maker: str, chipset: str, memory: float) -> list[str]:
    text = re.sub(r"\bfounders edition\b", " FE ", GPU_NOISE.sub(" ", name), flags=re.I)
    text = re.sub(rf"\b{whole(memory)}(\s*(gb|g)\b|$)", " ", text.strip(), flags=re.I)
    words = strip_prefix(tokens(text), tokens(maker))
    words = remove_run(words, tokens(chipset))
    words = remove_run(words, [w for w in tokens(chipset) if w not in CHIP_VENDOR_WORDS])
    return [w for w in words if w not in CHIP_VENDOR_WORDS and w not in COLOURS and w != tokens(maker)[0]]


def map_gpu(record: dict[str, Any], ctx: Context) -> Candidate:
    name, maker = record_name(record), ctx.makers["gpu"](record)
    memory = number(record.get("memory"))
    if not memory or memory < MIN_GPU_MEMORY:
        raise Skip("under 8 GB of memory")
    chipset = record.get("chipset")
    if not isinstance(chipset, str) or not chipset.strip():
        raise Skip("no chipset")
    chip = ctx.chips.match(chipset, memory, record.get("memory_type"))
    estimated: list[str] = []
    tdp = number(record.get("tdp"))
    if tdp is None:
        tdp, estimated = chip.tdp, ["tdp"]
    if not 0.75 * chip.tdp <= tdp <= 2 * chip.tdp:
        raise Skip("board power implausible for the chip")
    connectors, corrected = gpu_connectors(record, tdp)
    slot_width, slot_estimated = gpu_slot_width(record)
    length = number(record.get("length"))
    if not length or not 50 < length <= 450:
        raise Skip("no usable length")
    cooler, cooler_estimated = gpu_cooler(name, record.get("cooling"), chipset, chip.architecture)
    gen, lanes, link_estimated = gpu_link(record, ctx.gpu_links, chip)
    low, high = power_limits(chip, tdp, bool(PRO_CHIPSET.match(chipset)))
    estimated += ["power_limit_min", "power_limit_max", "temp_target", "temp_max_operating", "height",
                  *(["power_connectors"] if corrected else []), *(["slot_width"] if slot_estimated else []),
                  *(["cooler"] if cooler_estimated else []), *link_estimated]
    data: dict[str, Any] = {
        "name": name, "maker": maker, "chip": chip.id, "tdp": whole(tdp), "power_limit_min": low,
        "power_limit_max": high, "power_connectors": connectors, "slot_width": slot_width,
        "length": whole(length), "height": BRACKET_HEIGHT, "cooler": cooler, "pcie_gen": gen,
        "pcie_lanes": lanes, "estimated": estimated,
    }
    if lanes == 16 and "pcie_lanes" not in estimated:
        del data["pcie_lanes"]  # the model's default
    if corrected:
        data["notes"] = "The source lists a PCIe 8-pin input; these boards take an 8-pin CPU (EPS) plug."
    data["source"] = source_of(record["opendb_id"])
    rest = gpu_id_rest(name, maker, chipset, memory)
    base = make_id(maker, chip.id.split("-"), rest)
    meta = record.get("metadata") or {}
    variant = slug(meta.get("variant") or "")
    variant = "" if variant == slug(maker) else variant
    return Candidate(base, data, record["opendb_id"],
                     (f"{whole(memory)}gb", colour_slug(record), variant, first_part_number(record)),
                     maker, (*chip.id.split("-"), *rest), part_numbers(record))


# -- PSUs -----------------------------------------------------------------------------------------------

PSU_FORMS = {"ATX": "atx", "ATX/EPS": "atx", "SFX": "sfx", "SFX-L": "sfx-l"}
EIGHTY_PLUS = {"80+ Titanium": "80plus-titanium", "80+ Platinum": "80plus-platinum", "80+ Gold": "80plus-gold",
               "80+ Silver": "80plus-silver", "80+ Bronze": "80plus-bronze", "80+ Standard": "80plus-white",
               "80+ White": "80plus-white", "80+": "80plus-white"}
CYBENETICS = {f"Cybenetics {level.title()}": f"cybenetics-{level}"
              for level in ("diamond", "titanium", "platinum", "gold", "silver", "bronze")}
PSU_NOISE = re.compile(
    r"\b80\s*\+?\s*(plus)?\s*(titanium|platinum|gold|silver|bronze|white|standard)?(\s+certified)?\b"
    r"|\b(fully|semi|non)[- ]?modular\b|\bmodular\b|\bcertified\b|\bpower supply\b|\bpsu\b|\bwatts?\b"
    r"|\batx(?!\s?3)\b|\bsfx(-l)?\b", re.I)


def psu_atx_version(name: str) -> tuple[str, bool]:
    """ATX version and whether it is estimated."""
    if re.search(r"\bATX\s?3\.1(?![\d.])", name, re.I):
        return "3.1", False
    if re.search(r"\bATX\s?3(?:\.0)?(?![\d.])", name, re.I):
        return "3.0", False
    if re.search(r"\bPCI-?e\s?5\.1\b", name, re.I):
        return "3.1", True
    if re.search(r"\bPCI-?e\s?5(?:\.0)?(?![\d.])", name, re.I):
        return "3.0", True
    return "2.x", True


def psu_efficiency(record: dict[str, Any]) -> str:
    rating = EIGHTY_PLUS.get(record.get("efficiency_rating") or "")
    rating = rating or CYBENETICS.get(record.get("cybernetics_efficiency_rating") or "")
    if not rating:
        raise Skip("no 80 PLUS or Cybenetics rating")
    return rating


def map_psu(record: dict[str, Any], ctx: Context) -> Candidate:
    name, maker = record_name(record), ctx.makers["psu"](record)
    wattage = number(record.get("wattage"))
    if not wattage or wattage < MIN_PSU_WATTAGE:
        raise Skip("under 500 W")
    form = PSU_FORMS.get(record.get("form_factor") or "")
    if not form:
        raise Skip("form factor not in the part model (TFX, Flex ATX, Mini-ITX)")
    efficiency = psu_efficiency(record)
    plugs = record.get("connectors") or {}
    pcie, hpwr, eps = (int(number(plugs.get(k)) or 0) for k in ("pcie_6_plus_2_pin", "pcie_12vhpwr", "eps_8_pin"))
    if not (pcie or hpwr or eps):
        raise Skip("connector counts missing")
    atx, atx_estimated = psu_atx_version(name)
    data: dict[str, Any] = {"name": name, "maker": maker, "wattage": whole(wattage), "efficiency": efficiency,
                            "atx_version": atx}
    data["connectors"] = {k: v for k, v in (("pcie-8pin", pcie), ("12vhpwr", hpwr), ("eps-8pin", eps)) if v}
    if form != "atx":  # the model's default
        data["form_factor"] = form
    length = number(record.get("length"))
    if length and 50 < length <= 400:
        data["length"] = whole(length)
    data["ac_inlet"] = "c20" if wattage >= C20_FROM_WATTS else "c14"
    data["estimated"] = [*(["atx_version"] if atx_estimated else []), "ac_inlet"]
    data["source"] = source_of(record["opendb_id"])
    words = psu_words(name, maker, wattage)
    return Candidate(make_id(maker, [], words), data, record["opendb_id"],
                     (colour_slug(record), f"{whole(wattage)}w", efficiency.split("-")[-1], first_part_number(record)),
                     maker, tuple(words), part_numbers(record))


def psu_words(name: str, maker: str, wattage: float) -> list[str]:
    """A PSU's model words: the name without the maker, certification and marketing words, its wattage once."""
    words = strip_prefix(tokens(PSU_NOISE.sub(" ", re.sub(r"(\d)\s+W\b", r"\1W", name))), tokens(maker))
    watt_token = f"{whole(wattage)}w"
    if any(str(whole(wattage)) in w for w in words if w != watt_token):
        words = [w for w in words if w != watt_token]
    return [w for w in words if w not in COLOURS]


# -- cases ----------------------------------------------------------------------------------------------

BOARD_FORMS = {"ATX": "atx", "Micro ATX": "micro-atx", "Mini-ITX": "mini-itx", "EATX": "e-atx",
               "SSI EEB": "ssi-eeb", "SSI CEB": "ssi-ceb", "XL ATX": "xl-atx"}
FORM_ORDER = ["mini-itx", "micro-atx", "atx", "e-atx", "eeb", "ssi-eeb", "ceb", "xl-atx", "ssi-ceb"]
ATX_FAMILY = {"micro-atx", "atx", "e-atx", "eeb", "ssi-eeb", "ceb", "xl-atx", "ssi-ceb"}
CASE_CUT = re.compile(
    r"\b(e-?atx|micro[- ]?atx|m-?atx|mini[- ]?itx|atx|(mid|full|mini|super|dual)[- ]?tower|desktop|test bench|"
    r"htpc|computer case|pc case|case|chassis|with|tempered glass)\b|\bw/|[,–|(]", re.I)
CASE_NOTE = "Stock intake fans are not in the source: intake airflow unknown."


def map_case(record: dict[str, Any], ctx: Context) -> Candidate:
    name, maker = record_name(record), ctx.makers["case"](record)
    forms = {BOARD_FORMS[f] for f in record.get("supported_motherboard_form_factors") or [] if f in BOARD_FORMS}
    if not forms & ATX_FAMILY:
        raise Skip("takes no ATX-family board")
    slots = number(record.get("expansion_slots"))
    if not slots:
        raise Skip("no expansion-slot count")
    gpu_length = number(record.get("max_video_card_length"))
    if not gpu_length or not 100 < gpu_length <= 600:
        raise Skip("no maximum GPU length")
    mounts = 1 if number(record.get("riser_expansion_slots")) else 0
    data: dict[str, Any] = {"name": name, "maker": maker,
                            "form_factors": [f for f in FORM_ORDER if f in forms],
                            "expansion_slots": int(slots), "max_gpu_length": whole(gpu_length)}
    psu_length = number(record.get("max_psu_length"))
    if psu_length and 80 < psu_length <= 400:
        data["max_psu_length"] = whole(psu_length)
    if mounts:
        data["vertical_gpu_mounts"] = mounts
    if re.search(r"test bench|open frame", record.get("form_factor") or "", re.I):
        data["open_frame"] = True
    data["estimated"] = ["psu_bays", "vertical_gpu_mounts"]
    data["notes"] = CASE_NOTE
    data["source"] = source_of(record["opendb_id"])
    words = case_words(name, maker)
    meta = record.get("metadata") or {}
    return Candidate(make_id(maker, [], words), data, record["opendb_id"],
                     (colour_slug(record), slug(meta.get("variant") or ""), first_part_number(record)),
                     maker, tuple(words), part_numbers(record))


def case_words(name: str, maker: str) -> list[str]:
    """A case's model words: its name up to the form factor or the first comma, without maker and colours."""
    return [w for w in strip_prefix(tokens(CASE_CUT.split(name)[0]), tokens(maker)) if w not in COLOURS]


# -- platforms (motherboards and CPUs) ------------------------------------------------------------------

#: Highest PCIe generation of each kept platform; older platforms (before PCIe 3.0/DDR4) are skipped.
PLATFORM_GEN = {"AM4": 4, "AM5": 5, "LGA1151": 3, "LGA1200": 4, "LGA1700": 5, "LGA1851": 5, "LGA1954": 5,
                "LGA2011-3": 3, "LGA2066": 3, "sTR4": 3, "sTRX4": 4, "sWRX8": 4, "sTR5": 5, "SP3": 4, "SP5": 5,
                "SP6": 5, "LGA3647": 3, "LGA4189": 4, "LGA4677": 5, "LGA4710": 5, "LGA7529": 5}
#: Platforms whose CPUs feed every x16 slot with 16 lanes (128-lane parts).
FULL_X16_PLATFORMS = {"sWRX8", "SP3", "SP5"}
DESKTOP_PLATFORMS = {"AM4", "AM5", "LGA1151", "LGA1200", "LGA1700", "LGA1851", "LGA1954"}


def normalise_socket(raw: Any) -> tuple[str, bool]:
    """Socket in catalog spelling (LGA1700, sTR4) and whether the board is dual-socket."""
    if not isinstance(raw, str) or not raw.strip():
        raise Skip("no socket")
    text = raw.strip()
    dual = text.startswith("2 x ")
    text = text.removeprefix("2 x ").removesuffix(" Narrow")
    text = re.sub(r"^LGA\s+", "LGA", text)
    text = {"TR4": "sTR4", "LGA1151v2": "LGA1151"}.get(text, text)
    if text not in PLATFORM_GEN:
        raise Skip("platform older than PCIe 3.0/DDR4 or not a socket")
    return text, dual


def chipset_name(raw: Any) -> str | None:
    if not isinstance(raw, str) or not raw.strip():
        return None
    return re.sub(r"^(Intel|AMD)\s+", "", raw.strip())


def platform_gen(socket: str, chipset: str | None) -> int:
    gen = PLATFORM_GEN[socket]
    chip = (chipset or "").upper()
    if socket == "AM4" and not re.match(r"(X570|B550)", chip):
        return 3
    if socket == "LGA1200" and not re.match(r"(Z590|B560|H570|H510|W580|Q570)", chip):
        return 3
    return gen


# -- motherboards ---------------------------------------------------------------------------------------

BOARD_POSITIONS = {"micro-atx": 4, "xl-atx": 8}
DEFAULT_BOARD_POSITIONS = 7
BOARD_NOISE = re.compile(
    r"\b(ddr\d|micro[- ]?atx|m-?atx|mini[- ]?itx|e-?atx|xl[- ]?atx|ssi[- ]?(eeb|ceb)|atx|motherboard|"
    r"lga\s?\d{3,4}(-3)?|am\d\+?|s?trx?\d|swrx\d|str\d|sp\d)\b", re.I)
BOARD_NOTE = "x16 slots only; positions, names and lanes derived by rule (check the manual)."


def board_x16_gens(record: dict[str, Any], cap: int) -> list[int]:
    """PCIe generation of each physical x16 slot, highest first, capped at the platform's."""
    gens: list[int] = []
    for group in record.get("pcie_slots") or []:
        count, width, gen = number(group.get("quantity")), number(group.get("lanes")), group.get("gen")
        if count and width == 16 and isinstance(gen, str) and re.fullmatch(r"\d(\.\d)?", gen):
            gens += [min(int(float(gen)), cap)] * int(count)
    if len(gens) < MIN_X16_SLOTS:
        raise Skip("fewer than two x16 slots (no room for a second GPU)")
    return sorted(gens, reverse=True)


def x16_positions(count: int, positions: int) -> list[int]:
    """Every other position from the top (1, 3, 5…), or every position when that does not fit."""
    if count > positions:
        raise Skip("more x16 slots than the form factor has positions")
    step = 2 if 2 * count - 1 <= positions else 1
    return [1 + step * i for i in range(count)]


def x16_lanes(index: int, socket: str, chipset: str | None) -> tuple[int, str]:
    """Electrical lanes and lane source of the index-th x16 slot from the top, by the documented rule."""
    if index == 0:
        return 16, "cpu"
    if socket in DESKTOP_PLATFORMS:
        return 4, "chipset"
    if socket in FULL_X16_PLATFORMS or (chipset or "").upper().startswith("WRX90"):
        return 16, "cpu"
    return (8 if index % 2 else 16), "cpu"


def board_slots(record: dict[str, Any], form: str, socket: str, chipset: str | None) -> list[dict[str, Any]]:
    gens = board_x16_gens(record, platform_gen(socket, chipset))
    positions = x16_positions(len(gens), BOARD_POSITIONS.get(form, DEFAULT_BOARD_POSITIONS))
    slots = []
    for index, (position, gen) in enumerate(zip(positions, gens, strict=True)):
        lanes, source = x16_lanes(index, socket, chipset)
        slots.append({"name": f"PCIE{index + 1}", "position": position, "size": 16, "lanes": lanes, "gen": gen,
                      "source": source})
    return slots


def map_motherboard(record: dict[str, Any], ctx: Context) -> Candidate:
    name, maker = record_name(record), ctx.makers["motherboard"](record)
    form = BOARD_FORMS.get(record.get("form_factor") or "")
    if form not in ATX_FAMILY:
        raise Skip("not an ATX-family board (mini-ITX, DTX, Flex ATX)")
    socket, dual = normalise_socket(record.get("socket"))
    chipset = chipset_name(record.get("chipset"))
    slots = board_slots(record, form, socket, chipset)
    data: dict[str, Any] = {"name": name, "maker": maker, "form_factor": form, "socket": socket}
    if chipset:
        data["chipset"] = chipset
    memory_slots = number((record.get("memory") or {}).get("slots"))
    if memory_slots and memory_slots <= 32:
        data["memory_slots"] = int(memory_slots)
    data["slots"] = slots
    data["estimated"] = ["slots"]
    notes = [BOARD_NOTE]
    if dual:
        notes.append("Dual-socket board: one CPU's lanes counted.")
    data["notes"] = " ".join(notes)
    data["source"] = source_of(record["opendb_id"])
    words = board_words(name, maker, chipset)
    ram = slug((record.get("memory") or {}).get("ram_type") or "")
    return Candidate(make_id(maker, [], words, max_rest=7), data, record["opendb_id"],
                     (ram, colour_slug(record), first_part_number(record)), maker, tuple(words), part_numbers(record))


def board_words(name: str, maker: str, chipset: str | None) -> list[str]:
    """A board's model words: the name without maker, form factor, socket, memory type and a leading chipset
    that the model name repeats ("TRX40 … TRX40 AORUS MASTER")."""
    words = strip_prefix(tokens(BOARD_NOISE.sub(" ", name)), tokens(maker))
    chip_tokens = tokens(chipset or "")
    if words and chip_tokens and words[0] == chip_tokens[-1] and any(chip_tokens[-1] in w for w in words[1:]):
        words = words[1:]
    return [w for w in words if w not in COLOURS and w not in ("amd", "intel")]


# -- CPUs -----------------------------------------------------------------------------------------------

def cpu_lanes(socket: str, micro: str, name: str) -> tuple[int, int, str]:
    """Usable PCIe lanes and generation of the CPU's family (published per family, not in the source)."""
    n, m = name.lower(), micro.lower()
    apu = re.search(r"\d{4}g[et]?\b|athlon", n)
    if socket == "AM5":
        if apu or "zen 4c" in m:
            raise Skip("APU: lane count differs by model")
        return 24, 5, "Ryzen 7000/9000 and EPYC 4004 on AM5: 24 usable lanes, PCIe 5.0"
    if socket == "AM4":
        if apu or re.search(r"\b5[57]00\b|\b4\d00\b", n) or m not in ("zen", "zen+", "zen 2", "zen 3"):
            raise Skip("APU: lane count differs by model")
        if m in ("zen 2", "zen 3"):
            return 20, 4, "Ryzen 3000/5000 (Matisse/Vermeer) on AM4: 20 usable lanes, PCIe 4.0"
        return 20, 3, "Ryzen 1000/2000 on AM4: 20 usable lanes, PCIe 3.0"
    if socket == "sTR5":
        if "pro" in n:
            return 144, 5, "Threadripper PRO 7000/9000WX: 144 usable lanes, PCIe 5.0"
        return 88, 5, "Threadripper 7000/9000X: 88 usable lanes, PCIe 5.0"
    if socket == "sTRX4":
        return 72, 4, "Threadripper 3000X on sTRX4: 72 usable lanes, PCIe 4.0"
    if socket == "sTR4":
        return 60, 3, "Threadripper 1000/2000 on sTR4: 60 usable lanes, PCIe 3.0"
    if socket == "LGA1851":
        return 24, 5, "Core Ultra 200S on LGA1851: 24 lanes, PCIe 5.0"
    if socket == "LGA1700":
        return 20, 5, "12th-14th gen Core on LGA1700: 20 lanes (16 at PCIe 5.0)"
    if socket == "LGA1200":
        if "rocket" in m:
            return 20, 4, "11th gen Core (Rocket Lake) on LGA1200: 20 lanes, PCIe 4.0"
        return 16, 3, "10th gen Core (Comet Lake) on LGA1200: 16 lanes, PCIe 3.0"
    if socket == "LGA1151":
        return 16, 3, "6th-9th gen Core and Xeon E3/E on LGA1151: 16 lanes, PCIe 3.0"
    if socket == "LGA2066":
        return lga2066_lanes(n)
    if socket == "LGA2011-3":
        if re.search(r"5820k|6800k", n):
            return 28, 3, "Core i7-5820K/6800K: 28 lanes, PCIe 3.0"
        return 40, 3, "Core i7 and Xeon E5 v3/v4 on LGA2011-3: 40 lanes, PCIe 3.0"
    raise Skip("no lane rule for the platform")


def lga2066_lanes(n: str) -> tuple[int, int, str]:
    if re.search(r"7[67]40x", n):
        return 16, 3, "Core i5-7640X/i7-7740X (Kaby Lake-X): 16 lanes, PCIe 3.0"
    if re.search(r"78[02]0x", n):
        return 28, 3, "Core i7-7800X/7820X: 28 lanes, PCIe 3.0"
    if re.search(r"\b7[89]\d0x|\b79\d0xe|\b7980xe|\b9[89]\d0xe?\b", n):
        return 44, 3, "Core i9-7900X and up, 9th gen Core X: 44 lanes, PCIe 3.0"
    if re.search(r"\b109\d0xe?\b|xeon w-2", n):
        return 48, 3, "10th gen Core X and Xeon W-2000: 48 lanes, PCIe 3.0"
    raise Skip("no lane rule for the platform")


CPU_NOISE = re.compile(r"\b\d+(\.\d+)?\s*ghz\b|\b\d+-core\b|\boem\s*/?\s*tray\b|\btray\b|\bboxed\b|\bprocessor\b|"
                       r"\blga\s?\d{3,4}(-3)?\b|\bam\d\+?\b|\bs?trx?\d\b", re.I)


def map_cpu(record: dict[str, Any], ctx: Context) -> Candidate:
    name, maker = record_name(record), ctx.makers["cpu"](record)
    socket, _ = normalise_socket(record.get("socket"))
    lanes, gen, rule = cpu_lanes(socket, str(record.get("microarchitecture") or ""), name)
    specs = record.get("specifications") or {}
    cores = number((record.get("cores") or {}).get("total"))
    tdp = number(specs.get("tdp"))
    if not cores or not tdp:
        raise Skip("no core count or TDP")
    data: dict[str, Any] = {"name": name, "maker": maker, "socket": socket, "cores": int(cores), "tdp": whole(tdp)}
    ppt = number(specs.get("ppt"))
    if ppt:
        data["package_power"] = whole(ppt)
    data.update({"pcie_lanes": lanes, "pcie_gen": gen, "estimated": ["pcie_lanes", "pcie_gen"],
                 "notes": f"PCIe lanes and generation are not in the source: family figure ({rule}).",
                 "source": source_of(record["opendb_id"])})
    words = cpu_words(name, maker)
    return Candidate(make_id(maker, [], words), data, record["opendb_id"], (first_part_number(record),),
                     maker, tuple(words), part_numbers(record))


def cpu_words(name: str, maker: str) -> list[str]:
    """A CPU's model words: the name without maker, clocks, core counts, socket and packaging words."""
    return [w for w in strip_prefix(tokens(CPU_NOISE.sub(" ", name)), tokens(maker)) if w not in COLOURS]


# -- one entry per real part: imported listings of curated parts -----------------------------------------

BRACKETS = re.compile(r"\(([^)]*)\)")
#: The part-model field a kind's words need besides name and maker.
CURATED_KINDS = ("gpu", "psu", "case", "motherboard", "cpu")


#: Spellings of one thing, per kind, made equal before model words are compared (not in ids).
KEY_SPELLINGS: dict[str, list[tuple[re.Pattern[str], str]]] = {
    "psu": [(re.compile(r"\batx 3 0\b"), "atx 3")],  # "ATX 3.0" = "ATX3"
    "cpu": [(re.compile(r"\b(extreme|edition)\b"), " ")],  # "Core i7 Extreme 6950X" = "Core i7-6950X"
}
#: Words in maker names that do not tell makers apart ("SilverStone Technology" = "SilverStone").
MAKER_SUFFIXES = {"technology", "technologies", "inc", "co", "ltd", "corp", "corporation", "gmbh", "international"}


def maker_key(maker: str) -> str:
    return "-".join(w for w in tokens(maker) if w not in MAKER_SUFFIXES)


def word_key(kind: str, words: Iterable[str]) -> frozenset[str]:
    """The model's words as a set of letter and digit runs, so "TX-1600", "TX 1600W" and "tx1600" agree and
    word order does not matter ("TURBO GeForce RTX 3090" = "GeForce RTX 3090 TURBO")."""
    text = " ".join(words)
    for pattern, replacement in KEY_SPELLINGS.get(kind, []):
        text = pattern.sub(replacement, text)
    return frozenset(set(re.findall(r"[a-z]+|\d+", text)) - {"w"})  # "1600w" is the wattage "1600"


def number_scheme(number: str) -> str:
    """The maker's numbering scheme of a compacted part number: its leading letters (cp… for Corsair's
    CP-9020201), else its first three characters."""
    return re.match(r"[a-z]*", number).group(0) or number[:3]  # type: ignore[union-attr]


#: Figures a listing must share with a curated part to be that part.
SAME_FIGURES: dict[str, tuple[str, ...]] = {"psu": ("wattage", "efficiency"), "motherboard": ("socket",),
                                             "cpu": ("socket", "cores")}


def name_variants(name: str) -> tuple[list[str], set[str]]:
    """A curated name as written, without its bracketed notes, and with only the part numbers taken out of
    them ("Corsair RM1000x (2021, CP-9020201)" → "… RM1000x 2021"); and those part numbers, compacted."""
    numbers: set[str] = set()

    def words_only(match: re.Match[str]) -> str:
        kept = []
        for word in re.split(r"[\s,/;]+", match.group(1)):
            if is_part_number(compact(word)):
                numbers.add(compact(word))
            elif word:
                kept.append(word)
        return " " + " ".join(kept) + " "

    return [name, BRACKETS.sub(" ", name), BRACKETS.sub(words_only, name)], numbers


class CuratedIndex:
    """The curated parts (`catalogs/*.toml`) a bulk-imported listing may repeat: the same maker and model
    words, or a part number the curated name gives in brackets. A listing that matches is left out, so each
    real part has one entry: the curated one, with its sources. A name match is refused when both sides give
    part numbers and none agree (the 2021 and the 2024 RM1000x share a name)."""

    def __init__(self, folder: Path | None, chips: ChipIndex) -> None:
        self.words: dict[str, dict[tuple[str, frozenset[str]], list[str]]] = defaultdict(dict)
        self.numbers: dict[str, dict[str, dict[str, set[str]]]] = defaultdict(lambda: defaultdict(dict))
        self.figures: dict[str, dict[str, dict[str, Any]]] = defaultdict(dict)
        self.read = 0
        for kind in CURATED_KINDS if folder is not None else ():
            path = folder / KIND_FILES[kind]  # type: ignore[operator]
            try:
                with path.open("rb") as handle:
                    entries = tomllib.load(handle)
            except (OSError, tomllib.TOMLDecodeError):
                continue
            for part_id, data in sorted(entries.items()):
                try:
                    part = KIND_MODELS[kind].model_validate({**data, "id": part_id})
                except (ValidationError, TypeError):
                    continue
                self.read += 1
                self._add(kind, part_id, part, chips)

    def _add(self, kind: str, part_id: str, part: Any, chips: ChipIndex) -> None:
        maker = maker_key(part.maker)
        self.figures[kind][part_id] = {name: getattr(part, name) for name in SAME_FIGURES.get(kind, ())}
        names, numbers = name_variants(part.name)
        if numbers:
            self.numbers[kind][maker][part_id] = numbers
        for name in names:
            words = curated_words(kind, name, part, chips)
            if words is not None:
                ids = self.words[kind].setdefault((maker, word_key(kind, words)), [])
                if part_id not in ids:
                    ids.append(part_id)

    def match(self, kind: str, cand: Candidate) -> str | None:
        """The curated part a listing repeats, if any: by part number (the longest that agrees), else by
        model words, else by the same id; never when a figure both publish differs."""
        maker, listed = maker_key(cand.maker), set(cand.part_numbers)
        known = self.numbers[kind].get(maker, {})
        by_number = sorted((-len(number), part_id) for part_id, numbers in known.items() for number in numbers
                           if any(same_number(n, number) for n in listed) and self._same_figures(kind, part_id, cand))
        if by_number:
            return by_number[0][1]
        named = self.words[kind].get((maker, word_key(kind, cand.words)), [])
        for part_id in [*named, *([cand.base_id] if cand.base_id in self.figures[kind] else [])]:
            numbers = known.get(part_id, set())
            # the same name with another number of the maker's scheme is another part (RM1000x 2021 / 2024)
            if any(number_scheme(n) == number_scheme(c) for n in listed for c in numbers):
                continue
            if self._same_figures(kind, part_id, cand):
                return part_id
        return None

    def _same_figures(self, kind: str, part_id: str, cand: Candidate) -> bool:
        curated = self.figures[kind][part_id]
        return all(cand.data.get(name) is None or same_figure(name, cand.data[name], value)
                   for name, value in curated.items())


def same_figure(name: str, listed: Any, curated: Any) -> bool:
    if name == "efficiency":  # the level: a unit rated 80 PLUS Titanium may be listed as Cybenetics Titanium
        return str(listed).split("-")[-1] == str(curated).split("-")[-1]
    return bool(listed == curated)


def same_number(listed: str, curated: str) -> bool:
    """A listed part number is the curated one, or it with a region or colour suffix (CP-9020201-NA,
    SSR-850FX WHITE); a digit after it makes another number (MPE-C501-AFCAG-3 is not MPE-C501-AFCAG)."""
    return listed == curated or (listed.startswith(curated) and not listed[len(curated)].isdigit())


def curated_words(kind: str, name: str, part: Any, chips: ChipIndex) -> list[str] | None:
    """A curated part's model words, by the rules that make an imported listing's id."""
    if kind == "gpu":
        chip = chips.chips.get(part.chip)
        if chip is None:
            return None
        return [*chip.id.split("-"), *gpu_id_rest(name, part.maker, chip.name, chip.memory)]
    if kind == "psu":
        return psu_words(name, part.maker, part.wattage)
    if kind == "case":
        return case_words(name, part.maker)
    if kind == "motherboard":
        return board_words(name, part.maker, part.chipset)
    return cpu_words(name, part.maker)


# -- ids, dedupe, output --------------------------------------------------------------------------------

def dedupe(candidates: list[Candidate], skipped: Counter[str], matched: Iterable[str] = ()) -> list[Candidate]:
    """Keep one record of each set with the same base id and figures (colour variants, repeated listings):
    the one with the shortest name, then the lowest uuid. Records in `matched` (listings of curated parts,
    counted as such) are not counted again as skipped."""
    counted = set(matched)
    seen: set[str] = set()
    kept = []
    for cand in sorted(candidates, key=lambda c: (len(c.data["name"]), c.uuid)):
        figures = {k: v for k, v in cand.data.items() if k not in ("name", "source")}
        key = cand.base_id + json.dumps(figures, sort_keys=True)
        if key in seen:
            if cand.uuid not in counted:
                skipped["same id and figures as another record (colour variant or repeat)"] += 1
            continue
        seen.add(key)
        kept.append(cand)
    return kept


def assign_ids(candidates: list[Candidate]) -> dict[str, Candidate]:
    """Base ids, with distinguishing parts appended on collisions (then the record uuid's first 8 digits)."""
    groups: dict[str, list[Candidate]] = defaultdict(list)
    for cand in candidates:
        groups[cand.base_id].append(cand)
    assigned: dict[str, list[Candidate]] = defaultdict(list)
    for base, members in groups.items():
        _resolve(base, sorted(members, key=lambda c: c.uuid), 0, assigned)
    result: dict[str, Candidate] = {}
    for part_id, members in assigned.items():
        if len(members) == 1:
            result[part_id] = members[0]
        else:
            for cand in members:
                result[f"{part_id}-{cand.uuid[:8]}"] = cand
    return result


def _resolve(prefix: str, members: list[Candidate], level: int, out: dict[str, list[Candidate]]) -> None:
    if len(members) == 1:
        out[prefix].append(members[0])
        return
    if level >= max(len(m.discriminators) for m in members):
        for cand in members:
            out[f"{prefix}-{cand.uuid[:8]}"].append(cand)
        return
    values = [m.discriminators[level] if level < len(m.discriminators) else "" for m in members]
    if len(set(values)) == 1:
        _resolve(prefix, members, level + 1, out)
        return
    by_value: dict[str, list[Candidate]] = defaultdict(list)
    for value, cand in zip(values, members, strict=True):
        by_value[value].append(cand)
    for value, sub in by_value.items():
        extra = "-".join(w for w in value.split("-") if w and w not in prefix.split("-"))
        _resolve(f"{prefix}-{extra}" if extra else prefix, sub, level + 1, out)


BARE_ID = re.compile(r"[a-z0-9]+(-[a-z0-9]+)*")


def toml_string(text: str) -> str:
    out = json.dumps(text, ensure_ascii=False)
    return out.replace("\x7f", "\\u007f")


def toml_key(key: str) -> str:
    return key if re.fullmatch(r"[A-Za-z0-9_-]+", key) else toml_string(key)


def toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ValueError("non-finite number")
        return str(whole(value)) if value.is_integer() else repr(value)
    if isinstance(value, str):
        return toml_string(value)
    if isinstance(value, list):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{toml_key(k)} = {toml_value(v)}" for k, v in value.items()) + "}"
    raise TypeError(f"cannot write {type(value).__name__} to TOML")


def render(kind: str, entries: dict[str, dict[str, Any]]) -> str:
    header = (f"# {KIND_FILES[kind]}: parts imported by tools/import_buildcores.py from BuildCores OpenDB "
              f"(commit {SNAPSHOT_COMMIT[:12]}), ODC-By 1.0: see catalogs/ATTRIBUTION.md.\n"
              "# Generated file: do not edit; a curated entry with the same id overrides an imported one.\n")
    if any(not BARE_ID.fullmatch(part_id) for part_id in entries):
        raise ValueError("imported ids must be bare TOML keys (the loader finds entries by their line)")
    lines = [f"{part_id} = {toml_value(entries[part_id])}" for part_id in sorted(entries)]
    return header + "\n".join(lines) + "\n"


def write_atomically(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(handle, "w", encoding="utf-8", newline="\n") as out:
            out.write(text)
            out.flush()
            os.fsync(out.fileno())
        os.chmod(temp, 0o644)  # mkstemp makes the file private; catalogs are read by everyone
        os.replace(temp, path)
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise


# -- driver ---------------------------------------------------------------------------------------------

@dataclass
class Context:
    chips: ChipIndex
    makers: dict[str, Makers]
    gpu_links: dict[str, tuple[int, int]]
    curated: CuratedIndex | None = None  # listings of these parts are left out


MAPPERS: dict[str, Callable[[dict[str, Any], Context], Candidate]] = {
    "gpu": map_gpu, "psu": map_psu, "case": map_case, "motherboard": map_motherboard, "cpu": map_cpu,
}


def check_snapshot(source: Path) -> None:
    """Refuse a source folder that is not the attributed snapshot (a later upstream licence differs)."""
    notice = source / "SOURCE.md"
    text = notice.read_text(encoding="utf-8") if notice.is_file() else ""
    if SNAPSHOT_COMMIT not in text or not (source / "LICENSE.txt").is_file():
        sys.exit(f"error: {source} is not the BuildCores OpenDB snapshot {SNAPSHOT_COMMIT} (SOURCE.md and "
                 "LICENSE.txt); re-check the licence and update catalogs/ATTRIBUTION.md before importing another.")


def load_records(source: Path, kind: str) -> list[dict[str, Any]]:
    folder = source / "open-db" / SOURCE_DIRS[kind]
    if not folder.is_dir():
        sys.exit(f"error: {folder} not found")
    records = []
    for path in sorted(folder.glob("*.json")):
        try:
            record = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            record = None
        if isinstance(record, dict):
            record.setdefault("opendb_id", path.stem)
            records.append(record)
        else:
            records.append({"opendb_id": path.stem, "_unreadable": True})
    return records


def load_chips(path: Path) -> ChipIndex:
    try:
        with path.open("rb") as handle:
            return ChipIndex(tomllib.load(handle))
    except (OSError, tomllib.TOMLDecodeError) as error:
        sys.exit(f"error: cannot read the GPU chips from {path}: {error}")


def model_failure(error: ValidationError) -> str:
    """A countable skip reason for an entry the part model rejects."""
    first = error.errors()[0]
    if "deliver at most" in str(first.get("msg", "")):
        return "connectors cannot deliver the stated board power"
    field_name = ".".join(str(part) for part in first.get("loc", ()) if isinstance(part, str))
    return f"fails the part model ({field_name or first.get('type', 'entry')})"


def import_kind(kind: str, records: list[dict[str, Any]], ctx: Context) -> KindResult:
    result = KindResult(kind, read=len(records))
    model = KIND_MODELS[kind]
    candidates = []
    for record in records:
        try:
            if record.get("_unreadable"):
                raise Skip("unreadable record")
            cand = MAPPERS[kind](record, ctx)
            model.model_validate({**cand.data, "id": "x"})
        except Skip as skip:
            result.skipped[skip.reason] += 1
            continue
        except ValidationError as error:
            result.skipped[model_failure(error)] += 1
            continue
        curated = ctx.curated.match(kind, cand) if ctx.curated is not None else None
        if curated is not None:
            result.matched.setdefault(curated, set()).add(cand.uuid)
        candidates.append(cand)
    matched = {uuid for uuids in result.matched.values() for uuid in uuids}
    # ids are assigned with the matched listings still in, so leaving them out renames no other entry
    for part_id, cand in assign_ids(dedupe(candidates, result.skipped, matched)).items():
        if cand.uuid not in matched:
            model.model_validate({**cand.data, "id": part_id})  # ids are valid by construction
            result.entries[part_id] = cand.data
    return result


def report(result: KindResult, path: Path, size: int, parse_seconds: float) -> None:
    skipped = sum(result.skipped.values())
    matched = sum(len(uuids) for uuids in result.matched.values())
    print(f"{result.kind:12} {len(result.entries):5} imported  {skipped:5} skipped  {matched:4} of curated parts"
          f"  of {result.read:5} records  -> {path.name} ({size / 1024:.0f} KiB, "
          f"parses in {parse_seconds * 1000:.0f} ms)")
    if matched:
        print(f"{'':14}{matched:5}  listings matched to {len(result.matched)} curated parts (maker and model or part "
              "number): left out, the curated entry is the one kept")
    for reason, count in result.skipped.most_common(6):
        print(f"{'':14}{count:5}  {reason}")


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--source", type=Path, default=DEFAULT_SOURCE, help="BuildCores OpenDB snapshot folder")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="output folder (catalogs/imported)")
    parser.add_argument("--chips", type=Path, default=DEFAULT_CHIPS, help="gpu-chips.toml to map boards to")
    parser.add_argument("--curated", type=Path, default=DEFAULT_CURATED,
                        help="folder of the curated catalogs whose parts are not imported again (catalogs)")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    source, out = args.source.resolve(), args.out.resolve()
    check_snapshot(source)
    records = {kind: load_records(source, kind) for kind in MAPPERS}
    chips = load_chips(args.chips)
    curated = CuratedIndex(args.curated.resolve(), chips)
    ctx = Context(chips, {kind: Makers(recs) for kind, recs in records.items()}, chipset_links(records["gpu"]),
                  curated)
    print(f"source {source} (commit {SNAPSHOT_COMMIT[:12]}); {chips.read} chips in {args.chips.name}, "
          f"{len(chips.chips)} usable (valid PCIe cards)"
          + (f"; invalid, not mapped: {', '.join(sorted(chips.invalid))}" if chips.invalid else "")
          + f"; {curated.read} curated parts in {args.curated.name}/")
    for kind in MAPPERS:
        result = import_kind(kind, records[kind], ctx)
        text = render(kind, result.entries)
        started = time.perf_counter()
        parsed = tomllib.loads(text)
        parse_seconds = time.perf_counter() - started
        if parsed != result.entries:
            sys.exit(f"error: {KIND_FILES[kind]} does not read back as written")
        path = out / KIND_FILES[kind]
        write_atomically(path, text)
        report(result, path, len(text.encode()), parse_seconds)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
