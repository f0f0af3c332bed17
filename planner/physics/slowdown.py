"""How much speed a power limit costs (SPEC §4.5).

`relative_perf(board, power, workload)` is the card's throughput at `power` divided by its throughput at
its default board power P0 (`board.tdp`). Two sources, in this order:

* a **measured curve** from the catalog (`GpuBoard.perf_curve`) for the workload's kind, interpolated
  linearly in power fraction (the RTX 3090 FE carries Puget's 4-GPU ResNet-50 curve as compute-bound);
* the **DVFS model**: power = static + dynamic, dynamic ∝ f³ (voltage tracks frequency), static ≈ 25 % of
  P0, so f/f0 = ((P − 0.25 P0) / (0.75 P0))^(1/3); throughput ∝ (f/f0)^β, β = 1 for compute-bound work;
  memory-bound work (single-stream LLM decode) is nearly flat (small β) down to a knee at ~60 % of P0
  and follows the clock below it.

Both are monotone non-decreasing in P and equal 1 at P0. Parameters: planner/physics/params.py.
"""


import bisect
from collections.abc import Sequence
from typing import Literal, NamedTuple

from planner.models.build import Workload
from planner.models.parts import GpuBoard, GpuChip, PerfCurve
from planner.physics import params
from planner.resolve import ResolvedBuild

WorkloadKind = Literal["compute-bound", "memory-bound"]

#: The slowdown curve each workload of SPEC §6 follows. Only single-stream LLM inference is dominated
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
    at_stock: float  # the curve at P0, to normalise by


#: Prepared curves by identity (the dict keeps each curve alive, so an id is never reused while cached).
_PREPARED: dict[int, tuple[PerfCurve, _Prepared]] = {}


def _prepare(curve: PerfCurve, kind: WorkloadKind) -> _Prepared:
    cached = _PREPARED.get(id(curve))
    if cached is not None and cached[0] is curve:
        return cached[1]
    points = sorted((p.power_fraction, p.relative_perf) for p in curve.points)
    xs = [x for x, _ in points]
    ys: list[float] = []
    for _, y in points:  # running maximum: a noisy dip in a digitised plot must not make the curve fall
        ys.append(max(y, ys[-1]) if ys else y)
    prepared = _Prepared(xs, ys, 1.0)
    prepared = prepared._replace(at_stock=_curve_value(prepared, 1.0, kind))
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


def measured_curve(board: GpuBoard, kind: WorkloadKind) -> PerfCurve | None:
    return next((c for c in board.perf_curve if c.kind == kind), None)


def curve_name(board: GpuBoard, workload: Workload | str) -> str:
    kind = workload_kind(workload)
    curve = measured_curve(board, kind)
    if curve is None:
        return f"DVFS model, {kind}"
    return f"measured {kind} curve, {curve.workload}"


def relative_perf(board: GpuBoard, power: float, workload: Workload | str) -> PerfEstimate:
    """The card's throughput at `power` W relative to its default board power, for this workload."""
    kind = workload_kind(workload)
    fraction = power / board.tdp
    curve = measured_curve(board, kind)
    if curve is None:
        return PerfEstimate(dvfs_relative_perf(fraction, kind), f"DVFS model, {kind}", False)
    prepared = _prepare(curve, kind)
    value = _curve_value(prepared, fraction, kind) / prepared.at_stock
    return PerfEstimate(value, f"measured {kind} curve, {curve.workload}", True)


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

    def estimate(spec_index: int, board: GpuBoard, power: float) -> PerfEstimate:
        key = (spec_index, power)
        if key not in estimates:
            estimates[key] = relative_perf(board, power, build.workload)
        return estimates[key]

    for gpu, power in zip(build.gpus, powers, strict=True):
        at_limit = estimate(gpu.spec_index, gpu.board, gpu.power_limit)
        drawn = estimate(gpu.spec_index, gpu.board, power) if power < gpu.power_limit else at_limit
        cards.append(GpuPerf(gpu.index, gpu.power_limit, power, at_limit.relative_perf, drawn.relative_perf,
                             at_limit.curve))
        weight = stock_throughput(gpu.chip, build.workload)
        weighted += weight * drawn.relative_perf
        total += weight
    return BuildPerf(tuple(cards), weighted / total if total else 1.0, workload_kind(build.workload))
