"""Rewrite docs/verdicts.md's tables from the checks' declarations (planner/checks/engine/docs.py).

    PYTHONPATH=. python tools/gen_verdicts.py          # rewrite the tables
    PYTHONPATH=. python tools/gen_verdicts.py --check  # exit 1 when the document is stale
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from planner.checks.engine.docs import render
from planner.checks.engine.registry import registered

DOC = Path(__file__).resolve().parent.parent / "docs" / "verdicts.md"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="only say whether the document is up to date")
    args = parser.parse_args(argv)
    current = DOC.read_text(encoding="utf-8")
    rendered = render(current, registered())
    if args.check:
        if rendered != current:
            print(f"{DOC} is stale: run tools/gen_verdicts.py", file=sys.stderr)
            return 1
        return 0
    if rendered != current:
        DOC.write_text(rendered, encoding="utf-8")
        print(f"rewrote {DOC}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
