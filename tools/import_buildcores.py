#!/usr/bin/env python3
"""Import real parts from the BuildCores OpenDB snapshot into `catalogs/imported/*.toml`.

    python tools/import_buildcores.py [--source DIR] [--out DIR] [--chips FILE]

The command of the importer in tools/buildcores/: its package docstring describes the run and the ids, and
each kind's module (gpus.py, psus.py, cases.py, motherboards.py, cpus.py) the rules that fill the figures
the source does not give.
"""

from __future__ import annotations

import sys
from pathlib import Path

TOOLS = Path(__file__).resolve().parent
for folder in (TOOLS.parent, TOOLS):  # the repo's planner, then the importer package, ahead of installed ones
    if str(folder) not in sys.path:
        sys.path.insert(0, str(folder))

from buildcores.driver import main  # noqa: E402
from buildcores.snapshot import SNAPSHOT_COMMIT, SOURCE_DIRS  # noqa: E402

__all__ = ["SNAPSHOT_COMMIT", "SOURCE_DIRS", "main"]

if __name__ == "__main__":
    raise SystemExit(main())
