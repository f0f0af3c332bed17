"""The thermal/airflow model (README: Thermals) and the `thermal.*` checks, against hand-computed values.

The builds below sit on the helpers' BASE: Meshify 2 XL (205 CFM rated intake → 143.5 CFM effective at
70 %), WRX80 board, 280 W CPU; with the default extras (4 DIMMs, 2 drives, 4 fans, 50 W board) the rest
of the system releases 280 + 50 + 12 + 14 + 12 = 368 W inside the case.
"""

from __future__ import annotations

import json

import pytest

from planner.build.edit import apply
from planner.checks.engine.context import Context
from planner.checks.rules.thermal import sandwich
from planner.physics import params
from planner.physics.thermal import thermal_model
from planner.placement import Placement
from planner.util.fmt import watts

from conftest import example, run_cli
from helpers import BASE, TEST_CATALOG, build, findings, gpus, report

REST_W = 368.0
AIRFLOW = 205 * 0.7


def fe(slots: str, extra: str = "") -> str:
    count = slots.count("PCIE")
    return gpus("nvidia-rtx-3090-fe", count, f"slot = [{slots}]\n{extra}")


def thermal(text: str) -> Context:
    return Context(build(text), TEST_CATALOG)


def test_case_air_rise_is_1_76_times_the_heat_inside_over_the_airflow() -> None:
    ctx = thermal(BASE + fe('"PCIE1"'))
    air = ctx.thermal.case
    # a flow-through card leaves half of its 350 W in the case; everything else all of its 368 W
    assert air.heat_w == pytest.approx(175 + REST_W)
    assert air.airflow_cfm == pytest.approx(AIRFLOW)
    assert air.rise_c == pytest.approx(1.76 * 543 / 143.5)  # 6.66 °C


def test_an_open_air_card_heats_the_case_more_than_a_blower() -> None:
    open_air = 'part = { base = "gigabyte-rtx-3090-turbo", cooler = "open-air" }\n'
    heat_open = thermal(BASE + f"[[gpu]]\n{open_air}").thermal.case.heat_w
    heat_blower = thermal(BASE + gpus("gigabyte-rtx-3090-turbo")).thermal.case.heat_w
    assert heat_open - REST_W == pytest.approx(350)  # all of it
    assert heat_blower - REST_W == pytest.approx(350 * params.CASE_SHARE_BLOWER.value)  # 70 W


def test_a_lone_card_runs_at_its_inlet_plus_power_times_thermal_resistance() -> None:
    [card] = thermal(BASE + fe('"PCIE1"')).thermal.gpus
    assert card.inlet_c == 25.0  # nothing below it: intake air at room temperature
    assert card.temperature_c == pytest.approx(25 + 350 * 43 / 350)  # 68 °C
    assert report(BASE + fe('"PCIE1"')).summary.gpus[0].temperature_c == 68.0


def test_the_upper_card_breathes_air_warmed_by_the_card_below() -> None:
    ctx = thermal(BASE + fe('"PCIE1", "PCIE5"'))
    top, bottom = ctx.thermal.gpus
    assert ctx.thermal.order == (1, 0)  # the airflow graph is walked from the bottom of the stack
    assert bottom.inlet_c == 25.0
    assert top.inlet_c == pytest.approx(25 + 1.76 * 175 / AIRFLOW)  # 27.15 °C
    assert top.sandwiched_by is None


def test_an_open_air_card_with_no_free_slot_below_breathes_its_exhaust_and_cools_worse() -> None:
    ctx = thermal(BASE + fe('"PCIE1", "PCIE4"'))  # positions 1–3 and 4–6
    top, bottom = ctx.thermal.gpus
    assert bottom.inlet_c == 25.0
    exhaust_below = 25 + 1.76 * 175 / 50  # 31.16 °C: its half of 350 W in the 50 CFM through its cooler
    case_air = 25 + 1.76 * 175 / AIRFLOW
    assert top.sandwiched_by == 1
    assert top.inlet_c == pytest.approx(0.5 * case_air + 0.5 * exhaust_below)  # 29.15 °C
    assert top.unthrottled_c == pytest.approx(top.inlet_c + 350 * 43 / 350 * 1.25)  # 82.9 °C
    [warning] = findings(BASE + fe('"PCIE1", "PCIE4"'), "thermal.sandwich")
    assert warning.severity == "warning" and warning.subject[:2] == ["GPU1", "GPU2"]


def test_one_free_slot_between_cards_is_not_a_sandwich() -> None:
    assert findings(BASE + fe('"PCIE1", "PCIE5"'), "thermal.sandwich") == []


def test_blower_cards_stacked_without_a_gap_are_not_sandwiched() -> None:
    text = BASE + gpus("gigabyte-rtx-3090-turbo", 2, 'slot = ["PCIE1", "PCIE3"]')
    assert findings(text, "thermal.sandwich") == []


def test_cards_without_a_position_take_mixed_case_air_and_the_report_says_adjacency_is_unknown() -> None:
    text = BASE + gpus("nvidia-rtx-3090-fe", 2)
    resolved = build(text)
    unplaced = Placement((None, None), feasible=False)
    model = thermal_model(resolved, unplaced, REST_W)
    assert [t.where for t in model.gpus] == ["unknown", "unknown"]
    assert model.gpus[0].inlet_c == pytest.approx(25 + 0.5 * model.case.rise_c)
    ctx = Context(resolved, TEST_CATALOG)
    ctx.__dict__["placement"] = unplaced  # as if the placement solver found no place for them
    [note] = sandwich(ctx)
    assert note.severity == "info" and "unknown" in note.message


# -- throttling ------------------------------------------------------------------------------------------
HOT_ROOM = "ambient = 45\n" + BASE + fe('"PCIE1"')


def test_a_card_over_its_target_reports_throttling_and_its_cost_instead_of_a_higher_temperature() -> None:
    [card] = thermal(HOT_ROOM).thermal.gpus
    assert card.unthrottled_c == pytest.approx(45 + 43)  # 88 °C at 350 W
    assert card.temperature_c == pytest.approx(83)  # it holds its target…
    assert card.power_w == pytest.approx((83 - 45) * 350 / 43)  # …at 309 W
    [warning] = findings(HOT_ROOM, "thermal.gpu-temp")
    assert warning.severity == "warning" and (warning.value, warning.limit) == (88.0, 83.0)
    assert "about 309 W" in warning.message and "−2 % throughput" in warning.message
    gpu = report(HOT_ROOM).summary.gpus[0]
    # the measured curve at 309.3 / 350 = 0.884: 0.98 + 0.01 × (0.884 − 0.857) / 0.057
    assert (gpu.temperature_c, gpu.relative_perf) == (83.0, pytest.approx(0.9847, abs=5e-4))


def test_the_summary_gives_the_temperature_and_power_the_gpu_temp_finding_says_a_card_settles_at() -> None:
    # GPU3 over the PSU shroud "would reach 99 °C" at 350 W and throttles hard: the summary must not show 83 °C
    # beside 350 W as if it ran there, but where it settles, as the finding says
    [checked] = json.loads(run_cli("check", example("fail-psu-quad-3090-fe-1600w.toml"), "--format", "json").out)
    hot = [f for f in checked["findings"] if f["code"] == "thermal.gpu-temp"]
    assert len(hot) == 3
    for finding in hot:
        gpu = checked["summary"]["gpus"][int(finding["subject"][0].removeprefix("GPU")) - 1]
        assert gpu["power_w"] < gpu["power_limit_w"]
        assert f"to about {watts(gpu['power_w'])} at {gpu['temperature_c']:.0f} °C" in finding["message"]


def test_the_tui_totals_show_the_power_a_throttling_card_settles_at() -> None:
    from planner.api import Catalog, check_file
    from tui.widgets.totals import gpu_line

    summary = check_file(example("fail-psu-quad-3090-fe-1600w.toml"), Catalog()).summary
    assert gpu_line(summary.gpus[2]) == f"{summary.gpus[2].mount}, 350 W, 83 °C at {watts(summary.gpus[2].power_w)}"
    assert gpu_line(summary.gpus[3]).endswith("350 W, 75 °C")  # the coolest card runs at its limit


def test_the_temperature_fix_is_the_highest_limit_below_the_target_and_verified() -> None:
    [warning] = findings(HOT_ROOM, "thermal.gpu-temp")
    fix = warning.fixes[0]
    assert fix.verified and fix.changes[0].value == "305 W"  # below (83 − 45) × 350 / 43 = 309.3 W
    assert "keeps every GPU below its temperature target" in fix.description
    fixed = build(HOT_ROOM)
    assert findings_of(apply(fixed.raw, fix.changes), "thermal.gpu-temp") == []


def findings_of(data: dict[str, object], code: str) -> list[object]:
    import tomlkit

    return findings(tomlkit.dumps(data), code)


def test_a_card_at_its_maximum_operating_temperature_is_an_error() -> None:
    [error] = findings("ambient = 50\n" + BASE + fe('"PCIE1"'), "thermal.gpu-temp")
    assert error.severity == "error" and (error.value, error.limit) == (93.0, 93.0)
    assert "throttle hard" in error.message


# -- passive cards ---------------------------------------------------------------------------------------
PASSIVE = '[[gpu]]\npart = { base = "gigabyte-rtx-3090-turbo", cooler = "passive", name = "Passive card" }\n'


def test_a_passive_card_in_a_desktop_case_fails_and_has_no_temperature() -> None:
    [error] = findings(BASE + PASSIVE, "thermal.passive")
    assert error.severity == "error" and "Fractal Design Meshify 2 XL" in error.message
    assert report(BASE + PASSIVE).summary.gpus[0].temperature_c is None


def test_a_passive_card_in_a_chassis_with_server_airflow_is_fine() -> None:
    server = BASE.replace('case = "fractal-meshify-2-xl"',
                          'case = { base = "fractal-meshify-2-xl", server_airflow = true, intake_airflow = 300 }')
    assert findings(server + PASSIVE, "thermal.passive") == []
    assert report(server + PASSIVE).summary.gpus[0].temperature_c is not None


# -- case air --------------------------------------------------------------------------------------------
def with_case(intake: str) -> str:
    return BASE.replace('case = "fractal-meshify-2-xl"',
                        f'case = {{ base = "fractal-meshify-2-xl", intake_airflow = "{intake}" }}')


def test_case_air_rising_over_15_degrees_is_an_error_and_over_10_a_warning() -> None:
    [error] = findings(with_case("60 cfm") + fe('"PCIE1"'), "thermal.case")
    assert error.severity == "error" and error.value == pytest.approx(1.76 * 543 / 42, abs=0.05)  # 22.8 °C
    [warning] = findings(with_case("100 cfm") + fe('"PCIE1"'), "thermal.case")
    assert warning.severity == "warning" and warning.value == pytest.approx(1.76 * 543 / 70, abs=0.05)  # 13.7
    assert findings(BASE + fe('"PCIE1"'), "thermal.case") == []  # 6.7 °C


def test_a_case_sold_without_fans_is_modelled_with_assumed_intake_fans_and_says_so() -> None:
    text = with_case("0 cfm") + fe('"PCIE1", "PCIE5"')
    air = thermal(text).thermal.case
    assert (air.assumed_fans, air.rated_airflow_cfm) == (3, 180)  # 4 fans by default, one exhausting
    [warning] = findings(text, "thermal.case")
    assert warning.value == pytest.approx(1.76 * (350 + REST_W) / 126, abs=0.05)  # 10.03 °C
    assert "ships without intake fans, so 3 fans of 60 CFM are assumed" in warning.message


def test_the_case_air_fix_names_the_intake_airflow_that_brings_it_under_10_degrees() -> None:
    [warning] = findings(BASE + fe('"PCIE1", "PCIE4", "PCIE7"'), "thermal.case")
    assert warning.value == pytest.approx(1.76 * (525 + REST_W) / AIRFLOW, abs=0.05)  # 10.95 °C
    [airflow] = [f for f in warning.fixes if "intake fans" in f.description]
    # 1.76 × 893 W / 10 °C = 157.2 CFM effective = 224.5 CFM rated, rounded up to 230
    assert airflow.verified
    assert airflow.changes[0].value == {"base": "fractal-meshify-2-xl", "intake_airflow": "230 cfm"}


def test_an_open_frame_has_no_case_air_to_heat() -> None:
    frame = with_case("0 cfm").replace('intake_airflow = "0 cfm"', 'intake_airflow = "0 cfm", open_frame = true')
    assert findings(frame + fe('"PCIE1", "PCIE5"'), "thermal.case") == []
    assert thermal(frame + fe('"PCIE1", "PCIE5"')).thermal.gpus[0].inlet_c == 25.0
