"""The memory estimator (planner/recommend/memory.py) against hand-computed cases."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import ValidationError

from planner.catalog import Catalog
from planner.models.workloads import WorkloadModel
from planner.recommend.memory import MemoryRequest, estimate, kv_cache_bytes, lora_parameters
from planner.util.errors import InputError

GB = 2**30


def _model(catalog: Catalog, model_id: str) -> WorkloadModel:
    return catalog.typed("llm", model_id, WorkloadModel)


def test_llama_3_70b_in_int4_is_q4_0_with_a_6_bit_output_head(catalog: Catalog) -> None:
    need = estimate(MemoryRequest("llm-inference", _model(catalog, "llama-3-70b"), precision="int4"))
    head = 128256 * 8192
    weights = ((70.6e9 - head) * 4.5 + head * 6.5625) / 8 / GB  # Q4_0 everywhere, Q6_K output: 37.24 GiB
    kv_cache = 2 * 80 * 8 * 128 * 2 * 8192 / GB  # K and V, 80 layers, 8 KV heads of 128, 16-bit, 8k tokens: 2.5 GiB
    activations = 512 * (4 * 8192 + 128256) * 4 / GB  # a 512-token chunk of fp32 buffers and logits: 0.31 GiB
    assert need.total == pytest.approx(weights + kv_cache + activations)
    assert need.total == pytest.approx(40.04, abs=0.01)


def test_two_cards_split_the_weights_and_kv_cache_but_each_keeps_its_activations(catalog: Catalog) -> None:
    need = estimate(MemoryRequest("llm-inference", _model(catalog, "llama-3-70b"), precision="int4"))
    assert need.per_gpu(2) == pytest.approx((37.24 + 2.5) / 2 + 0.307, abs=0.01)
    usable = need.usable(24).usable
    assert need.per_gpu(2) < usable < need.per_gpu(1)  # two 24 GiB cards hold it, one does not


def test_full_fine_tuning_of_a_7b_model_with_adam_needs_16_bytes_per_parameter(catalog: Catalog) -> None:
    need = estimate(MemoryRequest("llm-finetune", _model(catalog, "llama-2-7b"), method="full", checkpointing=False))
    states, activations = need.components
    assert states.gb == pytest.approx(6.74e9 * 16 / GB)  # 100.4 GiB: weights, gradients, Adam
    # 34·s·b·h·L bytes at s = 2048, h = 4096, 32 layers (8.5 GiB) plus fp32 logits over 32,000 tokens
    assert activations.gb == pytest.approx((34 * 2048 * 4096 * 32 + 2048 * 32000 * 4) / GB)
    assert need.total == pytest.approx(109.18, abs=0.01)


def test_checkpointing_keeps_only_each_layers_input(catalog: Catalog) -> None:
    model = _model(catalog, "llama-2-7b")
    need = estimate(MemoryRequest("llm-finetune", model, method="full", checkpointing=True))
    activations = next(c for c in need.components if c.name == "activations")
    kept = 2 * 2048 * 4096 * 32 + 34 * 2048 * 4096 + 2048 * 32000 * 4
    assert activations.gb == pytest.approx(kept / GB)


def test_qlora_keeps_the_linear_layers_in_nf4_and_the_embeddings_in_16_bit(catalog: Catalog) -> None:
    need = estimate(MemoryRequest("llm-finetune", _model(catalog, "llama-3.1-8b"), method="qlora"))
    table = 128256 * 4096  # the embedding and the separate output head
    assert need.components[0].gb == pytest.approx(((8.03e9 - 2 * table) * 4.127 / 8 + 2 * table * 2) / GB)


def test_rank_16_lora_on_every_linear_layer_of_llama_2_7b_trains_40_million_parameters(catalog: Catalog) -> None:
    per_layer = 16 * ((4096 + 4096) * 4 + (4096 + 11008) * 3)
    assert lora_parameters(_model(catalog, "llama-2-7b")) == per_layer * 32 == pytest.approx(40.0e6, rel=0.01)


def test_grouped_query_attention_shrinks_the_kv_cache(catalog: Catalog) -> None:
    assert kv_cache_bytes(_model(catalog, "llama-3.1-8b"), 1, 1, padded=False) == 2 * 32 * 8 * 128 * 2  # 128 KiB
    assert kv_cache_bytes(_model(catalog, "llama-2-7b"), 1, 1, padded=False) == 4 * 2 * 32 * 8 * 128 * 2  # no GQA: 4×


def test_without_a_model_dettmers_minimums_apply_per_card() -> None:
    assert estimate(MemoryRequest("llm-inference")).per_gpu(3) == 24
    assert estimate(MemoryRequest("image-generation")).per_gpu(1) == 12


def test_a_memory_figure_the_user_gives_is_split_over_the_cards() -> None:
    need = estimate(MemoryRequest("vision-train", memory=40))
    assert need.per_gpu(1) == 40 and need.per_gpu(4) == 10


def test_a_diffusion_model_does_not_suit_llm_inference(catalog: Catalog) -> None:
    with pytest.raises(InputError, match="is a diffusion model"):
        estimate(MemoryRequest("llm-inference", _model(catalog, "sdxl-base-1.0")))


def test_image_generation_loads_every_component(catalog: Catalog) -> None:
    need = estimate(MemoryRequest("image-generation", _model(catalog, "sdxl-base-1.0")))
    assert need.components[0].gb == pytest.approx(3.468e9 * 2 / GB)  # UNet, both text encoders and the VAE


def test_the_model_catalog_spans_llms_from_1b_to_405b_diffusion_and_vision(catalog: Catalog) -> None:
    models = [m for m in catalog.all("llm") if isinstance(m, WorkloadModel)]
    llms = [m.parameters for m in models if m.category == "llm"]
    assert len(models) >= 15 and min(llms) <= 1.3 and max(llms) >= 405
    assert {m.category for m in models} == {"llm", "diffusion", "vision"}
    assert all(m.source for m in models)


def test_an_llm_whose_architecture_contradicts_its_parameter_count_is_rejected(catalog: Catalog) -> None:
    data = _model(catalog, "llama-3.1-8b").model_dump()
    data["layers"] = 23  # a typo: 8 B parameters need 32 of these layers
    with pytest.raises(ValidationError, match="the architecture gives"):
        WorkloadModel.model_validate(data)


@given(billions=st.floats(min_value=0.1, max_value=1000), counts=st.lists(st.integers(1, 16), min_size=2, max_size=4))
def test_more_cards_never_need_more_memory_each(billions: float, counts: list[int]) -> None:
    need = estimate(MemoryRequest("llm-train", parameters=billions))
    ordered = sorted(counts)
    per_card = [need.per_gpu(n) for n in ordered]
    assert all(a >= b > 0 for a, b in itertools.pairwise(per_card))
