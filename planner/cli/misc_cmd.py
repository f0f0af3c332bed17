"""`planner schema` and `planner export`."""

from __future__ import annotations

import argparse
import sys

from planner.cli.common import catalog_from, write_json, write_output
from planner.util.errors import ExitCode


def run_schema(args: argparse.Namespace) -> int:
    from planner.cli.main import KIND_ALIASES
    from planner.schema import build_schema, part_schema

    kind = KIND_ALIASES.get(args.kind, args.kind) if args.kind else None
    schema = part_schema(kind) if kind else build_schema()
    write_json(schema)
    return ExitCode.OK


def run_export(args: argparse.Namespace) -> int:
    from planner.api import check, load_build
    from planner.checks.engine.context import Settings
    from planner.export.formats import FORUM, HTML_FORMAT, SCRIPT_FORMATS, export
    from planner.util.fmt import printable

    catalog = catalog_from(args)
    build = load_build(args.file, catalog, args.region)
    settings = Settings(region=args.region)
    checked = check(build, catalog, settings) if args.format in (*FORUM, *SCRIPT_FORMATS, HTML_FORMAT) else None
    report = checked.report if checked is not None else None
    script = args.format in SCRIPT_FORMATS
    if script and report is not None and report.verdict == "fail":
        codes = sorted({f.code for f in report.findings if f.severity == "error"})
        what = f"{printable(report.file)} FAILS its check ({', '.join(codes)}; see `planner check`)"
        if not args.force:
            print(f"planner: {what}: power limits for a build that does not work are not exported; fix it, or "
                  "use --force to export them anyway", file=sys.stderr)
            return ExitCode.FAIL
        print(f"planner: WARNING: {what}; exported anyway (--force)", file=sys.stderr)
    if args.format == HTML_FORMAT and checked is not None:
        from planner.export.html import to_html

        text = to_html(build, checked.report, catalog, settings, context=checked.context)
    else:
        text = export(build, args.format, report, checked.placement if checked is not None else None)
    write_output(args.output, text, force=args.force,
                 executable=args.format == "nvidia-smi")
    return ExitCode.OK
