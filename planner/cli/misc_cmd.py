"""`planner schema` and `planner export`."""

from __future__ import annotations

import argparse
import sys

from planner.cli.common import catalog_from, write_json
from planner.errors import ExitCode


def run_schema(args: argparse.Namespace) -> int:
    from planner.schema import build_schema, part_schema

    schema = part_schema(args.kind) if args.kind else build_schema()
    write_json(schema)
    return ExitCode.OK


def run_export(args: argparse.Namespace) -> int:
    from planner.api import load_build
    from planner.export.formats import export
    from planner.fileio import atomic_write

    build = load_build(args.file, catalog_from(args), args.region)
    text = export(build, args.format)
    if args.output is None:
        sys.stdout.write(text)
    else:
        atomic_write(args.output, text, force=args.force)
        print(f"wrote {args.output}", file=sys.stderr)
    return ExitCode.OK
