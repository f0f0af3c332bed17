"""What a check sees: the resolved build, the catalogs, settings, and models computed once per run."""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable, Mapping
from functools import cached_property
from typing import TYPE_CHECKING, Any, NamedTuple

from planner.build.resolve import ResolvedBuild
from planner.checks.engine.findings import Change, Finding, Fix
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

#: What each model of the Context reads of the build (planner/checks/engine/registry.py FIELDS): a check that uses a
#: model reads all of it. Where the cards sit reads no CPU, but the generation each link runs at (a mount's
#: `gen`, the PCIe tree) does: a check that states or judges link speeds reads `cpu` too.
_BUDGET = frozenset({"gpus", "gpus.power_limit", "cpu", "ram", "extras"})
_PLACEMENT = frozenset({"gpus", "gpus.mount", "risers", "motherboard", "case"})
_SPLIT = _BUDGET | {"psus", "circuits"}
_THERMAL = _PLACEMENT | _BUDGET | {"ambient", "psus.count"}
MODEL_READS: dict[str, frozenset[str]] = {
    "budget": _BUDGET,  # every load: the cards at their limits, the CPU, memory and extras
    "placement": _PLACEMENT,
    "psu_ratings": frozenset({"psus", "circuits"}),  # a unit's rating at its circuit's voltage
    "power_split": _SPLIT,  # which PSU feeds which card (their plugs, `psu = N`), each PSU's and circuit's load
    "thermal": _THERMAL,  # the cards where they sit at their limits, the heat of the rest and of the PSUs, the room
    "performance": _THERMAL | {"workload"},
}
#: What each model's value depends on, where that is more than what it reads: the placement's mounts state the
#: generation each link runs at, which the CPU caps on its own lanes. A re-check keeps a model of the unchanged
#: build only when the edit touches none of these (unchanged_by).
MODEL_DEPENDS: dict[str, frozenset[str]] = {**MODEL_READS, "placement": _PLACEMENT | {"cpu"}}


class Settings(NamedTuple):
    """Knobs of a check run (CLI flags)."""

    psu_target: float = params.PSU_TARGET_LOAD.value
    region: Region | None = None
    #: judge an estimated figure (plug counts, PSU bays and lengths, heights, a case's fans) as if it were
    #: sourced: what the solver does when it chooses parts, so it never picks a part because its data is
    #: uncertain (docs/verdicts.md); `planner check` leaves it off and warns, naming the estimate
    estimates_as_sourced: bool = False


class Context:
    """One check run of one build. Models several checks read (placement, power split, thermals…) are
    computed on first use and kept for the run."""

    def __init__(self, build: ResolvedBuild, catalog: Catalog, settings: Settings | None = None, *,
                 propose_fixes: bool = True, recheck: Callable[[list[Change]], list[Finding] | None] | None = None,
                 errors_before: set[str] | None = None, models: Mapping[str, Any] | None = None,
                 make_changed: Callable[[list[Change]], Context | None] | None = None, wording: bool = True) -> None:
        self.build = build
        self.catalog = catalog
        self.settings = settings if settings is not None else Settings()
        self.propose_fixes = propose_fixes
        #: whether findings are worded: False where they are only weighed by code, severity and subject (fix
        #: re-checks, the optimiser's trials), and the checks that run there most leave their messages empty
        self.wording = wording
        #: set by the runner: re-checks a changed build and returns its findings (without fixes)
        self.recheck = recheck
        #: codes of the errors the unchanged build has: a fix may leave those but must not add others
        self.errors_before = errors_before if errors_before is not None else set()
        #: findings of re-checked changes, by the changes' repr (see rechecked)
        self._rechecked: dict[str, list[Finding] | None] = {}
        #: set by the runner: a context of the build with changes applied, seeded with the models they leave
        #: (changed_context); contexts a fix asked for before its re-check, by the changes' repr (see changed)
        self.make_changed = make_changed
        self._changed: dict[str, Context | None] = {}
        #: what a check module computes once per run and keeps here (power_limit.py: the optimiser's plan)
        self.memo: dict[str, Any] = {}
        #: placement searches the fixes of this run may still make (planner/placement/solver.py)
        self.placement_allowance = SearchAllowance()
        # models the caller knows for this build (those of a build an edit left them unchanged in: see
        # unchanged_by); each seeds its cached property
        if models is not None:
            if unknown := sorted(models.keys() - MODEL_READS.keys()):
                raise ValueError(f"unknown models {unknown}; the models are context.MODEL_READS")
            self.__dict__.update(models)

    #: Models that depend on the build alone, not on whether fixes are proposed (see proposing).
    _MODELS = ("budget", "placement", "psu_ratings", "power_split", "thermal", "performance")

    def proposing(self, recheck: Callable[[list[Change]], list[Finding] | None], errors_before: set[str],
                  make_changed: Callable[[list[Change]], Context | None] | None = None) -> Context:
        """A context for the same build that proposes fixes, keeping the models this one computed."""
        ctx = Context(self.build, self.catalog, self.settings, propose_fixes=True, recheck=recheck,
                      errors_before=errors_before, make_changed=make_changed)
        ctx.__dict__.update({name: self.__dict__[name] for name in self._MODELS if name in self.__dict__})
        return ctx

    def unchanged_by(self, fields: frozenset[str]) -> dict[str, Any]:
        """The models this context has computed that an edit of only `fields` (registry.FIELDS) leaves as they
        are: those that depend on none of them (MODEL_DEPENDS), to seed the context of the edited build."""
        return {name: self.__dict__[name] for name in self._MODELS
                if name in self.__dict__ and not MODEL_DEPENDS[name] & fields}

    @cached_property
    def budget(self) -> DcBudget:
        return dc_budget(self.build)

    @cached_property
    def placement(self) -> Placement:
        """Where each GPU sits: the build's own `slot = …`/`riser = …`, the exact solver's choice for the rest
        (README: Placement; planner/placement/)."""
        return place(self.build)

    @cached_property
    def psu_ratings(self) -> list[float]:
        return [psu_rating(self.build, i) for i in range(len(self.build.psus))]

    @cached_property
    def power_split(self) -> Split:
        """Which PSU feeds each GPU, each PSU's sustained and peak load, each circuit's wall draw (README: Models and
        their parameters)."""
        return power_split(self.build, self.budget, self.settings.psu_target)

    @cached_property
    def thermal(self) -> Thermal:
        """Case air rise and each GPU's inlet air and temperature (README: Thermals)."""
        return thermal_model(self.build, self.placement, self.budget.rest)

    @cached_property
    def performance(self) -> BuildPerf:
        """Each GPU's and the build's estimated speed at the power limits, after thermal throttling (README: Power-limit
        slowdown)."""
        return build_performance(self.build, [g.power_w for g in self.thermal.gpus])

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
        after = self.rechecked(changes)
        if after is None:  # the changed build does not even resolve
            return None
        cleared = not any(f.code == code and f.severity in ("error", "warning") for f in after)
        new_errors = {f.code for f in after if f.severity == "error"} - self.errors_before
        if not cleared or new_errors:
            return None
        return Fix(description=description, changes=changes, verified=True)

    def changed(self, changes: list[Change]) -> Context | None:
        """A context (without fixes, unworded) of this build with `changes` applied, None when the changed build
        no longer resolves; the runner's (make_changed) is seeded with the models of the unchanged build the edit
        leaves as they are. Made once per edit and run: a fix that asks a model of the changed build first
        (power_fixes: does its split work?) hands it, models and all, to the re-check of the same edit
        (take_changed), which need not resolve the build again."""
        key = repr(changes)
        if key not in self._changed:
            self._changed[key] = self._make_changed(changes)
        return self._changed[key]

    def take_changed(self, changes: list[Change]) -> Context | None:
        """The context `changed` made for this edit (and forgets it: a re-check is made once per edit and run);
        a new one when it made none."""
        key = repr(changes)
        if key in self._changed:
            return self._changed.pop(key)
        return self._make_changed(changes)

    def _make_changed(self, changes: list[Change]) -> Context | None:
        if self.make_changed is not None:
            return self.make_changed(changes)
        return changed_context(self, changes, None)  # which models an edit keeps is the runner's to say

    def rechecked(self, changes: list[Change]) -> list[Finding] | None:
        """The findings (without fixes) of the build with `changes` applied, None when it no longer resolves or
        nothing re-checks in this run; each edit is re-checked once per run (several checks offer the same edit:
        a 240 V outlet…)."""
        if self.recheck is None:
            return None
        key = repr(changes)
        if key not in self._rechecked:
            self._rechecked[key] = self.recheck(changes)
        return self._rechecked[key]


def changed_context(unchanged: Context, changes: list[Change], fields: frozenset[str] | None) -> Context | None:
    """A context (without fixes, not wording its findings: a re-check weighs them by code and severity) of
    `unchanged`'s build with `changes` applied, None when it no longer resolves;
    seeded with the models of `unchanged` that an edit of only `fields` (registry.FIELDS: what `changes` touch)
    leaves as they are, none when `fields` is None."""
    from planner.build.buildfile import validate
    from planner.build.edit import apply
    from planner.build.resolve import resolve
    from planner.util.errors import InputError

    build = unchanged.build
    data = apply(build.raw, changes)
    try:
        changed = resolve(validate(data, "", build.file), data, unchanged.catalog, label=build.file,
                          region=unchanged.settings.region)
    except InputError:
        return None
    models = unchanged.unchanged_by(fields) if fields is not None else None
    return Context(changed, unchanged.catalog, unchanged.settings, propose_fixes=False, models=models,
                   wording=False)
