"""`planner tui [FILE]`: the command's parser lives in planner/cli/main.py; this runs the app."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from planner.cli.common import catalog_from
from planner.session import BuildSession


def run(args: argparse.Namespace) -> int:
    from tui.app import make_app

    app = make_app(args.file, catalog_from(args))
    try:
        app.run()
    finally:
        if app.return_code not in (0, None) and app.session.dirty:
            saved = save_recovery(app.session)
            print(f"planner: the session ended with an error; your unsaved build is in {saved}", file=sys.stderr)
    return app.return_code or 0


def recovery_path(session: BuildSession) -> Path:
    """Next to the build file (`build.toml` → `build.recovered.toml`), or in the working directory."""
    if session.path is not None:
        return session.path.with_name(f"{session.path.stem}.recovered.toml")
    return Path.cwd() / "new-build.recovered.toml"


def save_recovery(session: BuildSession) -> Path:
    """Write the unsaved build beside the original (never over it), so a crash loses nothing."""
    from planner.fileio import atomic_write

    target = recovery_path(session)
    atomic_write(target, session.text(), force=True)
    return target
