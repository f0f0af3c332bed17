"""Helpers shared by the commands."""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from planner.util.errors import CatalogError

if TYPE_CHECKING:
    from rich.console import Console

    from planner.catalog import Catalog
    from planner.catalog.prices import Market


def catalog_from(args: argparse.Namespace) -> Catalog:
    """The catalogs a command's `--catalog` options name (and, for commands with `--prices`, the prices, for the
    market `--market` or the settings file chooses)."""
    from planner.catalog import open_catalog

    catalog = open_catalog(args.catalog, args.prices if hasattr(args, "prices") else None, on_skip=warn_skipped)
    if hasattr(args, "prices"):
        apply_market(catalog, args)
    return catalog


def add_market_option(parser: argparse.ArgumentParser) -> None:
    """`--market new|used|any`: which of a part's prices every price, total and ranking of the command uses."""
    from planner.catalog.prices import MARKETS

    parser.add_argument(
        "--market", choices=MARKETS, default=None,
        help="which price each part gets: new (its street price; a part no longer sold new has none), used (the "
             "median of recent sold listings where the catalog has one, else the new price) or any (the cheaper "
             "of the two); every price says which, and your --prices still win (default any, or `market` in the "
             "settings file)")


def apply_market(catalog: Catalog, args: argparse.Namespace) -> None:
    """Price the catalog's parts for the command's market: its `--market`, else the settings file's `market`
    (read when the first part is priced, so a problem in the file is the error of the build that needed it),
    else any. The one place a command sets it."""
    from planner.catalog.prices import DEFAULT_MARKET
    from planner.util.config import default_market

    market: Market | None = getattr(args, "market", None)
    if market is not None:
        catalog.market = market
    else:
        catalog.defer_market(lambda: default_market() or DEFAULT_MARKET)


def warn_skipped(problem: CatalogError) -> None:
    """A broken file in the per-user catalog directory is skipped; say so once, on stderr."""
    from planner.util.fmt import printable

    print(f"planner: warning: {printable(str(problem))}; skipped this file of your catalog directory", file=sys.stderr)


def write_json(data: Any, **options: Any) -> None:
    """Data as indented JSON on stdout in one write: `json.dump` writes every token separately, which
    costs a system call each when stdout is unbuffered (PYTHONUNBUFFERED, some CI runners). Control and
    bidi characters come out as `\\uXXXX` escapes (the same data), never raw on a terminal."""
    from planner.util.fmt import json_printable

    sys.stdout.write(json_printable(json.dumps(data, indent=2, ensure_ascii=False, **options)) + "\n")


def rich_stdout() -> bool:
    """Tables and colour only on a terminal (NO_COLOR keeps the tables, drops the colour), or wherever
    FORCE_COLOR asks for them (CI logs, `| less -R`; the convention of force-color.org)."""
    if os.environ.get("FORCE_COLOR") and not os.environ.get("NO_COLOR"):
        return True
    return sys.stdout.isatty() and os.environ.get("TERM") != "dumb"


def console() -> Console:
    from rich.console import Console

    from planner.cli.terminal import raw

    return Console(highlight=False, file=raw(sys.stdout))  # rich's own escape sequences; its strings are printable


def to_stdout(output: Path | None) -> bool:
    """`-o -` (or no -o) writes to standard output."""
    return output is None or str(output) == "-"


def write_output(output: Path | None, text: str, *, force: bool, executable: bool = False) -> None:
    """Write a command's result to OUT (atomically, refusing to overwrite without --force) or to stdout
    for `-o -` or no -o; an `executable` file (a script) gets the execute bits."""
    if to_stdout(output):
        sys.stdout.write(text)
        return
    assert output is not None
    from planner.util.fileio import atomic_write

    atomic_write(output, text, force=force, executable=executable)
    from planner.util.fmt import printable

    print(f"wrote {printable(str(output))}", file=sys.stderr)
