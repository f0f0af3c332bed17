"""The power-limit optimiser (SPEC §5.2): the highest power limit per GPU that clears every power, outlet
and thermal error, maximising the build's estimated throughput.

It knows nothing about how those checks work: it edits the build's power limits (card minimum ≤ P ≤ its
default board power, in 5 W steps; never below the catalog's minimum, sourced or estimated, and its
description says when it stops at an estimated one), re-runs every registered check whose code starts
with `psu.`, `outlet.` or `thermal.` on the edited build and looks at their errors. Problems that remain even with every
card at its lowest limit (too few connectors, a passive card in a desktop case…) are not its to fix and
are reported as remaining. Lower limits never add such problems, so each card's feasible limits form a
range below a threshold: a binary search on one common fraction of each card's default power finds the
highest feasible level, then single 5 W raises, the most throughput first, use what is left (cards of
different kinds, or a card that throttles anyway).

Limits are set per `[[gpu]]` table of the build file (all cards of a table share one `power_limit`).
"""


from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

from planner.build.resolve import ResolvedBuild
from planner.catalog import Catalog
from planner.checks import REGISTRY, Context, Settings
from planner.checks.findings import Change, Finding
from planner.checks.power_limit import range_tool
from planner.fmt import gpu_labels
from planner.models.parts import GpuBoard
from planner.physics import params

#: Findings the optimiser clears: what a lower power limit can change.
FAMILIES = ("psu.", "outlet.", "thermal.")

ProblemKey = tuple[str, str, tuple[str, ...]]  # code, severity, subject
Limits = tuple[float, ...]  # one per [[gpu]] table, in file order
_Feasible = Callable[[Limits], bool]
_Throughput = Callable[[Limits], float]


class Plan(NamedTuple):
    """The optimiser's answer."""

    limits: dict[int, float]  # power limit per [[gpu]] table (its index in the file)
    changes: list[Change]  # the build-file edits, only for tables whose limit changes
    relative_perf: float  # the build's estimated throughput with these limits, relative to stock
    cost: float  # share of the build's current estimated throughput these limits cost (< 0: a gain)
    clears: list[str]  # codes of the power/outlet/thermal problems it clears
    remaining: list[str]  # codes of power/outlet/thermal problems no power limit clears
    description: str


class _Trial(NamedTuple):
    problems: frozenset[ProblemKey]
    relative_perf: float


class _Search:
    """Evaluates power limits: the build with those limits, re-checked by every registered power, outlet
    and thermal check (no other check looks at power limits; the fix finally offered is re-checked in
    full, through the build file, like every fix)."""

    def __init__(self, build: ResolvedBuild, catalog: Catalog, settings: Settings, severities: tuple[str, ...]):
        self.build, self.catalog, self.settings = build, catalog, settings
        self.severities = severities
        self.groups = sorted({g.spec_index for g in build.gpus})
        self.boards = {g.spec_index: g.board for g in build.gpus}
        self.checks = [r for r in REGISTRY.values() if r.code.startswith(FAMILIES)]
        # where the cards sit does not depend on their power limits: place them once
        self.placement = Context(build, catalog, settings, propose_fixes=False).placement
        self.trials: dict[Limits, _Trial] = {}

    def changes(self, limits: Limits) -> list[Change]:
        return [Change(path=f"gpu[{group}].power_limit", value=f"{limit:g} W")
                for group, limit in zip(self.groups, limits, strict=True)]

    def problems(self, findings: list[Finding]) -> frozenset[ProblemKey]:
        return frozenset((f.code, f.severity, tuple(f.subject)) for f in findings
                         if f.code.startswith(FAMILIES) and f.severity in self.severities)

    def check(self, build: ResolvedBuild) -> _Trial:
        ctx = Context(build, self.catalog, self.settings, propose_fixes=False, placement=self.placement)
        findings = [finding for registered in self.checks for finding in registered.run(ctx)]
        return _Trial(self.problems(findings), ctx.performance.relative_perf)

    def trial(self, limits: Limits) -> _Trial:
        if limits not in self.trials:
            self.trials[limits] = self.check(with_limits(self.build, dict(zip(self.groups, limits, strict=True))))
        return self.trials[limits]


def optimize(build: ResolvedBuild, catalog: Catalog, settings: Settings | None = None, *,
             strict: bool = False, now: tuple[set[str], float] | None = None) -> Plan:
    """The highest power limits that clear every power, outlet and thermal error (with `strict`, their
    warnings too) that a power limit can clear, maximising the build's estimated throughput. `now`: the
    codes of the build's own such problems and its estimated throughput, when the caller knows them."""
    if not build.gpus:
        from planner.errors import InputError

        raise InputError("has no GPUs: there is no power limit to optimise", file=build.file)
    settings = settings or Settings()
    search = _Search(build, catalog, settings, ("error", "warning") if strict else ("error",))
    options = [candidates(search.boards[g]) for g in search.groups]
    lowest = tuple(o[-1] for o in options)
    residual = search.trial(lowest).problems
    if now is None:
        current, perf_now = search.check(build)
    else:  # known by code only: a stand-in key per code, so the build's own limits count as infeasible,
        # which they are whenever a power limit has something to clear (the only time a check asks)
        codes, perf_now = now
        current = frozenset((code, "current", ()) for code in codes)
    limits_now = tuple(next(g.power_limit for g in build.gpus if g.spec_index == group) for group in search.groups)
    if all(limit in values for limit, values in zip(limits_now, options, strict=True)):
        search.trials.setdefault(limits_now, _Trial(current, perf_now))  # the search need not re-run it

    def feasible(limits: Limits) -> bool:
        return search.trial(limits).problems <= residual

    best = search_limits(options, [search.boards[g].tdp for g in search.groups], feasible,
                         lambda limits: search.trial(limits).relative_perf)
    return _plan(build, search, best, current, residual, perf_now)


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


def search_limits(options: list[list[float]], stock: list[float], feasible: _Feasible,
                  throughput: _Throughput) -> Limits:
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


def _highest_common_level(options: list[list[float]], stock: list[float], feasible: _Feasible) -> Limits:
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


def _raise_greedily(start: Limits, options: list[list[float]], feasible: _Feasible,
                    throughput: _Throughput) -> Limits:
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


def _plan(build: ResolvedBuild, search: _Search, best: Limits, current: frozenset[ProblemKey],
          residual: frozenset[ProblemKey], now: float) -> Plan:
    after = search.trial(best)
    cost = 1 - after.relative_perf / now if now else 0.0
    left = {key[0] for key in after.problems}
    clears = sorted({key[0] for key in current} - left)
    limits = dict(zip(search.groups, best, strict=True))
    set_now = {g.spec_index: g.power_limit for g in build.gpus}
    changes = [c for c, group in zip(search.changes(best), search.groups, strict=True)
               if limits[group] != set_now[group]]
    remaining = sorted({key[0] for key in residual})
    return Plan(limits=limits, changes=changes, relative_perf=after.relative_perf, cost=cost, clears=clears,
                remaining=remaining, description=describe(build, limits, cost, clears, remaining))


_COUNT_WORDS = {2: "both", 3: "all three", 4: "all four", 5: "all five", 6: "all six", 7: "all seven",
                8: "all eight"}


def describe(build: ResolvedBuild, limits: dict[int, float], cost: float, clears: Sequence[str],
             remaining: Sequence[str] = ()) -> str:
    """"set 285 W on all four GPUs: −6 % estimated throughput; clears outlet.continuous" (and what rests on
    an estimated minimum: a limit at it, or problems `remaining` even there)"""
    if len(limits) == 1:
        [limit] = limits.values()
        count = len(build.gpus)
        where = "the GPU" if count == 1 else f"{_COUNT_WORDS.get(count, f'all {count}')} GPUs"
        what = f"set {limit:g} W on {where}"
    else:
        parts = []
        for group, limit in limits.items():
            cards = [g for g in build.gpus if g.spec_index == group]
            parts.append(f"{limit:g} W on {gpu_labels(g.index for g in cards)} ({cards[0].board.name})")
        what = "set " + ", ".join(parts)
    price = f"{-cost * 100:+.0f} % estimated throughput".replace("-", "−")
    if price.startswith(("+0 ", "−0 ")):
        price = "no measurable throughput cost"
    return (f"{what}: {price}" + (f"; clears {', '.join(clears)}" if clears else "")
            + _estimated_floors(build, limits, remaining))


def _estimated_floors(build: ResolvedBuild, limits: dict[int, float], remaining: Sequence[str]) -> str:
    """The search never goes below a card's minimum. Where that minimum is only the catalog's estimate and
    it shapes the answer (a limit stops at it, or problems remain even there), say so: the card's real
    minimum may differ, and the driver enforces that one."""
    notes = []
    for group, limit in limits.items():
        gpu = next(g for g in build.gpus if g.spec_index == group)
        board = gpu.board
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


def apply_to_toml(text: str, changes: Sequence[Change], note: str) -> str:
    """The build file's text with `changes` applied, keeping the user's comments, order and layout; a key
    the file did not have gets `note` as its comment."""
    import tomlkit  # only `planner optimize` and saving need it

    from planner.build.edit import parse_path, set_path

    document = tomlkit.parse(text)
    for change in changes:
        tokens = parse_path(change.path)
        parent: Any = document
        for token in tokens[:-1]:
            parent = parent[token]
        if tokens[-1] in parent:
            set_path(document, change.path, change.value)  # tomlkit keeps the old value's comment
        else:
            value = tomlkit.item(change.value)
            value.comment(note)
            parent[tokens[-1]] = value
    return tomlkit.dumps(document)
