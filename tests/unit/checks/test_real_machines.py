"""Documented real machines get the verdicts an expert builder accepts (real-machines.md of the shared reference
data): machines that shipped and ran never FAIL; machines documented to overload their PSU or circuit do, and on
the evidence that documents it."""

from __future__ import annotations

import json
from typing import Any

import pytest

from conftest import example, run_cli

ACCEPTED = {
    "real-puget-quad-3090-turbo-300w-1x1600p2.toml": {"pass", "warn"},
    "real-lambda-quad-3090-1x1600-15a.toml": {"fail"},
    "real-lambda-dual-3090-15a.toml": {"pass", "warn"},
    "real-dettmers-quad-3090-350w-1x1600-15a.toml": {"fail"},
    "real-dettmers-quad-3090-300w-1x1600-15a.toml": {"warn", "fail"},
}


def _report(name: str) -> dict[str, Any]:
    [report] = json.loads(run_cli("check", example(name), "--format", "json").out)
    return report  # type: ignore[no-any-return]


def _errors(report: dict[str, Any]) -> set[str]:
    return {f["code"] for f in report["findings"] if f["severity"] == "error"}


@pytest.mark.parametrize("name", sorted(ACCEPTED))
def test_a_documented_machine_gets_its_accepted_verdict(name: str) -> None:
    assert _report(name)["verdict"] in ACCEPTED[name]


def test_pugets_machine_that_ran_at_1717_w_is_not_said_to_shut_down() -> None:
    report = _report("real-puget-quad-3090-turbo-300w-1x1600p2.toml")
    assert not {"psu.headroom", "psu.transient"} & _errors(report)
    warned = {f["code"] for f in report["findings"] if f["severity"] == "warning"}
    assert {"psu.headroom", "psu.transient"} <= warned  # "way too close for long-term use"


def test_pugets_switch_board_feeds_four_x16_cards_from_48_lanes_without_a_lane_warning() -> None:
    report = _report("real-puget-quad-3090-turbo-300w-1x1600p2.toml")
    assert {g["lanes"] for g in report["summary"]["gpus"]} == {16}
    assert not [f for f in report["findings"] if f["code"] == "pcie.cpu-lanes" and f["severity"] != "info"]


def test_lambdas_quad_fails_on_the_psu_rating_and_the_breaker_it_documents() -> None:
    assert {"psu.headroom", "outlet.continuous"} <= _errors(_report("real-lambda-quad-3090-1x1600-15a.toml"))


def test_dettmers_300_w_case_keeps_the_circuit_as_a_warning_because_the_breaker_holds_1800_w() -> None:
    report = _report("real-dettmers-quad-3090-300w-1x1600-15a.toml")
    [circuit] = [f for f in report["findings"] if f["code"] == "outlet.continuous"]
    assert circuit["severity"] == "warning" and 1440 < circuit["value"] < 1800
