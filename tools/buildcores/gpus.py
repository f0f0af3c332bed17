"""GPU boards: one source record to one `gpus.toml` entry.

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
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Iterable
from typing import Any

from planner.models.parts import connector_capacity

from .chips import CHIP_VENDOR_WORDS, ChipInfo
from .context import Context
from .ids import (
    COLOURS,
    Candidate,
    Skip,
    colour_slug,
    first_part_number,
    make_id,
    number,
    part_numbers,
    record_name,
    remove_run,
    round5,
    slug,
    strip_prefix,
    tokens,
    whole,
)
from .snapshot import source_of

MIN_GPU_MEMORY = 8  # GB
BRACKET_HEIGHT = 111.15  # mm, full-height PCIe bracket

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
