"""One checked build for every face: `check --diagram`, the HTML report and the power-limit scripts draw the
placement the checks computed (`api.check` returns it with the report) instead of placing the cards again."""

from __future__ import annotations

import contextlib
import io
from pathlib import Path

import pytest

import planner.placement.from_build as from_build
from planner.catalog import Catalog
from planner.cli.main import main

from helpers import ROOT

PASSING = ROOT / "examples" / "builds" / "pass-dual-3090-wrx80.toml"
FAILING = ROOT / "examples" / "builds" / "fail-dettmers-quad-3090-us-15a.toml"


def _count_placements(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """From now on, count the placement solver's runs: the returned list's one item."""
    calls = [0]
    solve = from_build.solve

    def counting(problem: from_build.Problem) -> from_build.Solution:
        calls[0] += 1
        return solve(problem)

    monkeypatch.setattr(from_build, "solve", counting)
    return calls


def _placements(monkeypatch: pytest.MonkeyPatch, argv: list[str]) -> int:
    """How many times the placement solver runs for one command."""
    with monkeypatch.context() as patched:
        calls = _count_placements(patched)
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            main(argv)
    return calls[0]


@pytest.mark.parametrize("build", [PASSING, FAILING], ids=["passing", "failing"])
def test_check_with_a_diagram_places_the_cards_no_more_often_than_check_alone(monkeypatch: pytest.MonkeyPatch,
                                                                              build: Path) -> None:
    alone = _placements(monkeypatch, ["check", str(build), "--format", "json"])
    with_diagram = _placements(monkeypatch, ["check", str(build), "--format", "json", "--diagram"])
    assert with_diagram == alone


def test_a_passing_build_is_placed_once_for_its_check_and_its_diagram(monkeypatch: pytest.MonkeyPatch) -> None:
    assert _placements(monkeypatch, ["check", str(PASSING), "--diagram"]) == 1


@pytest.mark.parametrize("fmt", ["html", "nvidia-smi", "systemd"])
def test_an_export_that_draws_the_placement_reuses_the_checks(monkeypatch: pytest.MonkeyPatch, fmt: str,
                                                              tmp_path: Path) -> None:
    assert _placements(monkeypatch, ["export", str(PASSING), "--format", fmt, "-o", str(tmp_path / "out")]) == 1


def test_the_tuis_check_draws_its_slot_diagram_from_the_checks_placement(monkeypatch: pytest.MonkeyPatch,
                                                                          catalog: Catalog) -> None:
    from planner.session import BuildSession
    from tui.state import check

    session = BuildSession.open(PASSING, catalog)
    calls = _count_placements(monkeypatch)
    checked = check(session.pending_check(), 0)
    assert checked.diagram and calls == [1]
