"""outlet.continuous, outlet.peak and outlet.inlet: wall draw against the circuit, breaker and cord, with the
fixes re-checking confirms (docs/verdicts.md, README: Efficiency and wall draw, README: Outlets and circuits)."""

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
def at_share_of_breaker(share: float) -> str:
    """One 3090 on a US 15 A circuit, with other load on the breaker making the wall draw `share` of 1,800 W."""
    alone = ON_15_A + gpus(BLOWERS, 1)
    wall = report(alone).summary.circuits[0].wall_w
    other = share * 1800 - wall
    return alone.replace('outlet = "nema-5-15"', f'outlet = "nema-5-15"\nother_load = "{other:.3f} W"')


def test_79_percent_of_the_breaker_rating_gives_no_outlet_finding() -> None:
    # 1,422 W: 98.75 % of the 1,440 W continuous limit, within it
    assert findings(at_share_of_breaker(0.79), "outlet.continuous") == []


def test_85_percent_of_the_breaker_rating_warns_that_multi_hour_loads_exceed_the_code_limit() -> None:
    [finding] = findings(at_share_of_breaker(0.85), "outlet.continuous")
    assert finding.severity == "warning" and finding.limit == 1440
    assert "106 % of its 1,440 W continuous limit" in finding.message
    assert "85 % of its 1,800 W breaker rating" in finding.message
    assert "will not trip it" in finding.message and "three hours or more" in finding.message
    assert "will trip" not in finding.message.replace("will not trip", "")


def test_101_percent_of_the_breaker_rating_fails_because_the_breaker_will_trip() -> None:
    [finding] = findings(at_share_of_breaker(1.01), "outlet.continuous")
    assert finding.severity == "error" and finding.limit == 1800
    assert "101 % of its 1,800 W breaker rating" in finding.message
    assert "UL 489" in finding.message and "so it will trip under sustained load" in finding.message


UK_13_A = ('outlet = { base = "nema-6-20", id = "uk-13a", name = "UK 13 A socket", region = "uk",'
           ' standard = "BS 1363", voltage = 230, breaker_current = 13, plug_current = 13,'
           ' estimated = ["continuous_factor"], continuous_source = "the planner\'s assumption of 80 %" }')
TINY_3_A = ('outlet = { base = "nema-6-20", id = "in-3a", name = "a 3 A fused spur", region = "in",'
            ' standard = "3 A spur", voltage = 230, breaker_current = 3 }')


def test_outside_north_america_the_error_cites_the_iec_breaker_rule() -> None:
    text = BASE.replace('outlet = "nema-5-20"', UK_13_A + '\nother_load = "3100 W"') + gpus(BLOWERS, 1)
    [finding] = findings(text, "outlet.continuous")
    assert finding.severity == "error" and "IEC 60898-1" in finding.message


def test_a_warning_on_an_estimated_continuous_factor_says_it_is_an_estimate() -> None:
    text = BASE.replace('outlet = "nema-5-20"', UK_13_A + '\nother_load = "1800 W"') + gpus(BLOWERS, 1)
    [finding] = findings(text, "outlet.continuous")
    assert finding.severity == "warning" and "an estimate of local practice" in finding.message


def test_dettmers_quad_3090_at_350_w_trips_a_15_a_breaker() -> None:
    [finding] = findings(quad(), "outlet.continuous")
    # 1,768 W DC at 110.5 % of the AX1600i's rating: Titanium holds 90 % → 1,964.4 W at the wall, over 1,800 W
    assert finding.severity == "error"
    assert (finding.value, finding.limit) == (pytest.approx(1768 / 0.90), 1800)
    assert "1,964 W at the wall" in finding.message and "109 % of its 1,800 W breaker rating" in finding.message


def test_the_power_limit_fix_is_the_exact_highest_5_w_step_within_the_continuous_limit() -> None:
    [finding] = findings(quad(), "outlet.continuous")
    [limit] = [f for f in finding.fixes if f.changes[0].path.endswith("power_limit")]
    assert [c.value for c in limit.changes] == ["235 W"] and limit.verified
    # at 235 W: 940 + 368 = 1,308 W DC, 81.75 % load, 94 − 4 × 31.75/50 = 91.46 % → 1,430.2 W, within 1,440 W
    assert wall_draw(4 * 235 + REST, 1600, "80plus-titanium", 120) <= 1440
    # at 240 W: 1,328 W DC → over 1,440 W
    assert wall_draw(4 * 240 + REST, 1600, "80plus-titanium", 120) > 1440


def test_a_240_v_circuit_and_a_second_circuit_are_offered_and_verified() -> None:
    # in a case with a second PSU mount: in a one-bay case a second PSU adds a case.psu-bays error
    [finding] = findings(quad(text=ON_15_A.replace("fractal-meshify-2-xl", "phanteks-enthoo-pro-2")),
                         "outlet.continuous")
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


def test_other_load_on_the_circuit_counts() -> None:
    busy = ON_15_A.replace('outlet = "nema-5-15"', 'outlet = "nema-5-15"\nother_load = "300 W"')
    assert findings(quad(220), "outlet.continuous") == []
    assert findings(quad(220, busy), "outlet.continuous")


def test_a_circuit_with_other_load_and_no_psu_is_still_checked() -> None:
    text = BASE.replace('[[psu]]', '[[circuit]]\nname = "heater"\noutlet = "nema-5-15"\nother_load = "20 kW"\n'
                                   '[[psu]]\ncircuit = "wall"') + gpus(BLOWERS, 1)
    [finding] = findings(text, "outlet.continuous")
    assert finding.severity == "error" and finding.subject[0] == "heater"


def test_the_report_gives_each_circuits_wall_draw() -> None:
    summary = report(quad(300)).summary
    # 1,568 W DC at 98 % load → 90.16 % → 1,739.1 W
    assert summary.circuits[0].wall_w == pytest.approx(wall_draw(1568, 1600, "80plus-titanium", 120), abs=0.05)


# -- outlet.peak ---------------------------------------------------------------------------------------------------
def test_coincident_peaks_over_the_breaker_rating_are_ridden_through_and_only_inform() -> None:
    [finding] = findings(quad(), "outlet.peak")
    assert finding.severity == "info" and "rides through it" in finding.message


def test_peaks_past_the_instantaneous_trip_warn() -> None:
    # four 3090s' 1–5 ms peaks (2,373 W DC) on a 230 V / 3 A circuit: 690 W rating, instantaneous trip from 2,070 W
    text = BASE.replace('outlet = "nema-5-20"', TINY_3_A) + gpus(BLOWERS, 4)
    [finding] = findings(text, "outlet.peak")
    assert finding.severity == "warning" and finding.limit == pytest.approx(3 * 690)


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
    """It may be offered with a 200–240 V circuit for it, in the same fix; never alone."""
    [finding] = findings(quad(), "psu.headroom")
    for fix in finding.fixes:
        parts = {c.value for c in fix.changes if c.path.endswith(".part")}
        if "fsp-cannon-pro-2000w" in parts:
            assert any(c.path.startswith("circuit") for c in fix.changes), fix.description


# -- the example builds of this area -------------------------------------------------------------------------------
def test_the_connectors_example_fails_only_on_plugs() -> None:
    [result] = json.loads(run_cli("check", example("fail-psu-connectors-dual-3090.toml"), "--format", "json").out)
    errors = {f["code"] for f in result["findings"] if f["severity"] == "error"}
    assert errors == {"psu.connectors"}
