"""CPUs: one source record to one `cpus.toml` entry.

CPUs (the platforms motherboards are kept for, in platforms.py; APUs, whose lane counts differ by model, left out):
  pcie_lanes/gen     not in the source: the family's published usable lanes (table in cpu_lanes()).
"""

from __future__ import annotations

import re
from typing import Any

from .context import Context
from .ids import (
    COLOURS,
    Candidate,
    Skip,
    first_part_number,
    make_id,
    number,
    part_numbers,
    record_name,
    strip_prefix,
    tokens,
    whole,
)
from .platforms import normalise_socket
from .snapshot import source_of


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
