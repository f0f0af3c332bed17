"""`planner check FILE…`

Every file gets its own outcome: a report, or one line on stderr naming the file (and, in JSON, an object
`{"file", "error"}` in its place in the array). A file that cannot be read or is invalid, or one that hits a
bug in the planner, never takes the other files' reports down; either makes the run exit 2.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from planner.cli.common import catalog_from, rich_stdout, write_json
from planner.report import Report, to_json
from planner.util.errors import ExitCode, InputError, PlannerError

if TYPE_CHECKING:
    from planner.catalog import Catalog
    from planner.checks.engine.context import Settings

DEBUG_ENV = "PLANNER_DEBUG"  # set: an internal error also prints its traceback


def run_check(args: argparse.Namespace) -> int:
    from planner.checks.engine.context import Settings

    if args.psu_target is not None and not 0.3 <= args.psu_target <= 1.0:
        raise InputError(f"--psu-target must be a fraction between 0.3 and 1.0, got {args.psu_target:g}")
    catalog = catalog_from(args)
    settings = Settings(region=args.region, **({"psu_target": args.psu_target} if args.psu_target else {}))
    as_json, rich = args.format == "json", args.format != "json" and rich_stdout()
    results: list[dict[str, Any]] = []  # JSON: one object per file, in order
    reports: list[Report] = []
    bad_input = False
    for path in args.files:
        try:
            report, diagram = _check(path, catalog, settings, getattr(args, "diagram", False))
            # Render inside the guard too: a report that cannot be shown is that file's problem alone.
            if as_json:
                results.append({**to_json(report), **({"diagram": diagram} if diagram is not None else {})})
            elif rich:
                from planner.cli.render_rich import print_reports

                print_reports([report], {report.file: diagram} if diagram is not None else None)
            else:
                _write_text(report, diagram, first=not reports)
            reports.append(report)
        except PlannerError as error:
            bad_input = True
            message = str(error)  # names the build file, or a catalog or settings file it needed
            _failed(path, message if message.startswith(str(path)) else f"{path}: {message}", results)
            if as_json and (missing := getattr(error, "missing", None)):
                results[-1]["missing"] = list(missing)  # an incomplete build: the parts `planner solve` picks
        except BrokenPipeError:  # `planner check … | head`: main() handles it
            raise
        except Exception as error:  # a bug: report it for this file and go on with the others
            bad_input = True
            if os.environ.get(DEBUG_ENV):
                import traceback

                traceback.print_exc()
            _failed(path, f"{path}: internal error ({type(error).__name__}: {error}); this is a bug in the planner,"
                          f" please report it with this file ({DEBUG_ENV}=1 shows the traceback)", results)
    if as_json:
        write_json(results)
    if bad_input:
        return ExitCode.BAD_INPUT
    failing = {"fail", "warn"} if args.strict else {"fail"}
    return ExitCode.FAIL if any(r.verdict in failing for r in reports) else ExitCode.OK


def _check(path: Path, catalog: Catalog, settings: Settings, diagram: bool) -> tuple[Report, str | None]:
    """Check one build; with `diagram`, also its slot diagram (planner/placement/diagram.py), drawn from the
    placement the checks used."""
    from planner.api import check, load_build

    build = load_build(path, catalog, settings.region)
    checked = check(build, catalog, settings)
    if not diagram:
        return checked.report, None
    from planner.placement.diagram import slot_diagram

    return checked.report, slot_diagram(build, checked.placement)


def _write_text(report: Report, diagram: str | None, *, first: bool) -> None:
    from planner.cli.render_text import render_reports

    text = render_reports([report], {report.file: diagram} if diagram is not None else None)
    sys.stdout.write(text if first else "\n" + text)


def _failed(path: Path, message: str, results: list[dict[str, Any]]) -> None:
    """One line on stderr naming the file; in JSON, the file's place in the array holds the error."""
    line = _one_line(message)
    print(f"planner: {line}", file=sys.stderr)
    results.append({"file": str(path), "error": line})


def _one_line(text: str) -> str:
    """The message on one line, with any control character escaped (it may quote the file's bytes)."""
    text = " ".join(text.split())
    return "".join(c if c.isprintable() else ascii(c)[1:-1] for c in text)
