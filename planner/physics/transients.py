"""GPU power excursions against what a PSU rides, per time window (README: Transients).

A GPU's excursions are peaks averaged over the windows reviewers measure (< 1 ms, 1–5 ms, 5–10 ms, 10–20 ms),
as multiples of its power limit: its board's measurement, else its chip's, else its architecture's (measured on
another chip: an assumption for this one), else the planner's default (an assumption). A PSU rides, in each
window, the largest figure that applies to it: its rating (it holds that indefinitely), the ATX 3.x excursion
table where it is rated for it (up to `excursion_rating` on units rated only part of the way), its measured
over-power trip point where a review publishes one, and, for an ATX 2.x unit with no measurement, a default
derived from measured units (an assumption). Protection acts on milliseconds to tens of milliseconds, so the
check compares the windows from 1 ms up; bulk capacitors ride the shorter spikes.
"""


from typing import NamedTuple

from planner.build.resolve import GpuInstance
from planner.models.parts import Excursions, GpuBoard, GpuChip, Psu
from planner.physics import params
from planner.util.fmt import percent, watts
from planner.util.memo import per_part

WINDOWS = params.EXCURSION_WINDOWS


class Excursion(NamedTuple):
    """A GPU's peaks as multiples of its power limit, one per window, and what they rest on."""

    ratios: tuple[float, ...]
    basis: str  # in words: "measured on the NVIDIA GeForce RTX 5090 (Igor's Lab…)"
    measured: bool  # measured on this card or its chip (not borrowed from another chip, not the default)


def _ratios(e: Excursions) -> tuple[float, ...]:
    return (e.under_1ms, e.ms_1_5, e.ms_5_10, e.ms_10_20)


def excursion(gpu: GpuInstance) -> Excursion:
    """A GPU's excursion multiples per window, and where they come from (excursions scale with the power limit:
    a planner assumption, the measurements being at stock power)."""
    return _excursion(gpu.board, gpu.chip)


@per_part  # a card's and its chip's, worked out once per catalog entry (every check and re-check asks)
def _excursion(board: GpuBoard, chip: GpuChip) -> Excursion:
    if board.excursions is not None:
        return Excursion(_ratios(board.excursions), f"measured on this card ({board.excursions.source})", True)
    if chip.excursions is not None:
        return Excursion(_ratios(chip.excursions), f"measured on the {chip.name} ({chip.excursions.source})", True)
    arch = chip.architecture
    row = params.EXCURSIONS_BY_ARCHITECTURE.values.get(arch)
    if row is not None:
        return Excursion(tuple(r or 1.0 for r in row), f"assumed: the {arch.capitalize()} figures, measured on"
                         " another chip", False)
    default = params.DEFAULT_EXCURSIONS.values["default"]
    return Excursion(tuple(r or 1.0 for r in default), f"assumed: no measurement for {arch.capitalize()} cards, so"
                     " the RTX 5090 FE's", False)


def gpu_peak(gpu: GpuInstance, window: int = params.PEAK_WINDOW) -> float:
    """A GPU's peak averaged over one window (default: the shortest one PSU protection acts on), W."""
    return gpu.power_limit * excursion(gpu).ratios[window]


class Capability(NamedTuple):
    """What a PSU rides in each window, DC watts, why, and whether that rests on evidence."""

    watts: tuple[float, ...]
    basis: tuple[str, ...]
    evidence: tuple[bool, ...]  # a rating or a measurement, not an assumption


@per_part  # once per catalog unit and rating: every check and re-check of its build asks
def capability(psu: Psu, rating: float) -> Capability:
    """The largest figure that applies to the PSU in each window, given its rating on this circuit."""
    figures: list[list[tuple[float, str, bool]]] = [[(rating, "its rating", True)] for _ in WINDOWS]
    size = "large" if rating > 450 and psu.connectors.hpwr > 0 else "small"
    table = tuple(f or 0.0 for f in params.ATX3_EXCURSION_TABLE.values[size])
    if psu.excursion_rating is not None:
        base = min(psu.excursion_rating, rating)
        for w, factor in enumerate(table):
            figures[w].append((factor * base, f"rated for ATX 3.0 excursions only up to {watts(base)}:"
                               f" {percent(factor)} of that", True))
    elif psu.atx_version in ("3.0", "3.1"):
        for w, factor in enumerate(table):
            figures[w].append((factor * rating, f"ATX {psu.atx_version}: rated for {percent(factor)} of its"
                               " rating", True))
    if psu.opp_trip is not None:
        for w in range(len(WINDOWS)):
            figures[w].append((psu.opp_trip, f"its measured over-power trip point: {psu.opp_source}", True))
    elif psu.atx_version == "2.x":
        factor = params.ATX2_OPP_DEFAULT.value
        for w in range(len(WINDOWS)):
            figures[w].append((factor * rating, f"assumed: {percent(factor)} of its rating, the 10th percentile of"
                               " measured ATX 2.x units, as none was measured on this one", False))
    best = [max(window, key=lambda f: (f[0], f[2])) for window in figures]
    return Capability(tuple(b[0] for b in best), tuple(b[1] for b in best), tuple(b[2] for b in best))
