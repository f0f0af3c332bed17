"""Each check: a passing and a failing case, with the numbers in the message and verified fixes."""

from __future__ import annotations

import pytest

from planner.build.edit import apply
from planner.checks.engine.context import Settings
from planner.checks.rules.case import takes_board

from helpers import BASE, build, findings, gpus, report


def test_registry_holds_the_first_checks() -> None:
    from planner.checks.engine.registry import registered

    assert {"case.form-factor", "case.gpu-length", "case.gpu-height", "psu.headroom",
            "power-limit.range"} <= set(registered())


# -- case.form-factor ------------------------------------------------------------------------------------
def test_eeb_board_fits_a_case_that_takes_eeb() -> None:
    assert findings(BASE + gpus("nvidia-rtx-3090-fe"), "case.form-factor") == []


def test_eeb_board_does_not_fit_an_atx_mid_tower() -> None:
    text = BASE.replace("fractal-meshify-2-xl", "nzxt-h510") + gpus("nvidia-rtx-3090-fe")
    [finding] = findings(text, "case.form-factor")
    assert finding.severity == "error"
    assert "EEB" in finding.message and "NZXT H510" in finding.message


def test_form_factor_fix_names_a_case_that_takes_the_board_and_is_verified() -> None:
    text = BASE.replace("fractal-meshify-2-xl", "nzxt-h510") + gpus("nvidia-rtx-3090-fe")
    [finding] = findings(text, "case.form-factor")
    assert finding.fixes, "a catalog case takes EEB"
    fix = finding.fixes[0]
    assert fix.verified is True
    fixed = build(text)
    changed = apply(fixed.raw, fix.changes)
    assert changed["case"] in ("fractal-meshify-2-xl", "phanteks-enthoo-pro-2")


def test_atx_case_also_takes_smaller_atx_family_boards() -> None:
    case = build(BASE.replace("fractal-meshify-2-xl", "nzxt-h510") + gpus("nvidia-rtx-3090-fe")).case
    assert takes_board(case, "micro-atx")
    assert not takes_board(case, "e-atx")


def test_eeb_case_takes_a_ceb_board() -> None:
    case = build(BASE + gpus("nvidia-rtx-3090-fe")).case  # lists e-atx, eeb, atx…
    assert takes_board(case.model_copy(update={"form_factors": ["eeb"]}), "ceb")
    assert not takes_board(case.model_copy(update={"form_factors": ["ceb"]}), "eeb")


# -- case.gpu-length --------------------------------------------------------------------------------------
def test_card_shorter_than_the_case_limit_passes() -> None:
    assert findings(BASE + gpus("nvidia-rtx-3090-fe"), "case.gpu-length") == []


SHORT_CASE = 'case = { base = "fractal-meshify-2-xl", max_gpu_length = "300 mm" }'


def test_card_longer_than_the_case_limit_fails_with_both_lengths() -> None:
    text = BASE.replace('case = "fractal-meshify-2-xl"', SHORT_CASE) + gpus("nvidia-rtx-3090-fe")
    [finding] = findings(text, "case.gpu-length")
    assert finding.severity == "error"
    assert (finding.value, finding.limit, finding.unit) == (313.0, 300.0, "mm")
    assert "313 mm" in finding.message and "300 mm" in finding.message and "13 mm too long" in finding.message


def test_case_length_fix_names_a_catalog_case_the_card_fits_and_is_verified() -> None:
    text = BASE.replace('case = "fractal-meshify-2-xl"', SHORT_CASE) + gpus("nvidia-rtx-3090-fe")
    [finding] = findings(text, "case.gpu-length")
    assert finding.fixes and all(f.verified for f in finding.fixes)
    assert finding.fixes[0].changes[0].path == "case"


def test_card_with_under_10_mm_spare_warns() -> None:
    text = BASE.replace('case = "fractal-meshify-2-xl"', SHORT_CASE.replace("300", "320")) + gpus("nvidia-rtx-3090-fe")
    [finding] = findings(text, "case.gpu-length")
    assert finding.severity == "warning"
    assert "7 mm" in finding.message


# -- case.gpu-height --------------------------------------------------------------------------------------
def test_card_taller_than_the_side_panel_clearance_fails() -> None:
    text = BASE.replace("fractal-meshify-2-xl", "phanteks-enthoo-pro-2") + \
        '[[gpu]]\npart = { base = "nvidia-rtx-3090-fe", height = "190 mm" }\n'
    [finding] = findings(text, "case.gpu-height")
    assert finding.severity == "error"
    assert "10 mm too tall" in finding.message


def test_card_within_the_side_panel_clearance_passes() -> None:
    text = BASE.replace("fractal-meshify-2-xl", "phanteks-enthoo-pro-2") + gpus("nvidia-rtx-3090-fe")
    assert findings(text, "case.gpu-height") == []


def test_unpublished_clearance_is_reported_as_not_checked() -> None:
    [finding] = findings(BASE + gpus("nvidia-rtx-3090-fe"), "case.gpu-height")
    assert finding.severity == "info"
    assert "check it by hand" in finding.message


# -- power-limit.range --------------------------------------------------------------------------------------
def test_power_limit_inside_the_card_range_passes() -> None:
    assert findings(BASE + gpus("nvidia-rtx-3090-fe", extra='power_limit = "300 W"'), "power-limit.range") == []


def test_power_limit_below_the_card_minimum_fails_with_a_verified_fix() -> None:
    text = BASE + gpus("nvidia-rtx-3090-fe", count=2, extra='power_limit = "80 W"')
    [finding] = findings(text, "power-limit.range")
    assert finding.severity == "error"
    assert "80 W" in finding.message and "100 W–400 W" in finding.message and "on both cards" in finding.message
    assert finding.fixes[0].changes[0].value == "100 W"
    assert finding.fixes[0].verified is True


def test_power_limit_above_the_card_maximum_fails() -> None:
    [finding] = findings(BASE + gpus("nvidia-rtx-3090-fe", extra='power_limit = "450 W"'), "power-limit.range")
    assert finding.limit == 400.0


# -- psu.headroom ---------------------------------------------------------------------------------------------
def test_dc_budget_adds_gpus_cpu_and_documented_defaults() -> None:
    summary = report(BASE + gpus("nvidia-rtx-3090-fe", count=2)).summary
    # 2 × 350 W + 280 W CPU + 50 W board + 4 × 3 W RAM + 2 × 7 W drives + 4 × 3 W fans
    assert summary.dc_load_w == 700 + 280 + 50 + 12 + 14 + 12


def test_psu_with_room_to_spare_passes() -> None:
    assert findings(BASE + gpus("nvidia-rtx-3090-fe", count=2), "psu.headroom") == []


def test_four_3090s_at_stock_overload_a_1600_w_psu() -> None:
    [finding] = findings(BASE + gpus("nvidia-rtx-3090-fe", count=4), "psu.headroom")
    assert finding.severity == "error"
    assert finding.value == 1400 + 280 + 50 + 12 + 14 + 12
    assert finding.limit == 1600
    assert "110 %" in finding.message


def test_headroom_fix_lowers_every_limit_to_the_target_and_is_verified() -> None:
    [finding] = findings(BASE + gpus("nvidia-rtx-3090-fe", count=4), "psu.headroom")
    limit_fix = finding.fixes[0]
    assert limit_fix.verified is True
    # (1768 - 0.8 × 1600) / 4 = 122 W → 125 W in 5 W steps → 225 W
    assert [c.value for c in limit_fix.changes] == ["225 W"]


EU_OUTLET = 'outlet = { base = "nema-5-20", voltage = 230, name = "230 V test circuit" }'


def test_headroom_fix_offers_a_bigger_psu_from_the_catalog() -> None:
    # 3 × 350 W + 368 W = 1,418 W: 89 % of 1600 W; a 2000 W unit at 230 V brings it to 71 %
    text = BASE.replace('outlet = "nema-5-20"', EU_OUTLET) + gpus("nvidia-rtx-3090-fe", count=3)
    [finding] = findings(text, "psu.headroom")
    psu_fixes = [f for f in finding.fixes if f.changes[0].path == "psu[0].part"]
    assert psu_fixes and psu_fixes[0].changes[0].value == "super-flower-leadex-platinum-2000w"
    assert psu_fixes[0].verified is True


def test_no_bigger_psu_is_offered_when_none_suffices_at_115_v() -> None:
    # 1,768 W / 0.8 needs 2,210 W; the 2000 W unit gives only 1,650 W at 120 V
    [finding] = findings(BASE + gpus("nvidia-rtx-3090-fe", count=4), "psu.headroom")
    assert not [f for f in finding.fixes if f.changes[0].path == "psu[0].part"]


def test_load_between_target_and_rating_warns() -> None:
    [finding] = findings(BASE + gpus("nvidia-rtx-3090-fe", count=4, extra='power_limit = "270 W"'), "psu.headroom")
    assert finding.severity == "warning"


def test_psu_target_is_configurable() -> None:
    text = BASE + gpus("nvidia-rtx-3090-fe", count=4, extra='power_limit = "270 W"')
    assert not [f for f in report(text, Settings(psu_target=0.95)).findings if f.code == "psu.headroom"]


def test_a_psu_that_derates_at_115_v_is_rated_lower_on_a_us_circuit() -> None:
    text = BASE.replace("corsair-ax1600i", "super-flower-leadex-platinum-2000w") + gpus("nvidia-rtx-3090-fe", 4)
    summary = report(text).summary
    assert summary.psus[0].rating_w == 1650
    eu = text.replace('outlet = "nema-5-20"', EU_OUTLET)
    assert report(eu).summary.psus[0].rating_w == 2000


@pytest.mark.parametrize("verdict,text", [
    ("pass", BASE + gpus("nvidia-rtx-3090-fe", 2)),
    # 2-slot blowers: four 3-slot FE cards no longer fit the 7-slot board (slot.placement)
    ("warn", BASE + gpus("gigabyte-rtx-3090-turbo", 4, 'power_limit = "250 W"')),  # transients: 98 % of capability
    ("fail", BASE + gpus("nvidia-rtx-3090-fe", 4)),
])
def test_verdict_follows_the_worst_finding(verdict: str, text: str) -> None:
    assert report(text).verdict == verdict


def test_a_figure_the_catalog_marks_as_estimated_is_called_an_estimate() -> None:
    text = BASE.replace("fractal-meshify-2-xl", "phanteks-enthoo-pro-2") + \
        '[[gpu]]\npart = { base = "nvidia-rtx-3090-fe", height = "190 mm", estimated = ["height"] }\n'
    [finding] = findings(text, "case.gpu-height")
    assert "190 mm (estimated) tall" in finding.message


def test_rechecking_only_the_checks_an_edit_can_change_gives_the_same_reports(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Fixes verified with the checks the edit cannot change skipped (and the models it cannot change kept) and
    the informing checks skipped (always) are exactly those a full re-check verifies, on every example build."""
    import planner.checks.engine.runner as runner
    from planner.api import check_file
    from planner.catalog import Catalog

    from conftest import EXAMPLES

    files = sorted(EXAMPLES.glob("*.toml"))
    quick = [check_file(f, Catalog()) for f in files]
    monkeypatch.setattr(runner, "touched", lambda changes: None)  # never keep a finding or a model
    monkeypatch.setattr(runner, "informing", frozenset)
    full = [check_file(f, Catalog()) for f in files]
    assert quick == full


def test_a_check_declared_informing_only_ever_reports_info() -> None:
    # fix re-checks skip such checks: they weigh only errors and warnings
    from planner.api import check_file
    from planner.catalog import Catalog
    from planner.checks.engine.registry import informing

    from conftest import EXAMPLES

    assert informing() == {"power-limit.cost"}
    for path in sorted(EXAMPLES.glob("*.toml")):
        report = check_file(path, Catalog())
        assert all(f.severity == "info" for f in report.findings if f.code in informing()), path.name

