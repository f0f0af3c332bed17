"""The checks of SPEC §3 and the runner.

Importing this package registers every built-in check: each module of this package that defines
checks with `@check("code")` (listed in `_CHECK_MODULES`, one per area). Adding an area means adding a
module here and its name below; the CLI and TUI only call `run_checks`.
"""

from __future__ import annotations

import importlib
import re

from planner.build.resolve import ResolvedBuild
from planner.catalog import Catalog
from planner.checks.context import Context, Settings
from planner.checks.findings import SEVERITY_RANK, Change, Finding, Fix
from planner.checks.registry import REGISTRY, check
from planner.errors import InputError
from planner.placement.mounts import Placement

_CHECK_MODULES = ("case", "case_psu", "cpu", "slots", "lanes", "risers", "power", "psu_connectors", "psu_split",
                  "outlet", "power_limit", "thermal")
for _module in _CHECK_MODULES:
    importlib.import_module(f"planner.checks.{_module}")

__all__ = ["REGISTRY", "Change", "Context", "Finding", "Fix", "Settings", "check", "run_checks"]


#: Checks of physical fit: they read the board, case, CPU, RAM, cards and risers, never power limits, PSUs or
#: circuits — but for the PSU-in-case checks (PSU_FIT), which read the PSUs too.
FIT_CHECKS = ("case.", "cpu.", "memory.", "slot.", "pcie.", "riser.")
PSU_FIT = ("case.psu",)
#: The fit checks an edit of power limits, PSUs or circuits cannot change (their findings are kept on re-checks).
_UNMOVED = tuple(code for code in REGISTRY if code.startswith(FIT_CHECKS) and not code.startswith(PSU_FIT))
#: Checks that only inform: a fix is verified on errors and warnings, so re-checks skip them.
INFORMING = tuple(code for code, registered in REGISTRY.items() if registered.informs)
#: Edits that cannot change a fit finding: power limits, PSUs and the circuits they plug into.
_POWER_EDIT = re.compile(r"^(gpu\[\d+\]\.power_limit|psu(\[\d+\](\.(part|circuit))?)?|circuit(\[\d+\](\.[a-z_]+)?)?)$")


def run_checks(build: ResolvedBuild, catalog: Catalog, settings: Settings | None = None, *,
               propose_fixes: bool = True, skip: tuple[str, ...] = (), context: Context | None = None,
               ) -> list[Finding]:
    """Every registered check on a build (but those whose code starts with a `skip` prefix); errors first.
    Fixes are verified by re-checking the changed build. `context`: a context of this build without fixes,
    from a caller that knows some of its models (a re-check's placement) or wants the ones the checks compute
    (the report's summary reads them)."""
    settings = settings or Settings()
    checked = context if context is not None else Context(build, catalog, settings, propose_fixes=False)
    plain = _run(checked, skip)
    if not propose_fixes or not any(f.severity != "info" for f in plain):
        return plain
    fit = [f for f in plain if f.code.startswith(_UNMOVED)]
    ctx = checked.proposing(
        recheck=lambda changes: _recheck(build, catalog, settings, changes, (fit, checked.placement)),
        errors_before={f.code for f in plain if f.severity == "error"})
    return _run(ctx, skip)


def _run(ctx: Context, skip: tuple[str, ...] = ()) -> list[Finding]:
    findings: list[Finding] = []
    for code, registered in REGISTRY.items():
        if not (skip and code.startswith(skip)):
            findings.extend(registered.run(ctx))
    findings.sort(key=lambda f: -SEVERITY_RANK[f.severity])
    return findings


def _recheck(build: ResolvedBuild, catalog: Catalog, settings: Settings, changes: list[Change],
             unchanged: tuple[list[Finding], Placement] | None = None) -> list[Finding] | None:
    """The findings of the build with `changes` applied (None: it no longer resolves). An edit of power
    limits, PSUs or circuits cannot move a card, so the fit checks' findings and the placement are the
    unchanged build's (`unchanged`, when the caller has them) and only the other checks run again — most
    candidate fixes are such edits."""
    from planner.build.buildfile import validate
    from planner.build.edit import apply
    from planner.build.resolve import resolve

    data = apply(build.raw, changes)
    try:
        spec = validate(data, "", build.file)
        changed = resolve(spec, data, catalog, label=build.file, region=settings.region)
    except InputError:
        return None
    if unchanged is not None and changes and all(_POWER_EDIT.match(c.path) for c in changes):
        fit, placement = unchanged
        known = Context(changed, catalog, settings, propose_fixes=False, placement=placement)
        return [*run_checks(changed, catalog, settings, propose_fixes=False, skip=(*_UNMOVED, *INFORMING),
                            context=known), *fit]
    try:
        return run_checks(changed, catalog, settings, propose_fixes=False, skip=INFORMING)
    except InputError:  # its placement is too large to search (PlacementTooLarge): not a fix we can vouch for
        return None
