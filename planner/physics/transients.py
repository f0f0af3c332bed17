"""Transient peaks against PSU excursion capability, at the ~1 ms scale (SPEC §4.4).

A GPU's peak is its power limit × transient_ratio (its board's figure, else its chip's, else its
architecture's, else the default). A PSU rides peaks up to its excursion capability: 180 % of its rating
for ATX 3.x units above 450 W with a 12VHPWR output, 145 % for smaller ATX 3.x units or ones without
12VHPWR, a conservative 123 % for ATX 2.x; a unit whose maker states ATX 3.0 excursions only up to some
load (`excursion_rating`) is rated at that load.
"""


from typing import NamedTuple

from planner.fmt import percent, watts
from planner.models.parts import Psu
from planner.physics import params
from planner.resolve import GpuInstance


class Ratio(NamedTuple):
    value: float
    basis: str  # where it comes from, in words: "its board", "the ampere default"…


def transient_ratio(gpu: GpuInstance) -> Ratio:
    """Peak ÷ power limit of a GPU at the ~1 ms scale, and where the figure comes from."""
    if gpu.board.transient_ratio is not None:
        return Ratio(gpu.board.transient_ratio, "the card's own figure")
    if gpu.chip.transient_ratio is not None:
        return Ratio(gpu.chip.transient_ratio, f"the {gpu.chip.name} figure")
    row = params.TRANSIENT_RATIO_BY_ARCHITECTURE.values.get(gpu.chip.architecture)
    if row and row[0] is not None:
        return Ratio(row[0], f"the {gpu.chip.architecture.capitalize()} default")
    return Ratio(params.DEFAULT_TRANSIENT_RATIO.value, "the planner's default for cards with no measurement")


def gpu_peak(gpu: GpuInstance) -> float:
    """A GPU's transient peak, W."""
    return gpu.power_limit * transient_ratio(gpu).value


class Capability(NamedTuple):
    peak: float  # DC watts the PSU rides for ~1 ms
    basis: str  # why, in words


def excursion_capability(psu: Psu, rating: float) -> Capability:
    """The ~1 ms peak a PSU rides without its protection tripping, given its rating on this circuit."""
    big_with_hpwr = rating > 450 and psu.connectors.hpwr > 0
    factor = params.ATX3_EXCURSION.value if big_with_hpwr else params.ATX3_SMALL_EXCURSION.value
    if psu.excursion_rating is not None:
        base = min(psu.excursion_rating, rating)
        return Capability(factor * base, f"its maker rates ATX 3.0 excursions only up to {watts(base)}:"
                                         f" {percent(factor)} of that for 1 ms")
    if psu.atx_version in ("3.0", "3.1"):
        return Capability(factor * rating, f"ATX {psu.atx_version}: {percent(factor)} of its rating for 1 ms")
    factor = params.ATX2_EXCURSION.value
    return Capability(factor * rating, f"ATX 2.x has no excursion rule: assumed {percent(factor)} of its rating")
