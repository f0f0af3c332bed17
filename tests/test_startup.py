"""The command's start-up (planner/cli/startup.py): the importlib.metadata stand-in pydantic's plugin loader
is loaded against, and garbage collection around loading. The stand-in saves ~9 % of a cold check's
instructions; these tests hold that it is used with the locked pydantic, and that the command still works
when a pydantic cannot load against it."""

from __future__ import annotations

import subprocess
import sys

from test_import_hygiene import _loaded_after

from conftest import EXAMPLES


def test_the_cli_does_not_import_package_metadata_for_pydantic_plugins_it_switches_off() -> None:
    # pydantic's plugin loader imports importlib.metadata (email, zipfile, csv…) as it loads; the CLI loads it
    # against a stand-in whose entry_points() imports the real module only when called.
    code = (
        "import sys, contextlib, io\n"
        f"sys.argv = ['planner', 'check', {str(EXAMPLES / 'fail-psu-quad-3090-fe-1600w.toml')!r}]\n"
        "from planner.cli.startup import entry_point\n"
        "with contextlib.redirect_stdout(io.StringIO()), contextlib.suppress(SystemExit):\n"
        "    entry_point()"
    )
    loaded = _loaded_after(code)
    assert "pydantic.plugin._loader" in loaded
    assert "importlib.metadata" not in loaded
    assert "email" not in loaded


def test_pydantic_plugin_lookup_still_works_after_the_cli_deferred_it() -> None:
    code = (
        "import os, sys\n"
        "from planner.cli.startup import _defer_metadata_import\n"
        "_defer_metadata_import()\n"
        "os.environ.pop('PYDANTIC_DISABLE_PLUGINS', None)\n"
        "from pydantic.plugin import _loader\n"
        "plugins = list(_loader.get_plugins())  # scans the real entry points\n"
        "assert sys.modules['importlib.metadata'].__file__  # the real module, not the stand-in\n"
    )
    assert "importlib.metadata" in _loaded_after(code)


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


def test_a_pydantic_that_cannot_load_against_the_stand_in_is_loaded_the_ordinary_way() -> None:
    # A future pydantic whose plugin loader wants more of importlib.metadata than entry_points(): its import
    # fails against the stand-in, the stand-in is withdrawn, and the check runs as it would without it.
    code = (
        "import sys, importlib.abc\n"
        "class WantsRealMetadata(importlib.abc.MetaPathFinder):\n"
        "    def find_spec(self, name, path, target=None):\n"
        "        metadata = sys.modules.get('importlib.metadata')\n"
        "        if name == 'pydantic.plugin._loader' and metadata is not None and not hasattr(metadata, '__file__'):\n"
        "            raise ImportError('needs importlib.metadata.distributions')\n"
        "        return None\n"
        "sys.meta_path.insert(0, WantsRealMetadata())\n"
        "from planner.cli.startup import _defer_metadata_import\n"
        "_defer_metadata_import()\n"
        "assert 'pydantic.plugin._loader' not in sys.modules\n"
        "assert 'importlib.metadata' not in sys.modules  # no stand-in left behind\n"
        "import contextlib, io\n"
        "from planner.cli.main import main\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        f"    assert main(['check', {str(EXAMPLES / 'pass-dual-3090-wrx80.toml')!r}]) == 0\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)
