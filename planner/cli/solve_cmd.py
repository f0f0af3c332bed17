"""`planner solve FILE`: complete a partial build into the cheapest machine that passes (README: Completing a partial
build)."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING, Any

from planner.cli.common import write_json, write_output
from planner.util.errors import ExitCode, InputError
from planner.util.fmt import printable

if TYPE_CHECKING:
    from planner.catalog import Catalog
    from planner.solve import SolveResult


def catalog_for_solve(args: argparse.Namespace) -> Catalog:
    """The built-in catalogs and --catalog DIRs (with --no-builtin: only those), with the user's prices."""
    from planner.catalog import Catalog
    from planner.cli.common import apply_market, catalog_from

    if not args.no_builtin:
        return catalog_from(args)
    if not args.catalog:
        raise InputError("--no-builtin needs at least one --catalog DIR to choose parts from")
    for directory in args.catalog:
        if not directory.is_dir():
            raise InputError("is not a directory (--catalog takes a catalog directory)", file=str(directory))
    catalog = Catalog(list(args.catalog))
    from planner.catalog.prices import load_prices

    load_prices(catalog, args.prices, user_file=False)
    apply_market(catalog, args)
    return catalog


def run_solve(args: argparse.Namespace) -> int:
    from planner.checks.engine.context import Settings
    from planner.solve import read_partial, solve

    if args.budget is not None and args.budget <= 0:
        raise InputError(f"--budget must be a positive amount of USD, got {args.budget:g}")
    to_stdout = args.output is not None and str(args.output) == "-"  # `-o -`: the build on stdout, the report on stderr
    if to_stdout and args.format == "json":
        raise InputError("-o - and --format json would both write to stdout; the JSON holds the build as build_toml")
    if args.output is not None and not to_stdout and args.output.exists() and not args.force:
        raise InputError("exists; use --force to replace it", file=str(args.output))
    catalog = catalog_for_solve(args)
    partial = read_partial(args.file, catalog, args.region)
    settings = Settings(region=partial.region)  # type: ignore[arg-type]
    label = str(args.output) if args.output is not None and not to_stdout else f"{args.file} (completed)"
    result = solve(partial, catalog, objective=args.objective, budget=args.budget,
                   allow_power_limits=args.allow_power_limits, settings=settings, label=label,
                   accept_warnings=args.accept_warnings)
    if result.status == "solved" and args.output is not None and result.build_toml is not None:
        write_output(args.output, result.build_toml, force=args.force)
    if args.format == "json":
        write_json(to_json(result))
    else:
        (sys.stderr if to_stdout else sys.stdout).write(render(result))
    if result.status != "solved":
        print(f"planner: {printable(str(result.binding))}", file=sys.stderr)
        return ExitCode.FAIL
    return ExitCode.OK


def to_json(result: SolveResult) -> dict[str, Any]:
    """The issue's JSON form: the `planner check` JSON report of the completed build under `report`."""
    from planner.report import price_facts
    from planner.report import to_json as report_json

    return {"file": result.file, "status": result.status, "objective": result.objective,
            "price_usd": result.price_usd, "added_usd": result.added_usd, "owned_usd": result.owned_usd,
            "added": [{**added._asdict(), **(price_facts(result.report.summary, added.part) if result.report
                                              else {})} for added in result.added],
            "build_toml": result.build_toml,
            "report": report_json(result.report) if result.report is not None else None,
            "searched": result.searched, "space": result.space, "optimal": result.optimal,
            "binding": result.binding, "reasons": result.reasons, "runners_up": result.runners_up,
            "notes": result.notes}


def render(result: SolveResult) -> str:
    from planner.cli.render_text import render_report
    from planner.solve.answer import explanation, headline

    text = "".join(printable(line) + "\n" for line in [headline(result), *explanation(result)])
    if result.status == "solved" and result.report is not None:
        text += "\n" + render_report(result.report)
    return text
