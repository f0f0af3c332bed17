"""A partial build (issue 25): `planner check` names every missing part and every other problem in one run and
points to `planner solve`, which completes it."""

from __future__ import annotations

import json

from conftest import run_cli
from helpers import TESTS

DRAFT = TESTS / "data" / "partial" / "gpus-only-count-two.toml"


def test_check_of_a_gpus_only_file_names_every_missing_part_and_the_bad_count_in_one_run() -> None:
    run = run_cli("check", DRAFT)
    assert run.code == 2
    line = run.err.strip()
    for part in ("case", "motherboard", "cpu", "psu"):
        assert part in line
    assert 'gpu[0].count (line 6): expected a whole number, got "two"' in line
    assert len(line.splitlines()) == 1


def test_check_of_a_partial_build_points_to_planner_solve_with_the_file() -> None:
    run = run_cli("check", DRAFT)
    assert f"planner solve {DRAFT}" in run.err


def test_check_json_of_a_partial_build_lists_the_missing_parts() -> None:
    run = run_cli("check", DRAFT, "--format", "json")
    (result,) = json.loads(run.out)
    assert result["missing"] == ["case", "motherboard", "cpu", "psu"]
    assert "planner solve" in result["error"]
