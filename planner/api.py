"""The core's entry points for the faces: load a build file, check it, report; and the public types,
errors and number formatting a face shows (with planner.session, all that a face imports)."""

from __future__ import annotations

from pathlib import Path

from planner.build import buildfile
from planner.build.resolve import ResolvedBuild, resolve
from planner.catalog import Catalog
from planner.checks.engine.context import Context, Settings
from planner.checks.engine.findings import Change, Finding, Fix
from planner.checks.engine.runner import run_checks
from planner.checks.plan import plan
from planner.errors import CatalogError, InputError, PlannerError
from planner.fmt import num, printable, usd, watts
from planner.models.build import Region
from planner.models.parts import Part
from planner.report import GpuSummary, Report, make_report

__all__ = [
    "Catalog", "CatalogError", "Change", "Finding", "Fix", "GpuSummary", "InputError", "Part", "PlannerError", "Region",
    "Report", "ResolvedBuild", "Settings", "check_build", "check_file", "load_build", "num", "plan_finding",
    "printable", "usd", "watts",
]


def load_build(path: Path, catalog: Catalog, region: Region | None = None) -> ResolvedBuild:
    """Read, validate and resolve a build file (InputError on any problem)."""
    spec, raw, text = buildfile.load(path)
    return resolve(spec, raw, catalog, label=buildfile.label_of(path), text=text, region=region)


def check_build(build: ResolvedBuild, catalog: Catalog, settings: Settings | None = None) -> Report:
    settings = settings or Settings()
    checked = Context(build, catalog, settings, propose_fixes=False)
    findings = run_checks(build, catalog, settings, context=checked)
    # the summary reads the models the checks computed; the plan combines the fixes the checks verified
    return make_report(checked, findings, plan(checked, findings))


def check_file(path: Path, catalog: Catalog, settings: Settings | None = None) -> Report:
    settings = settings or Settings()
    region = settings.region
    build = load_build(path, catalog, region)
    return check_build(build, catalog, settings)


def plan_finding(report: Report) -> Finding | None:
    """The report's plan as a finding the faces list first (code "plan"): its one fix applies every change of the
    plan at once. None when the report has no plan."""
    plan = report.plan
    if plan is None:
        return None
    head = "" if plan.verified else "(partial) "
    return Finding(code="plan", severity="info", message=head + plan.description,
                   fixes=[Fix(description="apply the plan: " + "; ".join(s.description for s in plan.steps)
                              if len(plan.steps) > 1 else "apply the plan", changes=plan.changes,
                              verified=plan.verified)])
