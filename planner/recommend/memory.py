"""How much GPU memory a workload needs (docs/performance-model.md), how it splits over several cards, and how much of a
card is usable. The formulas, their constants and the fit against public figures: docs/memory-model.md.

Every figure is in GiB (2^30 bytes): GPU makers' "24 GB" is 24 GiB of memory, so card capacities and
needs are compared in the same unit. h = hidden size, L = layers, s = tokens per sequence, B = batch,
V = vocabulary, kv·d = KV heads × head size.

LLM inference        weights      per tensor in the chosen format (planner/recommend/formats.py)
                     KV cache     2 (K and V) · kv·d · B · bytes per value (--kv-cache) · Σ over layers of the
                                  tokens each keeps: the context, or a sliding-window layer's window + 512,
                                  padded to 256 cells as llama.cpp allocates them
                     activations  c · B · (4h + V) · 4 B   (c = 512-token prompt chunk; fp32 buffers, logits)
LoRA / QLoRA         weights      the base model in its format (QLoRA: NF4, embeddings and head 16-bit)
                     adapters     T · b_f, T = r · Σ(d_in + d_out) over every linear layer (rank r = 16)
                     activations  per token: c_f·h·L (checkpoints, 0 when offloaded) + 34·h (one layer
                                  recomputed) + l_f·V (logits), c_f, l_f, b_f per framework (--framework);
                                  + QLoRA's 16-bit copy of its largest layer, twice
Full training        weights, gradients, Adam states  P · 16 B (mixed precision, ZeRO §3.1)
                     activations  34·s·B·h·L + s·B·V·4 B (no checkpointing; flash attention)
Image generation     weights      P·b over every component (denoiser, text encoders, VAE)
                     activations  activation_per_sample · B (at the model's native resolution)
Vision training      states       P · 16 B;  activations: activation_per_sample · B, or 34·s·B·h·L for a ViT

Usable memory of a card = capacity − CUDA/ROCm context (0.4 GiB) − a display (0.8 GiB, --display) −
fragmentation margin (2 % of the card). Several GPUs: weights, KV cache and training states are split
evenly over the cards; activations are needed on every card. With no model, parameter count or memory
given, Dettmers' minimums apply per card: 24 GiB for transformers, 12 GiB for image generation.
Parameters: planner/recommend/params.py.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Literal, NamedTuple

from planner.models.build import Workload
from planner.models.workloads import WorkloadModel
from planner.recommend import engines, formats, params
from planner.util.errors import InputError

#: Old precision names; any name of planner/recommend/formats.py is accepted too.
PRECISIONS: tuple[str, ...] = formats.NAMES
Method = Literal["full", "lora", "qlora"]
Framework = Literal["hf", "unsloth", "axolotl", "llama-factory"]
FRAMEWORKS: tuple[Framework, ...] = ("hf", "unsloth", "axolotl", "llama-factory")
KvCache = Literal["f16", "q8_0", "q4_0", "fp8"]

GIB = float(2**30)
GB = GIB  # the old name: memory was always counted in 2^30 bytes
FP32_BYTES = 4
#: Which workload a named model runs under `--workload general`.
GENERAL_AS: dict[str, Workload] = {"llm": "llm-inference", "diffusion": "image-generation", "vision": "vision-train"}
_WORKLOAD_CATEGORY: dict[str, str] = {"llm-inference": "llm", "llm-finetune": "llm", "llm-train": "llm",
                                      "image-generation": "diffusion", "vision-train": "vision"}


@dataclass(frozen=True)
class MemoryRequest:
    """What the user told us about the workload."""

    workload: Workload
    model: WorkloadModel | None = None
    parameters: float | None = None  # billions, when no named model
    memory: float | None = None  # GiB in all, when the user knows it
    precision: str = "fp16"  # a weight format or an old precision name (formats.py)
    context: int | None = None  # tokens per sequence
    batch: int | None = None  # sequences or images per GPU
    method: Method | None = None  # llm-finetune: lora (default) | qlora | full
    checkpointing: bool | None = None  # activation checkpointing; default: on for fine-tuning only
    kv_cache: KvCache = "f16"
    framework: Framework = "hf"
    lora_rank: int | None = None
    offload: bool | None = None  # checkpointed activations in host memory; default: the framework's
    display: bool = False  # a monitor on the card (usable memory)
    shape: WorkloadModel | None = None  # a stand-in shape for --params (default_shape)
    engine: str | None = None  # LLM inference: the engine whose memory rule decides (None: the generic rule)
    engine_version: str | None = None  # its era (engines.toml); None: the newest
    memory_fraction: float | None = None  # vLLM --gpu-memory-utilization / SGLang --mem-fraction-static


class Component(NamedTuple):
    name: str
    gb: float  # GiB (the old name kept for callers)
    split: bool  # divided over the cards (else needed on every card)


class Usable(NamedTuple):
    """What of a card's memory the workload can use (GiB)."""

    capacity: float
    context: float  # CUDA/ROCm context
    display: float
    fragmentation: float
    reserve: float = 0.0  # what the engine leaves unused by design (vLLM: 1 − gpu_memory_utilization)

    @property
    def usable(self) -> float:
        return self.capacity - self.context - self.display - self.fragmentation - self.reserve


def usable_memory(capacity: float, display: bool = False, engine: str | None = None,
                  fraction: float | None = None) -> Usable:
    """Usable GiB of a card of `capacity` GiB (with a desktop on it when `display`): the generic rule leaves a
    fragmentation margin; an engine's rule what the engine takes (llama.cpp allocates exact buffers; vLLM and
    SGLang take their memory fraction of what the driver leaves)."""
    display_gib = params.DISPLAY_RESERVATION.value if display else 0.0
    context = params.CUDA_CONTEXT.value
    if engine is None:
        return Usable(capacity, context, display_gib, params.FRAGMENTATION_MARGIN.value * capacity)
    found = engines.get(engine)
    share = fraction if fraction is not None else found.memory_fraction
    available = capacity - context - display_gib
    reserve = (1 - share) * available
    if found.memory in ("vllm", "sglang"):  # CUDA graphs are captured in what the fraction leaves
        reserve = max(reserve, params.CUDA_GRAPHS.value)
    return Usable(capacity, context, display_gib, 0.0, reserve)


@dataclass(frozen=True)
class MemoryNeed:
    """The estimate: its parts, what it assumed, and the need per card for any count of cards."""

    workload: Workload
    components: list[Component]
    floor: float | None = None  # a per-card minimum (Dettmers) used instead of components
    context: int | None = None
    batch: int | None = None
    method: Method | None = None
    checkpointing: bool | None = None
    notes: list[str] = field(default_factory=list)
    precision: str | None = None  # the weight format's label
    framework: Framework | None = None
    display: bool = False
    engine: str | None = None  # the engine whose rule decides the fit (None: the generic rule)
    rule: str | None = None  # the engine rule, in words
    memory_fraction: float | None = None

    @property
    def total(self) -> float:
        """GiB for the whole workload on one card (components), or the per-card floor."""
        return self.floor if self.floor is not None else sum(c.gb for c in self.components)

    def per_gpu(self, count: int) -> float:
        """GiB each of `count` cards needs."""
        if self.floor is not None:
            return self.floor
        return sum(c.gb / count if c.split else c.gb for c in self.components)

    def usable(self, capacity: float) -> Usable:
        """The usable memory of a card of `capacity` GiB for this workload (under its engine's rule)."""
        return usable_memory(capacity, self.display, self.engine, self.memory_fraction)


def estimate(request: MemoryRequest) -> MemoryNeed:
    """The memory need of a request (InputError when the model does not suit the workload)."""
    workload = request.workload
    model = request.model
    try:
        formats.weight_format(request.precision)
    except KeyError:
        raise InputError(f"unknown precision {request.precision!r}; one of {', '.join(formats.NAMES)}") from None
    if model is not None and workload == "general":
        workload = GENERAL_AS[model.category]
    if model is not None and _WORKLOAD_CATEGORY.get(workload, model.category) != model.category:
        raise InputError(f"{model.id} is a {model.category} model; it does not suit --workload {workload}"
                         f" (use --workload {GENERAL_AS[model.category]})")
    if request.memory is not None:
        return MemoryNeed(workload, [Component("memory you gave (split over the cards)", request.memory, True)],
                          notes=["--memory is taken as the whole need, split evenly over the cards"],
                          display=request.display)
    if model is None and request.parameters is None:
        return MemoryNeed(workload, [], floor=_floor(workload), notes=[_floor_note(workload)],
                          display=request.display)
    if workload in ("llm-inference", "llm-finetune", "llm-train"):
        return _llm(workload, request, model)
    if workload == "image-generation":
        return _image(request, model)
    return _vision(workload, request, model)


def default_shape(models: Iterable[WorkloadModel], billions: float) -> WorkloadModel | None:
    """The Llama 3 whose size is nearest `billions` (on a log scale): the stand-in shape for --params."""
    shapes = [m for m in models if m.id in params.DEFAULT_SHAPE_MODELS]
    if not shapes:
        return None
    return min(shapes, key=lambda m: abs(math.log(m.parameters / billions)))


def _llm(workload: Workload, request: MemoryRequest, model: WorkloadModel | None) -> MemoryNeed:
    billions = model.parameters if model is not None else _given(request.parameters)
    parameters = billions * 1e9
    shape = model or request.shape
    training = workload != "llm-inference"
    default_context = params.DEFAULT_TRAINING_SEQUENCE.value if training else params.DEFAULT_CONTEXT.value
    limit = shape.context_length if shape is not None and shape.context_length else default_context
    context = request.context or int(min(default_context, limit))
    batch = request.batch or 1
    notes: list[str] = []
    if model is not None and model.context_length is not None and context > model.context_length:
        notes.append(f"context {context:,} is longer than {model.name}'s {model.context_length:,} tokens")
    if model is None and shape is not None:
        notes.append(f"no model named: the KV cache and activations are {shape.name}'s (the Llama 3 nearest"
                     f" {billions:g} B in size; an assumption — name a model with --model for its own)")
    label = formats.describe(request.precision)
    common = {"context": context, "batch": batch, "notes": notes, "display": request.display}
    if workload == "llm-inference" and request.engine is not None:
        return _engine_inference(request, model, shape, billions, context, batch, notes)
    if workload == "llm-inference":
        weights = formats.weight_bytes(model, billions, request.precision)
        components = [Component(f"weights ({label})", weights.total / GIB, True)]
        if shape is not None:
            cache = formats.KV_CACHE_TYPES[request.kv_cache]
            window = (f", {shape.local_layers()} of {shape.layers} layers keep a {shape.sliding_window:,}-token"
                      " window") if shape.sliding_window is not None else ""
            components.append(Component(f"KV cache ({cache.label}{window})",
                                        kv_cache_bytes(shape, context, batch, request.kv_cache) / GIB, True))
            components.append(Component("activations", _inference_activations(shape, context, batch) / GIB, False))
        else:
            notes.append("KV cache and activations not included: name a model (--model) for them")
        return MemoryNeed(workload, components, precision=label, **common)  # type: ignore[arg-type]

    method = request.method or ("full" if workload == "llm-train" else "lora")
    if workload == "llm-train" and method != "full":
        raise InputError(f"--method {method} is a fine-tuning method; use --workload llm-finetune")
    checkpointing = request.checkpointing if request.checkpointing is not None else workload == "llm-finetune"
    framework = request.framework
    if method == "full":
        components = [Component("weights, gradients and Adam states (mixed precision)",
                                parameters * params.TRAINING_BYTES_PER_PARAMETER.value / GIB, True)]
        if shape is not None:
            components.append(Component("activations", training_activations(shape, context, batch, checkpointing)
                                        / GIB, False))
        else:
            notes.append("activations not included: name a model (--model) for them")
        return MemoryNeed(workload, components, method=method, checkpointing=checkpointing, precision=label,
                          **common)  # type: ignore[arg-type]
    base_format = "nf4" if method == "qlora" else request.precision
    base_label = "NF4 (QLoRA)" if method == "qlora" else label
    weights = formats.weight_bytes(model, billions, base_format)
    rank = request.lora_rank or int(params.LORA_RANK.value)
    trainable = lora_parameters(shape, rank) if shape is not None else (
        params.LORA_TRAINABLE_FRACTION.value * parameters * rank / params.LORA_RANK.value)
    state_bytes = _framework(framework)[2]
    components = [Component(f"frozen weights ({base_label})", weights.total / GIB, True),
                  Component(f"LoRA adapters and optimizer ({trainable / 1e6:,.0f} M trainable, rank {rank},"
                            f" {state_bytes:g} B each)", trainable * state_bytes / GIB, True)]
    offload = request.offload if request.offload is not None else bool(_framework(framework)[3])
    if shape is not None:
        components.append(Component(f"activations ({framework}{', checkpoints offloaded' if offload else ''})",
                                    lora_activations(shape, context, batch, framework, checkpointing, offload)
                                    / GIB, False))
        if method == "qlora":
            components.append(Component("16-bit working copy of the largest layer (bitsandbytes)",
                                        dequant_workspace(shape) / GIB, False))
    else:
        notes.append("activations not included: name a model (--model) for them")
    return MemoryNeed(workload, components, method=method, checkpointing=checkpointing, precision=base_label,
                      framework=framework, **common)  # type: ignore[arg-type]


def _image(request: MemoryRequest, model: WorkloadModel | None) -> MemoryNeed:
    billions = model.parameters if model is not None else _given(request.parameters)
    batch = request.batch or 1
    fmt = formats.weight_format(request.precision)
    label = formats.describe(request.precision)
    components = [Component(f"weights, every component ({label})", billions * 1e9 * fmt.bits / 8 / GIB, True)]
    notes = []
    if model is not None and model.activation_per_sample is not None:
        components.append(Component(f"activations ({batch} image(s) at {model.resolution} px)",
                                    model.activation_per_sample * batch, False))
    else:
        notes.append("activations not included: name a model (--model) for them")
    return MemoryNeed("image-generation", components, batch=batch, notes=notes, precision=label,
                      display=request.display)


def _vision(workload: Workload, request: MemoryRequest, model: WorkloadModel | None) -> MemoryNeed:
    parameters = (model.parameters if model is not None else _given(request.parameters)) * 1e9
    batch = request.batch or int(params.DEFAULT_VISION_BATCH.value)
    components = [Component("weights, gradients and Adam states (mixed precision)",
                            parameters * params.TRAINING_BYTES_PER_PARAMETER.value / GIB, True)]
    notes = []
    if model is not None and model.activation_per_sample is not None:
        components.append(Component(f"activations (batch {batch})", model.activation_per_sample * batch, False))
    elif model is not None:
        tokens = model.context_length or 0
        components.append(Component(f"activations (batch {batch})",
                                    training_activations(model, tokens, batch, False, logits=False) / GIB, False))
    else:
        notes.append("activations not included: name a model (--model) for them")
    return MemoryNeed(workload, components, batch=batch, notes=notes, display=request.display)


def _engine_inference(request: MemoryRequest, model: WorkloadModel | None, shape: WorkloadModel | None,
                      billions: float, context: int, batch: int, notes: list[str]) -> MemoryNeed:
    """LLM inference under an engine's memory rule (docs/memory-model.md, 'Engines')."""
    assert request.engine is not None
    engine = engines.get(request.engine)
    label = formats.describe(request.precision)
    weights = formats.weight_bytes(model, billions, request.precision).total / GIB
    components = [Component(f"weights ({label})", weights, True)]
    fraction = request.memory_fraction if request.memory_fraction is not None else engine.memory_fraction
    if shape is None:
        notes.append("KV cache and activations not included: name a model (--model) for them")
        rule = f"{engine.label}: the weights fit the card"
        return MemoryNeed("llm-inference", components, context=context, batch=batch, notes=notes, precision=label,
                          display=request.display, engine=engine.id, rule=rule, memory_fraction=fraction)
    cache = formats.KV_CACHE_TYPES[request.kv_cache]
    if engine.memory in ("vllm", "sglang", "tensorrt-llm"):
        tokens = profiling_tokens(engine, request.engine_version, context)
        kv = kv_cache_bytes(shape, context, 1, request.kv_cache, padded=False) / GIB
        components += [
            Component(f"KV cache: one {context:,}-token sequence (max_model_len; the rest of the pool holds more)",
                      kv, True),
            Component(f"activation peak of its profiling run at {tokens:,} batched tokens",
                      profiling_peak(shape, tokens, engine.max_sequences) / GIB, False),
            Component("memory outside PyTorch (cuBLAS workspaces, NCCL buffers)", params.VLLM_NON_TORCH.value, False)]
        rule = (f"{engine.label} ({engine.memory} rule): {fraction:.2f} of the card after the CUDA context"
                f" ({'--gpu-memory-utilization' if engine.id == 'vllm' else 'its memory fraction'}) must hold the"
                f" weights, the profiling peak at {tokens:,} batched tokens, {params.VLLM_NON_TORCH.value:g} GiB"
                f" outside PyTorch and one {context:,}-token sequence of KV cache; CUDA graphs take"
                f" {params.CUDA_GRAPHS.value:g} GiB of the rest")
    else:
        kv = kv_cache_bytes(shape, context, batch, request.kv_cache) / GIB
        window = (f", {shape.local_layers()} of {shape.layers} layers keep a {shape.sliding_window:,}-token"
                  " window") if shape.sliding_window is not None else ""
        components.append(Component(f"KV cache ({cache.label}{window})", kv, True))
        if engine.memory == "ollama":
            components.append(Component("compute graph ollama reserves (its GraphSize estimate)",
                                        ollama_graph(shape, context * batch) / GIB, False))
            rule = (f"ollama: the weights, the KV cache of {batch} × {context:,} tokens and ollama's compute-graph"
                    " estimate must fit the card after the CUDA context, or it offloads layers to the CPU")
        else:
            components.append(Component("activations", _inference_activations(shape, context, batch) / GIB, False))
            rule = (f"{engine.label}: the weights, the KV cache of {batch} × {context:,} tokens and the compute"
                    f" buffers of a {engine.batched_tokens}-token micro-batch must fit the card after the CUDA"
                    " context (buffers are allocated exactly: no fragmentation margin)")
    return MemoryNeed("llm-inference", components, context=context, batch=batch, notes=notes, precision=label,
                      display=request.display, engine=engine.id, rule=rule, memory_fraction=fraction)


def profiling_tokens(engine: engines.Engine, version: str | None, context: int) -> int:
    """Tokens in vLLM's profiling run: max_num_batched_tokens. vLLM V1 (2025 on) always chunks prefills at the
    engine's figure; V0 (2024) profiled a whole max_model_len prompt unless max_model_len exceeded 32k, when
    chunked prefill came on with small chunks (vLLM issue #10517: Llama 3.1 8B on an RTX 3090 peaked at
    2.07 GiB of activations with max_model_len 20k, 2.99 at 29k and 0.06 at 35k)."""
    if engine.id != "vllm" or engine.era(version).since >= "2025-01":
        return engine.batched_tokens
    threshold = int(params.VLLM_V0_CHUNKED_ABOVE.value)
    return context if context <= threshold else int(params.VLLM_V0_CHUNK.value)


def profiling_peak(model: WorkloadModel, tokens: int, sequences: int) -> float:
    """Bytes of vLLM's activation peak for `tokens` batched tokens: per token the hidden states (6 of width h)
    and one MLP's gate and up outputs (2 of the MLP width; an MoE's active experts), 16-bit, plus the sampler's
    fp32 logits of up to max_num_seqs sequences. Issue #10517's peaks: 2.07 GiB at 20k tokens of Llama 3.1 8B
    (this gives 2.11), 2.99 at 29k (3.00)."""
    assert model.hidden_size is not None
    width = model.intermediate_size or 4 * model.hidden_size
    if model.experts and model.experts_per_token:
        width = max(width if model.moe_layers and model.moe_layers < (model.layers or 0) else 0,
                    (model.moe_intermediate_size or width) * (model.experts_per_token + model.shared_experts))
    per_token = (6 * model.hidden_size + 2 * width) * 2
    return tokens * per_token + min(tokens, sequences) * (model.vocab_size or 0) * FP32_BYTES


def ollama_graph(model: WorkloadModel, context: int) -> float:
    """Bytes of the compute graph ollama reserves for a full offload (its GraphSize for llama-family models, batch
    512, no flash attention): max(4·b·(1 + 4h + ctx·(1 + heads)), 4·b·(h + V)). Ollama issue #5913 logs 313 MiB
    for Llama 3 70B at 2,048 tokens (this gives 324)."""
    assert model.hidden_size is not None and model.attention_heads is not None
    batch = params.INFERENCE_CHUNK_TOKENS.value
    attention = 4 * batch * (1 + 4 * model.hidden_size + context * (1 + model.attention_heads))
    logits = 4 * batch * (model.hidden_size + (model.vocab_size or 0))
    return max(attention, logits)


def sequences_that_fit(model: WorkloadModel, precision: str, capacity: float, count: int, engine: str,
                       tokens: int, *, version: str | None = None, kv_cache: str = "f16",
                       fraction: float | None = None) -> int:
    """Sequences of `tokens` tokens whose KV cache fits beside the weights under the engine's rule on `count`
    cards of `capacity` GiB: vLLM's KV pool is what its memory fraction leaves; llama.cpp keeps one per slot."""
    found = engines.get(engine)
    usable = usable_memory(capacity, False, found.id, fraction).usable * count
    weights = formats.weight_bytes(model, model.parameters, precision).total
    if found.memory in ("vllm", "sglang", "tensorrt-llm"):
        context = min(tokens, model.context_length or tokens)
        fixed = (profiling_peak(model, profiling_tokens(found, version, context), found.max_sequences)
                 + params.VLLM_NON_TORCH.value * GIB) * count
    else:
        fixed = _inference_activations(model, tokens, 1) * count
    pool = usable * GIB - weights - fixed
    per_sequence = kv_cache_bytes(model, tokens, 1, kv_cache, padded=False)
    return max(int(pool // per_sequence), 0) if per_sequence > 0 else found.max_sequences


def kv_cache_cells(model: WorkloadModel, context: int, *, padded: bool = True) -> int:
    """Token-layers the KV cache holds for one sequence: every layer the (padded) context, a sliding-window
    layer its window plus one prompt chunk (llama.cpp's SWA cache). Unpadded: the tokens actually cached."""
    assert model.layers is not None
    pad = int(params.KV_CACHE_PADDING.value) if padded else 1
    full = -(-context // pad) * pad
    local = model.local_layers()
    if not local:
        return model.layers * full
    assert model.sliding_window is not None
    window = min(context, model.sliding_window + (int(params.INFERENCE_CHUNK_TOKENS.value) if padded else 0))
    window = -(-window // pad) * pad
    return (model.layers - local) * full + local * min(window, full)


def kv_cache_bytes(model: WorkloadModel, context: int, batch: int, cache: str = "f16", *,
                   padded: bool = True) -> float:
    """Bytes of K and V for `context` tokens of `batch` sequences in cache type `cache` (formats.KV_CACHE_TYPES);
    `padded`: as allocated (llama.cpp's 256-cell padding), else as read while decoding."""
    return kv_bytes_per_cell(model, cache) * kv_cache_cells(model, context, padded=padded) * batch


def kv_bytes_per_cell(model: WorkloadModel, cache: str = "f16") -> float:
    """Bytes one token keeps in one layer: K and V of every KV head, or with multi-head latent attention the
    compressed latent and the rotary key (DeepSeek-V2 paper §2.1: (d_c + d_h^R) elements per token and layer)."""
    assert model.kv_heads is not None
    if model.kv_lora_rank is not None and model.rope_head_dim is not None:
        values = model.kv_lora_rank + model.rope_head_dim
    else:
        values = 2 * model.kv_heads * model.head_size
    return values * formats.KV_CACHE_TYPES[cache].bytes


def _inference_activations(model: WorkloadModel, context: int, batch: int) -> float:
    assert model.hidden_size is not None
    chunk = min(params.INFERENCE_CHUNK_TOKENS.value, context)
    vocab = model.vocab_size or 0
    return chunk * batch * (4 * model.hidden_size + vocab) * FP32_BYTES


def training_activations(model: WorkloadModel, tokens: int, batch: int, checkpointing: bool, *,
                         logits: bool = True) -> float:
    """Bytes of activations kept for the backward pass of full training (Korthikanti et al. 2022, flash
    attention)."""
    assert model.hidden_size is not None and model.layers is not None
    per_layer = tokens * batch * model.hidden_size
    if checkpointing:
        kept = params.CHECKPOINT_BYTES_FACTOR.value * per_layer * model.layers
        kept += params.ACTIVATION_BYTES_FACTOR.value * per_layer  # the layer being recomputed
    else:
        kept = params.ACTIVATION_BYTES_FACTOR.value * per_layer * model.layers
    if logits and model.vocab_size:
        kept += tokens * batch * model.vocab_size * FP32_BYTES
    return kept


def lora_activations(model: WorkloadModel, tokens: int, batch: int, framework: Framework, checkpointing: bool,
                     offload: bool) -> float:
    """Bytes of activations a LoRA/QLoRA fine-tune keeps on the GPU under `framework` (params.FRAMEWORKS)."""
    assert model.hidden_size is not None and model.layers is not None
    checkpoint, logits, _, _ = _framework(framework)
    per_layer = tokens * batch * model.hidden_size
    if checkpointing:
        kept = 0.0 if offload else checkpoint * per_layer * model.layers
        kept += params.ACTIVATION_BYTES_FACTOR.value * per_layer
    else:
        kept = params.ACTIVATION_BYTES_FACTOR.value * per_layer * model.layers
    return kept + logits * tokens * batch * (model.vocab_size or 0)


def dequant_workspace(model: WorkloadModel) -> float:
    """Bytes of bitsandbytes' 16-bit copies of the largest linear layer (QLoRA)."""
    assert model.hidden_size is not None
    largest = model.hidden_size * max(model.intermediate_size or 0, model.hidden_size)
    return params.DEQUANT_WORKSPACE_LAYERS.value * largest * 2


def lora_parameters(model: WorkloadModel, rank: int | None = None) -> float:
    """Trainable parameters of rank-r LoRA adapters on every linear layer (attention and MLP)."""
    rank = rank or int(params.LORA_RANK.value)
    if model.intermediate_size is None or model.hidden_size is None or model.layers is None:
        return params.LORA_TRAINABLE_FRACTION.value * model.parameters * 1e9 * rank / params.LORA_RANK.value
    assert model.attention_heads is not None and model.kv_heads is not None
    h, inner, kv = model.hidden_size, model.attention_heads * model.head_size, model.kv_heads * model.head_size
    attention = (h + inner) * 2 + (h + kv) * 2  # q and o; k and v
    mlp = 3 * (h + model.intermediate_size) * (model.experts or 1)  # gate, up, down (per expert)
    return rank * (attention + mlp) * model.layers


def _framework(framework: str) -> tuple[float, float, float, float]:
    values = params.FRAMEWORKS.values[framework]
    assert all(v is not None for v in values)
    return values  # type: ignore[return-value]


def _given(parameters: float | None) -> float:
    assert parameters is not None
    return parameters


def _floor(workload: Workload) -> float:
    if workload.startswith("llm"):
        return params.MEMORY_FLOOR_TRANSFORMERS.value
    if workload == "image-generation":
        return params.MEMORY_FLOOR_IMAGE_GENERATION.value
    return params.MEMORY_FLOOR_OTHER.value


def _floor_note(workload: Workload) -> str:
    floor = _floor(workload)
    source = "Dettmers' minimum" if workload.startswith(("llm", "image")) else "the planner's default"
    return (f"no model, --params or --memory given: {source} of {floor:g} GiB per card for {workload} applies;"
            " name a model for a real estimate")
