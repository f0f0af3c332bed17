"""`planner check FILE…`"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from planner.cli.common import catalog_from, rich_stdout, write_json
from planner.errors import ExitCode, InputError, PlannerError
from planner.fmt import printable
from planner.report import Report, to_json

if TYPE_CHECKING:
    from planner.catalog import Catalog
    from planner.checks import Settings


def run_check(args: argparse.Namespace) -> int:
    from planner.api import check_file
    from planner.checks import Settings

    if args.psu_target is not None and not 0.3 <= args.psu_target <= 1.0:
        raise InputError(f"--psu-target must be a fraction between 0.3 and 1.0, got {args.psu_target:g}")
    catalog = catalog_from(args)
    settings = Settings(region=args.region, **({"psu_target": args.psu_target} if args.psu_target else {}))
    reports: list[Report] = []
    diagrams: dict[str, str] = {}  # --diagram: each build's slot diagram, by file
    bad_input = False
    for path in args.files:
        try:
            if getattr(args, "diagram", False):
                reports.append(_with_diagram(path, catalog, settings, diagrams))
            else:
                reports.append(check_file(path, catalog, settings))
        except PlannerError as error:
            bad_input = True
            print(f"planner: {printable(str(error))}", file=sys.stderr)
    if args.format == "json":
        write_json([{**to_json(r), **({"diagram": diagrams[r.file]} if r.file in diagrams else {})} for r in reports])
    elif rich_stdout():
        from planner.cli.render_rich import print_reports

        print_reports(reports, diagrams)
    else:
        from planner.cli.render_text import render_reports

        sys.stdout.write(render_reports(reports, diagrams))
    if bad_input:
        return ExitCode.BAD_INPUT
    failing = {"fail", "warn"} if args.strict else {"fail"}
    return ExitCode.FAIL if any(r.verdict in failing for r in reports) else ExitCode.OK


def _with_diagram(path: Path, catalog: Catalog, settings: Settings, diagrams: dict[str, str]) -> Report:
    """Check one build and keep its slot diagram (planner/placement/diagram.py)."""
    from planner.api import check_build, load_build
    from planner.placement import place
    from planner.placement.diagram import slot_diagram

    build = load_build(path, catalog, settings.region)
    report = check_build(build, catalog, settings)
    diagrams[report.file] = slot_diagram(build, place(build))
    return report
