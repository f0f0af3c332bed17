"""The core never imports the TUI or Textual, and a check run does not load what it does not need."""

from __future__ import annotations

import json
import subprocess
import sys

from conftest import EXAMPLES

CORE_MODULES = [
    "planner", "planner.api", "planner.catalog", "planner.checks", "planner.report", "planner.resolve",
    "planner.catalog.lookup", "planner.catalog.prices",  # `import planner.catalog` alone loads neither
    "planner.export.formats", "planner.schema", "planner.describe", "planner.cli.main", "planner.cli.check_cmd",
    "planner.cli.catalog_cmd", "planner.cli.misc_cmd",
]


def _loaded_after(code: str) -> set[str]:
    probe = f"{code}\nimport json, sys\nprint(json.dumps(sorted(sys.modules)))"
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout
    return set(json.loads(out.strip().splitlines()[-1]))


def test_core_never_imports_textual_or_the_tui() -> None:
    loaded = _loaded_after("\n".join(f"import {m}" for m in CORE_MODULES))
    assert not {m for m in loaded if m == "tui" or m.startswith(("tui.", "textual"))}


def test_checking_a_build_as_json_needs_neither_pint_nor_rich() -> None:
    code = (
        "from planner.cli.main import main\n"
        "import contextlib, io\n"
        f"with contextlib.redirect_stdout(io.StringIO()):\n"
        f"    main(['check', {str(EXAMPLES / 'pass-dual-3090-wrx80.toml')!r}, '--format', 'json'])"
    )
    loaded = _loaded_after(code)
    assert "pint" not in loaded
    assert "rich" not in loaded
    assert "textual" not in loaded
    assert "networkx" not in loaded  # ~0.25 s; the airflow graph is walked with graphlib on every check


def test_placing_and_fixing_the_4_gpu_example_needs_no_networkx() -> None:
    # The exact placement solver and the lane arithmetic are plain Python; the slot fixes for its fourth card
    # (blower cards, risers in a frame) are re-checked without building the PCIe tree.
    code = (
        "from planner.cli.main import main\n"
        "import contextlib, io\n"
        f"with contextlib.redirect_stdout(io.StringIO()):\n"
        f"    main(['check', {str(EXAMPLES / 'fail-psu-quad-3090-fe-1600w.toml')!r}])"
    )
    assert "networkx" not in _loaded_after(code)


def test_the_cli_does_not_import_package_metadata_for_pydantic_plugins_it_switches_off() -> None:
    # pydantic's plugin loader imports importlib.metadata (email, zipfile, csv…) as it loads; the CLI loads it
    # against a stand-in whose entry_points() imports the real module only when called.
    code = (
        "import sys, contextlib, io\n"
        f"sys.argv = ['planner', 'check', {str(EXAMPLES / 'fail-psu-quad-3090-fe-1600w.toml')!r}]\n"
        "from planner.cli.main import entry_point\n"
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
        "from planner.cli.main import _defer_metadata_import\n"
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
        "from planner.cli.main import entry_point\n"
        "with contextlib.redirect_stdout(io.StringIO()), contextlib.suppress(SystemExit):\n"
        "    entry_point()\n"
        "assert seen['enabled'] and seen['frozen'] > 10_000, seen\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_help_and_version_answer_without_loading_pydantic() -> None:
    code = (
        "import contextlib, io\n"
        "from planner.cli.main import main\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        "    main(['--help']); main(['--version']); main(['check', '--help'])"
    )
    assert "pydantic" not in _loaded_after(code)
