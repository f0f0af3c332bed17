"""The base system: what every machine needs besides its GPUs, board, CPU, case and PSUs — RAM, a system SSD
and a CPU cooler. One model for every total that names a board and a CPU: a checked build's parts list and
price (planner/build/parts_list.py, through the resolved build), exports, `planner solve` and
`recommend --complete`/`--into` (the solver prices it with each board and CPU it tries). The recommendation
ranking and cloud vs buy, which know no board yet, still add the base desktop of planner/recommend/params.py.

The parts come from the `base-part` catalog (catalogs/base-parts.toml); each choice is the cheapest priced part
that meets the rule below, and says why:

* RAM: the DIMM kind the board takes, one module per memory channel of the platform (or the build's
  `[extras] ram_modules`), at least as many GB as the build's GPUs have (RAM_PER_GPU_GB), and never less than
  MIN_RAM_GB.
* SSD: an NVMe drive of at least SSD_MIN_GB.
* Cooler: one that mounts on the CPU's socket and is rated for the CPU's sustained package power (its TDP where
  the catalog has no package power).
"""

from __future__ import annotations

import math
import weakref
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, NamedTuple

from planner.models.parts import BasePart, Cpu, Motherboard, RamType
from planner.util.parameter import Param, Table

if TYPE_CHECKING:
    from planner.catalog import Catalog

MIN_RAM_GB = Param(
    32, "GB", "estimate: the smallest kit builders put in a deep-learning machine (two 16 GB DDR5 modules);"
              " Dettmers' guide: RAM at least the size of the largest GPU's memory",
    "the floor of the RAM rule")
RAM_PER_GPU_GB = Param(
    1.0, "GB of RAM per GB of GPU memory",
    "estimate: builders' rule for LLM work (a model is read into RAM on its way to the GPUs; Dettmers asks for"
    " at least the largest GPU's memory, forum builds of 2–4 cards match the cards' total)",
    "RAM ≥ this × the GPUs' total memory")
SSD_MIN_GB = Param(
    2000, "GB", "estimate: model files of 70B-class LLMs take 40–140 GB each; a 2 TB NVMe drive is what builders"
                " buy as the system drive", "the smallest system drive the model chooses")
#: Memory channels by socket (one module per channel is how builders fill them): AMD and Intel platform
#: specifications (AM4/AM5, LGA1700/1851: 2; TR4/sTRX4, LGA2066, sTR5 on TRX50: 4; sWRX8, SP3, sTR5 on WRX90,
#: LGA4677 with Xeon W-3400: 8; SP5: 12).
CHANNELS = Table(
    {"am4": (2,), "am5": (2,), "lga1700": (2,), "lga1851": (2,), "lga1200": (2,), "lga1151": (2,),
     "tr4": (4,), "str4": (4,), "strx4": (4,), "lga2066": (4,), "lga2011-3": (4,), "lga2011": (4,), "str5": (4,),
     "swrx8": (8,), "sp3": (8,), "lga4677": (8,), "lga3647": (6,), "sp5": (12,), "sp6": (6,)},
    "channels", "AMD and Intel platform specifications (memory channels per socket)",
    "one DIMM per channel fills a platform's memory bandwidth; WRX90 boards (socket sTR5) have 8")


#: The DIMM kind of a socket's platform, for boards whose catalog entry records none (memory_types empty): what
#: the platform takes (AMD and Intel platform specifications; registered DIMMs on the server and workstation
#: sockets that require them).
SOCKET_MEMORY: dict[str, RamType] = {
    "am4": "ddr4", "lga1151": "ddr4", "lga1200": "ddr4", "lga2011-3": "ddr4", "lga2066": "ddr4", "tr4": "ddr4",
    "str4": "ddr4",
    "strx4": "ddr4", "am5": "ddr5", "lga1851": "ddr5", "lga1700": "ddr5", "swrx8": "ddr4-rdimm",
    "sp3": "ddr4-rdimm", "lga3647": "ddr4-rdimm", "str5": "ddr5-rdimm", "sp5": "ddr5-rdimm", "lga4677": "ddr5-rdimm",
}


class BaseItem(NamedTuple):
    """One part of the base system: its role, the part, how many, and why it was chosen."""

    role: str  # "ram" | "ssd" | "cooler"
    part: BasePart
    quantity: int
    why: str

    @property
    def total(self) -> float | None:
        return None if self.part.price is None else self.part.price * self.quantity


def base_system(catalog: Catalog, board: Motherboard, cpu: Cpu, gpu_memory_gb: float,
                ram_modules: int | None = None, ram_type: RamType | None = None) -> tuple[BaseItem, ...]:
    """The RAM, system SSD and CPU cooler the model chooses for a board, CPU and GPUs (module docstring)."""
    key = (board.id, board.socket, tuple(board.memory_types), board.chipset, board.memory_slots, cpu.id,
           cpu.socket, round(gpu_memory_gb, 1), ram_modules, ram_type)
    memo = _MEMO.setdefault(catalog, {})
    if key not in memo:
        parts = _parts(catalog)
        items = [_ram(parts, board, cpu, gpu_memory_gb, ram_modules, ram_type), _ssd(parts), _cooler(parts, cpu)]
        memo[key] = tuple(item for item in items if item is not None)
    return memo[key]


def base_price(items: Iterable[BaseItem]) -> tuple[float, int]:
    """(USD of the priced items, how many items have no price)."""
    total, unpriced = 0.0, 0
    for item in items:
        if item.total is None:
            unpriced += 1
        else:
            total += item.total
    return total, unpriced


_MEMO: weakref.WeakKeyDictionary[Catalog, dict[tuple[object, ...], tuple[BaseItem, ...]]] = \
    weakref.WeakKeyDictionary()


def _parts(catalog: Catalog) -> list[BasePart]:
    return [p for p in catalog.all("base-part") if isinstance(p, BasePart)]


def _norm(socket: str) -> str:
    return socket.replace(" ", "").casefold()


def channels(board: Motherboard, cpu: Cpu) -> int:
    """Memory channels of the platform: by socket (CHANNELS), WRX90 boards 8, capped by the board's DIMM slots."""
    socket = _norm(board.socket)
    count = int(CHANNELS.values.get(socket, (2,))[0] or 2)
    if socket == "str5" and (board.chipset or "").upper() == "WRX90":
        count = 8
    if socket == "lga4677" and (cpu.generation or "").startswith("xeon-w-2"):
        count = 4
    if board.memory_slots:
        count = min(count, board.memory_slots)
    return count


def _cheapest(parts: Sequence[tuple[float, BasePart, int, str]]) -> tuple[float, BasePart, int, str] | None:
    return min(parts, key=lambda p: (p[0], p[1].id)) if parts else None


def _ram(parts: list[BasePart], board: Motherboard, cpu: Cpu, gpu_memory_gb: float, ram_modules: int | None,
         ram_type: RamType | None) -> BaseItem | None:
    fallback = SOCKET_MEMORY.get(_norm(board.socket))
    types = [ram_type] if ram_type else list(board.memory_types) or ([fallback] if fallback else [])
    kits = [p for p in parts if p.role == "ram" and p.ram_type in types and p.modules and p.module_size]
    if not kits:
        return None
    modules = ram_modules if ram_modules else channels(board, cpu)
    want = max(MIN_RAM_GB.value, RAM_PER_GPU_GB.value * gpu_memory_gb)
    fitting: list[tuple[float, BasePart, int, str]] = []
    short: list[tuple[float, BasePart, int, str]] = []
    for kit in kits:
        assert kit.modules is not None and kit.module_size is not None
        if modules % kit.modules:
            continue  # kits are bought whole: the modules must come out even
        n = modules // kit.modules
        size = modules * kit.module_size
        price = math.inf if kit.price is None else kit.price * n
        why = (f"{modules} × {kit.module_size:g} GB {kit.ram_type} = {size:g} GB: "
               f"{'one module per memory channel' if not ram_modules else 'the build’s ram_modules'}"
               f", at least {want:g} GB (the GPUs' memory, {MIN_RAM_GB.value:g} GB at least)")
        (fitting if size >= want else short).append((price, kit, n, why))
    choice = _cheapest(fitting)
    if choice is None and short:  # no kit is large enough: the largest, cheapest among equals
        biggest = max(k[1].module_size or 0 for k in short)
        choice = _cheapest([k for k in short if k[1].module_size == biggest])
    if choice is None:
        return None
    price, kit, n, why = choice
    return BaseItem("ram", kit, n, why)


def _ssd(parts: list[BasePart]) -> BaseItem | None:
    drives = [p for p in parts if p.role == "ssd" and p.capacity and (p.interface or "").startswith("nvme")]
    large = [(math.inf if p.price is None else p.price, p, 1, f"an NVMe system drive of at least "
              f"{SSD_MIN_GB.value / 1000:g} TB") for p in drives if (p.capacity or 0) >= SSD_MIN_GB.value]
    choice = _cheapest(large)
    if choice is None:
        return None
    return BaseItem("ssd", choice[1], 1, choice[3])


def _cooler(parts: list[BasePart], cpu: Cpu) -> BaseItem | None:
    heat = cpu.package_power or cpu.tdp
    socket = _norm(cpu.socket)
    coolers = [(math.inf if p.price is None else p.price, p, 1,
                f"mounts on {cpu.socket} and is rated for {p.cooler_tdp:g} W, the CPU sustains {heat:g} W")
               for p in parts if p.role == "cooler" and p.cooler_type != "server-passive"
               and socket in {_norm(s) for s in p.sockets} and (p.cooler_tdp or 0) >= heat]
    choice = _cheapest(coolers)
    if choice is None:
        return None
    return BaseItem("cooler", choice[1], 1, choice[3])
