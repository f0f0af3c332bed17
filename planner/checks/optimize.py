"""The power-limit optimiser (README: Power-limit optimiser): the highest power limit per GPU that clears every error a
power limit can change, maximising the build's estimated throughput.

It knows nothing about how those checks work: it edits the build's power limits (card minimum ≤ P ≤ its
default board power, in 5 W steps; never below the catalog's minimum, sourced or estimated, and its
description says when it stops at an estimated one), re-runs every registered check that declares it reads
power limits (`power_limit_codes()`: today the PSU, outlet and thermal checks and power-limit.range) on the
edited build and looks at their errors. Problems of those checks that remain even with every card at its lowest
limit (too few connectors…) are not its to fix and are reported as remaining. Lower limits never add such
problems, so each card's feasible limits form a range below a threshold (the search: limits.py).

Limits are set per `[[gpu]]` table of the build file (all cards of a table share one `power_limit`).
"""


from collections.abc import Sequence
from typing import Any, NamedTuple

from planner.build.resolve import ResolvedBuild
from planner.catalog import Catalog
from planner.checks.engine.context import Context, Settings
from planner.checks.engine.findings import Change, Finding
from planner.checks.engine.registry import codes_reading, informing, registered
from planner.checks.limits import Limits, alike_tables, candidates, describe, per_table, search_limits, with_limits
from planner.util import tomlfile

ProblemKey = tuple[str, str, tuple[str, ...]]  # code, severity, subject


def power_limit_codes() -> frozenset[str]:
    """The checks whose errors and warnings a power limit can change: those that read power limits (an informing
    check reports neither)."""
    return codes_reading("gpus.power_limit") - informing()


class Plan(NamedTuple):
    """The optimiser's answer."""

    limits: dict[int, float]  # power limit per [[gpu]] table (its index in the file)
    changes: list[Change]  # the build-file edits, only for tables whose limit changes
    relative_perf: float  # the build's estimated throughput with these limits, relative to stock
    cost: float  # share of the build's current estimated throughput these limits cost (< 0: a gain)
    clears: list[str]  # codes of the problems it clears (of the checks that read power limits)
    remaining: list[str]  # codes of such problems no power limit clears
    description: str


class _Trial(NamedTuple):
    problems: frozenset[ProblemKey]
    relative_perf: float


class _Search:
    """Evaluates power limits: the build with those limits, re-checked by every registered check that reads
    power limits (no other check's findings can change; the fix finally offered is re-checked in full, through
    the build file, like every fix)."""

    def __init__(self, build: ResolvedBuild, catalog: Catalog, settings: Settings, severities: tuple[str, ...]):
        self.build, self.catalog, self.settings = build, catalog, settings
        self.severities = severities
        # [[gpu]] tables of the same card share one limit, however the file lists them: `self.groups` holds the
        # first table of each such class, `self.members` every table of it
        self.members = alike_tables(build)
        self.groups = sorted(self.members)
        self.boards = {g.spec_index: g.board for g in build.gpus}
        self.codes = power_limit_codes()
        self.checks = [r for r in registered().values() if r.code in self.codes]
        # where the cards sit and the PSUs' ratings do not depend on the power limits: work them out once, and
        # seed every trial with the models an edit of power limits leaves as they are
        base = Context(build, catalog, settings, propose_fixes=False)
        for model in ("placement", "psu_ratings"):
            getattr(base, model)
        self.models = base.unchanged_by(frozenset({"gpus.power_limit"}))
        self.trials: dict[Limits, _Trial] = {}

    def per_table(self, limits: Limits) -> dict[int, float]:
        """Each [[gpu]] table's limit, from one limit per class of alike tables."""
        return per_table(self.members, self.groups, limits)

    def changes(self, limits: Limits) -> list[Change]:
        return [Change(path=f"gpu[{table}].power_limit", value=f"{limit:g} W")
                for table, limit in sorted(self.per_table(limits).items())]

    def problems(self, findings: list[Finding]) -> frozenset[ProblemKey]:
        return frozenset((f.code, f.severity, tuple(f.subject)) for f in findings
                         if f.code in self.codes and f.severity in self.severities)

    def check(self, build: ResolvedBuild) -> _Trial:
        ctx = Context(build, self.catalog, self.settings, propose_fixes=False, models=self.models, wording=False)
        findings = [finding for registered in self.checks for finding in registered.run(ctx)]
        return _Trial(self.problems(findings), ctx.performance.relative_perf)

    def trial(self, limits: Limits) -> _Trial:
        if limits not in self.trials:
            self.trials[limits] = self.check(with_limits(self.build, self.per_table(limits)))
        return self.trials[limits]


def optimize(build: ResolvedBuild, catalog: Catalog, settings: Settings | None = None, *,
             strict: bool = False, now: tuple[set[str], float] | None = None) -> Plan:
    """The highest power limits that clear every error (with `strict`, every warning too) that a power limit
    can clear, maximising the build's estimated throughput. `now`: the
    codes of the build's own such problems and its estimated throughput, when the caller knows them."""
    if not build.gpus:
        from planner.util.errors import InputError

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


def _plan(build: ResolvedBuild, search: _Search, best: Limits, current: frozenset[ProblemKey],
          residual: frozenset[ProblemKey], now: float) -> Plan:
    after = search.trial(best)
    cost = 1 - after.relative_perf / now if now else 0.0
    left = {key[0] for key in after.problems}
    clears = sorted({key[0] for key in current} - left)
    limits = search.per_table(best)
    set_now = {g.spec_index: g.power_limit for g in build.gpus}
    changes = [c for c, table in zip(search.changes(best), sorted(limits), strict=True)
               if limits[table] != set_now[table]]
    remaining = sorted({key[0] for key in residual})
    return Plan(limits=limits, changes=changes, relative_perf=after.relative_perf, cost=cost, clears=clears,
                remaining=remaining, description=describe(build, limits, cost, clears, remaining))


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
    return tomlfile.dumps(document)  # every string and comment escaped as the one TOML writer does
