"""`planner tui [FILE]`: the command's parser lives in planner/cli/main.py; this runs the app."""

from __future__ import annotations

import argparse
import sys

from planner.api import CatalogError, PlannerError, printable
from planner.session import BuildSession, is_lab_file, open_catalog


def run(args: argparse.Namespace) -> int:
    from tui.app import make_app
    from tui.screens.lab import open_lab_screen

    # the user's prices and --prices, as every command where prices matter (the parser gives `prices`)
    catalog = open_catalog(args.catalog, getattr(args, "prices", None), on_skip=_warn_skipped)
    lab = args.file is not None and is_lab_file(args.file)  # a lab file opens its read-only view of machines
    app = make_app(None if lab else args.file, catalog)
    if lab:
        app.call_later(open_lab_screen, app, args.file)
    try:
        app.run()
    finally:
        if app.return_code not in (0, None) and app.session.dirty:
            _recover(app.session)
    return app.return_code or 0


def _warn_skipped(problem: CatalogError) -> None:
    """A broken file in the per-user catalog directory is skipped; say so once, on stderr (as every command)."""
    print(f"planner: warning: {printable(str(problem))}; skipped this file of your catalog directory",
          file=sys.stderr)


def _recover(session: BuildSession) -> None:
    """Keep the unsaved build of a session that ended with an error (planner/util/recovery.py: beside the build,
    or in the user's state directory; never over the build or an earlier recovery file); as a last resort
    print it."""
    try:
        saved = session.save_recovery()
    except PlannerError as error:
        print(f"planner: the session ended with an error and {printable(str(error))}; here it is:\n",
              file=sys.stderr)
        print(session.text(), file=sys.stderr)
        return
    print(printable(f"planner: the session ended with an error; your unsaved build is in {saved}"), file=sys.stderr)
