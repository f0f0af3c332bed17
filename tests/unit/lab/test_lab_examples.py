"""The example labs (examples/labs/) give the verdicts the README explains."""

from __future__ import annotations

import pytest

from planner.catalog import Catalog
from planner.lab.report import check_lab

from helpers import ROOT

LABS = ROOT / "examples" / "labs"


@pytest.mark.parametrize(("name", "verdict", "lab_codes"), [
    ("guide-mixed-208v-3ph.toml", "warn", set()),
    ("office-four-dual-4090.toml", "warn", {"lab.cooling"}),
    ("closet-eight-quad-3090.toml", "fail", {"lab.cooling", "lab.network"}),
])
def test_example_lab_verdicts(catalog: Catalog, name: str, verdict: str, lab_codes: set[str]) -> None:
    report = check_lab(LABS / name, catalog)
    assert report.verdict == verdict
    assert {f.code for f in report.findings} == lab_codes


def test_the_mixed_lab_balances_its_three_phase_feeds(catalog: Catalog) -> None:
    report = check_lab(LABS / "guide-mixed-208v-3ph.toml", catalog)
    assert all(value < 0.2 for value in report.imbalance.values())
    assert {p["into"].split("/")[0] for p in report.plugs if p["machine"].startswith("ws")} == {"pdu-a", "pdu-b"}
    runtime = next(r for r in report.ups if r.kind == "ups-runtime")
    assert runtime.limit > runtime.load  # minutes on battery beyond the 5 min to shut down
