"""`planner tui [FILE]`: the command's parser lives in planner/cli/main.py; this runs the app."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from planner.cli.common import catalog_from
from planner.errors import PlannerError
from planner.fmt import printable
from planner.session import BuildSession


def run(args: argparse.Namespace) -> int:
    from tui.app import make_app

    app = make_app(args.file, catalog_from(args))
    try:
        app.run()
    finally:
        if app.return_code not in (0, None) and app.session.dirty:
            _recover(app.session)
    return app.return_code or 0


def _recover(session: BuildSession) -> None:
    """Keep the unsaved build of a session that ended with an error; as a last resort print it."""
    try:
        saved = save_recovery(session)
    except PlannerError as error:
        print(f"planner: the session ended with an error and {printable(str(error))}; here it is:\n",
              file=sys.stderr)
        print(session.text(), file=sys.stderr)
        return
    print(printable(f"planner: the session ended with an error; your unsaved build is in {saved}"), file=sys.stderr)


def save_recovery(session: BuildSession) -> Path:
    """Write the unsaved build to a new recovery file (planner/recovery.py: beside the build, or in the
    user's state directory when that is not writable; never over the build or an earlier recovery file)."""
    from planner.recovery import save_recovery as save

    return save(session.text(), session.path)
