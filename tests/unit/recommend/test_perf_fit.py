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
from planner.recommend import decode, perf

from conftest import ROOT, run_cli

sys.path.insert(0, str(ROOT / "tools"))
import perf_residuals

LLAMA_70B_AWQ_4 = ("recommend", "--workload", "llm-inference", "--model", "llama-3-70b", "--precision", "awq",
                   "--gpus", "4")


def _chip(catalog: Catalog, chip_id: str) -> GpuChip:
    return catalog.typed("gpu-chip", chip_id, GpuChip)


def _model(catalog: Catalog, model_id: str) -> WorkloadModel:
    return catalog.typed("llm", model_id, WorkloadModel)


@pytest.fixture(scope="module")
def accepted(catalog: Catalog) -> list[perf_residuals.Residual]:
    return perf_residuals.acceptance_residuals(catalog)


def test_the_fitted_tables_are_met_with_a_median_error_of_at_most_10_percent(
        accepted: list[perf_residuals.Residual]) -> None:
    summary = perf_residuals.Summary.of(r for r in accepted if r.split == "fit")
    assert summary.count >= 250
    assert summary.median_error <= 0.10


def test_held_out_sources_are_met_within_10_percent(accepted: list[perf_residuals.Residual]) -> None:
    llm = [r for r in accepted if r.kind in ("decode", "prefill", "serving") and r.split == "holdout"]
    summary = perf_residuals.Summary.of(llm)
    assert summary.count >= 15
    assert summary.median_error <= 0.10
    assert len({r.source for r in llm}) >= 8  # split by source, not by row


#: Groups (and which split of them) whose median misses issue 24's 0.85–1.15: recorded, not tuned away (strict, so
#: that a fix that brings a group within the band fails here until its entry goes). None today: docs/performance-
#: model.md says what each group's worst rows miss by and why.
MISSES: dict[tuple[str, str], str] = {}


def _cases() -> list[object]:
    cases: list[object] = []
    for group in perf_residuals.GROUPS:
        for split in ("fit", "holdout"):
            reason = MISSES.get((group, split))
            marks = [pytest.mark.xfail(strict=True, reason=reason)] if reason else []
            cases.append(pytest.param(group, split, marks=marks, id=f"{group}-{split}"))
    return cases


@pytest.mark.parametrize(("group", "split"), _cases())
def test_no_group_is_biased_beyond_15_percent_fitted_or_held_out(accepted: list[perf_residuals.Residual],
                                                                  group: str, split: str) -> None:
    rows = [r for r in accepted if perf_residuals.GROUPS[group](r)]
    assert rows, group
    summary = perf_residuals.Summary.of(r for r in rows if r.split == split)
    if summary.count:
        assert 0.85 <= summary.median_ratio <= 1.15, f"{group} ({split}): {summary.median_ratio:.3f}"


def test_the_docs_tables_are_the_current_residuals(catalog: Catalog) -> None:
    docs = (ROOT / "docs" / "performance-model.md").read_text()
    assert perf_residuals.markdown(catalog) in docs, "regenerate them: python tools/perf_residuals.py"
    assert perf_residuals.cards_table(catalog) in docs, "regenerate them: python tools/perf_residuals.py"


def test_every_group_has_held_out_rows(accepted: list[perf_residuals.Residual]) -> None:
    """Issue 24 judges each group on sources the model was not fitted on (> 64 users has none yet)."""
    empty = [name for name, keep in perf_residuals.GROUPS.items()
             if not any(keep(r) and r.split == "holdout" for r in accepted)]
    assert empty == ["aggregate tok/s, > 64 users"], empty


@pytest.mark.parametrize("group", list(perf_residuals.TRAINING_GROUPS))
def test_no_training_group_is_biased_beyond_15_percent(accepted: list[perf_residuals.Residual], group: str) -> None:
    summary = perf_residuals.Summary.of(r for r in accepted if perf_residuals.TRAINING_GROUPS[group](r))
    assert summary.count >= 10, group
    assert 0.85 <= summary.median_ratio <= 1.15, f"{group}: median model ÷ measured {summary.median_ratio:.3f}"


def test_a_source_is_either_fitted_or_held_out_never_both() -> None:
    splits: dict[str, set[str]] = {}
    for name in ("current.csv", "tensor_parallel.csv", "serving.csv", "engines.csv"):
        for row in perf_residuals.rows(name):
            if row["split"] != "check":
                splits.setdefault(perf_residuals._source(row["source"]), set()).add(row["split"])
    assert splits and all(len(kinds) == 1 for kinds in splits.values()), splits


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
    # a one-shot all-reduce over NVLink against NCCL's 14-step ring over PCIe (vLLM's own all-reduce takes only
    # two PCIe cards): 1.2× with NCCL's own step latencies (0.6 µs over NVLink, 1.0 over PCIe, 6.6 base)
    assert nvlink.tokens_per_s > 1.15 * pcie.tokens_per_s


def test_tensorrt_llm_2024_all_reduces_as_a_ring_and_vllm_one_shot_over_nvlink(catalog: Catalog) -> None:
    """NeMo's TensorRT-LLM requests (fitted) keep slowing from 4 to 8 cards as NCCL's ring of 2 (n − 1) steps does;
    vLLM's custom all-reduce is one-shot (2 steps) up to 8 cards over NVLink."""
    llama = _model(catalog, "llama-2-7b")
    h100 = _chip(catalog, "h100-sxm5-80gb")
    work = decode.decode_work(llama, llama.parameters, "f16", 138)
    ring = [decode.decode(h100, work, "tensorrt-llm", n).multi_gpu_ms for n in (2, 4, 8)]
    link = decode.interconnect(h100, 8)
    tokens, hidden = 1, 4096  # one token's hidden state, 16-bit
    share = [2 * (n - 1) / n * tokens * hidden * 2 / (link.effective_bandwidth * 1e9) for n in (2, 8)]
    steps = 2 * 32 * (12 * link.step_us / 1e3 + (share[1] - share[0]) * 1e3)  # 2 all-reduces × 32 layers, in ms
    assert ring[2] - ring[0] == pytest.approx(steps, rel=1e-6)
    one_shot = [decode.decode(h100, work, "vllm", n).multi_gpu_ms for n in (2, 8)]
    assert one_shot[1] - one_shot[0] < 0.01


def test_a_mixture_of_experts_pays_its_moe_layers_on_every_card(catalog: Catalog) -> None:
    """vLLM 2025: each MoE layer costs moe_layer_us a step (routing, top-k, the experts' grouped-GEMM launches,
    fitted on tenstorrent/tt-inference-server#340); tensor parallel divides the weights, not this."""
    from planner.recommend import engines

    era = engines.get("vllm").era("2025")
    assert era.moe_layer_us > 0 and "moe_layer_us" in era.fitted
    qwen = _model(catalog, "qwen3-30b-a3b")
    a100 = _chip(catalog, "a100-sxm4-80gb")
    work = decode.decode_work(qwen, qwen.parameters, "bf16", 192)
    assert work.moe_layers == 48
    dense = _model(catalog, "qwen3-14b")
    assert decode.decode_work(dense, dense.parameters, "bf16", 192).moe_layers == 0
    one, two = decode.decode(a100, work, "vllm", 1), decode.decode(a100, work, "vllm", 2)
    clock = decode.kernel_clock_factor(a100)  # the per-layer figures are at 2.5 GHz, an A100 runs at 1.41
    assert clock == pytest.approx(2.5 / 1.41)
    assert one.overhead_ms == pytest.approx(era.overhead_ms + clock * 48 * (era.per_layer_us + era.moe_layer_us) / 1e3)
    assert two.overhead_ms == one.overhead_ms
    assert two.weights_ms == pytest.approx(one.weights_ms / 2)


def test_the_link_steps_are_nccls_own_and_match_the_measured_8_card_all_reduces() -> None:
    """params.LINKS: NCCL's tuner (src/graph/tuning.cc) gives 6.6 µs base and 0.6 / 1.0 µs a ring step over NVLink /
    PCIe; 8 PCIe cards with peer-to-peer measure ~24 µs a small all-reduce (voipmonitor/rtx6kpro), 8 RTX 4090s
    without it 42.1 µs (NVIDIA/nccl#1530), each with ~3.4 µs of launch."""
    from planner.recommend import params

    base, steps, launch = params.NCCL_BASE_LATENCY.value, 2 * (8 - 1), 3.4
    assert base == 6.6
    assert params.LINKS.values["nvlink"][0] == 0.6 and params.LINKS.values["pcie-p2p"][0] == 1.0
    assert base + steps * params.LINKS.values["pcie-p2p"][0] + launch == pytest.approx(24, abs=0.5)
    assert base + steps * params.LINKS.values["pcie-host"][0] + launch == pytest.approx(42.1, abs=0.5)


def test_a_rows_stated_link_is_used_with_the_drivers_peer_to_peer(catalog: Catalog) -> None:
    """vLLM #6955's RTX 3090 Ti sit on PCIe 4.0 x16 with no bridge; on its driver (555) GeForce RTX 30 cards have
    no peer-to-peer, so NCCL goes through host memory (not the bridge the planner assumes for a bare pair)."""
    row = next(r for r in perf_residuals.rows("tensor_parallel.csv") if "issues/6955" in r["source"])
    chip = _chip(catalog, row["chip"])
    link = perf_residuals._row_link(row, chip, int(row["count"]))
    assert link is not None and link.route == "pcie-host" and link.label.startswith("PCIe 4.0 x16")
    assert decode.interconnect(chip, 2).route == "nvlink"  # the planner's default for a bare pair


def test_a_layers_fixed_work_takes_longer_at_a_lower_clock(catalog: Catalog) -> None:
    """The per-layer costs are stated at 2.5 GHz: an A100 (1.41 GHz) pays 1.77× an RTX 4090's, an H100 1.32×."""
    llama = _model(catalog, "llama-3.1-8b")
    work = decode.decode_work(llama, llama.parameters, "bf16", 256)
    a100, h100, rtx_4090 = (_chip(catalog, c) for c in ("a100-sxm4-80gb", "h100-sxm5-80gb", "rtx-4090"))
    assert decode.kernel_clock_factor(rtx_4090) == pytest.approx(1.0)
    assert decode.kernel_clock_factor(h100) == pytest.approx(2.5 / 1.9)
    from planner.recommend import engines

    era = engines.get("vllm").era("2025")
    per_layer = {chip.id: decode.decode(chip, work, "vllm").overhead_ms - era.overhead_ms for chip in (a100, rtx_4090)}
    assert per_layer["a100-sxm4-80gb"] / per_layer["rtx-4090"] == pytest.approx(2.5 / 1.41, rel=1e-6)


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
    estimate = decode.prefill(_chip(catalog, "rtx-3090"), work, 1024, version="2024")
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
    assert rtx_4090["interconnect"] == "PCIe 4.0 x8, through host memory (no peer-to-peer on GeForce RTX cards)"
    assert rtx_4090["peer_to_peer"] is False


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
