"""The power-limit slowdown model (README: Power-limit slowdown) and what the report says about speed
(`power-limit.cost`)."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from planner.models.parts import GpuBoard, GpuChip, PerfCurve, PerfPoint
from planner.physics.slowdown import WORKLOAD_KIND, dvfs_relative_perf, relative_perf

from helpers import BASE, TEST_CATALOG, findings, gpus, report

PUGET = Path("/work/shared/data/reference/power_limit_curves.csv")
FE = TEST_CATALOG.typed("gpu", "nvidia-rtx-3090-fe", GpuBoard)
CHIP = TEST_CATALOG.typed("gpu-chip", "rtx-3090", GpuChip)
CHIP_WITHOUT_CURVE = CHIP.model_copy(update={"perf_curve": []})
BLOWER = TEST_CATALOG.typed("gpu", "gigabyte-rtx-3090-turbo", GpuBoard)
WORKLOADS = sorted(WORKLOAD_KIND)


def test_default_model_gives_about_7_percent_for_a_3090_from_350_to_300_w() -> None:
    estimate = relative_perf(FE, CHIP_WITHOUT_CURVE, 300, "llm-train")
    # f/f0 = ((300 − 0.25·350) / (0.75·350))^(1/3) = (212.5 / 262.5)^(1/3) = 0.93199
    assert estimate.relative_perf == pytest.approx(0.93199, abs=1e-4)
    assert 0.05 <= 1 - estimate.relative_perf <= 0.09  # Dettmers: ≈ 7 %, ±2 points
    assert estimate.curve == "DVFS model, compute-bound" and not estimate.measured


def _puget_4_gpu() -> list[tuple[float, float]]:
    if not PUGET.is_file():
        pytest.skip("the shared reference data is not on this machine")
    with PUGET.open() as handle:
        return [(float(r["power_limit_w"]), float(r["relative_perf"])) for r in csv.DictReader(handle)
                if r["gpus"] == "4" and r["card"] == "rtx-3090"]


def test_default_model_stays_within_0_08_of_pugets_4_gpu_curve_from_220_w() -> None:
    points = [(watts, measured) for watts, measured in _puget_4_gpu() if watts >= 220]
    assert len(points) >= 7
    for watts, measured in points:
        model = relative_perf(FE, CHIP_WITHOUT_CURVE, watts, "vision-train").relative_perf
        assert abs(model - measured) <= 0.08, (watts, model, measured)


def test_the_3090_fe_uses_its_chips_measured_curve_for_compute_bound_work() -> None:
    estimate = relative_perf(FE, CHIP, 300, "llm-train")
    assert estimate.measured
    assert estimate.curve == "measured compute-bound curve, resnet50-fp16-training, 4 GPUs"
    assert estimate.relative_perf == pytest.approx(0.98, abs=0.002)  # Puget: 300 W → 0.98


def test_llm_inference_uses_the_memory_bound_variant_which_barely_slows_down() -> None:
    estimate = relative_perf(FE, CHIP, 300, "llm-inference")  # no measured memory-bound curve: the model
    assert estimate.curve == "DVFS model, memory-bound"
    assert estimate.relative_perf == pytest.approx(0.93199 ** 0.15, abs=1e-4)  # −1 %
    assert relative_perf(FE, CHIP, 0.6 * 350, "llm-inference").relative_perf > 0.95  # nearly flat to 60 %


def test_memory_bound_work_follows_the_clock_below_its_knee() -> None:
    knee = dvfs_relative_perf(0.6, "memory-bound")
    assert dvfs_relative_perf(0.4, "memory-bound") < knee - 0.1
    assert dvfs_relative_perf(0.4, "memory-bound") > dvfs_relative_perf(0.4, "compute-bound")


@pytest.mark.parametrize("board, chip", [(FE, CHIP), (FE, CHIP_WITHOUT_CURVE), (BLOWER, CHIP)],
                         ids=["measured", "model", "blower"])
@pytest.mark.parametrize("workload", WORKLOADS)
def test_relative_perf_is_one_at_the_default_power(board: GpuBoard, chip: GpuChip, workload: str) -> None:
    assert relative_perf(board, chip, board.tdp, workload).relative_perf == pytest.approx(1.0)


@given(low=st.floats(50, 600), high=st.floats(50, 600), workload=st.sampled_from(WORKLOADS),
       chip=st.sampled_from([CHIP, CHIP_WITHOUT_CURVE]))
def test_relative_perf_never_falls_as_the_power_limit_rises(low: float, high: float, workload: str,
                                                            chip: GpuChip) -> None:
    low, high = sorted((low, high))
    assert (relative_perf(FE, chip, low, workload).relative_perf
            <= relative_perf(FE, chip, high, workload).relative_perf)


def test_a_dip_in_a_digitised_curve_does_not_make_the_estimate_fall() -> None:
    dipping = PerfCurve(kind="compute-bound", workload="noisy", source="test", points=[
        PerfPoint(power_fraction=0.6, relative_perf=0.8), PerfPoint(power_fraction=0.7, relative_perf=0.93),
        PerfPoint(power_fraction=0.8, relative_perf=0.91), PerfPoint(power_fraction=1.0, relative_perf=1.0)])
    chip = CHIP.model_copy(update={"perf_curve": [dipping]})
    values = [relative_perf(FE, chip, 350 * f, "llm-train").relative_perf for f in (0.6, 0.7, 0.75, 0.8, 0.9)]
    assert values == sorted(values)


# -- in the report ---------------------------------------------------------------------------------------
def test_summary_gives_each_gpus_and_the_builds_relative_perf() -> None:
    summary = report(BASE + gpus("nvidia-rtx-3090-fe", 2, 'power_limit = "300 W"')).summary
    assert [g.relative_perf for g in summary.gpus] == [pytest.approx(0.98, abs=0.002)] * 2
    assert summary.relative_perf == pytest.approx(0.98, abs=0.002)


def test_build_relative_perf_is_weighted_by_each_cards_stock_throughput() -> None:
    text = BASE + gpus("nvidia-rtx-3090-fe", 1, 'power_limit = "300 W"') + gpus("nvidia-rtx-4090-fe", 1)
    summary = report(text).summary
    chips = {c: TEST_CATALOG.get("gpu-chip", c) for c in ("rtx-3090", "rtx-4090")}
    w3090, w4090 = chips["rtx-3090"].tensor_fp16, chips["rtx-4090"].tensor_fp16  # type: ignore[union-attr]
    expected = (w3090 * summary.gpus[0].relative_perf + w4090 * 1.0) / (w3090 + w4090)
    assert summary.relative_perf == pytest.approx(expected, abs=1e-3)


def test_power_limit_cost_is_always_reported_with_the_curve_it_used() -> None:
    [stock] = findings(BASE + gpus("nvidia-rtx-3090-fe"), "power-limit.cost")
    assert stock.severity == "info" and stock.value == 1.0 and "100 %" in stock.message
    [limited] = findings(BASE + gpus("nvidia-rtx-4090-fe", 1, 'power_limit = "400 W"'), "power-limit.cost")
    # no measured curve for the RTX 4090: f/f0 = ((400 − 0.25·450) / (0.75·450))^(1/3) = 0.9479
    assert "95 %" in limited.message and "DVFS model, compute-bound" in limited.message
    assert limited.value == pytest.approx(0.9479, abs=1e-3)
