"""`planner recommend`: which options fit, how they rank, and why the others are left out."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from planner.catalog import Catalog
from planner.models.workloads import WorkloadModel
from planner.recommend.memory import MemoryRequest
from planner.recommend.rank import Recommendation, Request, recommend

from conftest import run_cli

LLAMA_70B_INT4 = ("recommend", "--workload", "llm-inference", "--model", "llama-3-70b", "--precision", "int4",
                  "--budget", "4000")


@pytest.fixture(scope="module")
def llama_70b(catalog: Catalog) -> Recommendation:
    model = catalog.typed("llm", "llama-3-70b", WorkloadModel)
    return recommend(Request(MemoryRequest("llm-inference", model, precision="int4"), budget=4000), catalog)


def _option(rec: Recommendation, chip: str, count: int) -> object:
    return next(c for c in rec.candidates if c.chip == chip and c.count == count)


def test_one_24_gb_card_is_left_out_of_a_70b_model_in_4_bit_with_the_numbers(llama_70b: Recommendation) -> None:
    one = _option(llama_70b, "rtx-4090", 1)
    # llama.cpp's rule: its buffers are allocated exactly, so only the CUDA context comes off the card
    assert not one.fits and one.excluded_reason == ("24 GiB card, 23.6 GiB usable < 40.0 GiB needed per card"
                                                    " (llama.cpp rule)")
    assert one.memory_rule is not None and one.memory_rule.startswith("llama.cpp: the weights")


def test_two_24_gb_cards_under_the_budget_fit_a_70b_model_in_4_bit(llama_70b: Recommendation) -> None:
    for chip in ("rtx-3090", "rtx-4090"):
        assert _option(llama_70b, chip, 2).fits
    assert all(c.count >= 2 or c.memory_gib >= 40 for c in llama_70b.by_value)  # one card only with 40 GiB or more


def test_options_over_budget_are_left_out_with_their_price(llama_70b: Recommendation) -> None:
    three = _option(llama_70b, "rtx-4090", 3)
    assert three.price_usd is not None and three.price_usd > 4000
    assert three.excluded_reason == f"${three.price_usd:,.0f} for 3 > $4,000 budget"


def test_every_option_left_out_says_why_and_every_fitting_one_is_ranked(llama_70b: Recommendation) -> None:
    assert all((c.excluded_reason is None) == c.fits for c in llama_70b.candidates)
    assert {id(c) for c in llama_70b.by_value} == {id(c) for c in llama_70b.candidates if c.fits}


def test_ranking_by_value_is_by_performance_per_dollar(llama_70b: Recommendation) -> None:
    values = [c.perf_per_dollar for c in llama_70b.by_value]
    assert values == sorted(values, reverse=True)
    speeds = [c.performance for c in llama_70b.by_speed]
    assert speeds == sorted(speeds, reverse=True)


def test_performance_per_dollar_counts_the_machine_planner_solve_buys_around_the_cards(
        llama_70b: Recommendation, catalog: Catalog) -> None:
    from planner.recommend.platform import desktop
    from planner.solve import parse_partial, solve

    option = _option(llama_70b, "rtx-3090", 2)
    around = desktop(catalog, 2)
    reference = solve(parse_partial('[[gpu]]\npart = "gigabyte-rtx-3090-turbo"\ncount = 2\n', "r.toml", catalog),
                      catalog, explain_choices=False)
    assert around.solved and around.usd == reference.added_usd  # the base system included
    assert option.cost_basis_usd == pytest.approx(option.price_usd + around.usd)
    assert option.perf_per_dollar == pytest.approx(option.performance / option.cost_basis_usd * 1000, abs=1e-4)


def test_llm_inference_reports_decode_speed_per_option(llama_70b: Recommendation) -> None:
    option = _option(llama_70b, "rtx-3090", 2)
    # llama.cpp users report ~15–18 tok/s; XiongjieDai measures 16.3 (Q4_K_M, short context) on 2 × RTX 3090
    assert option.tokens_per_s is not None and 15 <= option.tokens_per_s <= 18.5


def test_sxm_modules_and_amd_cards_are_left_out_with_a_reason(llama_70b: Recommendation) -> None:
    assert _option(llama_70b, "h100-sxm5-80gb", 1).excluded_kind == "not-installable"
    assert _option(llama_70b, "rx-7900-xtx", 1).excluded_kind == "vendor"


def test_amd_cards_are_ranked_when_asked(catalog: Catalog) -> None:
    model = catalog.typed("llm", "llama-3-70b", WorkloadModel)
    rec = recommend(Request(MemoryRequest("llm-inference", model, precision="int4"), budget=4000, vendor="any"),
                    catalog)
    assert _option(rec, "rx-7900-xtx", 2).fits


def test_json_lists_every_candidate_with_the_contract_fields() -> None:
    result = run_cli(*LLAMA_70B_INT4, "--format", "json")
    assert result.code == 0
    data = json.loads(result.out)
    fields = {"chip", "board", "count", "fits", "excluded_reason", "memory_gb", "relative_perf", "perf_per_dollar",
              "price_usd", "tokens_per_s"}
    assert data["candidates"] and all(fields <= set(c) for c in data["candidates"])
    assert set(data["candidates"][0]["relative_perf"]) == {"int8_inference", "fp16_inference", "fp16_training"}
    assert data["recommended"] == data["candidates"][0]
    assert {"break_even_days", "kwh_per_year", "electricity_usd_per_year"} <= set(data["tco"])


def test_training_options_report_no_decode_speed() -> None:
    data = json.loads(run_cli("recommend", "--workload", "llm-finetune", "--model", "llama-3.1-8b", "--method",
                              "qlora", "--budget", "1500", "--format", "json").out)
    assert all(c["tokens_per_s"] is None for c in data["candidates"])
    chosen = data["recommended"]
    assert chosen["memory_needed_gib"] == chosen["memory_needed_gb"] <= chosen["usable_gib"] < chosen["memory_gib"]


def test_text_output_ranks_explains_exclusions_and_draws_a_chart() -> None:
    out = run_cli(*LLAMA_70B_INT4).out
    for part in ("Best performance per dollar", "Fastest", "Left out:", "too little memory", "Cloud vs buy",
                 "performance per $1,000"):
        assert part in out


def test_an_unknown_model_is_one_sentence_with_a_suggestion() -> None:
    result = run_cli("recommend", "--workload", "llm-inference", "--model", "llama-3-70")
    assert result.code == 2
    assert result.err.startswith("planner: --model: no model 'llama-3-70'") and "llama-3-70b" in result.err


def test_plot_writes_an_svg_with_one_point_per_option(tmp_path: Path) -> None:
    plot = tmp_path / "value.svg"
    assert run_cli(*LLAMA_70B_INT4, "--plot", plot, "--no-chart").code == 0
    root = ET.parse(plot).getroot()
    circles = root.findall("{http://www.w3.org/2000/svg}circle")
    ranked = json.loads(run_cli(*LLAMA_70B_INT4, "--format", "json").out)["candidates"]
    assert len(circles) == min(20, sum(1 for c in ranked if c["fits"]))


def test_plot_refuses_other_formats(tmp_path: Path) -> None:
    result = run_cli(*LLAMA_70B_INT4, "--plot", tmp_path / "value.png")
    assert result.code == 2 and "SVG" in result.err
