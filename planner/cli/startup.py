"""The `planner` command's start-up: everything a process does before and around `main(argv)` that is
about start-up cost, not about planning, kept in this one module (`planner` and `python -m planner` enter
here; tests and other callers use `planner.cli.main.main`).

The check path loads pydantic-core but not pydantic (planner/util/record/core.py says why), so pydantic's plugin
loader and the importlib.metadata it imports are never loaded; tests/cli/test_startup.py holds both.
"""

from __future__ import annotations

import gc
import sys

from planner.cli.main import main


def entry_point() -> None:
    # Loading pydantic-core, the models and the command's modules creates ~100,000 objects that live as long as
    # the process and triggers ~75 garbage collections (~13 ms), and at exit Python scans them all once
    # more. None of them is garbage: collection is off while the command loads, then everything loaded is
    # frozen (never scanned again) and collection resumes for the run itself, long ones (the TUI) included.
    gc.disable()
    sys.exit(main(loaded=_collect_from_here))


def _collect_from_here() -> None:
    gc.freeze()
    gc.enable()
