"""A placement's records: each GPU's mount and the placement of them all (no logic, no imports of the solver)."""

from typing import NamedTuple


class GpuMount(NamedTuple):
    """One GPU's place in the build."""

    gpu: int  # index into ResolvedBuild.gpus
    mount: str  # motherboard slot name ("PCIEX16_1") or a riser mount ("vertical-1")
    positions: tuple[int, ...]  # case expansion-slot positions the card covers (empty off the slot row)
    lanes: int | None  # electrical lanes after lane-sharing rules; None while not worked out
    riser: str | None  # riser id, when the card is on one
    slot: str | None = None  # the motherboard slot the card, or its riser cable, plugs into
    gen: int | None = None  # PCIe generation of the link (lowest of slot, card and, on CPU lanes, CPU)


class Placement(NamedTuple):
    """Every GPU's mount, in build order, or why no placement exists."""

    mounts: tuple[GpuMount | None, ...]  # None: this GPU is not placed
    feasible: bool
    reason: str | None = None

    def of(self, gpu: int) -> GpuMount | None:
        return self.mounts[gpu] if gpu < len(self.mounts) else None
