"""Every command against hostile files (issue 26), at a small size in CI: tools/fuzz_commands.py with a fixed seed.
`python tools/fuzz_commands.py --inputs 20000 --seed N` runs the large campaign and prints the counts."""

from __future__ import annotations

import sys
from pathlib import Path

from helpers import ROOT


def test_every_command_answers_hostile_files_without_a_traceback_a_hang_or_a_raw_control_character(
        tmp_path: Path) -> None:
    sys.path.insert(0, str(ROOT / "tools"))
    try:
        import fuzz_commands
    finally:
        sys.path.remove(str(ROOT / "tools"))
    results = list(fuzz_commands.fuzz(inputs=90, seed=20261202, timeout=30.0, directory=tmp_path))
    commands = {label.split(" (")[0] for _, label, _, _, _ in results}
    assert len(commands) == len(fuzz_commands.cases())
    failures = [f"input {number} ({label}): {found}" for number, label, found, _, _ in results if found]
    assert not failures, failures
