"""How much speed a power limit costs (README: Power-limit slowdown).

`relative_perf(board, chip, power, workload)` is the card's throughput at `power` divided by its throughput
at its default board power P0 (`board.tdp`). Two sources, in this order:

* a **measured curve** for the workload's kind, interpolated linearly in power fraction: the board's own
  (`GpuBoard.perf_curve`, measured on that board, in fractions of its P0) if it has one, else its chip's
  (`GpuChip.perf_curve`; the RTX 3090 carries Puget's 4-GPU ResNet-50 curve as compute-bound);
* the **DVFS model**: power = static + dynamic, dynamic ∝ f³ (voltage tracks frequency), static ≈ 25 % of
  the chip's reference power Pc, so f/fc = ((P − 0.25 Pc) / (0.75 Pc))^(1/3); throughput ∝ (f/fc)^β, β = 1
  for compute-bound work; memory-bound work (single-stream LLM decode) is nearly flat (small β) down to a
  knee at ~60 % of Pc and follows the clock below it.

A chip's curve and the DVFS model belong to the **chip**, not the board: the silicon's voltage–frequency
curve and its static power (leakage, memory) are the same on every board, so at a given power limit in
watts every board of a chip runs the same clocks. Both are therefore read at P ÷ Pc (the chip's `tdp`) and
divided by their value at the board's own P0 ÷ Pc: a 390 W factory-overclocked RTX 3090 limited to 350 W
runs where a 350 W card runs at stock, ~5 % below its own stock speed (read as 90 % of its own power, the
curve would say ~1 %). The cooler matters only through the thermal model (the power a hot card settles at).

Both are monotone non-decreasing in P and equal 1 at P0. Parameters: planner/physics/params.py.
"""


import bisect
from collections.abc import Sequence
from typing import Literal, NamedTuple

from planner.build.resolve import ResolvedBuild
from planner.models.build import Workload
from planner.models.parts import GpuBoard, GpuChip, PerfCurve
from planner.physics import params

WorkloadKind = Literal["compute-bound", "memory-bound"]

#: The slowdown curve each workload kind follows. Only single-stream LLM inference is dominated
#: by memory bandwidth; training, fine-tuning, image generation and "general" work keep the tensor cores
#: busy (compute-bound is also the conservative choice: it loses more speed per watt).
WORKLOAD_KIND: dict[str, WorkloadKind] = {
    "llm-inference": "memory-bound",
    "llm-finetune": "compute-bound",
    "llm-train": "compute-bound",
    "image-generation": "compute-bound",
    "vision-train": "compute-bound",
    "general": "compute-bound",
}


class PerfEstimate(NamedTuple):
    """A relative throughput and the curve it came from (so reports can say which)."""

    relative_perf: float
    curve: str  # "measured: …" or "DVFS model, compute-bound"
    measured: bool


def workload_kind(workload: Workload | str) -> WorkloadKind:
    return WORKLOAD_KIND.get(workload, "compute-bound")


def clock_fraction(power_fraction: float) -> float:
    """f/f0 at P/P0 under the DVFS model (0 at or below the static floor)."""
    static = params.DVFS_STATIC_FRACTION.value
    dynamic = (power_fraction - static) / (1.0 - static)
    return dynamic ** params.DVFS_FREQUENCY_EXPONENT.value if dynamic > 0 else 0.0


def dvfs_relative_perf(power_fraction: float, kind: WorkloadKind) -> float:
    """Throughput at P/P0 relative to P0 under the DVFS model."""
    clock = clock_fraction(power_fraction)
    if kind == "compute-bound":
        return clock ** params.COMPUTE_BOUND_BETA.value
    beta = params.MEMORY_BOUND_BETA.value
    knee_clock = clock_fraction(params.MEMORY_BOUND_KNEE.value)
    if clock >= knee_clock:
        return clock ** beta
    # below the knee the core clock is the bottleneck: throughput follows it, continuous at the knee
    return knee_clock ** beta * clock / knee_clock


class _Prepared(NamedTuple):
    xs: list[float]  # power fractions, ascending
    ys: list[float]  # relative throughput, made monotone


#: Prepared curves by identity (the dict keeps each curve alive, so an id is never reused while cached).
_PREPARED: dict[int, tuple[PerfCurve, _Prepared]] = {}


def _prepare(curve: PerfCurve) -> _Prepared:
    cached = _PREPARED.get(id(curve))
    if cached is not None and cached[0] is curve:
        return cached[1]
    points = sorted((p.power_fraction, p.relative_perf) for p in curve.points)
    xs = [x for x, _ in points]
    ys: list[float] = []
    for _, y in points:  # running maximum: a noisy dip in a digitised plot must not make the curve fall
        ys.append(max(y, ys[-1]) if ys else y)
    prepared = _Prepared(xs, ys)
    if len(_PREPARED) > 256:  # inline parts make new curve objects on every resolve: stay bounded
        _PREPARED.clear()
    _PREPARED[id(curve)] = (curve, prepared)
    return prepared


def _curve_value(curve: _Prepared, fraction: float, kind: WorkloadKind) -> float:
    """The measured curve at `fraction`; outside the measured range it follows the DVFS model's shape
    from the nearest measured point."""
    xs, ys = curve.xs, curve.ys
    if fraction <= xs[0] or fraction >= xs[-1]:
        edge = 0 if fraction <= xs[0] else -1
        base = dvfs_relative_perf(xs[edge], kind)
        return ys[edge] * dvfs_relative_perf(fraction, kind) / base if base > 0 else ys[edge]
    right = bisect.bisect_left(xs, fraction)
    x0, x1, y0, y1 = xs[right - 1], xs[right], ys[right - 1], ys[right]
    return y0 + (y1 - y0) * (fraction - x0) / (x1 - x0)


class _Curve(NamedTuple):
    """The measured curve a card uses and the power its fractions are of."""

    curve: PerfCurve
    reference_w: float  # the chip's tdp for a chip's curve, the board's for a board's own


def measured_curve(board: GpuBoard, chip: GpuChip, kind: WorkloadKind) -> _Curve | None:
    """The board's own curve for this kind of work, else its chip's, else None."""
    own = next((c for c in board.perf_curve if c.kind == kind), None)
    if own is not None:
        return _Curve(own, board.tdp)
    shared = next((c for c in chip.perf_curve if c.kind == kind), None)
    return _Curve(shared, chip.tdp) if shared is not None else None


def _name(kind: WorkloadKind, measured: _Curve | None) -> str:
    if measured is None:
        return f"DVFS model, {kind}"
    return f"measured {kind} curve, {measured.curve.workload}"


def curve_name(board: GpuBoard, chip: GpuChip, workload: Workload | str) -> str:
    """Which curve `relative_perf` uses for this card and workload, as reports name it."""
    kind = workload_kind(workload)
    return _name(kind, measured_curve(board, chip, kind))


def relative_perf(board: GpuBoard, chip: GpuChip, power: float, workload: Workload | str) -> PerfEstimate:
    """The card's throughput at `power` W relative to its default board power, for this workload."""
    kind = workload_kind(workload)
    measured = measured_curve(board, chip, kind)
    name = _name(kind, measured)
    if measured is None:  # the chip's DVFS model, read in fractions of the chip's reference power
        stock = dvfs_relative_perf(board.tdp / chip.tdp, kind)
        value = dvfs_relative_perf(power / chip.tdp, kind)
        return PerfEstimate(value / stock if stock > 0 else 1.0, name, False)
    prepared = _prepare(measured.curve)
    stock = _curve_value(prepared, board.tdp / measured.reference_w, kind)
    value = _curve_value(prepared, power / measured.reference_w, kind)
    return PerfEstimate(value / stock if stock > 0 else 1.0, name, True)


def stock_throughput(chip: GpuChip, workload: Workload | str) -> float:
    """A card's weight in a build's throughput-weighted speed: dense fp16 tensor TFLOPS for compute-bound
    work (fp32 TFLOPS, then the board power, where the chip has none), memory bandwidth for memory-bound."""
    if workload_kind(workload) == "memory-bound":
        return chip.memory_bandwidth
    return chip.tensor_fp16 or chip.fp32 or chip.tdp


class GpuPerf(NamedTuple):
    """One card's estimated speed: at its power limit, and at the power it really draws (which is lower
    while it throttles to hold its temperature target)."""

    gpu: int
    power_limit_w: float
    power_w: float
    at_limit: float  # relative to stock, from the power limit alone
    relative_perf: float  # relative to stock, including thermal throttling
    curve: str


class BuildPerf(NamedTuple):
    gpus: tuple[GpuPerf, ...]
    relative_perf: float  # whole build, weighted by each card's stock throughput for the workload
    kind: WorkloadKind


def build_performance(build: ResolvedBuild, powers: Sequence[float]) -> BuildPerf:
    """Each card's and the build's speed relative to every card at its default power. `powers`: what
    each card draws (its power limit, or less where the thermal model throttles it)."""
    cards = []
    weighted = total = 0.0
    estimates: dict[tuple[int, float], PerfEstimate] = {}  # cards of one [[gpu]] table share a board

    def estimate(spec_index: int, board: GpuBoard, chip: GpuChip, power: float) -> PerfEstimate:
        key = (spec_index, power)
        if key not in estimates:
            estimates[key] = relative_perf(board, chip, power, build.workload)
        return estimates[key]

    for gpu, power in zip(build.gpus, powers, strict=True):
        at_limit = estimate(gpu.spec_index, gpu.board, gpu.chip, gpu.power_limit)
        drawn = estimate(gpu.spec_index, gpu.board, gpu.chip, power) if power < gpu.power_limit else at_limit
        cards.append(GpuPerf(gpu.index, gpu.power_limit, power, at_limit.relative_perf, drawn.relative_perf,
                             at_limit.curve))
        weight = stock_throughput(gpu.chip, build.workload)
        weighted += weight * drawn.relative_perf
        total += weight
    return BuildPerf(tuple(cards), weighted / total if total else 1.0, workload_kind(build.workload))
