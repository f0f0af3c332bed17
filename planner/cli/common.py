"""Helpers shared by the commands."""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import TYPE_CHECKING, Any

from planner.catalog import Catalog, default_dirs
from planner.errors import CatalogError

if TYPE_CHECKING:
    from rich.console import Console


def catalog_from(args: argparse.Namespace) -> Catalog:
    for directory in args.catalog:
        if not directory.is_dir():
            from planner.errors import InputError

            raise InputError("is not a directory (--catalog takes a catalog directory)", file=str(directory))
    catalog = Catalog(default_dirs(args.catalog), on_skip=warn_skipped)
    if hasattr(args, "prices"):  # commands where prices matter: the user's prices.toml and --prices files
        from planner.prices import load_prices

        load_prices(catalog, args.prices)
    return catalog


def warn_skipped(problem: CatalogError) -> None:
    """A broken file in the per-user catalog directory is skipped; say so once, on stderr."""
    print(f"planner: warning: {problem}; skipped this file of your catalog directory", file=sys.stderr)


def write_json(data: Any, **options: Any) -> None:
    """Data as indented JSON on stdout in one write: `json.dump` writes every token separately, which
    costs a system call each when stdout is unbuffered (PYTHONUNBUFFERED, some CI runners). Control and
    bidi characters come out as `\\uXXXX` escapes (the same data), never raw on a terminal."""
    from planner.fmt import json_printable

    sys.stdout.write(json_printable(json.dumps(data, indent=2, ensure_ascii=False, **options)) + "\n")


def rich_stdout() -> bool:
    """Tables and colour only on a terminal (NO_COLOR keeps the tables, drops the colour)."""
    return sys.stdout.isatty() and os.environ.get("TERM") != "dumb"


def console() -> Console:
    from rich.console import Console

    return Console(highlight=False)
