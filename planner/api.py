"""The core's entry points for the faces: load a build file, check it, report; and the public types,
errors and number formatting a face shows (with planner.session, all that a face imports)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from planner.build import buildfile
from planner.build.resolve import ResolvedBuild, resolve
from planner.catalog import Catalog
from planner.checks.engine.context import Context, Settings
from planner.checks.engine.findings import Change, Finding, Fix
from planner.checks.engine.runner import run_checks
from planner.checks.plan import plan
from planner.models.build import Region
from planner.models.parts import Part
from planner.report import GpuSummary, Report, make_report
from planner.util.errors import CatalogError, InputError, PlannerError
from planner.util.fmt import num, printable, usd, watts

if TYPE_CHECKING:
    from planner.physics.delivery import Split
    from planner.physics.thermal import Thermal
    from planner.placement import Placement

__all__ = [
    "Catalog",
    "CatalogError",
    "Change",
    "Checked",
    "Finding",
    "Fix",
    "GpuSummary",
    "InputError",
    "Part",
    "PlannerError",
    "Region",
    "Report",
    "ResolvedBuild",
    "Settings",
    "check",
    "check_build",
    "check_file",
    "load_build",
    "num",
    "plan_finding",
    "printable",
    "resolve_data",
    "usd",
    "watts",
]


def load_build(path: Path, catalog: Catalog, region: Region | None = None) -> ResolvedBuild:
    """Read, validate and resolve a build file (InputError on any problem)."""
    label = buildfile.label_of(path)
    text = buildfile.read_text(path)
    return resolve_data(buildfile.parse_toml(text, label), text, label, catalog, region)


def resolve_data(data: dict[str, Any], text: str, label: str, catalog: Catalog,
                 region: Region | None = None) -> ResolvedBuild:
    """Validate and resolve a build's parsed data (`text`, the file's, for line numbers): the one way from a
    build file's content to a build, for a file on disk and for the TUI's build in memory alike."""
    spec = buildfile.validate(data, text, label)
    return resolve(spec, data, catalog, label=label, text=text, region=region)


class Checked(NamedTuple):
    """A checked build: its report, and the models the checks computed to make it — where each card sits, which
    PSU feeds what, the temperatures — so a face that draws them (`check --diagram`, the HTML report, the power-limit
    scripts) reuses them instead of computing them again."""

    build: ResolvedBuild
    report: Report
    context: Context

    @property
    def placement(self) -> Placement:
        return self.context.placement

    @property
    def power_split(self) -> Split:
        return self.context.power_split

    @property
    def thermal(self) -> Thermal:
        return self.context.thermal


def check(build: ResolvedBuild, catalog: Catalog, settings: Settings | None = None) -> Checked:
    """Check a resolved build: the report, with the models its checks computed."""
    settings = settings or Settings()
    checked = Context(build, catalog, settings, propose_fixes=False)
    findings = run_checks(build, catalog, settings, context=checked)
    # the summary reads the models the checks computed; the plan combines the fixes the checks verified
    return Checked(build, make_report(checked, findings, plan(checked, findings)), checked)


def check_build(build: ResolvedBuild, catalog: Catalog, settings: Settings | None = None) -> Report:
    """Check a resolved build: its report (`check` keeps the models too)."""
    return check(build, catalog, settings).report


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
