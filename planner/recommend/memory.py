"""How much GPU memory a workload needs (SPEC §6), and how it splits over several cards.

Every figure is in GB as GPU makers quote memory (2^30 bytes: a "24 GB" card holds 24 × 2^30 bytes).
P = parameters, b = bytes per parameter of the precision (planner/physics/params.py BYTES_PER_PARAMETER:
16-bit 2, 8-bit 1, 4-bit 0.5625 with its scales), L = layers, h = hidden size, s = tokens per sequence
(the context), B = batch, V = vocabulary, kv·d = KV heads × head size.

LLM inference        weights      P·b
                     KV cache     2 (K and V) · L · kv·d · s · B · 2 B (16-bit cache)
                     activations  c · B · (4h + V) · 4 B   (c = 512-token prompt chunk; fp32 buffers, logits)
LoRA / QLoRA         weights      P·b (LoRA: the precision, 16-bit by default) or P·0.516 B (QLoRA: NF4
                                  with double quantization)
                     adapters     T · 16 B, T = r · Σ(d_in + d_out) over every linear layer (rank r = 16),
                                  or 0.6 % of P when the MLP width is unknown
                     activations  checkpointed: 2·s·B·h·L + 34·s·B·h (one layer recomputed), + s·B·V·4 B
                                  (fp32 logits); without checkpointing 34·s·B·h·L + logits
Full training        weights, gradients, Adam states  P · 16 B (mixed precision, ZeRO §3.1)
                     activations  34·s·B·h·L + s·B·V·4 B (no checkpointing; flash attention)
Image generation     weights      P·b over every component (denoiser, text encoders, VAE)
                     activations  activation_per_sample · B (at the model's native resolution)
Vision training      states       P · 16 B;  activations: activation_per_sample · B, or 34·s·B·h·L for a ViT
Every GPU            overhead     0.8 GB (CUDA context, library workspaces, allocator slack)

Several GPUs: weights, KV cache and training states are split evenly over the cards (layer or tensor
split; FSDP/ZeRO-3 for training); activations and the runtime overhead are needed on every card. With no
model, parameter count or memory given, Dettmers' minimums apply per card: 24 GB for transformers, 12 GB
for image generation. Parameters of every formula: planner/physics/params.py (GPU recommendation).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal, NamedTuple

from planner.errors import InputError
from planner.models.build import Workload
from planner.models.workloads import WorkloadModel
from planner.physics import params

Precision = Literal["fp32", "fp16", "bf16", "fp8", "int8", "int4", "fp4"]
PRECISIONS: tuple[Precision, ...] = ("fp16", "bf16", "fp8", "int8", "int4", "fp4", "fp32")
Method = Literal["full", "lora", "qlora"]

GB = float(2**30)
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
    memory: float | None = None  # GB in all, when the user knows it
    precision: Precision = "fp16"
    context: int | None = None  # tokens per sequence
    batch: int | None = None  # sequences or images per GPU
    method: Method | None = None  # llm-finetune: lora (default) | qlora | full
    checkpointing: bool | None = None  # activation checkpointing; default: on for fine-tuning only


class Component(NamedTuple):
    name: str
    gb: float
    split: bool  # divided over the cards (else needed on every card)


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

    @property
    def total(self) -> float:
        """GB for the whole workload on one card (components), or the per-card floor."""
        return self.floor if self.floor is not None else sum(c.gb for c in self.components)

    def per_gpu(self, count: int) -> float:
        """GB each of `count` cards needs."""
        if self.floor is not None:
            return self.floor
        return sum(c.gb / count if c.split else c.gb for c in self.components)


def estimate(request: MemoryRequest) -> MemoryNeed:
    """The memory need of a request (InputError when the model does not suit the workload)."""
    workload = request.workload
    model = request.model
    if model is not None and workload == "general":
        workload = GENERAL_AS[model.category]
    if model is not None and _WORKLOAD_CATEGORY.get(workload, model.category) != model.category:
        raise InputError(f"{model.id} is a {model.category} model; it does not suit --workload {workload}"
                         f" (use --workload {GENERAL_AS[model.category]})")
    overhead = Component("runtime overhead per GPU", params.RUNTIME_OVERHEAD_PER_GPU.value, split=False)
    if request.memory is not None:
        return MemoryNeed(workload, [Component("memory you gave (split over the cards)", request.memory, True)],
                          notes=["--memory is taken as the whole need, split evenly over the cards"])
    if model is None and request.parameters is None:
        return MemoryNeed(workload, [], floor=_floor(workload), notes=[_floor_note(workload)])
    if workload in ("llm-inference", "llm-finetune", "llm-train"):
        need = _llm(workload, request, model)
    elif workload == "image-generation":
        need = _image(request, model)
    else:
        need = _vision(workload, request, model)
    need.components.append(overhead)
    return need


def _llm(workload: Workload, request: MemoryRequest, model: WorkloadModel | None) -> MemoryNeed:
    parameters = (model.parameters if model is not None else _given(request.parameters)) * 1e9
    bytes_per = _bytes(request.precision)
    training = workload != "llm-inference"
    default_context = params.DEFAULT_TRAINING_SEQUENCE.value if training else params.DEFAULT_CONTEXT.value
    context = request.context or int(min(default_context, model.context_length or default_context)
                                     if model is not None else default_context)
    batch = request.batch or 1
    notes: list[str] = []
    if model is not None and model.context_length is not None and context > model.context_length:
        notes.append(f"context {context:,} is longer than {model.name}'s {model.context_length:,} tokens")
    method: Method | None = None
    checkpointing: bool | None = None
    if workload == "llm-inference":
        components = [Component(f"weights ({request.precision})", parameters * bytes_per / GB, True)]
        if model is not None:
            components.append(Component("KV cache", kv_cache_bytes(model, context, batch) / GB, True))
            components.append(Component("activations", _inference_activations(model, context, batch) / GB, False))
        else:
            notes.append("KV cache and activations not included: name a model (--model) for them")
        return MemoryNeed(workload, components, context=context, batch=batch, notes=notes)

    method = request.method or ("full" if workload == "llm-train" else "lora")
    if workload == "llm-train" and method != "full":
        raise InputError(f"--method {method} is a fine-tuning method; use --workload llm-finetune")
    checkpointing = request.checkpointing if request.checkpointing is not None else workload == "llm-finetune"
    if method == "full":
        components = [Component("weights, gradients and Adam states (mixed precision)",
                                parameters * params.TRAINING_BYTES_PER_PARAMETER.value / GB, True)]
    else:
        base = params.QLORA_BYTES_PER_PARAMETER.value if method == "qlora" else bytes_per
        label = "NF4 (QLoRA)" if method == "qlora" else request.precision
        trainable = lora_parameters(model) if model is not None else (
            params.LORA_TRAINABLE_FRACTION.value * parameters)
        components = [Component(f"frozen weights ({label})", parameters * base / GB, True),
                      Component(f"LoRA adapters, gradients and Adam states ({trainable / 1e6:,.0f} M trainable)",
                                trainable * params.TRAINING_BYTES_PER_PARAMETER.value / GB, True)]
    if model is not None:
        components.append(Component("activations", training_activations(model, context, batch, checkpointing) / GB,
                                    False))
    else:
        notes.append("activations not included: name a model (--model) for them")
    return MemoryNeed(workload, components, context=context, batch=batch, method=method,
                      checkpointing=checkpointing, notes=notes)


def _image(request: MemoryRequest, model: WorkloadModel | None) -> MemoryNeed:
    parameters = (model.parameters if model is not None else _given(request.parameters)) * 1e9
    batch = request.batch or 1
    components = [Component(f"weights, every component ({request.precision})",
                            parameters * _bytes(request.precision) / GB, True)]
    notes = []
    if model is not None and model.activation_per_sample is not None:
        components.append(Component(f"activations ({batch} image(s) at {model.resolution} px)",
                                    model.activation_per_sample * batch, False))
    else:
        notes.append("activations not included: name a model (--model) for them")
    return MemoryNeed("image-generation", components, batch=batch, notes=notes)


def _vision(workload: Workload, request: MemoryRequest, model: WorkloadModel | None) -> MemoryNeed:
    parameters = (model.parameters if model is not None else _given(request.parameters)) * 1e9
    batch = request.batch or int(params.DEFAULT_VISION_BATCH.value)
    components = [Component("weights, gradients and Adam states (mixed precision)",
                            parameters * params.TRAINING_BYTES_PER_PARAMETER.value / GB, True)]
    notes = []
    if model is not None and model.activation_per_sample is not None:
        components.append(Component(f"activations (batch {batch})", model.activation_per_sample * batch, False))
    elif model is not None:
        tokens = model.context_length or 0
        components.append(Component(f"activations (batch {batch})",
                                    training_activations(model, tokens, batch, False, logits=False) / GB, False))
    else:
        notes.append("activations not included: name a model (--model) for them")
    return MemoryNeed(workload, components, batch=batch, notes=notes)


def kv_cache_bytes(model: WorkloadModel, context: int, batch: int) -> float:
    """Bytes of K and V for `context` tokens of `batch` sequences (16-bit cache)."""
    assert model.layers is not None and model.kv_heads is not None
    per_token = 2 * model.layers * model.kv_heads * model.head_size * params.KV_CACHE_BYTES.value
    return per_token * context * batch


def _inference_activations(model: WorkloadModel, context: int, batch: int) -> float:
    assert model.hidden_size is not None
    chunk = min(params.INFERENCE_CHUNK_TOKENS.value, context)
    vocab = model.vocab_size or 0
    return chunk * batch * (4 * model.hidden_size + vocab) * FP32_BYTES


def training_activations(model: WorkloadModel, tokens: int, batch: int, checkpointing: bool, *,
                         logits: bool = True) -> float:
    """Bytes of activations kept for the backward pass (Korthikanti et al. 2022, flash attention)."""
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


def lora_parameters(model: WorkloadModel) -> float:
    """Trainable parameters of rank-r LoRA adapters on every linear layer (attention and MLP)."""
    if model.intermediate_size is None or model.hidden_size is None or model.layers is None:
        return params.LORA_TRAINABLE_FRACTION.value * model.parameters * 1e9
    assert model.attention_heads is not None and model.kv_heads is not None
    h, inner, kv = model.hidden_size, model.attention_heads * model.head_size, model.kv_heads * model.head_size
    attention = (h + inner) * 2 + (h + kv) * 2  # q and o; k and v
    mlp = 3 * (h + model.intermediate_size) * (model.experts or 1)  # gate, up, down (per expert)
    return params.LORA_RANK.value * (attention + mlp) * model.layers


def _bytes(precision: Precision) -> float:
    value = params.BYTES_PER_PARAMETER.values[precision][0]
    assert value is not None
    return value


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
    return (f"no model, --params or --memory given: {source} of {floor:g} GB per card for {workload} applies;"
            " name a model for a real estimate")
