"""Running the checks on a build, and re-checking it with a fix applied.

Which checks an edit can change comes from what each check declares it reads (planner/checks/registry.py):
an edit of power limits, PSUs or circuits (POWER_FIELDS) cannot move a card or change a check that reads none
of those, so such a check's findings, and the placement, are the unchanged build's on a re-check.
"""

from __future__ import annotations

from planner.build.resolve import ResolvedBuild
from planner.catalog import Catalog
from planner.checks.context import Context, Settings
from planner.checks.findings import SEVERITY_RANK, Change, Finding
from planner.checks.registry import POWER_FIELDS, codes_reading_none, edit_fields, informing, registered
from planner.errors import InputError
from planner.placement.mounts import Placement


def unmoved() -> frozenset[str]:
    """The checks an edit of power limits, PSUs or circuits cannot change: those that read none of them (their
    findings are kept on re-checks of such edits)."""
    return codes_reading_none(POWER_FIELDS)


def power_edit(changes: list[Change]) -> bool:
    """Do these edits change nothing but power limits, PSUs and circuits (POWER_FIELDS)?"""
    for change in changes:
        fields = edit_fields(change.path)
        if fields is None or not fields <= POWER_FIELDS:
            return False
    return bool(changes)


def run_checks(build: ResolvedBuild, catalog: Catalog, settings: Settings | None = None, *,
               propose_fixes: bool = True, skip: frozenset[str] | tuple[str, ...] = (),
               context: Context | None = None) -> list[Finding]:
    """Every registered check on a build (but those whose code is in `skip`); errors first.
    Fixes are verified by re-checking the changed build. `context`: a context of this build without fixes,
    from a caller that knows some of its models (a re-check's placement) or wants the ones the checks compute
    (the report's summary reads them)."""
    settings = settings or Settings()
    checked = context if context is not None else Context(build, catalog, settings, propose_fixes=False)
    plain = _run(checked, skip)
    if not propose_fixes or not any(f.severity != "info" for f in plain):
        return plain
    kept = unmoved()
    fit = [f for f in plain if f.code in kept]
    ctx = checked.proposing(
        recheck=lambda changes: _recheck(build, catalog, settings, changes, (fit, checked.placement)),
        errors_before={f.code for f in plain if f.severity == "error"})
    return _run(ctx, skip)


def _run(ctx: Context, skip: frozenset[str] | tuple[str, ...] = ()) -> list[Finding]:
    findings: list[Finding] = []
    for code, registered_check in registered().items():
        if code not in skip:
            findings.extend(registered_check.run(ctx))
    findings.sort(key=lambda f: -SEVERITY_RANK[f.severity])
    return findings


def _recheck(build: ResolvedBuild, catalog: Catalog, settings: Settings, changes: list[Change],
             unchanged: tuple[list[Finding], Placement] | None = None) -> list[Finding] | None:
    """The findings of the build with `changes` applied (None: it no longer resolves). An edit of power
    limits, PSUs or circuits cannot move a card, so the unmoved checks' findings and the placement are the
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
    if unchanged is not None and power_edit(changes):
        fit, placement = unchanged
        known = Context(changed, catalog, settings, propose_fixes=False, placement=placement)
        return [*run_checks(changed, catalog, settings, propose_fixes=False, skip=unmoved() | informing(),
                            context=known), *fit]
    try:
        return run_checks(changed, catalog, settings, propose_fixes=False, skip=informing())
    except InputError:  # its placement is too large to search (PlacementTooLarge): not a fix we can vouch for
        return None
