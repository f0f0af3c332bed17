"""Which PSU plugs feed which inputs (docs/verdicts.md psu.connectors).

A card's power inputs take native plugs of their kind; a PCIe 6-pin input takes a PSU's PCIe 6+2 plug, like an
8-pin one (the PSU plugs counted as "PCIe 8-pin" are 6+2). A 12VHPWR / 12V-2x6 input on a PSU without (enough)
native 12VHPWR plugs takes the card's adapter from ⌈power ÷ 150 W⌉ PCIe 8-pin plugs (2–4, what its sense pins
ask for); an EPS input on a workstation card takes a dual PCIe 8-pin adapter. Native plugs go to the cards
whose adapters would take the most 8-pin plugs. The CPU takes EPS plugs from the PSU that feeds the
motherboard, one per started 300 W, never through an adapter.

Where a unit's PCIe, EPS (and 12VHPWR) cables share its modular sockets (`shared_sockets`, e.g. ten on the
Corsair AX1600i), the sockets are a second budget: each cable takes `socket_use` of them (one per 8-pin cable,
two per 12VHPWR cable that ends in two 8-pin plugs at the PSU). A native cable takes no more sockets than the
adapter it spares (a 12VHPWR cable 0–2 against an adapter's 2–4 PCIe plugs, an EPS cable 1 against 2), so the
allocation above also uses the fewest sockets.
"""


import math
from collections.abc import Sequence
from typing import NamedTuple

from planner.build.resolve import GpuInstance
from planner.models.parts import Psu, SocketUse
from planner.physics import params
from planner.util.memo import per_part

PCIE, HPWR, EPS = "pcie-8pin", "12vhpwr", "eps-8pin"
SOCKET = "socket"  # PlugUse.short's key for the shared modular sockets
PLUG_NAMES = {PCIE: "PCIe 8-pin", HPWR: "12VHPWR/12V-2x6", EPS: "EPS 8-pin"}


class PlugNeed(NamedTuple):
    """A GPU's power inputs."""

    pcie: int  # PCIe 6-pin and 8-pin inputs: each takes one of the PSU's 6+2 plugs
    hpwr: int  # 12VHPWR / 12V-2x6 inputs
    eps: int  # EPS (CPU 8-pin) inputs
    adapter_plugs: int  # 8-pin plugs an adapter takes per 12VHPWR input


def gpu_plug_need(gpu: GpuInstance) -> PlugNeed:
    """The inputs of a GPU and how many 8-pin plugs a 12VHPWR adapter would take for it."""
    inputs = gpu.board.power_connectors
    hpwr = sum(1 for c in inputs if c in ("12vhpwr", "12v-2x6"))
    adapter = 0
    if hpwr:
        # sense pins select 150/300/450/600 W: enough 8-pins for the highest power the card will be asked for
        per_input = max(gpu.board.tdp, gpu.power_limit) / hpwr
        adapter = min(max(math.ceil(per_input / params.PCIE_8PIN_WATTS.value - 1e-9),
                          int(params.HPWR_ADAPTER_MIN_PLUGS.value)), int(params.HPWR_ADAPTER_MAX_PLUGS.value))
    return PlugNeed(pcie=inputs.count("pcie-8pin") + inputs.count("pcie-6pin"), hpwr=hpwr,
                    eps=inputs.count("eps-8pin"), adapter_plugs=adapter)


def cpu_eps_plugs(cpu_power: float) -> int:
    """EPS plugs the CPU's board needs: one per started 300 W, at least one."""
    return max(1, math.ceil(cpu_power / params.EPS_WATTS.value - 1e-9))


class Adapter(NamedTuple):
    gpu: int  # index into ResolvedBuild.gpus
    input: str  # the card's input it feeds: "12vhpwr" or "eps-8pin"
    plugs: int  # PCIe 8-pin plugs it takes


class PlugUse(NamedTuple):
    """What one PSU's plugs feed."""

    available: dict[str, int]  # native plugs of each kind
    used: dict[str, int]  # plugs of each kind its consumers take
    adapters: tuple[Adapter, ...]  # inputs fed through adapters from PCIe 8-pin plugs
    short: dict[str, int]  # plugs missing, by kind, and SOCKET: shared sockets missing (empty when all is fed)
    sockets: int | None = None  # the unit's shared modular sockets (None: each kind has its own)
    sockets_used: int = 0  # shared sockets the used plugs take

    @property
    def short_total(self) -> int:
        return sum(self.short.values())

    @property
    def sockets_bind(self) -> bool:
        """The shared sockets, not a plug count, are the tightest limit."""
        return SOCKET in self.short and self.short[SOCKET] >= max(
            (n for kind, n in self.short.items() if kind != SOCKET), default=0)


@per_part  # once per catalog unit (callers read it, never change it)
def socket_use(psu: Psu) -> dict[str, int]:
    """Shared sockets one cable of each kind takes on `psu` (read with `psu.shared_sockets`)."""
    use = psu.socket_use or SocketUse()
    hpwr = use.hpwr if use.hpwr is not None else int(params.HPWR_CABLE_SOCKETS.value)
    return {PCIE: use.pcie_8pin, HPWR: hpwr, EPS: use.eps_8pin}


def usable_plugs(psu: Psu, kind: str) -> int:
    """Plugs of one kind the unit can feed at once: its cables of that kind, as many as its shared sockets take."""
    count = {PCIE: psu.connectors.pcie_8pin, HPWR: psu.connectors.hpwr, EPS: psu.connectors.eps_8pin}[kind]
    per = socket_use(psu)[kind]
    if psu.shared_sockets is None or per == 0:
        return count
    return min(count, psu.shared_sockets // per)


def shortage_words(short: dict[str, int]) -> list[str]:
    """'2 PCIe 8-pin plugs', '4 shared sockets': what a PlugUse is short of, in words."""
    return [f"{n} shared socket{'s' if n > 1 else ''}" if kind == SOCKET
            else f"{n} {PLUG_NAMES[kind]} plug{'s' if n > 1 else ''}" for kind, n in short.items()]


def allocate_plugs(psu: Psu, gpus: Sequence[GpuInstance], needs: Sequence[PlugNeed], cpu_eps: int = 0) -> PlugUse:
    """Feed `gpus` (and `cpu_eps` EPS plugs for the CPU) from one PSU's plugs; adapters where natives run out.
    What it reads of the cards is their indices and `needs`: the answer is made once for those (callers read
    it, never change it)."""
    return allocate_to(psu, tuple([g.index for g in gpus]), tuple(needs), cpu_eps)


@per_part  # every candidate split, re-check and optimiser trial that leaves a unit the same cards asks again
def allocate_to(psu: Psu, gpus: tuple[int, ...], needs: tuple[PlugNeed, ...], cpu_eps: int = 0) -> PlugUse:
    """`allocate_plugs` for the cards with these indices (the power split's candidates ask this way)."""
    return _allocate(psu, gpus, needs, cpu_eps)


def _allocate(psu: Psu, gpus: Sequence[int], needs: Sequence[PlugNeed], cpu_eps: int) -> PlugUse:
    connectors = psu.connectors
    available = {PCIE: connectors.pcie_8pin, HPWR: connectors.hpwr, EPS: connectors.eps_8pin}
    pcie = 0
    hpwr_inputs: list[tuple[int, int]] = []
    eps_inputs: list[int] = []
    for index, need in zip(gpus, needs, strict=True):
        pcie += need.pcie
        if need.hpwr:
            hpwr_inputs.extend((need.adapter_plugs, index) for _ in range(need.hpwr))
        if need.eps:
            eps_inputs.extend(index for _ in range(need.eps))
    hpwr_inputs.sort(reverse=True)
    adapters: list[Adapter] = []
    native_hpwr = min(available[HPWR], len(hpwr_inputs))
    for plugs, index in hpwr_inputs[native_hpwr:]:
        adapters.append(Adapter(index, HPWR, plugs))
    native_eps = max(0, min(available[EPS] - cpu_eps, len(eps_inputs)))
    for index in eps_inputs[native_eps:]:
        adapters.append(Adapter(index, EPS, int(params.EPS_ADAPTER_PLUGS.value)))
    used = {PCIE: pcie + sum(a.plugs for a in adapters), HPWR: native_hpwr, EPS: cpu_eps + native_eps}
    short = {kind: used[kind] - available[kind] for kind in (PCIE, EPS) if used[kind] > available[kind]}
    taken = 0
    if psu.shared_sockets is not None:
        per = socket_use(psu)
        taken = sum(used[kind] * per[kind] for kind in (PCIE, HPWR, EPS))
        if taken > psu.shared_sockets:
            short[SOCKET] = taken - psu.shared_sockets
    return PlugUse(available, used, tuple(sorted(adapters)), short, psu.shared_sockets, taken)
