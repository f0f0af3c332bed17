"""The checks of SPEC §3 and the runner.

Importing this package registers every built-in check: each module of this package that defines
checks with `@check("code")` (listed in `_CHECK_MODULES`, one per area). Adding an area means adding a
module here and its name below; the CLI and TUI only call `run_checks`.
"""

from __future__ import annotations

import importlib

from planner.catalog import Catalog
from planner.checks.context import Context, Settings
from planner.checks.findings import SEVERITY_RANK, Change, Finding, Fix
from planner.checks.registry import REGISTRY, check
from planner.errors import InputError
from planner.resolve import ResolvedBuild

_CHECK_MODULES = ("case", "slots", "lanes", "risers", "power", "psu_connectors", "psu_split", "outlet", "power_limit",
                  "thermal")
for _module in _CHECK_MODULES:
    importlib.import_module(f"planner.checks.{_module}")

__all__ = ["REGISTRY", "Change", "Context", "Finding", "Fix", "Settings", "check", "run_checks"]


def run_checks(build: ResolvedBuild, catalog: Catalog, settings: Settings | None = None, *,
               propose_fixes: bool = True) -> list[Finding]:
    """Every registered check on a build; errors first. Fixes are verified by re-checking."""
    settings = settings or Settings()
    plain = _run(Context(build, catalog, settings, propose_fixes=False))
    if not propose_fixes or not any(f.severity != "info" for f in plain):
        return plain
    ctx = Context(build, catalog, settings, propose_fixes=True,
                  recheck=lambda changes: _recheck(build, catalog, settings, changes),
                  errors_before={f.code for f in plain if f.severity == "error"})
    return _run(ctx)


def _run(ctx: Context) -> list[Finding]:
    findings: list[Finding] = []
    for registered in REGISTRY.values():
        findings.extend(registered.run(ctx))
    findings.sort(key=lambda f: -SEVERITY_RANK[f.severity])
    return findings


def _recheck(build: ResolvedBuild, catalog: Catalog, settings: Settings,
             changes: list[Change]) -> list[Finding] | None:
    from planner.buildfile import validate
    from planner.edit import apply
    from planner.resolve import resolve

    data = apply(build.raw, changes)
    try:
        spec = validate(data, "", build.file)
        changed = resolve(spec, data, catalog, label=build.file, region=settings.region)
    except InputError:
        return None
    return run_checks(changed, catalog, settings, propose_fixes=False)
