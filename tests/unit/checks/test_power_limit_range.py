"""`power-limit.range` (issue 11, point 3): a limit outside a published range is an error, outside an
estimated one a warning that says the bound is estimated and names the tool that shows the real one."""

from __future__ import annotations

import pytest

from planner.api import check_build
from planner.catalog import Catalog
from planner.checks.engine.findings import Finding
from planner.checks.limits import candidates, describe
from planner.models.parts import GpuBoard

from helpers import BASE, TEST_CATALOG, build, findings, gpus


def _range(text: str, catalog: Catalog = TEST_CATALOG) -> list[Finding]:
    return [f for f in check_build(build(text, catalog), catalog).findings if f.code == "power-limit.range"]


def test_a_limit_below_an_estimated_minimum_is_a_warning_naming_the_estimate_and_nvidia_smi() -> None:
    # the TURBO's 100 W minimum is listed in its `estimated` fields
    [finding] = findings(BASE + gpus("gigabyte-rtx-3090-turbo", 2, 'power_limit = "80 W"'), "power-limit.range")
    assert finding.severity == "warning"
    assert "estimate" in finding.message
    assert "nvidia-smi -q -d POWER" in finding.message and "Min Power Limit" in finding.message
    assert (finding.value, finding.limit) == (80.0, 100.0)
    assert finding.fixes[0].changes[0].value == "100 W"


def test_a_limit_below_a_sourced_minimum_is_an_error() -> None:
    # the FE's 100–400 W range is what nvidia-smi reports (sourced, not estimated)
    [finding] = findings(BASE + gpus("nvidia-rtx-3090-fe", 1, 'power_limit = "80 W"'), "power-limit.range")
    assert finding.severity == "error"
    assert "estimate" not in finding.message
    assert "nvidia-smi -q -d POWER" in finding.message and "refuse" in finding.message


def test_a_limit_above_an_estimated_maximum_is_a_warning_naming_the_max_power_limit() -> None:
    [finding] = findings(BASE + gpus("gigabyte-rtx-3090-turbo", 1, 'power_limit = "380 W"'), "power-limit.range")
    assert finding.severity == "warning"
    assert "maximum is an estimate" in finding.message and "Max Power Limit" in finding.message


def test_an_amd_cards_message_names_amd_smi_and_rocm_smi(catalog: Catalog) -> None:
    text = BASE + gpus("amd-rx-7900-xtx-reference", 1, 'power_limit = "150 W"')
    [finding] = _range(text, catalog)
    assert finding.severity == "warning"  # the RX 7900 XTX minimum is an estimate in TBP terms
    assert "amd-smi static --limit" in finding.message and "rocm-smi" in finding.message
    assert "power1_cap_min" in finding.message and "nvidia-smi" not in finding.message


def test_a_minimum_the_build_file_states_is_not_the_catalogs_estimate(catalog: Catalog) -> None:
    # the user read 294 W off the driver: below it, the card's own figure, is an error
    part = '{ base = "amd-rx-7900-xtx-reference", power_limit_min = 294 }'
    text = BASE + f'[[gpu]]\npart = {part}\npower_limit = "250 W"\n'
    assert "power_limit_min" not in build(text, catalog).gpus[0].board.estimated
    [finding] = _range(text, catalog)
    assert finding.severity == "error" and "amd-smi" in finding.message


@pytest.mark.parametrize("part", ["nvidia-rtx-3090-fe", "gigabyte-rtx-3090-turbo"])
def test_the_optimiser_never_searches_below_a_cards_minimum(part: str) -> None:
    board = TEST_CATALOG.typed("gpu", part, GpuBoard)
    assert min(candidates(board)) == board.power_limit_min


def test_the_optimiser_says_when_it_stops_at_an_estimated_minimum() -> None:
    turbo = build(BASE + gpus("gigabyte-rtx-3090-turbo", 4))
    text = describe(turbo, {0: 100.0}, 0.3, ["outlet.continuous"])
    assert "minimum by estimate" in text and "nvidia-smi -q -d POWER" in text


def test_the_optimiser_says_nothing_about_a_sourced_minimum_or_a_limit_above_the_minimum() -> None:
    fe, turbo = build(BASE + gpus("nvidia-rtx-3090-fe", 4)), build(BASE + gpus("gigabyte-rtx-3090-turbo", 4))
    assert "minimum by estimate" not in describe(fe, {0: 100.0}, 0.3, [])
    assert "minimum by estimate" not in describe(turbo, {0: 250.0}, 0.05, [])


def test_the_optimiser_says_a_problem_no_limit_clears_rests_on_an_estimated_minimum() -> None:
    turbo = build(BASE + gpus("gigabyte-rtx-3090-turbo", 4))
    text = describe(turbo, {0: 250.0}, 0.08, [], ["outlet.continuous"])
    assert "outlet.continuous remains even at the GIGABYTE GeForce RTX 3090 TURBO 24G's minimum" in text
    assert "100 W by estimate" in text and "nvidia-smi -q -d POWER" in text
