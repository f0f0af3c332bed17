"""`planner check FILE…`"""

from __future__ import annotations

import argparse
import json
import sys

from planner.cli.common import catalog_from, rich_stdout
from planner.errors import ExitCode, InputError, PlannerError
from planner.report import Report, to_json


def run_check(args: argparse.Namespace) -> int:
    from planner.api import check_file
    from planner.checks import Settings

    if args.psu_target is not None and not 0.3 <= args.psu_target <= 1.0:
        raise InputError(f"--psu-target must be a fraction between 0.3 and 1.0, got {args.psu_target:g}")
    catalog = catalog_from(args)
    settings = Settings(region=args.region, **({"psu_target": args.psu_target} if args.psu_target else {}))
    reports: list[Report] = []
    bad_input = False
    for path in args.files:
        try:
            reports.append(check_file(path, catalog, settings))
        except PlannerError as error:
            bad_input = True
            print(f"planner: {error}", file=sys.stderr)
    if args.format == "json":
        json.dump([to_json(r) for r in reports], sys.stdout, indent=2, ensure_ascii=False)
        sys.stdout.write("\n")
    elif rich_stdout():
        from planner.cli.render_rich import print_reports

        print_reports(reports)
    else:
        from planner.cli.render_text import render_reports

        sys.stdout.write(render_reports(reports))
    if bad_input:
        return ExitCode.BAD_INPUT
    failing = {"fail", "warn"} if args.strict else {"fail"}
    return ExitCode.FAIL if any(r.verdict in failing for r in reports) else ExitCode.OK
