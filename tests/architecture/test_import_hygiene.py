"""The core never imports the TUI or Textual, and a check run does not load what it does not need."""

from __future__ import annotations

import json
import subprocess
import sys

from conftest import EXAMPLES

CORE_MODULES = [
    "planner", "planner.api", "planner.catalog", "planner.checks", "planner.report", "planner.build.resolve",
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
    assert "networkx" not in loaded  # docs/architecture.md, "Start-up"


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


def test_help_and_version_answer_without_loading_pydantic() -> None:
    code = (
        "import contextlib, io\n"
        "from planner.cli.main import main\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        "    main(['--help']); main(['--version']); main(['check', '--help'])"
    )
    assert "pydantic" not in _loaded_after(code)
