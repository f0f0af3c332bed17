"""One slowdown estimate per chip (issue 11, point 5): a measured power-limit curve, like the DVFS model,
belongs to the chip, read in the chip's watts; a board's cooler only matters through the thermal model."""

from __future__ import annotations

import pytest

from planner.catalog import Catalog
from planner.models.parts import GpuBoard, GpuChip, PerfCurve, PerfPoint
from planner.physics.slowdown import relative_perf

from helpers import BASE, TEST_CATALOG, findings, gpus

FE = TEST_CATALOG.typed("gpu", "nvidia-rtx-3090-fe", GpuBoard)
TURBO = TEST_CATALOG.typed("gpu", "gigabyte-rtx-3090-turbo", GpuBoard)
CHIP = TEST_CATALOG.typed("gpu-chip", "rtx-3090", GpuChip)
CHIP_WITHOUT_CURVE = CHIP.model_copy(update={"perf_curve": []})


@pytest.mark.parametrize("watts", [200, 250, 280, 300, 330])
def test_a_3090_fe_and_a_3090_turbo_at_the_same_limit_get_the_same_estimate_from_the_same_curve(
        watts: float) -> None:
    fe = relative_perf(FE, CHIP, watts, "llm-train")
    turbo = relative_perf(TURBO, CHIP, watts, "llm-train")
    assert turbo.relative_perf == pytest.approx(fe.relative_perf)
    assert turbo.curve == fe.curve == "measured compute-bound curve, resnet50-fp16-training, 4 GPUs"
    assert turbo.measured and fe.measured


def test_a_3090_turbo_at_280_w_reads_pugets_curve_not_the_dvfs_model() -> None:
    assert relative_perf(TURBO, CHIP, 280, "vision-train").relative_perf == pytest.approx(0.96)  # Puget: 0.96


def test_the_report_names_one_curve_for_a_3090_fe_and_a_3090_turbo_side_by_side() -> None:
    text = (BASE + gpus("nvidia-rtx-3090-fe", 1, 'power_limit = "280 W"')
            + gpus("gigabyte-rtx-3090-turbo", 1, 'power_limit = "280 W"'))
    [cost] = findings(text, "power-limit.cost")
    assert "measured compute-bound curve, resnet50-fp16-training, 4 GPUs" in cost.message
    assert "DVFS model" not in cost.message
    assert cost.value == pytest.approx(0.96, abs=1e-3)


def test_a_factory_overclocked_board_at_a_limit_in_watts_runs_as_fast_as_a_reference_board(
        catalog: Catalog) -> None:
    # ZOTAC's AMP Extreme Holo ships at 420 W on the 350 W RTX 3090 chip: at the same watts the silicon runs
    # the same clocks, so the two boards' speeds relative to their own stock differ only by their stock
    oc = catalog.typed("gpu", "zotac-rtx-3090-gaming-amp-extreme-holo", GpuBoard)
    chip = catalog.typed("gpu-chip", oc.chip, GpuChip)
    assert oc.chip == "rtx-3090" and oc.tdp > chip.tdp
    oc_stock_vs_fe_stock = 1 / relative_perf(oc, chip, FE.tdp, "llm-train").relative_perf
    for watts in (250, 300, 350):
        fe = relative_perf(FE, chip, watts, "llm-train").relative_perf
        assert relative_perf(oc, chip, watts, "llm-train").relative_perf * oc_stock_vs_fe_stock == pytest.approx(fe)
    assert relative_perf(oc, chip, 350, "llm-train").relative_perf < 0.97  # 350 W costs it speed, not the FE


def test_the_dvfs_model_also_reads_a_factory_overclocked_board_in_the_chips_watts() -> None:
    oc = TURBO.model_copy(update={"tdp": 390.0, "power_limit_max": 390.0})
    at_350 = relative_perf(oc, CHIP_WITHOUT_CURVE, 350, "llm-train").relative_perf
    # f ∝ (P − 0.25·350)^(1/3): (262.5 / 302.5)^(1/3) = 0.9538
    assert at_350 == pytest.approx((262.5 / 302.5) ** (1 / 3), abs=1e-4)
    fe_at_300 = relative_perf(FE, CHIP_WITHOUT_CURVE, 300, "llm-train").relative_perf
    assert relative_perf(oc, CHIP_WITHOUT_CURVE, 300, "llm-train").relative_perf == pytest.approx(fe_at_300 * at_350)


def test_a_curve_measured_on_a_board_overrides_its_chips_in_that_boards_own_power_fractions() -> None:
    own = PerfCurve(kind="compute-bound", workload="blower, own test", source="test", points=[
        PerfPoint(power_fraction=0.5, relative_perf=0.5), PerfPoint(power_fraction=1.0, relative_perf=1.0)])
    board = TURBO.model_copy(update={"perf_curve": [own]})
    estimate = relative_perf(board, CHIP, 262.5, "llm-train")  # 0.75 of 350 W
    assert estimate.curve == "measured compute-bound curve, blower, own test"
    assert estimate.relative_perf == pytest.approx(0.75)
    assert relative_perf(FE, CHIP, 262.5, "llm-train").curve != estimate.curve  # the FE keeps the chip's


def test_a_memory_bound_workload_without_a_measured_curve_uses_the_model_for_both_boards() -> None:
    fe, turbo = (relative_perf(b, CHIP, 280, "llm-inference") for b in (FE, TURBO))
    assert fe == turbo and fe.curve == "DVFS model, memory-bound"
