"""Run the TUI fuzz harness (tests/tui_fuzzing.py) for many sessions and report the counts: sessions, actions,
keys, pastes, resizes, files, tracebacks and hangs. Exit status 1 when any session failed; each failure names
its session, which replays alone with `--first N --sessions 1`.

    PYTHONPATH=. python tools/tui_fuzz.py --seed 2612 --sessions 1000
    PYTHONPATH=. python tools/tui_fuzz.py --seed 2612 --first 417 --sessions 1   # one session again

The sessions run in a scratch directory (the save and export dialogs write there); `--catalog builtin` uses the
full built-in catalogs (slower: the picker lists hundreds of parts) instead of the frozen test catalog.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import tempfile
from pathlib import Path

TESTS = Path(__file__).resolve().parent.parent / "tests"
if str(TESTS) not in sys.path:
    sys.path.insert(0, str(TESTS))

from planner.catalog import Catalog, builtin_dir  # noqa: E402

from tui_fuzzing import fuzz  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", default="26", help="the run's seed (session i draws from 'SEED:i')")
    parser.add_argument("--sessions", type=int, default=100)
    parser.add_argument("--first", type=int, default=0, help="the first session's number (to replay one)")
    parser.add_argument("--steps", type=int, default=40, help="actions per session")
    parser.add_argument("--timeout", type=float, default=120.0, help="seconds a session may take: past it, a hang")
    parser.add_argument("--catalog", choices=["test", "builtin"], default="test")
    parser.add_argument("--minutes", type=float, help="start no session after this many minutes")
    parser.add_argument("--tracebacks", type=Path, help="write every traceback to this file")
    args = parser.parse_args(argv)
    if args.catalog == "test":
        from helpers import TEST_CATALOG

        catalog = TEST_CATALOG
    else:
        catalog = Catalog([builtin_dir()])
    with tempfile.TemporaryDirectory(prefix="tui-fuzz-") as scratch:
        os.chdir(scratch)
        counts = asyncio.run(fuzz(args.seed, args.sessions, catalog, Path(scratch), first=args.first,
                                  steps=args.steps, timeout=args.timeout, progress=True, minutes=args.minutes))
    print(f"seed {args.seed}, sessions {args.first}–{args.first + counts.sessions - 1}: {counts.summary()}")
    print("files: " + ", ".join(f"{kind} {n}" for kind, n in sorted(counts.files.items())))
    for failure in counts.failures:
        print(failure)
    if args.tracebacks is not None:
        args.tracebacks.write_text("\n\n".join(counts.tracebacks))
    return 1 if counts.failures else 0


if __name__ == "__main__":
    sys.exit(main())
