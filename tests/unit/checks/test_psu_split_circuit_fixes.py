"""psu.split's fixes name the limiting circuit by its name, not by its outlet type (issue 13, item 1): an
empty circuit of the same outlet listed first used to be taken for it, and the second-circuit fix then
crashed with an IndexError looking for that circuit's PSU."""

from __future__ import annotations

from pathlib import Path

from planner.api import check_file
from planner.catalog import Catalog

from conftest import run_cli

# the smallest build that showed it: two PSUs on one 15 A circuit, a spare 15 A circuit listed first
EMPTY_CIRCUIT_FIRST = """
name = "Two PSUs on one 15 A circuit, an empty circuit of the same type listed first"
case = "generic-8-gpu-aluminium-mining-frame"
motherboard = "asrock-rack-romed8-2t"
cpu = "amd-epyc-7443p"

[[circuit]]
name = "spare"
outlet = "nema-5-15"

[[circuit]]
name = "desk"
outlet = "nema-5-15"

[[psu]]
part = "corsair-hx1500i-2023"
circuit = "desk"

[[psu]]
part = "corsair-rm1000x-2024"
circuit = "desk"

[[gpu]]
part = "nvidia-rtx-3090-fe"
count = 4
riser = "c-payne-slimsas-pcie4-redriver-kit"
"""


def _build(tmp_path: Path) -> Path:
    path = tmp_path / "empty-circuit-first.toml"
    path.write_text(EMPTY_CIRCUIT_FIRST)
    return path


def test_an_empty_circuit_of_the_same_outlet_listed_first_does_not_crash_the_split_fixes(tmp_path: Path) -> None:
    run = run_cli("check", _build(tmp_path))
    assert run.code == 1
    assert "Traceback" not in run.err and "IndexError" not in run.err
    assert "psu.split" in run.out


def test_the_split_fixes_address_the_limiting_circuit_by_name(tmp_path: Path) -> None:
    report = check_file(_build(tmp_path), Catalog())
    split = next(f for f in report.findings if f.code == "psu.split")
    assert "circuit 'desk'" in split.message
    moves = [c for fix in split.fixes for c in fix.changes if c.path.endswith(".circuit")]
    assert moves and all(c.value != "desk" for c in moves)  # PSUs move off 'desk', onto 'spare' or a new one
    assert any(c.value == "spare" for c in moves)
