"""Weight and KV-cache formats: bits per weight, and which tensors stay at higher precision (docs/performance-model.md).

Shared by the memory estimate (planner/recommend/memory.py) and the speed model (planner/recommend/perf.py).
A format is a recipe of tensor types, as the tools that write the files apply it:

* GGUF (llama.cpp's `llama-quantize`, src/llama-quant.cpp `llama_tensor_get_type`): every linear layer in
  the format's base type; the "_M" k-quant mixes put `attn_v` and `ffn_down` of half the layers (the first
  and last eighth, and every third one between: `use_more_bits`) in Q6_K; the output head is Q6_K (Q8_0
  stays Q8_0), and a model with tied embeddings has no separate head, so its token embedding is treated as
  the head; a k-quant tensor whose input width is not a multiple of 256 falls back to a 32-block type
  (Q4_K → Q5_0, Q5_K → Q5_1, Q6_K → Q8_0) — Qwen2.5-72B's 29,568-wide `ffn_down` is why its Q4_K_M file is
  5.2 bits per weight.
* bitsandbytes NF4, AWQ, GPTQ, FP8 and NVFP4 checkpoints quantize the linear layers only: the token
  embedding and the output head stay 16-bit, which matters most for large vocabularies.

Bits per weight of each type include its scales (ggml/src/ggml-common.h block layouts). The old precision
names (`fp16`, `bf16`, `fp32`, `int8`, `int4`, `fp8`, `fp4`) are aliases, so earlier commands still work.
The fit of these recipes against 30+ published file sizes is tests/data/memory/weights.csv and
docs/memory-model.md.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal, NamedTuple

if TYPE_CHECKING:
    from planner.models.workloads import WorkloadModel

#: The tensor-core precision the speed model rates a format at (planner/recommend/perf.py).
Compute = Literal["fp32", "fp16", "bf16", "fp8", "int8", "int4", "fp4"]


class TensorType(NamedTuple):
    """One storage type: bits per weight with its scales, and the block its input width must divide."""

    bits: float
    block: int
    source: str


GGML = "ggml/src/ggml-common.h block layouts"
TYPES: dict[str, TensorType] = {
    "f32": TensorType(32.0, 1, "IEEE 754 single precision"),
    "f16": TensorType(16.0, 1, "IEEE 754 half precision"),
    "bf16": TensorType(16.0, 1, "bfloat16"),
    "q8_0": TensorType(8.5, 32, f"{GGML}: 32 int8 + one fp16 scale = 34 bytes per 32 weights"),
    "q5_1": TensorType(6.0, 32, f"{GGML}: fp16 scale and min, 32 × 5 bits = 24 bytes per 32"),
    "q5_0": TensorType(5.5, 32, f"{GGML}: fp16 scale, 32 × 5 bits = 22 bytes per 32"),
    "q4_0": TensorType(4.5, 32, f"{GGML}: fp16 scale, 32 × 4 bits = 18 bytes per 32"),
    "q6_k": TensorType(6.5625, 256, f"{GGML}: 210 bytes per 256-weight super-block"),
    "q5_k": TensorType(5.5, 256, f"{GGML}: 176 bytes per 256-weight super-block"),
    "q4_k": TensorType(4.5, 256, f"{GGML}: 144 bytes per 256-weight super-block"),
    "nf4": TensorType(4.127, 64, "Dettmers et al. 2023, 'QLoRA' (arXiv:2305.14314) §3: NF4 in blocks of 64 with"
                      " double-quantized fp8 scales, 4.127 bits per parameter"),
    "int4_g128": TensorType(4.156, 128, "AutoAWQ / AutoGPTQ packing: 4-bit weights, an fp16 scale and a 4-bit zero"
                            " point per group of 128 = 4 + 20/128 bits"),
    "fp8": TensorType(8.0, 1, "FP8 E4M3 weights with a per-tensor or per-channel scale (negligible)"),
    "nvfp4": TensorType(4.5, 16, "NVIDIA NVFP4: FP4 E2M1 with an FP8 scale per 16 values = 4.5 bits"),
    "mxfp4": TensorType(4.25, 32, "OCP Microscaling MXFP4: FP4 E2M1 with an E8M0 scale per 32 values = 4.25 bits"
                        " (ggml block_mxfp4: 17 bytes per 32)"),
    "iq4_xs": TensorType(4.25, 256, f"{GGML}: block_iq4_xs, 136 bytes per 256-weight super-block"),
    "iq3_xxs": TensorType(3.0625, 256, f"{GGML}: block_iq3_xxs, 98 bytes per 256-weight super-block"),
    "iq2_xxs": TensorType(2.0625, 256, f"{GGML}: block_iq2_xxs, 66 bytes per 256-weight super-block"),
    "iq4_nl": TensorType(4.5, 32, f"{GGML}: block_iq4_nl, 18 bytes per 32 (the IQ types' fallback)"),
}
#: llama.cpp's fallback when a k-quant tensor's input width is not a multiple of 256.
K_FALLBACK = {"q4_k": "q5_0", "q5_k": "q5_1", "q6_k": "q8_0", "iq4_xs": "iq4_nl", "iq3_xxs": "iq4_nl",
              "iq2_xxs": "iq4_nl"}


@dataclass(frozen=True)
class WeightFormat:
    """How a model's weights are stored: the type of each kind of tensor."""

    name: str
    label: str
    base: str  # type of every linear layer
    compute: Compute
    output: str  # the output head (lm_head)
    embedding: str | None = None  # the token embedding (None: the base type)
    more_bits: str | None = None  # attn_v and ffn_down in llama.cpp's use_more_bits layers
    dense: str | None = None  # attention, dense MLPs and shared experts when only routed experts take the base type
    note: str = ""

    @property
    def bits(self) -> float:
        """Bits per weight of the linear layers' base type (scales included)."""
        return TYPES[self.base].bits


FORMATS: dict[str, WeightFormat] = {f.name: f for f in (
    WeightFormat("q4_0", "GGUF Q4_0", "q4_0", "int4", "q6_k", note="legacy 4-bit GGUF"),
    WeightFormat("q4_k_m", "GGUF Q4_K_M", "q4_k", "int4", "q6_k", more_bits="q6_k",
                 note="the GGUF most people download"),
    WeightFormat("q5_k_m", "GGUF Q5_K_M", "q5_k", "int4", "q6_k", more_bits="q6_k"),
    WeightFormat("q4_k_s", "GGUF Q4_K_S", "q4_k", "int4", "q6_k", note="Q4_K everywhere but the Q6_K head (llama.cpp"
                 " gives a few early attn_v/ffn_down Q5_K: an approximation)"),
    WeightFormat("q5_0", "GGUF Q5_0", "q5_0", "int4", "q6_k", note="legacy 5-bit GGUF"),
    WeightFormat("q6_k", "GGUF Q6_K", "q6_k", "int4", "q6_k"),
    WeightFormat("q8_0", "GGUF Q8_0", "q8_0", "int8", "q8_0"),
    WeightFormat("f16", "16-bit (fp16)", "f16", "fp16", "f16"),
    WeightFormat("bf16", "16-bit (bf16)", "bf16", "bf16", "bf16"),
    WeightFormat("f32", "32-bit", "f32", "fp32", "f32"),
    WeightFormat("nf4", "bitsandbytes NF4", "nf4", "fp16", "bf16", embedding="bf16",
                 note="4-bit NF4 with double quantization; embeddings and head 16-bit"),
    WeightFormat("awq", "AWQ 4-bit", "int4_g128", "fp16", "f16", embedding="f16",
                 note="group size 128; embeddings and head 16-bit"),
    WeightFormat("gptq", "GPTQ 4-bit", "int4_g128", "fp16", "f16", embedding="f16",
                 note="group size 128; embeddings and head 16-bit"),
    WeightFormat("fp8", "FP8", "fp8", "fp8", "bf16", embedding="bf16", note="embeddings and head 16-bit"),
    WeightFormat("nvfp4", "NVFP4", "nvfp4", "fp4", "bf16", embedding="bf16", note="embeddings and head 16-bit"),
    WeightFormat("mxfp4", "MXFP4 (experts)", "mxfp4", "fp4", "bf16", embedding="bf16", dense="bf16",
                 note="gpt-oss's release format: the routed experts in MXFP4, attention, router, embeddings and"
                      " head in bf16 (on a dense model every linear layer is MXFP4)"),
    WeightFormat("iq4_xs", "GGUF IQ4_XS", "iq4_xs", "int4", "q6_k", note="i-quant, 4.25 bits"),
    WeightFormat("iq3_xxs", "GGUF IQ3_XXS", "iq3_xxs", "int4", "q6_k", more_bits="iq4_xs",
                 note="i-quant, 3.06 bits (attn_v, ffn_down of some layers in IQ4_XS: an approximation)"),
    WeightFormat("iq2_xxs", "GGUF IQ2_XXS", "iq2_xxs", "int4", "q6_k", more_bits="iq3_xxs",
                 note="i-quant, 2.06 bits (an approximation of llama.cpp's mix)"),
)}
#: The old precision names, kept working: each means the format people use for it.
ALIASES: dict[str, str] = {"fp16": "f16", "fp32": "f32", "int8": "q8_0", "int4": "q4_0", "fp4": "nvfp4",
                           "gguf-f16": "f16"}
#: Names the CLI and the TUI offer, formats first.
NAMES: tuple[str, ...] = ("q4_0", "q4_k_s", "q4_k_m", "q5_0", "q5_k_m", "q6_k", "q8_0", "iq4_xs", "iq3_xxs", "iq2_xxs",
                          "f16", "bf16", "fp8", "nf4", "awq", "gptq", "nvfp4", "mxfp4", "f32", "fp16", "int8", "int4",
                          "fp4")


def weight_format(name: str) -> WeightFormat:
    """The format a name (or an old precision alias) stands for (KeyError when unknown)."""
    key = name.lower()
    return FORMATS[ALIASES.get(key, key)]


def describe(name: str) -> str:
    """'int4 = GGUF Q4_0' for an alias, 'GGUF Q4_K_M' for a format name."""
    fmt = weight_format(name)
    return f"{name} = {fmt.label}" if name.lower() in ALIASES else fmt.label


# -- weights of a model ------------------------------------------------------------------------------------

class WeightBytes(NamedTuple):
    """A model's weights in one format, by kind of tensor (bytes)."""

    layers: float  # the transformer blocks (every expert of a mixture)
    embedding: float  # the token embedding (the head too when tied)
    output: float  # a separate output head (0 when tied)
    routed: float = 0.0  # of `layers`: the routed experts (a token reads experts_per_token ÷ experts of them)

    @property
    def total(self) -> float:
        return self.layers + self.embedding + self.output


def use_more_bits(layer: int, layers: int) -> bool:
    """llama.cpp's choice of the layers whose attn_v and ffn_down get more bits in the _M mixes."""
    eighth = layers // 8
    return layer < eighth or layer >= 7 * layers // 8 or (layer - eighth) % 3 == 2


def _bits(type_name: str, width: int) -> float:
    """Bits per weight of a tensor of `type_name` whose rows are `width` wide (k-quant fallback applied)."""
    kind = TYPES[type_name]
    if width % kind.block and type_name in K_FALLBACK:
        return TYPES[K_FALLBACK[type_name]].bits
    return kind.bits


def weight_bytes(model: WorkloadModel | None, parameters: float, name: str) -> WeightBytes:
    """Bytes of a model's weights (`parameters` in billions) stored in format `name`.

    With the model's shape, every kind of tensor gets its own type; without it, every weight gets the
    base type (an LLM of unknown shape: its embeddings are not told apart). A mixture of experts keeps every
    expert (and its router, in fp32); `routed` says how many of the bytes are routed experts."""
    fmt = weight_format(name)
    total = parameters * 1e9
    shape = model.shape() if model is not None else None
    if model is None or shape is None:
        return WeightBytes(total * fmt.bits / 8, 0.0, 0.0)
    h, layers = shape.hidden, shape.layers
    base = fmt.base
    dense = fmt.dense or base  # attention, dense MLPs, shared experts
    layer_bits = routed_bits = 0.0
    first_moe = layers - shape.moe_layers  # where the MoE layers are does not change the total
    for layer in range(layers):
        more = fmt.more_bits is not None and use_more_bits(layer, layers)
        special = fmt.more_bits if more and fmt.more_bits else base
        special_dense = special if fmt.dense is None else dense
        bits = shape.q_o * _bits(dense, h) + shape.k * _bits(dense, h) + shape.v * _bits(special_dense, h)
        if layer >= first_moe:
            expert = shape.expert_gate_up * _bits(base, h) + shape.expert_down * _bits(special, shape.expert_width)
            routed_bits += shape.experts * expert
            bits += shape.experts * expert + shape.router * 32
            bits += shape.shared * (shape.expert_gate_up * _bits(dense, h)
                                    + shape.expert_down * _bits(special_dense, shape.expert_width))
        else:
            bits += shape.dense_gate_up * _bits(dense, h) + shape.dense_down * _bits(special_dense, shape.intermediate)
        layer_bits += bits
    # What the shape does not account for (norms, biases, rounding of the published count) at the dense type.
    rest = max(total - shape.total, 0.0) * TYPES[dense].bits
    table = shape.embedding
    if shape.tied:
        embedding_bits, output_bits = table * _bits(fmt.output, h), 0.0
    else:
        embedding_bits = table * _bits(fmt.embedding or base, h)
        output_bits = table * _bits(fmt.output, h)
    return WeightBytes((layer_bits + rest) / 8, embedding_bits / 8, output_bits / 8, routed_bits / 8)


def read_per_token(model: WorkloadModel | None, weights: WeightBytes) -> float:
    """Bytes of weights one decode step of one sequence reads: the layers (of a mixture of experts only
    experts_per_token ÷ experts of the routed experts) and the output head (the token embedding is a
    lookup of one row, so only a separate head, or tied embeddings, which are the head, is read)."""
    routed_share = 1.0
    if model is not None and model.experts and model.experts_per_token:
        routed_share = model.experts_per_token / model.experts
    layers = weights.layers - weights.routed * (1 - routed_share)
    head = weights.output if weights.output else (weights.embedding if model is not None and model.tied_embeddings
                                                  else 0.0)
    return layers + head


def bits_per_weight(model: WorkloadModel | None, parameters: float, name: str) -> float:
    """The format's average bits per weight on this model (what its file works out to)."""
    return weight_bytes(model, parameters, name).total * 8 / (parameters * 1e9)


# -- KV cache ---------------------------------------------------------------------------------------------

class CacheType(NamedTuple):
    bytes: float  # per cached element
    label: str
    source: str


KV_CACHE_TYPES: dict[str, CacheType] = {
    "f16": CacheType(2.0, "16-bit", "llama.cpp, vLLM and Hugging Face Transformers keep K and V in 16-bit by default"),
    "q8_0": CacheType(34 / 32, "Q8_0", "llama.cpp --cache-type-k/-v q8_0: the Q8_0 block, 34 bytes per 32 values"),
    "q4_0": CacheType(18 / 32, "Q4_0", "llama.cpp --cache-type-k/-v q4_0: the Q4_0 block, 18 bytes per 32 values"),
    "fp8": CacheType(1.0, "FP8", "vLLM --kv-cache-dtype fp8 (E4M3/E5M2): one byte per value"),
}
