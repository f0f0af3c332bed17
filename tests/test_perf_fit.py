"""Performance predictions against public benchmarks (issue 15): llama.cpp decode on 1–8 cards (XiongjieDai),
PyTorch training on 1–8 cards (Lambda), other engines (llm-perf-bench, premAI), all shipped in tests/data/perf/;
and the engine, users and prefill options of `planner recommend`."""

from __future__ import annotations

import json
import sys

import pytest

from planner.catalog import Catalog
from planner.models.parts import GpuChip
from planner.models.workloads import WorkloadModel
from planner.recommend import decode, formats, perf
from planner.recommend.calibration import FIGURES

from conftest import ROOT, run_cli

sys.path.insert(0, str(ROOT / "tools"))
import perf_residuals

LLAMA_70B_AWQ_4 = ("recommend", "--workload", "llm-inference", "--model", "llama-3-70b", "--precision", "awq",
                   "--gpus", "4")


def _chip(catalog: Catalog, chip_id: str) -> GpuChip:
    return catalog.typed("gpu-chip", chip_id, GpuChip)


def _model(catalog: Catalog, model_id: str) -> WorkloadModel:
    return catalog.typed("model", model_id, WorkloadModel)


@pytest.fixture(scope="module")
def accepted(catalog: Catalog) -> list[perf_residuals.Residual]:
    return perf_residuals.acceptance_residuals(catalog)


def test_the_two_public_tables_are_met_with_a_median_error_of_at_most_10_percent(
        accepted: list[perf_residuals.Residual]) -> None:
    summary = perf_residuals.Summary.of(accepted)
    assert summary.count >= 250
    assert summary.median_error <= 0.10


@pytest.mark.parametrize("group", list(perf_residuals.GROUPS))
def test_no_group_is_biased_beyond_15_percent(accepted: list[perf_residuals.Residual], group: str) -> None:
    summary = perf_residuals.Summary.of(r for r in accepted if perf_residuals.GROUPS[group](r))
    assert summary.count >= 10, group
    assert 0.85 <= summary.median_ratio <= 1.15, f"{group}: median model ÷ measured {summary.median_ratio:.3f}"


def test_the_held_out_cards_are_met_as_well_as_the_fitted_ones(accepted: list[perf_residuals.Residual]) -> None:
    held = perf_residuals.Summary.of(r for r in accepted if r.split == "holdout")
    assert held.count >= 40
    assert held.median_error <= 0.10
    assert 0.9 <= held.median_ratio <= 1.1


def test_the_fitted_engines_meet_their_own_measurements(catalog: Catalog) -> None:
    fitted = [r for r in perf_residuals.engine_residuals(catalog) if r.split != "check"]
    for engine in ("mlc", "exllama", "vllm", "tensorrt-llm"):
        summary = perf_residuals.Summary.of(r for r in fitted if r.engine == engine)
        assert summary.count >= 1 and summary.median_error <= 0.10, engine


def test_the_docs_residual_tables_are_the_models_current_residuals(catalog: Catalog) -> None:
    docs = (ROOT / "docs" / "performance-model.md").read_text()
    assert perf_residuals.markdown(catalog) in docs, "regenerate them: python tools/perf_residuals.py"
    assert perf_residuals.cards_table(catalog) in docs, "regenerate them: python tools/perf_residuals.py"


def test_every_data_row_names_its_source_repository_and_commit() -> None:
    for name in ("llama_cpp.csv", "lambda_training.csv", "engines.csv"):
        for row in perf_residuals.rows(name):
            assert row["source"].startswith("github.com/") and " @ " in row["source"], (name, row)
            assert row["split"] in ("fit", "holdout", "check")


def test_a100_over_v100_is_1_6_to_1_8_on_transformers_and_1_3_to_1_6_on_cnns(catalog: Catalog) -> None:
    a100, v100 = _chip(catalog, "a100-sxm4-40gb"), _chip(catalog, "v100-sxm2-16gb")
    transformer = perf.training_speed(a100, "transformer") / perf.training_speed(v100, "transformer")
    cnn = perf.training_speed(a100, "cnn") / perf.training_speed(v100, "cnn")
    assert 1.6 <= transformer <= 1.8
    assert 1.3 <= cnn <= 1.6


def test_lambdas_resnet_50_figures_are_labelled_resnet_50() -> None:
    resnet = next(f for f in FIGURES if "ResNet-50" in f.label)
    ssd = next(f for f in FIGURES if "SSD" in f.label)
    assert resnet.published == pytest.approx(1301 / 905)  # the resnet50 column of Lambda's CSV
    assert ssd.published == pytest.approx(379 / 236)


def test_hbm_cards_decode_at_about_half_their_bandwidth_with_llama_cpp(catalog: Catalog) -> None:
    llama = _model(catalog, "llama-3.1-8b")
    work = decode.decode_work(llama, llama.parameters, "f16", 512)
    a100 = _chip(catalog, "a100-pcie-80gb")  # held out of the fit
    assert decode.decode(a100, work).tokens_per_s == pytest.approx(54.56, rel=0.10)  # XiongjieDai: 8B F16, tg 1024
    assert 0.45 <= decode.streaming_bandwidth(a100) / a100.memory_bandwidth <= 0.6


def test_a_small_quantized_model_pays_a_per_token_overhead(catalog: Catalog) -> None:
    llama = _model(catalog, "llama-3.1-8b")
    rtx_4090 = _chip(catalog, "rtx-4090")
    q4 = decode.decode(rtx_4090, decode.decode_work(llama, llama.parameters, "q4_k_m", 512))
    f16 = decode.decode(rtx_4090, decode.decode_work(llama, llama.parameters, "f16", 512))
    assert q4.tokens_per_s == pytest.approx(127.74, rel=0.10)  # measured, with the bytes 3.2× fewer than F16
    assert f16.tokens_per_s == pytest.approx(54.34, rel=0.10)
    assert q4.overhead_ms / q4.ms_per_token > 0.3


def test_q4_k_m_reads_about_4_85_bits_per_weight_where_int4_reads_4_5(catalog: Catalog) -> None:
    llama = _model(catalog, "llama-3.1-8b")
    assert formats.bits_per_weight(llama, llama.parameters, "q4_k_m") == pytest.approx(4.9, abs=0.1)
    assert formats.weight_format("int4").bits == 4.5


def test_a_layer_split_gets_slower_with_more_cards_and_tensor_parallel_faster(catalog: Catalog) -> None:
    llama = _model(catalog, "llama-3-70b")
    rtx_3090 = _chip(catalog, "rtx-3090")
    work = decode.decode_work(llama, llama.parameters, "awq", 512)
    split = [decode.decode(rtx_3090, work, "llama.cpp", n).tokens_per_s for n in (2, 4, 8)]
    parallel = [decode.decode(rtx_3090, work, "vllm", n).tokens_per_s for n in (2, 4, 8)]
    assert split[0] > split[1] > split[2]
    assert parallel[0] < parallel[1] < parallel[2]


def test_nvlink_on_a_baseboard_beats_pcie_for_tensor_parallel(catalog: Catalog) -> None:
    llama = _model(catalog, "llama-3-70b")
    h100 = _chip(catalog, "h100-sxm5-80gb")
    work = decode.decode_work(llama, llama.parameters, "f16", 512)
    nvlink = decode.decode(h100, work, "vllm", 8)
    pcie = decode.decode(h100, work, "vllm", 8, decode.pcie(5, 16))
    assert nvlink.link is not None and "NVLink" in nvlink.link
    assert nvlink.tokens_per_s > 1.5 * pcie.tokens_per_s


def test_eight_cards_train_about_eight_times_as_fast() -> None:
    assert 7.5 <= perf.scaling(8, "pcie") <= 8.0  # Lambda: 6.8–8.5× across cards and networks
    assert 7.5 <= perf.scaling(8, "nvlink") <= 8.0


def test_more_users_raise_the_total_and_lower_each_users_speed(catalog: Catalog) -> None:
    llama = _model(catalog, "llama-3.1-8b")
    rtx_4090 = _chip(catalog, "rtx-4090")
    work = decode.decode_work(llama, llama.parameters, "f16", 2048)
    one, many = decode.decode(rtx_4090, work, "vllm"), decode.decode(rtx_4090, work, "vllm", users=16)
    assert many.aggregate_tokens_per_s > 8 * one.aggregate_tokens_per_s
    assert many.tokens_per_s < one.tokens_per_s


def test_prefill_of_a_1024_token_prompt_matches_llama_cpp_on_an_rtx_3090(catalog: Catalog) -> None:
    llama = _model(catalog, "llama-3.1-8b")
    work = decode.decode_work(llama, llama.parameters, "f16", 0)
    estimate = decode.prefill(_chip(catalog, "rtx-3090"), work, 1024)
    assert estimate.tokens_per_s == pytest.approx(4239.64, rel=0.20)  # XiongjieDai: 3090, 8B F16, pp 1024


def _ranking(result_out: str) -> list[tuple[str, int]]:
    data = json.loads(result_out)
    return [(c["chip"], c["count"]) for c in data["candidates"] if c["fits"]]


def test_vllm_ranks_four_card_options_differently_from_llama_cpp_and_says_why() -> None:
    llama_cpp = run_cli(*LLAMA_70B_AWQ_4, "--format", "json")
    vllm = run_cli(*LLAMA_70B_AWQ_4, "--engine", "vllm", "--format", "json")
    assert llama_cpp.code == 0 and vllm.code == 0
    assert _ranking(llama_cpp.out)[:5] != _ranking(vllm.out)[:5]
    best = json.loads(vllm.out)["candidates"][0]
    assert best["decode_mode"] == "tensor parallel" and best["interconnect"].startswith("PCIe")
    assert any("tensor parallel over PCIe" in note and "all-reduces" in note for note in best["notes"])
    split = json.loads(llama_cpp.out)["candidates"][0]
    assert split["decode_mode"] == "layer split"
    text = run_cli(*LLAMA_70B_AWQ_4, "--engine", "vllm", "--no-chart").out
    assert "vLLM tensor parallel over PCIe" in text


def test_tensor_parallel_takes_the_link_the_build_gives_the_cards() -> None:
    result = run_cli("recommend", "--workload", "llm-inference", "--model", "llama-3.1-8b", "--engine", "vllm",
                     "--gpus", "2", "--build", "examples/builds/warn-dual-4090-fe-x670e.toml", "--format", "json")
    assert result.code == 0
    rtx_4090 = next(c for c in json.loads(result.out)["candidates"] if c["chip"] == "rtx-4090" and c["fits"])
    assert rtx_4090["interconnect"] == "PCIe 4.0 x8"


def test_users_and_prefill_are_in_the_text_and_json_and_the_old_fields_stay() -> None:
    args = (*LLAMA_70B_AWQ_4, "--engine", "vllm", "--users", "8", "--prompt", "4000")
    data = json.loads(run_cli(*args, "--format", "json").out)
    assert (data["engine"], data["users"], data["prompt_tokens"]) == ("vllm", 8, 4000)
    best = data["candidates"][0]
    assert best["aggregate_tokens_per_s"] > best["tokens_per_s"] > 0
    assert best["prompt_tokens"] == 4000 and best["time_to_first_token_s"] > 0 and best["prefill_tokens_per_s"] > 0
    old = {"chip", "board", "count", "fits", "excluded_reason", "memory_gb", "relative_perf", "perf_per_dollar",
           "price_usd", "tokens_per_s", "performance", "notes"}
    assert old <= set(best)
    text = run_cli(*args, "--no-chart").out
    assert "all users" in text and "first token" in text and "4,000-token prompt" in text


def test_engine_and_users_apply_to_llm_inference_only() -> None:
    result = run_cli("recommend", "--workload", "llm-train", "--model", "llama-3.2-1b", "--engine", "vllm")
    assert result.code == 2 and "--engine applies to --workload llm-inference" in result.err


def test_vision_training_is_ranked_on_the_cnn_figures(catalog: Catalog) -> None:
    data = json.loads(run_cli("recommend", "--workload", "vision-train", "--memory", "20", "--gpus", "1",
                              "--format", "json").out)
    assert data["performance_basis"] == "16-bit CNN training"
    rtx_4090 = next(c for c in data["candidates"] if c["chip"] == "rtx-4090")
    chip, h100 = _chip(catalog, "rtx-4090"), _chip(catalog, "h100-sxm5-80gb")
    expected = (perf.training_speed(chip, "cnn", largest_batch=True)
                / perf.training_speed(h100, "cnn", largest_batch=True))
    assert rtx_4090["performance"] == pytest.approx(expected, abs=1e-3)
