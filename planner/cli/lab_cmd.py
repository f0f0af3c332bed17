"""`planner lab LAB.toml`: a lab of machines on shared circuits, PDUs, a UPS, cooling and a network.
Exit 0: the lab passes (warnings allowed); 1: it fails; 2: the lab file (or a build it names) is bad input."""

from __future__ import annotations

import argparse
import json

from planner.cli.common import catalog_from, write_output
from planner.util.errors import ExitCode


def run_lab(args: argparse.Namespace) -> int:
    from planner.lab.money import Usage
    from planner.lab.report import check_lab, lab_json, lab_text

    usage = Usage.of(args.hours_per_day, args.utilization, args.electricity, args.cloud_price)
    catalog = catalog_from(args)
    report = check_lab(args.file, catalog, usage)  # a PlannerError becomes one sentence and exit 2 in main()
    from planner.util.fmt import json_printable, printable

    if args.format == "json":
        text = json_printable(json.dumps(lab_json(report), indent=2, ensure_ascii=False)) + "\n"
    elif args.format == "html":
        from planner.export.lab_html import lab_to_html

        text = lab_to_html(report)
    else:
        text = printable(lab_text(report), newlines=True) + "\n"  # stdout escapes too: -o FILE gets the same
    write_output(args.output, text, force=args.force)
    failing = {"fail", "warn"} if args.strict else {"fail"}
    return ExitCode.FAIL if report.verdict in failing else ExitCode.OK
