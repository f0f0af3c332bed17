"""The `planner` command's start-up: everything a process does before and around `main(argv)` that is
about start-up cost, not about planning, kept in this one module (`planner` and `python -m planner` enter
here; tests and other callers use `planner.cli.main.main`).

Measured with `python benchmarks/run.py --instructions` (2026-12-01, pydantic 2.x as locked in
constraints.txt): a cold `planner check` of the 4-GPU example executes ~854 M instructions with the
importlib.metadata stand-in below and ~930 M without it (9 % of the run); tests/test_startup.py holds
that the stand-in is used with the locked pydantic and that the command still works when it cannot be.
"""

from __future__ import annotations

import gc
import importlib
import os
import sys
from typing import Any

from planner.cli.main import main


def entry_point() -> None:
    # Loading pydantic, the models and the command's modules creates ~100,000 objects that live as long as
    # the process and triggers ~75 garbage collections (~13 ms), and at exit Python scans them all once
    # more. None of them is garbage: collection is off while the command loads, then everything loaded is
    # frozen (never scanned again) and collection resumes for the run itself, long ones (the TUI) included.
    gc.disable()
    # The CLI uses no pydantic plugins; looking for them scans every installed distribution's entry
    # points, ~30 ms of every cold start.
    os.environ.setdefault("PYDANTIC_DISABLE_PLUGINS", "__all__")
    sys.exit(main(loading=_defer_metadata_import, loaded=_collect_from_here))


def _collect_from_here() -> None:
    gc.freeze()
    gc.enable()


def _defer_metadata_import() -> None:
    """pydantic's plugin loader imports importlib.metadata (with email, zipfile, csv…: ~20 ms, a fifteenth
    of a cold `planner check`) as it loads, although it only calls `entry_points()` when plugins are on,
    which the CLI switches off. Load that module against a stand-in whose `entry_points` imports the real
    importlib.metadata on its first call, so a plugin lookup, if one is ever made, still works. A pydantic
    whose loader wants more of importlib.metadata fails to load against the stand-in and is then loaded
    the ordinary way, on first use."""
    if "importlib.metadata" in sys.modules or "pydantic.plugin._loader" in sys.modules:
        return
    import types

    import pydantic.plugin  # noqa: F401  # its own imports see the real modules

    def entry_points(**selection: Any) -> Any:
        import importlib.metadata

        return importlib.metadata.entry_points(**selection)

    stand_in = types.ModuleType("importlib.metadata")
    stand_in.entry_points = entry_points  # type: ignore[attr-defined]
    sys.modules["importlib.metadata"] = stand_in
    try:
        importlib.import_module("pydantic.plugin._loader")
    except ImportError:
        pass
    finally:
        if sys.modules.get("importlib.metadata") is stand_in:
            del sys.modules["importlib.metadata"]
