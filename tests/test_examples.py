"""The example builds give the verdicts their comments promise."""

from __future__ import annotations

import json

import pytest

from conftest import EXAMPLES, example, run_cli

EXPECTED = {
    "pass-dual-3090-wrx80.toml": ("pass", set()),
    "warn-quad-3090-blower-250w.toml": ("warn", {"psu.headroom"}),
    "fail-case-eeb-board-in-mid-tower.toml": ("fail", {"case.form-factor"}),
    "fail-psu-quad-3090-fe-1600w.toml": ("fail", {"psu.headroom"}),
    "inline-watercooled-3090s.toml": ("pass", set()),
}


def test_every_example_has_a_comment_saying_what_it_shows() -> None:
    for path in EXAMPLES.glob("*.toml"):
        assert path.read_text().startswith("# Shows:"), path.name


def test_every_example_is_covered_here() -> None:
    assert {p.name for p in EXAMPLES.glob("*.toml")} == set(EXPECTED)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_example_build_gives_its_promised_verdict(name: str) -> None:
    verdict, failing_codes = EXPECTED[name]
    result = run_cli("check", example(name), "--format", "json")
    [report] = json.loads(result.out)
    assert report["verdict"] == verdict
    problems = {f["code"] for f in report["findings"] if f["severity"] in ("error", "warning")}
    assert failing_codes <= problems


def test_the_inline_example_uses_its_custom_parts() -> None:
    result = run_cli("check", example("inline-watercooled-3090s.toml"), "--format", "json")
    [report] = json.loads(result.out)
    assert report["summary"]["gpus"][0]["part"] == "nvidia-rtx-3090-fe-custom"
    assert report["summary"]["assumptions"] == [
        "no [[circuit]] given: assumed one NEMA 5-15 circuit (120 V, 15 A) for region 'us'"]
