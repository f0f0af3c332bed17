"""`planner tui [FILE]`: the command's parser lives in planner/cli/main.py; this runs the app."""

from __future__ import annotations

import argparse

from planner.cli.common import catalog_from


def run(args: argparse.Namespace) -> int:
    from tui.app import make_app

    make_app(args.file, catalog_from(args)).run()
    return 0
