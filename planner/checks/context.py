"""What a check sees: the resolved build, the catalogs, settings, and models computed once per run."""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable
from functools import cached_property
from typing import TYPE_CHECKING, NamedTuple

from planner.build.resolve import ResolvedBuild
from planner.checks.findings import Change, Finding, Fix
from planner.fmt import names
from planner.models.build import Region
from planner.physics import params
from planner.physics.delivery import Split, power_split
from planner.physics.power import DcBudget, dc_budget, psu_rating
from planner.physics.slowdown import BuildPerf, build_performance
from planner.physics.thermal import Thermal, thermal_model
from planner.placement import Placement, place
from planner.placement.solver import SearchAllowance

if TYPE_CHECKING:
    from planner.catalog import Catalog
    from planner.optimize import Plan


class Settings(NamedTuple):
    """Knobs of a check run (CLI flags)."""

    psu_target: float = params.PSU_TARGET_LOAD.value
    region: Region | None = None


class Context:
    """One check run of one build. Models several checks read (placement, power split, thermals…) are
    computed on first use and kept for the run."""

    def __init__(self, build: ResolvedBuild, catalog: Catalog, settings: Settings | None = None, *,
                 propose_fixes: bool = True, recheck: Callable[[list[Change]], list[Finding] | None] | None = None,
                 errors_before: set[str] | None = None, placement: Placement | None = None) -> None:
        self.build = build
        self.catalog = catalog
        self.settings = settings if settings is not None else Settings()
        self.propose_fixes = propose_fixes
        #: set by the runner: re-checks a changed build and returns its findings (without fixes)
        self.recheck = recheck
        #: codes of the errors the unchanged build has: a fix may leave those but must not add others
        self.errors_before = errors_before if errors_before is not None else set()
        #: findings of re-checked changes, by the changes' repr (see fix)
        self._rechecked: dict[str, list[Finding] | None] = {}
        #: placement searches the fixes of this run may still make (planner/placement/solver.py)
        self.placement_allowance = SearchAllowance()
        if placement is not None:  # where the cards sit, when the caller knows it (an edit that moves none)
            self.__dict__["placement"] = placement  # seeds the cached property

    #: Models that depend on the build alone, not on whether fixes are proposed (see proposing).
    _MODELS = ("budget", "placement", "psu_ratings", "power_split", "thermal", "performance")

    def proposing(self, recheck: Callable[[list[Change]], list[Finding] | None], errors_before: set[str]) -> Context:
        """A context for the same build that proposes fixes, keeping the models this one computed."""
        ctx = Context(self.build, self.catalog, self.settings, propose_fixes=True, recheck=recheck,
                      errors_before=errors_before)
        ctx.__dict__.update({name: self.__dict__[name] for name in self._MODELS if name in self.__dict__})
        return ctx

    @cached_property
    def budget(self) -> DcBudget:
        return dc_budget(self.build)

    @cached_property
    def placement(self) -> Placement:
        """Where each GPU sits: the build's own `slot = …`/`riser = …`, the exact solver's choice for the rest
        (SPEC §4.7; planner/placement/)."""
        return place(self.build)

    @cached_property
    def psu_ratings(self) -> list[float]:
        return [psu_rating(self.build, i) for i in range(len(self.build.psus))]

    @cached_property
    def power_split(self) -> Split:
        """Which PSU feeds each GPU, each PSU's sustained and peak load, each circuit's wall draw (§4.1–4.4)."""
        return power_split(self.build, self.budget, self.settings.psu_target)

    @cached_property
    def thermal(self) -> Thermal:
        """Case air rise and each GPU's inlet air and temperature (SPEC §4.6)."""
        return thermal_model(self.build, self.placement, self.budget.rest)

    @cached_property
    def performance(self) -> BuildPerf:
        """Each GPU's and the build's estimated speed at the power limits, after thermal throttling (§4.5)."""
        return build_performance(self.build, [g.power_w for g in self.thermal.gpus])

    @cached_property
    def power_limit_plan(self) -> Plan | None:
        """The optimiser's power limits (SPEC §5.2), computed once per run that proposes fixes."""
        if not self.propose_fixes or self.recheck is None:
            return None
        from planner.optimize import FAMILIES, optimize

        codes = {code for code in self.errors_before if code.startswith(FAMILIES)}
        if not codes:
            return None  # nothing a power limit could clear: skip the search
        return optimize(self.build, self.catalog, self.settings, now=(codes, self.performance.relative_perf))

    def power_limit_fix(self, code: str) -> Fix | None:
        """The optimiser's limits as a fix for the error `code`, verified by re-checking: every error it
        names is gone (a warning may stay: it clears errors) and nothing else breaks. None when no power
        limit clears `code`. Any check whose errors a lower power limit can clear may offer it."""
        plan = self.power_limit_plan
        if plan is None or code not in plan.clears or not plan.changes or self.recheck is None:
            return None
        key = repr(plan.changes)
        if key not in self._rechecked:
            self._rechecked[key] = self.recheck(plan.changes)
        after = self._rechecked[key]
        if after is None:
            return None
        errors = {f.code for f in after if f.severity == "error"}
        if errors & set(plan.clears) or errors - self.errors_before:
            return None
        # the optimiser clears errors at the least cost; say which of its problems still warn, so its limits
        # and a check's own (which clears the warning too) do not read as two answers to one question
        warned = sorted({f.code for f in after if f.severity == "warning" and f.code in plan.clears})
        note = f" (errors cleared; {names(warned)} still warn{'s' if len(warned) == 1 else ''})" if warned else ""
        return Fix(description=plan.description + note, changes=plan.changes, verified=True)

    def first_verified(self, tries: Iterable[tuple[str, list[Change]]], code: str, *, wanted: int,
                       most: int) -> list[Fix]:
        """Candidate fixes (description, changes) best first: re-check at most `most` of them and keep the
        first `wanted` that clear `code`."""
        fixes: list[Fix] = []
        for description, changes in itertools.islice(tries, most):
            fix = self.fix(description, changes, code)
            if fix is not None:
                fixes.append(fix)
            if len(fixes) == wanted:
                break
        return fixes

    def fix(self, description: str, changes: list[Change], code: str) -> Fix | None:
        """A fix, verified by re-checking the changed build; None when re-checking shows it does not
        clear `code` or adds a new error."""
        if not changes or self.recheck is None:
            return Fix(description=description, changes=changes, verified=None)
        key = repr(changes)  # several checks offer the same edit (a 240 V outlet…): re-check it once
        if key not in self._rechecked:
            self._rechecked[key] = self.recheck(changes)
        after = self._rechecked[key]
        if after is None:  # the changed build does not even resolve
            return None
        cleared = not any(f.code == code and f.severity in ("error", "warning") for f in after)
        new_errors = {f.code for f in after if f.severity == "error"} - self.errors_before
        if not cleared or new_errors:
            return None
        return Fix(description=description, changes=changes, verified=True)
