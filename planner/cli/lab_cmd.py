"""`planner lab LAB.toml`: a lab of machines on shared circuits, PDUs, a UPS, cooling and a network.
Exit 0: the lab passes (warnings allowed); 1: it fails; 2: the lab file (or a build it names) is bad input."""

from __future__ import annotations

import argparse
import json
import sys

from planner.cli.common import catalog_from
from planner.errors import ExitCode


def run_lab(args: argparse.Namespace) -> int:
    from planner.lab.money import Usage
    from planner.lab.report import check_lab, lab_json, lab_text

    usage = Usage.of(args.hours_per_day, args.utilization, args.electricity, args.cloud_price)
    catalog = catalog_from(args)
    report = check_lab(args.file, catalog, usage)  # a PlannerError becomes one sentence and exit 2 in main()
    if args.format == "json":
        sys.stdout.write(json.dumps(lab_json(report), indent=2, ensure_ascii=False) + "\n")
    else:
        print(lab_text(report))
    failing = {"fail", "warn"} if args.strict else {"fail"}
    return ExitCode.FAIL if report.verdict in failing else ExitCode.OK
