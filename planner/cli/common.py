"""Helpers shared by the commands."""

from __future__ import annotations

import argparse
import os
import sys
from typing import TYPE_CHECKING

from planner.catalog import Catalog, default_dirs

if TYPE_CHECKING:
    from rich.console import Console


def catalog_from(args: argparse.Namespace) -> Catalog:
    for directory in args.catalog:
        if not directory.is_dir():
            from planner.errors import InputError

            raise InputError("is not a directory (--catalog takes a catalog directory)", file=str(directory))
    return Catalog(default_dirs(args.catalog))


def rich_stdout() -> bool:
    """Tables and colour only on a terminal (NO_COLOR keeps the tables, drops the colour)."""
    return sys.stdout.isatty() and os.environ.get("TERM") != "dumb"


def console() -> Console:
    from rich.console import Console

    return Console(highlight=False)
