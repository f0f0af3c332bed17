"""What heats or starves a card's intake besides the card next to it (issue #11): the PSU shroud or floor
under the lowest card, the PSU's own heat, and the terms a finding states.

Calibration machine (issue #11): two touching RTX 3090 FEs, the lower one just above the bottom PSU, measured
87–88 °C (upper) and 91 °C (lower), both throttling. The builds sit on the helpers' BASE (Meshify 2 XL:
9 slot positions, no layout under its slots in the test catalog, so a bottom PSU and 10 mm are assumed).
"""

from __future__ import annotations

import pytest

from planner.physics import params
from planner.physics.thermal import GpuThermal

from helpers import BASE, build, findings, report

ISSUE_SLOTS = '["PCIE4", "PCIE7"]'  # positions 4–6 and 7–9: touching, the lower one on the last position


def fe_pair(slots: str, case: str | None = None, ambient: float = 20) -> str:
    text = BASE if case is None else BASE.replace('case = "fractal-meshify-2-xl"', f"case = {case}")
    return (f"ambient = {ambient}\n{text}[[gpu]]\npart = \"nvidia-rtx-3090-fe\"\ncount = {slots.count('PCIE')}\n"
            f"slot = {slots}\n")


def temperatures(text: str) -> tuple[GpuThermal, ...]:
    from planner.checks.engine.context import Context

    from helpers import TEST_CATALOG

    return Context(build(text), TEST_CATALOG).thermal.gpus


KNOWN_PSU_BELOW = '{ base = "fractal-meshify-2-xl", below_slots = "psu", floor_clearance = "5 mm" }'


def test_touching_cards_over_the_psu_predict_the_lower_card_hottest() -> None:
    upper, lower = temperatures(fe_pair(ISSUE_SLOTS))
    assert lower.floor is not None and lower.floor.psu and upper.sandwiched_by == 1
    assert lower.unthrottled_c is not None and upper.unthrottled_c is not None
    assert lower.unthrottled_c > upper.unthrottled_c
    assert lower.unthrottled_c >= 91  # measured 91 °C while throttling: unthrottled it would be at least that


def test_touching_cards_over_the_psu_get_a_temperature_warning_on_the_hotter_card() -> None:
    warnings = findings(fe_pair(ISSUE_SLOTS), "thermal.gpu-temp")
    hottest = max(warnings, key=lambda f: f.value or 0)
    assert hottest.subject[0] == "GPU2" and hottest.severity == "warning"
    assert hottest.value is not None and hottest.limit is not None and hottest.value >= hottest.limit


def test_cards_with_a_free_slot_between_and_room_below_get_no_temperature_finding() -> None:
    text = fe_pair('["PCIE1", "PCIE5"]')  # positions 1–3 and 5–7, two free positions under the lower card
    assert all(t.floor is None and t.sandwiched_by is None for t in temperatures(text))
    assert findings(text, "thermal.gpu-temp") == []
    assert findings(text, "thermal.sandwich") == []


def test_a_card_with_room_below_keeps_its_open_bench_temperature() -> None:
    [card] = temperatures(fe_pair('["PCIE5"]', ambient=25))
    assert card.temperature_c == pytest.approx(25 + 43)  # the flow-through rise at 350 W, nothing added


def test_a_lone_card_on_the_last_position_is_starved_by_what_is_under_it() -> None:
    [warning] = findings(fe_pair('["PCIE7"]'), "thermal.sandwich")
    assert warning.severity == "warning" and warning.unit == "mm" and warning.value == 10
    assert "face the PSU 10 mm away" in warning.message
    assert "assumed: the PSU under the slots and 10 mm of room under the last slot" in warning.message


def test_floor_intake_fans_under_the_cards_do_not_starve_the_lowest_one() -> None:
    case = '{ base = "fractal-meshify-2-xl", below_slots = "intake-fans" }'
    assert [t.floor for t in temperatures(fe_pair(ISSUE_SLOTS, case))] == [None, None]


def test_one_free_slot_of_room_under_the_lowest_card_is_enough() -> None:
    case = '{ base = "fractal-meshify-2-xl", floor_clearance = "21 mm" }'
    assert temperatures(fe_pair('["PCIE7"]', case))[0].floor is None


def test_a_drive_cage_starves_the_card_but_adds_no_psu_heat() -> None:
    case = '{ base = "fractal-meshify-2-xl", below_slots = "drive-cage" }'
    [card] = temperatures(fe_pair('["PCIE7"]', case))
    assert card.floor is not None and card.floor.what == "a drive cage" and not card.floor.psu
    assert not any("PSU" in name for name, _ in card.inlet_terms)


def test_a_blower_card_over_the_psu_is_not_starved() -> None:
    text = BASE + '[[gpu]]\npart = "gigabyte-rtx-3090-turbo"\nslot = ["PCIE7"]\n'
    assert temperatures(text)[0].floor is None


def test_the_inlet_terms_add_up_and_the_finding_states_each_of_them() -> None:
    upper, lower = temperatures(fe_pair(ISSUE_SLOTS))
    for card in (upper, lower):
        assert sum(delta for _, delta in card.inlet_terms) == pytest.approx(card.inlet_c)
    [warning] = [f for f in findings(fe_pair(ISSUE_SLOTS), "thermal.gpu-temp") if f.subject[0] == "GPU2"]
    assert f"inlet air {lower.inlet_c:.1f} °C: room 20 °C + " in warning.message
    assert "from its own exhaust" in warning.message and "from the PSU below" in warning.message


def test_past_the_maximum_on_an_assumed_layout_is_a_warning_that_names_the_assumption() -> None:
    [hot] = [f for f in findings(fe_pair(ISSUE_SLOTS, ambient=25), "thermal.gpu-temp") if f.subject[0] == "GPU2"]
    assert hot.value is not None and hot.value >= 93
    assert hot.severity == "warning" and "assumed" in hot.message


def test_past_the_maximum_on_a_known_layout_is_an_error() -> None:
    text = fe_pair(ISSUE_SLOTS, KNOWN_PSU_BELOW, ambient=25)
    [hot] = [f for f in findings(text, "thermal.gpu-temp") if f.subject[0] == "GPU2"]
    assert hot.severity == "error" and "assumed" not in hot.message


def test_a_field_stated_in_the_build_file_is_no_longer_a_catalog_estimate() -> None:
    text = fe_pair('["PCIE7"]', '{ base = "fractal-meshify-2-xl", intake_airflow = "300 cfm" }')
    assert "intake_airflow" not in build(text).case.estimated  # the test catalog marks it as an estimate


def test_the_psu_below_adds_part_of_its_loss_heat() -> None:
    [card] = temperatures(fe_pair('["PCIE7"]'))
    [psu_term] = [delta for name, delta in card.inlet_terms if name == "the PSU below"]
    dc = 350 + 368  # the card at its limit and the rest of the BASE system
    loss = dc * (1 / params.WALL_EFFICIENCY.value - 1)
    flow = params.CARD_AIRFLOW.value / params.FLOOR_STARVED_PENALTY.value
    assert psu_term == pytest.approx(1.76 * params.PSU_BELOW_HEAT_SHARE.value * loss / flow)


INTAKE_PARAMS = ("SLOT_PITCH", "STARVED_INTAKE_GAP", "FLOOR_CLEARANCE_ASSUMED", "FLOOR_STARVED_PENALTY",
                 "FLOOR_RECIRCULATION", "PSU_BELOW_HEAT_SHARE")


@pytest.mark.parametrize("name", INTAKE_PARAMS)
def test_every_intake_parameter_has_a_source_and_a_reason(name: str) -> None:
    param = getattr(params, name)
    assert param.source.strip() and param.why.strip() and param.unit.strip()


def test_the_report_gives_the_lower_card_its_held_target_not_a_lower_figure() -> None:
    summary = report(fe_pair(ISSUE_SLOTS)).summary
    assert summary.gpus[1].temperature_c == 83.0  # throttling to hold its target


def test_a_cooler_thinner_than_its_slot_positions_leaves_that_room_under_it() -> None:
    thin = 'part = { base = "nvidia-rtx-3090-fe", slot_width = 2.4 }'  # 0.6 of a slot (12 mm) + 10 mm below
    text = f"ambient = 20\n{BASE}[[gpu]]\n{thin}\nslot = [\"PCIE7\"]\n"
    assert temperatures(text)[0].floor is None
    assert temperatures(fe_pair('["PCIE7"]'))[0].floor is not None  # the 3-slot card fills its positions


def test_a_starved_card_close_to_the_side_panel_says_so_without_counting_it() -> None:
    case = '{ base = "fractal-meshify-2-xl", max_gpu_height = "145 mm" }'  # 7 mm over the FE's 138 mm
    [warning] = findings(fe_pair('["PCIE7"]', case), "thermal.sandwich")
    assert "the side panel, about 7 mm from its edge" in warning.message
    assert "side panel" not in findings(fe_pair('["PCIE7"]'), "thermal.sandwich")[0].message
