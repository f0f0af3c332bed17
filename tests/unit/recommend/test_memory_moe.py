"""Mixture-of-experts and multi-head latent attention models (issue 24, acceptance 3): every expert is held
in memory, a token reads only its experts, and DeepSeek V3's MLA cache is its compressed latent."""

from __future__ import annotations

import pytest

from planner.catalog import Catalog
from planner.models.workloads import WorkloadModel
from planner.recommend import formats
from planner.recommend.decode import decode_work
from planner.recommend.memory import MemoryRequest, estimate, kv_bytes_per_cell, kv_cache_bytes

GIB = 2**30


def _model(catalog: Catalog, model_id: str) -> WorkloadModel:
    return catalog.typed("llm", model_id, WorkloadModel)


def test_qwen3_30b_a3b_holds_all_128_experts_and_reads_8_per_token(catalog: Catalog) -> None:
    model = _model(catalog, "qwen3-30b-a3b")
    assert model.derived_parameters == pytest.approx(30.5, rel=0.01)  # model card: 30.5 B in all
    # model card: 3.3 B activated (Qwen counts the input embedding; a decode step only looks one row of it up)
    input_embedding = 151936 * 2048 / 1e9
    assert model.derived_active_parameters is not None
    assert model.derived_active_parameters + input_embedding == pytest.approx(3.3, rel=0.03)
    weights = formats.weight_bytes(model, model.parameters, "bf16")
    assert weights.total / 1e9 == pytest.approx(2 * 30.5, rel=0.01)  # every expert in memory
    need = estimate(MemoryRequest("llm-inference", model, precision="bf16", context=4096))
    assert need.components[0].gb == pytest.approx(weights.total / GIB)
    read = decode_work(model, model.parameters, "bf16", 0).weight_bytes
    experts = 48 * 128 * 3 * 2048 * 768 * 2  # every routed expert in bf16
    assert weights.routed == pytest.approx(experts, rel=1e-6)
    assert read == pytest.approx(weights.total - weights.embedding - experts * (1 - 8 / 128), rel=1e-6)
    assert read / 1e9 == pytest.approx(2 * 3.04, rel=0.02)  # ~ 2 bytes × the active parameters, not the total


def test_gpt_oss_120b_reads_5_1_billion_parameters_and_holds_the_60_8_gib_checkpoint(catalog: Catalog) -> None:
    model = _model(catalog, "gpt-oss-120b")
    assert model.derived_parameters == pytest.approx(116.83, rel=0.005)  # model card Table 1
    assert model.derived_active_parameters == pytest.approx(5.13, rel=0.01)  # model card Table 1: 5.13 B active
    weights = formats.weight_bytes(model, model.parameters, "mxfp4")
    assert weights.total / GIB == pytest.approx(60.8, rel=0.01)  # model card: a 60.8 GiB checkpoint
    read = decode_work(model, model.parameters, "mxfp4", 0).weight_bytes
    # 4 of 128 experts in 4.25 bits (1.9 GB), attention (1.9 GB) and the head (1.2 GB) in bf16: ~ 5 GB a token, not 65
    attention, head, experts = 36 * 26.5e6 * 2, 201088 * 2880 * 2, 36 * 4 * 3 * 2880 * 2880 * 4.25 / 8
    assert read == pytest.approx(attention + head + experts, rel=0.03)  # + fp32 routers, biases and norms
    routed_read = weights.routed * 4 / 128
    assert read == pytest.approx(weights.layers - weights.routed + routed_read + weights.output, rel=1e-6)


def test_a_dense_model_reads_all_its_layers(catalog: Catalog) -> None:
    model = _model(catalog, "qwen3-8b")
    weights = formats.weight_bytes(model, model.parameters, "bf16")
    assert weights.routed == 0
    read = decode_work(model, model.parameters, "bf16", 0).weight_bytes
    assert read == pytest.approx(weights.layers + weights.output)


def test_deepseek_v3_caches_its_576_wide_latent_per_token_and_layer(catalog: Catalog) -> None:
    model = _model(catalog, "deepseek-v3")
    # DeepSeek-V2 paper §2.1 (and V3's config): (d_c + d_h^R) = 512 + 64 values per token and layer, 61 layers
    assert kv_bytes_per_cell(model) == (512 + 64) * 2
    per_token = kv_cache_bytes(model, 1, 1, padded=False)
    assert per_token == 576 * 61 * 2 == 70_272
    # full multi-head K and V would be 2 × 128 heads × 128 × 61 layers × 2 B = 3.8 MiB a token, 57 × more
    assert 2 * 128 * 128 * 61 * 2 / per_token > 50
    assert kv_cache_bytes(model, 131072, 1, padded=False) / GIB == pytest.approx(8.58, abs=0.01)
    assert model.derived_parameters == pytest.approx(671, rel=0.005)
    assert model.derived_active_parameters == pytest.approx(37, rel=0.03)


@pytest.mark.parametrize("model_id", ["llama-3.3-70b", "llama-4-scout", "llama-4-maverick", "qwen3-0.6b", "qwen3-4b",
                                      "qwen3-32b", "qwen3-235b-a22b", "deepseek-r1-distill-qwen-14b", "gpt-oss-20b",
                                      "gemma-3-1b", "gemma-3-27b", "mistral-small-3.1-24b", "phi-4"])
def test_current_models_are_in_the_catalog_with_their_published_size(catalog: Catalog, model_id: str) -> None:
    model = _model(catalog, model_id)
    assert model.derived_parameters == pytest.approx(model.parameters, rel=0.03)
    if model.active_parameters is not None:  # MoE: published active counts differ by the input embedding at most
        assert model.derived_active_parameters is not None
        embedding = (model.vocab_size or 0) * (model.hidden_size or 0) / 1e9
        assert model.derived_active_parameters <= model.active_parameters * 1.02
        assert model.derived_active_parameters + embedding >= model.active_parameters * 0.98


def test_an_moe_entry_needs_experts_and_experts_per_token_together(catalog: Catalog) -> None:
    data = _model(catalog, "qwen3-30b-a3b").model_dump()
    data["experts_per_token"] = None
    with pytest.raises(ValueError, match="experts and experts_per_token"):
        WorkloadModel.model_validate(data)
