"""What a check sees: the resolved build, the catalogs, settings, and models computed once per run."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING

from planner.checks.findings import Change, Finding, Fix
from planner.models.build import Region
from planner.physics import params
from planner.physics.power import DcBudget, dc_budget, psu_rating
from planner.placement import Placement, explicit_placement
from planner.resolve import ResolvedBuild

if TYPE_CHECKING:
    from planner.catalog import Catalog


@dataclass(frozen=True)
class Settings:
    """Knobs of a check run (CLI flags)."""

    psu_target: float = params.PSU_TARGET_LOAD.value
    region: Region | None = None


@dataclass
class Context:
    build: ResolvedBuild
    catalog: Catalog
    settings: Settings = field(default_factory=Settings)
    propose_fixes: bool = True
    #: set by the runner: re-checks a changed build and returns its findings (without fixes)
    recheck: Callable[[list[Change]], list[Finding] | None] | None = None
    #: codes of the errors the unchanged build has: a fix may leave those but must not add others
    errors_before: set[str] = field(default_factory=set)

    @cached_property
    def budget(self) -> DcBudget:
        return dc_budget(self.build)

    @cached_property
    def placement(self) -> Placement:
        """Where each GPU sits (explicit `slot = …` so far; the solver places the rest)."""
        return explicit_placement(self.build)

    @cached_property
    def psu_ratings(self) -> list[float]:
        return [psu_rating(self.build, i) for i in range(len(self.build.psus))]

    def fix(self, description: str, changes: list[Change], code: str) -> Fix | None:
        """A fix, verified by re-checking the changed build; None when re-checking shows it does not
        clear `code` or adds a new error."""
        if not changes or self.recheck is None:
            return Fix(description=description, changes=changes, verified=None)
        after = self.recheck(changes)
        if after is None:  # the changed build does not even resolve
            return None
        cleared = not any(f.code == code and f.severity in ("error", "warning") for f in after)
        new_errors = {f.code for f in after if f.severity == "error"} - self.errors_before
        if not cleared or new_errors:
            return None
        return Fix(description=description, changes=changes, verified=True)
