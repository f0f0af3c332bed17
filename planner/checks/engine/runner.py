"""Running the checks on a build, and re-checking it with a fix applied.

Which checks an edit can change comes from what each check declares it reads (planner/checks/engine/registry.py), and
which models it can change from what each model reads (context.py, MODEL_READS): on a re-check, a check that
reads none of the fields the edit touches keeps the unchanged build's findings, and a model that reads none of
them is the unchanged build's (an edit of power limits, PSUs or circuits moves no card: the placement is kept).
An edit at a key path the registry does not know (EDIT_PATHS) re-checks everything.
"""

from __future__ import annotations

from planner.build.resolve import ResolvedBuild
from planner.catalog import Catalog
from planner.checks.engine.context import Context, Settings, changed_context
from planner.checks.engine.findings import SEVERITY_RANK, Change, Finding
from planner.checks.engine.registry import codes_reading_none, edit_fields, informing, registered
from planner.util.errors import InputError


def touched(changes: list[Change]) -> frozenset[str] | None:
    """The fields (registry.FIELDS) these edits change; None when one is at a path the registry does not know
    (it may change anything)."""
    fields: frozenset[str] = frozenset()
    for change in changes:
        edited = edit_fields(change.path)
        if edited is None:
            return None
        fields |= edited
    return fields


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
    unchanged = _Unchanged(plain, checked, frozenset(skip))
    # a fix may have asked a model of the changed build first (Context.changed): its re-check takes that context
    ctx = checked.proposing(
        recheck=lambda changes: _recheck(build, catalog, settings, changes, unchanged, ctx.take_changed(changes)),
        errors_before={f.code for f in plain if f.severity == "error"},
        make_changed=lambda changes: changed_context(checked, changes, touched(changes)))
    # a check's findings but their fixes do not depend on whether fixes are proposed (the return above relies
    # on it too): a check that found nothing finds nothing again
    found = {f.code for f in plain}
    return _run(ctx, frozenset(code for code in registered() if code not in found))


def _run(ctx: Context, skip: frozenset[str] | tuple[str, ...] = ()) -> list[Finding]:
    findings: list[Finding] = []
    for code, registered_check in registered().items():
        if code not in skip:
            findings.extend(registered_check.run(ctx))
    findings.sort(key=lambda f: -SEVERITY_RANK[f.severity])
    return findings


class _Unchanged:
    """What a re-check may take from the unchanged build: its findings without fixes (of every check but those in
    `skipped`) and the models its context computed."""

    def __init__(self, findings: list[Finding], context: Context, skipped: frozenset[str]) -> None:
        self.findings = findings
        self.context = context
        self.skipped = skipped
        self._kept: dict[frozenset[str], tuple[frozenset[str], list[Finding]]] = {}

    def kept(self, fields: frozenset[str]) -> tuple[frozenset[str], list[Finding]]:
        """The checks (not informing) an edit of only `fields` cannot change, and their findings (once per
        fields: a run re-checks several edits of the same fields)."""
        if fields not in self._kept:
            codes = codes_reading_none(fields) - informing() - self.skipped
            self._kept[fields] = codes, [f for f in self.findings if f.code in codes]
        return self._kept[fields]


def _recheck(build: ResolvedBuild, catalog: Catalog, settings: Settings, changes: list[Change],
             unchanged: _Unchanged | None = None, known: Context | None = None) -> list[Finding] | None:
    """The findings of the build with `changes` applied (None: it no longer resolves, or its placement is too
    large to search). With `unchanged` (the unchanged build's), only the checks that read a field the edit
    touches run again, on a context seeded with the models it leaves as they were (`known`, when the caller
    has made it: Context.changed); the others' findings are the unchanged build's."""
    fields = touched(changes) if unchanged is not None else None
    if known is None:
        base = unchanged.context if unchanged is not None else Context(build, catalog, settings, propose_fixes=False)
        known = changed_context(base, changes, fields)
    if known is None:  # it no longer resolves
        return None
    try:
        if unchanged is None or fields is None:
            return run_checks(known.build, catalog, settings, propose_fixes=False, skip=informing(), context=known)
        codes, findings = unchanged.kept(fields)
        return [*run_checks(known.build, catalog, settings, propose_fixes=False, skip=codes | informing(),
                            context=known), *findings]
    except InputError:  # its placement is too large to search (PlacementTooLarge): not a fix we can vouch for
        return None
