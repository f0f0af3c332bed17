"""The command's start-up (planner/cli/startup.py): the check path loads pydantic-core, not pydantic (the records
of planner/util/record/core.py), so neither pydantic's plugin loader nor importlib.metadata is loaded; garbage
collection is off while the command loads and back on, with what was loaded frozen, for the run."""

from __future__ import annotations

import subprocess
import sys

from test_import_hygiene import _loaded_after

from conftest import EXAMPLES

_CHECK = (
    "import sys, contextlib, io\n"
    f"sys.argv = ['planner', 'check', {str(EXAMPLES / 'fail-psu-quad-3090-fe-1600w.toml')!r}]\n"
    "from planner.cli.startup import entry_point\n"
    "with contextlib.redirect_stdout(io.StringIO()), contextlib.suppress(SystemExit):\n"
    "    entry_point()"
)


def test_a_check_validates_with_pydantic_core_without_loading_pydantic() -> None:
    loaded = _loaded_after(_CHECK)
    assert "pydantic_core" in loaded
    assert not {name for name in loaded if name == "pydantic" or name.startswith("pydantic.")}


def test_a_check_loads_neither_package_metadata_nor_what_it_imports() -> None:
    loaded = _loaded_after(_CHECK)
    assert "importlib.metadata" not in loaded
    assert "email" not in loaded


def test_the_cli_freezes_what_it_loaded_and_collects_garbage_during_the_run() -> None:
    # Loading creates long-lived objects only: collection is off while the command loads, then they are
    # frozen and collection is back on for the run (the TUI runs for hours).
    code = (
        "import atexit, gc, sys, contextlib, io\n"
        "seen = {}\n"
        "import planner.cli.check_cmd as command\n"
        "original = command.run_check\n"
        "def spy(args):\n"
        "    seen.update(enabled=gc.isenabled(), frozen=gc.get_freeze_count())\n"
        "    return original(args)\n"
        "command.run_check = spy\n"
        f"sys.argv = ['planner', 'check', {str(EXAMPLES / 'pass-dual-3090-wrx80.toml')!r}]\n"
        "from planner.cli.startup import entry_point\n"
        "with contextlib.redirect_stdout(io.StringIO()), contextlib.suppress(SystemExit):\n"
        "    entry_point()\n"
        "assert seen['enabled'] and seen['frozen'] > 10_000, seen\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)
