"""`planner solve`: complete a partial build into the cheapest machine that passes (README: Completing a partial build).

Modules: `partial` (read a partial build), `reads` (what each check reads, so a partial choice is judged as soon
as it can be), `space` (candidates, prices, objectives, bounds), `search` (the branch and bound), `complete`
(a completion as build-file data and text), `explain` (why each choice, runners-up, what makes it infeasible).
The package never imports the CLI or the TUI.
"""

from __future__ import annotations

from typing import NamedTuple

from planner.build import buildfile
from planner.build.resolve import resolve
from planner.catalog import Catalog
from planner.checks.engine.context import Settings
from planner.report import Report
from planner.solve.complete import to_toml
from planner.solve.explain import BASE_KINDS, Added, added_parts, explain, infeasible_sentence
from planner.solve.partial import Partial, parse_partial, read_partial
from planner.solve.search import Outcome, Search
from planner.solve.space import OBJECTIVES, Objective, ObjectiveName

__all__ = ["OBJECTIVES", "Added", "Partial", "SolveResult", "parse_partial", "platform_spend", "read_partial", "solve"]


class SolveResult(NamedTuple):
    """What `planner solve` answers (its JSON is this, with the report in `planner check`'s JSON form)."""

    file: str
    status: str  # "solved" | "infeasible"
    objective: ObjectiveName
    price_usd: float | None  # what there is to buy: the parts added and those the file gives but does not own
    #                          (null when one has no price)
    added: list[Added]
    build_toml: str | None
    report: Report | None
    searched: int
    space: int
    optimal: bool
    binding: str | None
    reasons: list[str]  # why each added part: what ruled out the cheaper ones
    runners_up: list[str]
    notes: list[str]
    added_usd: float | None = None  # the parts added (the base system included)
    owned_usd: float = 0.0  # the parts the file marks owned, at their prices (known ones)

    @property
    def file_changes(self) -> list[Added]:
        """The added parts the completed build file names (the base system's RAM, SSD and cooler are priced in,
        not written)."""
        return [a for a in self.added if a.kind not in BASE_KINDS]


def solve(partial: Partial, catalog: Catalog, *, objective: ObjectiveName = "cheapest", budget: float | None = None,
          allow_power_limits: bool = False, settings: Settings | None = None, label: str | None = None,
          explain_choices: bool = True, accept_warnings: bool = False) -> SolveResult:
    """Complete `partial` (see the package docstring); `label`: the file name the completed build's report gives."""
    settings = settings or Settings(region=partial.region)  # type: ignore[arg-type]
    fixed = _fixed_spend(partial)
    search = Search(partial, catalog, Objective(objective, fixed, budget), allow_power_limits=allow_power_limits,
                    settings=settings, accept_warnings=accept_warnings)
    outcome = search.run()
    best = outcome.best
    if best is None:
        notes = _notes(search, outcome)
        notes.extend(f"would lift this bound: {option}" for option in search.openings())
        return SolveResult(partial.file, "infeasible", objective, None, [], None, None, outcome.searched,
                           outcome.space, outcome.proved, infeasible_sentence(search, outcome), [], [], notes)
    text = to_toml(partial, best.raw)
    report = _verified_report(text, label or partial.file, catalog, settings, partial)
    added = added_parts(search, best)
    reasons, runners, binding = explain(search, best) if explain_choices else ([], [], None)
    added_usd = None if best.price.unpriced else best.price.usd
    to_buy = None if added_usd is None or _unpriced_given(partial) else added_usd + fixed
    return SolveResult(partial.file, "solved", objective, to_buy, added, text, report, outcome.searched, outcome.space,
                       outcome.proved and not best.price.unpriced, binding, reasons, runners, _notes(search, outcome),
                       added_usd=added_usd, owned_usd=_owned_spend(partial))


def platform_spend(partial: Partial) -> float:
    """Known prices of the board, case, CPU and PSUs the file gives and does not own."""
    base, spec = partial.base, partial.spec
    total = 0.0
    for kind in ("motherboard", "case", "cpu"):
        part = getattr(base, kind)
        if partial.given[kind] and not partial.owned[kind] and part.price is not None:
            total += part.price
    if partial.given["psu"]:
        total += sum(use.part.price or 0.0 for use in base.psus if not spec.psu[use.index].owned)
    return total


def _fixed_spend(partial: Partial) -> float:
    """Known prices of the parts the file gives and does not own (what buying the build costs besides the added)."""
    total = platform_spend(partial)
    for gpu in partial.base.gpus:
        if not partial.spec.gpu[gpu.spec_index].owned and gpu.board.price is not None:
            total += gpu.board.price
        if gpu.riser is not None and gpu.riser.price is not None:
            total += gpu.riser.price
    return total


def _unpriced_given(partial: Partial) -> int:
    """How many parts the file gives and does not own have no price (what there is to buy is then unknown)."""
    base, spec = partial.base, partial.spec
    count = sum(1 for kind in ("motherboard", "case", "cpu")
                if partial.given[kind] and not partial.owned[kind] and getattr(base, kind).price is None)
    if partial.given["psu"]:
        count += sum(1 for use in base.psus if not spec.psu[use.index].owned and use.part.price is None)
    count += sum(1 for gpu in base.gpus if not spec.gpu[gpu.spec_index].owned and gpu.board.price is None)
    return count


def _owned_spend(partial: Partial) -> float:
    """Known prices of the parts the file marks owned (what the machine is worth besides what is bought)."""
    base, spec = partial.base, partial.spec
    total = 0.0
    for kind in ("motherboard", "case", "cpu"):
        part = getattr(base, kind)
        if partial.given[kind] and partial.owned[kind] and part.price is not None:
            total += part.price
    if partial.given["psu"]:
        total += sum(use.part.price or 0.0 for use in base.psus if spec.psu[use.index].owned)
    for gpu in base.gpus:
        if spec.gpu[gpu.spec_index].owned and gpu.board.price is not None:
            total += gpu.board.price
    return total


def _verified_report(text: str, label: str, catalog: Catalog, settings: Settings, partial: Partial) -> Report:
    """The completed build checked as `planner check` checks its file (with fixes); it must pass."""
    from planner.api import check_build

    spec, raw = buildfile.loads(text, label)
    build = resolve(spec, raw, catalog, label=label, text=text, region=settings.region)
    report = check_build(build, catalog, settings)
    if report.verdict == "fail":  # the search checked this very data: a failure here is a bug, never an answer
        raise RuntimeError(f"planner solve: the completed build of {partial.file} fails its check: "
                           + "; ".join(f.code for f in report.findings if f.severity == "error"))
    return report


def _notes(search: Search, outcome: Outcome) -> list[str]:
    notes = []
    if not outcome.proved:
        notes.append(f"the search stopped at its limit after {outcome.searched:,} candidates: the answer is the best "
                     "found, not a proved optimum")
    best = outcome.best
    if best is not None and best.price.unpriced:
        notes.append("no priced part works for every kind: the build includes parts with no price in the catalogs, "
                     "so its total is unknown and not proved the cheapest")
    if best is not None and search.warned:
        refused = ", ".join(f"{code} ({n:,})" for (_, code), n in search.warned.most_common(4))
        notes.append("no completion passes without a warning, so this is the cheapest that only warns; what made "
                     f"the others warn or fail, by check (candidates): {refused}")
    if best is not None and best.completion.limits:
        notes.append(f"power limits lowered (--allow-power-limits): estimated throughput "
                     f"{best.context.performance.relative_perf * 100:.1f} % of stock")
    return notes
