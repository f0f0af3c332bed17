"""Power-limit arithmetic shared by the optimiser (optimize.py) and the checks that search limits on a model
of their own (thermal.py): the limits a card can be set to, the search for the highest feasible ones, the build
with given limits, how an answer is worded, and where a card's settable range is read.

The search relies on one property of what it is asked: lower limits never add a problem, so each card's feasible
limits form a range below a threshold. A binary search on one common fraction of each card's default power finds
the highest feasible level, then single 5 W raises, the most throughput first, use what is left (cards of
different kinds, or a card that throttles anyway).
"""

from collections.abc import Callable, Sequence

from planner.build.resolve import ResolvedBuild
from planner.models.parts import GpuBoard
from planner.physics import params
from planner.util.fmt import gpu_labels

Limits = tuple[float, ...]  # one per [[gpu]] table, in file order
Feasible = Callable[[Limits], bool]
Throughput = Callable[[Limits], float]


def candidates(board: GpuBoard) -> list[float]:
    """Settable limits for a card, highest first: its default power, then 5 W steps down to its minimum."""
    step = params.POWER_LIMIT_STEP.value
    values = [board.tdp]
    value = (board.tdp // step) * step
    if value == board.tdp:
        value -= step
    while value > board.power_limit_min:
        values.append(value)
        value -= step
    values.append(board.power_limit_min)
    return values


def search_limits(options: list[list[float]], stock: list[float], feasible: Feasible,
                  throughput: Throughput) -> Limits:
    """The highest feasible limits, one per table (`options`: each table's candidates, highest first;
    every table at its lowest must be feasible): a common level first, then single raises."""
    best = _highest_common_level(options, stock, feasible)
    if len(options) > 1:
        best = _raise_greedily(best, options, feasible, throughput)
    return best


def with_limits(build: ResolvedBuild, limits: dict[int, float]) -> ResolvedBuild:
    """The build with these power limits per [[gpu]] table, for a model to evaluate directly (not
    re-validated: limits come from `candidates`, within the card's range)."""
    gpus = [g._replace(power_limit=limits.get(g.spec_index, g.power_limit), power_limit_set=True)
            for g in build.gpus]
    return build._replace(gpus=gpus)


def _highest_common_level(options: list[list[float]], stock: list[float], feasible: Feasible) -> Limits:
    """Binary search over one common fraction of each table's default power."""

    def at(fraction: float) -> Limits:
        return tuple(next((v for v in values if v <= fraction * p0 + 1e-9), values[-1])
                     for values, p0 in zip(options, stock, strict=True))

    levels = sorted({v / p0 for values, p0 in zip(options, stock, strict=True) for v in values}, reverse=True)
    low, high = 0, len(levels) - 1  # levels[high] (every card at its minimum) is feasible by construction
    if feasible(at(levels[0])):
        return at(levels[0])
    while high - low > 1:  # invariant: levels[low] infeasible, levels[high] feasible
        middle = (low + high) // 2
        if feasible(at(levels[middle])):
            high = middle
        else:
            low = middle
    return at(levels[high])


def _raise_greedily(start: Limits, options: list[list[float]], feasible: Feasible,
                    throughput: Throughput) -> Limits:
    """Raise one table by one step at a time, the largest throughput gain first, while it stays feasible."""
    best = start
    while True:
        raised = []
        for i, values in enumerate(options):
            position = values.index(best[i])
            if position == 0:
                continue
            trial = (*best[:i], values[position - 1], *best[i + 1:])
            if feasible(trial):
                raised.append((throughput(trial), -i, trial))
        if not raised:
            return best
        best = max(raised)[2]


_COUNT_WORDS = {2: "both", 3: "all three", 4: "all four", 5: "all five", 6: "all six", 7: "all seven",
                8: "all eight"}


def describe(build: ResolvedBuild, limits: dict[int, float], cost: float, clears: Sequence[str],
             remaining: Sequence[str] = ()) -> str:
    """"set 285 W on all four GPUs: −6 % estimated throughput; clears outlet.continuous" (and what rests on
    an estimated minimum: a limit at it, or problems `remaining` even there)"""
    if len(set(limits.values())) == 1 and {g.spec_index for g in build.gpus} <= limits.keys():
        [limit] = set(limits.values())
        count = len(build.gpus)
        where = "the GPU" if count == 1 else f"{_COUNT_WORDS.get(count, f'all {count}')} GPUs"
        what = f"set {limit:g} W on {where}"
    else:  # one clause per limit and card model, however many [[gpu]] tables list those cards
        alike: dict[tuple[float, str], list[int]] = {}
        for gpu in build.gpus:
            if gpu.spec_index in limits:
                alike.setdefault((limits[gpu.spec_index], gpu.board.name), []).append(gpu.index)
        what = "set " + ", ".join(f"{limit:g} W on {gpu_labels(cards)} ({name})"
                                  for (limit, name), cards in alike.items())
    price = f"{-cost * 100:+.0f} % estimated throughput".replace("-", "−")
    if price.startswith(("+0 ", "−0 ")):
        price = "no measurable throughput cost"
    return (f"{what}: {price}" + (f"; clears {', '.join(clears)}" if clears else "")
            + _estimated_floors(build, limits, remaining))


def _estimated_floors(build: ResolvedBuild, limits: dict[int, float], remaining: Sequence[str]) -> str:
    """The search never goes below a card's minimum. Where that minimum is only the catalog's estimate and
    it shapes the answer (a limit stops at it, or problems remain even there), say so: the card's real
    minimum may differ, and the driver enforces that one."""
    notes: list[str] = []
    seen: set[tuple[str, float]] = set()
    for group, limit in limits.items():
        gpu = next(g for g in build.gpus if g.spec_index == group)
        board = gpu.board
        if (board.id, limit) in seen:  # the same card at the same limit from another [[gpu]] table: said once
            continue
        seen.add((board.id, limit))
        if "power_limit_min" not in board.estimated or not (limit == board.power_limit_min or remaining):
            continue
        check = f"check it with {range_tool(gpu.chip.maker, below=True)}"
        if limit == board.power_limit_min:
            notes.append(f"{limit:g} W is the {board.name}'s minimum by estimate ({check})")
        else:
            verb = "remains" if len(remaining) == 1 else "remain"
            notes.append(f"{', '.join(remaining)} {verb} even at the {board.name}'s minimum, "
                         f"{board.power_limit_min:g} W by estimate ({check})")
    return "; " + "; ".join(notes) if notes else ""


def range_tool(maker: str, below: bool) -> str:
    """Where a card's settable power range is read, by its chip's maker (docs/verdicts.md `power-limit.range`)."""
    if maker == "NVIDIA":
        return f'`nvidia-smi -q -d POWER` ("{"Min" if below else "Max"} Power Limit")'
    if maker == "AMD":
        # amdgpu enforces the card firmware's range (power1_cap_min since Linux 6.7 on RDNA 3);
        # amd-smi and rocm-smi read it from the driver's hwmon files
        return (f"`amd-smi static --limit` or `rocm-smi --showmaxpower` (the amdgpu driver's "
                f"power1_cap_{'min' if below else 'max'})")
    return "the vendor's management tool"


def alike_tables(build: ResolvedBuild) -> dict[int, list[int]]:
    """The build's [[gpu]] tables in classes of the same card (board, current limit, PSU pin), each class by its
    first table: the limit searches give a class one limit, so sixteen tables of one card search like one table
    of sixteen (and say one clause, not sixteen), whichever of them sit on riser cables."""
    classes: dict[tuple[object, ...], list[int]] = {}
    for gpu in build.gpus:
        key = (gpu.board.id, gpu.power_limit, gpu.psu)
        tables = classes.setdefault(key, [])
        if gpu.spec_index not in tables:
            tables.append(gpu.spec_index)
    return {tables[0]: tables for tables in classes.values()}


def per_table(members: dict[int, list[int]], groups: Sequence[int], limits: Sequence[float]) -> dict[int, float]:
    """Each [[gpu]] table's limit, from one limit per class (`groups`: the classes' first tables)."""
    return {table: limit for group, limit in zip(groups, limits, strict=True) for table in members[group]}

