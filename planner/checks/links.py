"""PCIe links and slot positions as the fit checks state them: bandwidth per lane and what a narrower link costs,
the mounts the placement gives the cards, positions as words, and what a verdict on an estimated slot layout says.

Shared by the case, slot, pcie and riser checks (and the recommender's bandwidth figures); it imports no check.
"""

from __future__ import annotations

from collections.abc import Iterable

from planner.checks.engine.context import Context
from planner.placement import params as placement_params
from planner.placement.layout import Layout
from planner.placement.mounts import GpuMount

USABLE_LANES = 4  # below x4 a GPU is starved: an error, not a warning (docs/verdicts.md slot.lanes)
#: A link of at least half the card's lanes at PCIe 4.0 or newer (x8 of x16: 15.8 GB/s each way, what a PCIe 3.0
#: x16 slot gave) is how builders run two to four cards on CPU lanes: Dettmers' guide ("x8 is fine for 2–4
#: GPUs", written for PCIe 3.0), Puget Systems' PCIe 4.0 x8 vs x16 tests (a few percent at most). It is stated
#: (info), not warned; narrower or older links warn with their cost (docs/verdicts.md, slot.lanes).
FINE_LINK_GEN = 4


def fine_link(lanes: int, full: int, gen: int) -> bool:
    """Whether a narrowed link is one builders run without concern (FINE_LINK_GEN)."""
    return lanes * 2 >= full and gen >= FINE_LINK_GEN


def lane_bandwidth(gen: int) -> float:
    """GB/s per lane and direction: Gen1 0.25, Gen2 0.5, then 0.985 (Gen3) doubling each generation."""
    if gen <= 2:
        return 0.25 * gen
    return placement_params.PCIE_GEN3_LANE_BANDWIDTH.value * 2 ** (gen - 3)


def cost(lanes: int, full: int, gen: int) -> str:
    """What a link of `lanes` instead of `full` lanes costs, in bandwidth and in practice."""
    bandwidth = f"PCIe {gen}.0 x{lanes} moves {lanes * lane_bandwidth(gen):.1f} GB/s each way instead of " \
                f"{full * lane_bandwidth(gen):.1f} GB/s at x{full}"
    if lanes < USABLE_LANES:
        return f"{bandwidth}: too narrow for a GPU (loading a model and every batch crawl)"
    if lanes * 2 >= full:
        return (f"{bandwidth}; expected cost: small for training and inference that keep their data on the GPU "
                "(Dettmers: x8 is fine for 2–4 GPUs), more where GPUs exchange gradients over PCIe without NVLink")
    return (f"{bandwidth}; expected cost: weights load {full // lanes}× slower and multi-GPU training without "
            "NVLink slows noticeably; single-GPU inference barely notices once the model is loaded")


ESTIMATED = "slot positions of this board are estimated; check its manual"


def estimated_note(layout: Layout) -> str:
    """What a verdict that rests on an estimated slot layout must say."""
    return f" ({ESTIMATED})" if layout.estimated else ""


def span(positions: Iterable[int]) -> str:
    positions = sorted(positions)
    if len(positions) == 1:
        return f"position {positions[0]}"
    return f"positions {positions[0]}–{positions[-1]}"


def placed_mounts(ctx: Context) -> list[GpuMount]:
    """The mounts of the cards the placement placed."""
    return [m for m in ctx.placement.mounts if m is not None]


def linked_mounts(ctx: Context) -> list[GpuMount]:
    """The mounts of the placed cards that have a slot and a link width."""
    return [m for m in ctx.placement.mounts if m is not None and m.slot is not None and m.lanes is not None]
