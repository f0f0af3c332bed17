"""outlet.continuous, outlet.peak and outlet.inlet: wall draw against the circuit, breaker and cord, with the
fixes re-checking confirms (SPEC §3, §4.2, §4.3)."""

from __future__ import annotations

import json

import pytest

from planner.physics.efficiency import wall_draw

from conftest import example, run_cli
from helpers import BASE, findings, gpus, report

ON_15_A = BASE.replace('outlet = "nema-5-20"', 'outlet = "nema-5-15"')
BLOWERS = "gigabyte-rtx-3090-turbo"  # 2-slot: four fit the 7-slot board, so only power is in question
REST = 368


def quad(limit: int | None = None, text: str = ON_15_A) -> str:
    return text + gpus(BLOWERS, 4, f'power_limit = "{limit} W"' if limit else "")


# -- outlet.continuous ---------------------------------------------------------------------------------------------
def test_dettmers_quad_3090_at_350_w_overloads_a_15_a_outlet() -> None:
    [finding] = findings(quad(), "outlet.continuous")
    # 1,768 W DC at 110.5 % of the AX1600i's rating: Titanium holds 90 % → 1,964.4 W at the wall
    assert finding.severity == "error"
    assert (finding.value, finding.limit) == (pytest.approx(1768 / 0.90), 1440)
    assert "1,964 W at the wall" in finding.message and "1,440 W continuous limit" in finding.message
    assert "NEC 210.23(A)(1)" in finding.message


def test_the_power_limit_fix_is_the_exact_highest_5_w_step_under_90_percent() -> None:
    [finding] = findings(quad(), "outlet.continuous")
    [limit] = [f for f in finding.fixes if f.changes[0].path.endswith("power_limit")]
    assert [c.value for c in limit.changes] == ["205 W"] and limit.verified
    allowed = 0.9 * 1440  # 1,296 W
    # at 205 W: 820 + 368 = 1,188 W DC, 74.25 % load, 94 − 4 × 24.25/50 = 92.06 % → 1,290.5 W, under 1,296 W
    assert wall_draw(4 * 205 + REST, 1600, "80plus-titanium", 120) == pytest.approx(1188 / 0.9206)
    assert wall_draw(4 * 205 + REST, 1600, "80plus-titanium", 120) <= allowed
    # at 210 W: 1,208 W DC, 75.5 % load, 91.96 % → 1,313.6 W, over
    assert wall_draw(4 * 210 + REST, 1600, "80plus-titanium", 120) > allowed


def test_a_240_v_circuit_and_a_second_circuit_are_offered_and_verified() -> None:
    [finding] = findings(quad(), "outlet.continuous")
    outlets = [f for f in finding.fixes if f.changes[0].path == "circuit[0].outlet"]
    assert [f.changes[0].value for f in outlets] == ["nema-6-20"] and outlets[0].verified
    [second] = [f for f in finding.fixes if f.changes[0].path == "circuit"]
    assert second.verified and len(second.changes[0].value) == 2
    assert second.changes[1].value[1]["circuit"] == "wall-2"


def test_moving_a_psu_to_the_other_circuit_is_offered_first() -> None:
    text = BASE.replace('[[psu]]\npart = "corsair-ax1600i"\n', '''[[circuit]]
name = "hall"
outlet = "nema-5-20"
[[psu]]
part = "corsair-ax1600i"
circuit = "wall"
[[psu]]
part = "corsair-hx1000"
circuit = "wall"
''') + gpus(BLOWERS, 4)
    [finding] = findings(text, "outlet.continuous")
    assert finding.fixes[0].changes[0].path == "psu[1].circuit"
    assert finding.fixes[0].changes[0].value == "hall" and finding.fixes[0].verified


def test_over_90_percent_of_the_continuous_limit_warns() -> None:
    # 4 × 250 W + 368 W = 1,368 W, 85.5 % load: 91.8 % → 1,490 W on a 1,920 W circuit = 78 %; on a 15 A one: 103 %
    # 4 × 215 W + 368 W = 1,228 W, 76.75 % load: 91.86 % → 1,336.8 W = 92.8 % of 1,440 W
    [finding] = findings(quad(215), "outlet.continuous")
    assert finding.severity == "warning"


def test_other_load_on_the_circuit_counts() -> None:
    busy = ON_15_A.replace('outlet = "nema-5-15"', 'outlet = "nema-5-15"\nother_load = "300 W"')
    assert findings(quad(190), "outlet.continuous") == []
    assert findings(quad(190, busy), "outlet.continuous")


def test_the_report_gives_each_circuits_wall_draw() -> None:
    summary = report(quad(300)).summary
    # 1,568 W DC at 98 % load → 90.16 % → 1,739.1 W
    assert summary.circuits[0].wall_w == pytest.approx(wall_draw(1568, 1600, "80plus-titanium", 120), abs=0.05)


# -- outlet.peak ---------------------------------------------------------------------------------------------------
def test_coincident_peaks_over_the_breaker_warn() -> None:
    # 4 × 350 × 1.57 + 368 = 2,566 W DC → 2,851 W at the wall, over 120 V × 15 A = 1,800 W
    [finding] = findings(quad(), "outlet.peak")
    assert finding.severity == "warning" and finding.limit == 1800
    assert finding.value == pytest.approx(2566 / 0.90)


def test_peaks_under_the_breaker_give_no_finding() -> None:
    assert findings(quad(150), "outlet.peak") == []


# -- outlet.inlet --------------------------------------------------------------------------------------------------
def test_a_c20_psu_over_its_15_a_plug_fails() -> None:
    # 1,964 W at 120 V = 16.4 A through a NEMA 5-15P-to-C19 cord rated 15 A
    [finding] = findings(quad(), "outlet.inlet")
    assert finding.severity == "error" and finding.limit == 15 and finding.value == pytest.approx(16.37, abs=0.01)
    assert "NEMA 5-15 plug is rated 15 A" in finding.message


def test_the_cord_fix_limits_the_cards_to_what_15_a_carries() -> None:
    [finding] = findings(quad(), "outlet.inlet")
    limit = finding.fixes[0]
    # 1,800 W at the wall ÷ 90 % = 1,620 W DC; (1,620 − 368) / 4 = 313 W → 310 W
    assert [c.value for c in limit.changes] == ["310 W"] and limit.verified


def test_a_230_v_only_psu_on_a_120_v_circuit_fails_and_a_240_v_outlet_fixes_it() -> None:
    text = BASE.replace("corsair-ax1600i", "fsp-cannon-pro-2000w") + gpus(BLOWERS, 2)
    [finding] = findings(text, "outlet.inlet")
    assert finding.severity == "error" and (finding.value, finding.limit, finding.unit) == (120, 200, "V")
    assert "runs only on 200 V or more" in finding.message
    assert [f.changes[0].value for f in finding.fixes] == ["nema-6-20"] and finding.fixes[0].verified


def test_a_230_v_only_psu_is_never_offered_for_a_120_v_circuit() -> None:
    [finding] = findings(quad(), "psu.headroom")
    assert "fsp-cannon-pro-2000w" not in {f.changes[0].value for f in finding.fixes}


# -- the example builds of this area -------------------------------------------------------------------------------
def test_the_connectors_example_fails_only_on_plugs() -> None:
    [result] = json.loads(run_cli("check", example("fail-psu-connectors-dual-3090.toml"), "--format", "json").out)
    errors = {f["code"] for f in result["findings"] if f["severity"] == "error"}
    assert errors == {"psu.connectors"}
