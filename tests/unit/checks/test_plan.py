"""The plan (issue 25): one verified change that clears every error leads the report; the per-finding fixes stay
below it, bigger-PSU and second-PSU fixes among them; a fix that changes the GPU chip says what it costs."""

from __future__ import annotations

import json

import pytest

from planner.api import check_build, check_file, load_build
from planner.build.buildfile import validate
from planner.build.edit import apply
from planner.build.resolve import resolve
from planner.catalog import Catalog
from planner.report import Report

from conftest import example, run_cli
from helpers import TESTS

QUAD_TUF = TESTS / "data" / "plan" / "quad-3090-tuf-x670e-rm1000x-15a.toml"


@pytest.fixture(scope="module")
def quad_tuf(catalog: Catalog) -> Report:
    return check_file(QUAD_TUF, catalog)


def test_the_quad_tuf_build_fails_on_slots_power_breaker_cord_and_case_air(quad_tuf: Report) -> None:
    errors = {f.code for f in quad_tuf.findings if f.severity == "error"}
    assert {"slot.placement", "slot.lanes", "psu.headroom", "outlet.continuous", "outlet.inlet"} <= errors


def test_the_plan_clears_every_error_of_the_quad_tuf_build(quad_tuf: Report) -> None:
    plan = quad_tuf.plan
    assert plan is not None and plan.verified and not plan.remaining
    assert set(plan.clears) == {f.code for f in quad_tuf.findings if f.severity == "error"}


def test_the_plan_verifies_when_its_changes_are_applied_to_the_build_file(quad_tuf: Report, catalog: Catalog) -> None:
    plan = quad_tuf.plan
    assert plan is not None
    build = load_build(QUAD_TUF, catalog)
    data = apply(build.raw, plan.changes)
    changed = resolve(validate(data, "", str(QUAD_TUF)), data, catalog, label=str(QUAD_TUF))
    report = check_build(changed, catalog)
    assert not [f.code for f in report.findings if f.severity == "error"]


def test_the_plan_states_its_cost_in_throughput_and_dollars(quad_tuf: Report) -> None:
    plan = quad_tuf.plan
    assert plan is not None and plan.cost_usd is not None and plan.cost_usd > 0
    assert "of parts" in plan.description and "estimated throughput" in plan.description


def test_the_text_report_leads_with_the_plan() -> None:
    lines = run_cli("check", QUAD_TUF).out.splitlines()
    assert lines[1].startswith("  PLAN: ")


def test_the_json_report_carries_the_plan_with_its_changes_and_what_it_clears() -> None:
    [result] = json.loads(run_cli("check", QUAD_TUF, "--format", "json").out)
    plan = result["plan"]
    assert plan["verified"] and plan["changes"] and "slot.placement" in plan["clears"]
    assert {"description", "steps", "relative_perf", "cost_usd", "remaining"} <= plan.keys()


def test_the_psu_headroom_error_offers_a_bigger_psu(quad_tuf: Report) -> None:
    [headroom] = [f for f in quad_tuf.findings if f.code == "psu.headroom"]
    assert any(f.verified and any(c.path == "psu[0].part" for c in f.changes) for f in headroom.fixes)


def test_the_psu_headroom_error_offers_a_second_psu(quad_tuf: Report) -> None:
    [headroom] = [f for f in quad_tuf.findings if f.code == "psu.headroom"]
    second = [f for f in headroom.fixes if f.description.startswith("add a second PSU")]
    assert second and second[0].verified
    [psus] = [c.value for c in second[0].changes if c.path == "psu"]
    assert len(psus) == 2


def test_too_few_slots_gets_another_board_that_puts_every_card_on_cpu_lanes(quad_tuf: Report) -> None:
    [placement] = [f for f in quad_tuf.findings if f.code == "slot.placement"]
    boards = [f for f in placement.fixes if any(c.path == "motherboard" for c in f.changes)]
    assert boards and all(f.verified for f in boards)


def test_a_passing_build_has_no_plan(catalog: Catalog) -> None:
    assert check_file(example("pass-dual-3090-wrx80.toml"), catalog).plan is None


def test_a_power_only_failure_is_planned_as_one_power_limit_for_all_cards(catalog: Catalog) -> None:
    report = check_file(example("fail-dettmers-quad-3090-us-15a.toml"), catalog)
    assert report.plan is not None and report.plan.verified
    assert [c.path for c in report.plan.changes] == ["gpu[0].power_limit"]


QUAD_4090 = TESTS / "data" / "plan" / "quad-4090-fe-wrx80.toml"


def test_a_chip_changing_slot_fix_states_its_speed_and_memory_cost(catalog: Catalog) -> None:
    report = check_file(QUAD_4090, catalog)
    [placement] = [f for f in report.findings if f.code == "slot.placement"]
    other_chip = [f for f in placement.fixes if "another chip" in f.description]
    assert other_chip
    for fix in other_chip:
        assert "% speed for" in fix.description and "GB of memory per card instead of 24 GB" in fix.description


def test_same_chip_slot_fixes_come_before_chip_changing_ones(catalog: Catalog) -> None:
    report = check_file(example("fail-slots-quad-3090-fe-wrx80.toml"), catalog)
    [placement] = [f for f in report.findings if f.code == "slot.placement"]
    chips = ["another chip" in f.description for f in placement.fixes]
    assert chips == sorted(chips) and not chips[0]


def test_the_plan_prefers_a_same_chip_change_to_another_chip(catalog: Catalog) -> None:
    report = check_file(QUAD_4090, catalog)
    assert report.plan is not None and not report.plan.changes_chip
