"""LLM inference speed (SPEC §6): decode tokens/s, prefill (time to first token) and serving several users,
per inference engine and per way of using several cards. Formulas, fitted constants and residuals:
docs/performance-model.md; the data they are fitted on: tests/data/perf/.

Decode reads every active weight once per step (and each sequence's KV cache), so a step takes

    t = W / (η · B_eff) + c + multi-GPU term              η: the engine's share of bandwidth, GDDR or HBM
                                                          c: the engine's per-token overhead
    layer split (llama.cpp, ExLlamaV2):  the cards run one after another: W over one card's bandwidth,
                                         + h · (n − 1) for the hand-overs
    tensor parallel (vLLM, TensorRT-LLM, MLC):  each card reads W / n, + 2 all-reduces per layer of
                                         (latency + 2 (n − 1) / n · users · hidden · 2 B / link GB/s)

With u users batched together the step also reads u KV caches and does u tokens of math (the slower of the
two sets the pace), so each user gets 1 / t tokens/s and all of them u / t. Prefill is matrix-matrix work:
P · 2 · N_active FLOP (plus causal attention) at the fp16 tensor rate × a fitted efficiency; a layer split
pipelines 512-token micro-batches over its cards, tensor parallel divides the math and adds its all-reduces.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal, NamedTuple

from planner.checks.links import lane_bandwidth
from planner.models.parts import GpuChip
from planner.models.workloads import WorkloadModel
from planner.recommend import formats, params
from planner.recommend.memory import kv_cache_bytes

Engine = Literal["llama.cpp", "vllm", "exllama", "tensorrt-llm", "mlc"]
ENGINES: tuple[str, ...] = ("llama.cpp", "vllm", "exllama", "tensorrt-llm", "mlc")
ENGINE_LABELS = {"llama.cpp": "llama.cpp", "vllm": "vLLM", "exllama": "ExLlamaV2", "tensorrt-llm": "TensorRT-LLM",
                 "mlc": "MLC LLM"}
#: Architectures of AMD chips (ROCm / Vulkan software rather than CUDA).
AMD_ARCHITECTURES = ("rdna", "cdna", "gcn")
MICRO_BATCH = 512  # llama.cpp's n_ubatch: the pipeline's unit over a layer split


class EngineParams(NamedTuple):
    gddr_efficiency: float
    hbm_efficiency: float
    overhead_ms: float
    tensor_parallel: bool


def engine_params(engine: str) -> EngineParams:
    """An engine's fitted figures (planner/recommend/params.py ENGINES); KeyError when unknown."""
    gddr, hbm, overhead, tp = params.ENGINES.values[engine]
    assert gddr is not None and hbm is not None and overhead is not None
    return EngineParams(gddr, hbm, overhead, bool(tp))


def is_hbm(chip: GpuChip) -> bool:
    return (chip.memory_type or "").upper().startswith("HBM")


def software_efficiency(chip: GpuChip) -> float:
    """The share of the CUDA-calibrated speed the chip's software stack reaches (AMD: ROCm/Vulkan)."""
    return params.AMD_SOFTWARE_EFFICIENCY.value if chip.architecture.startswith(AMD_ARCHITECTURES) else 1.0


def effective_bandwidth(chip: GpuChip) -> float:
    """GB/s of DRAM bandwidth, raised by the traffic a large L2 cache saves."""
    l2 = chip.l2_cache or 0.0
    saving = params.L2_TRAFFIC_SAVING.value * l2 / (l2 + params.L2_HALF_SIZE.value)
    return chip.memory_bandwidth / (1 - saving)


def streaming_bandwidth(chip: GpuChip, engine: str = "llama.cpp") -> float:
    """GB/s an engine's decode kernels actually stream from the card's memory."""
    figures = engine_params(engine)
    efficiency = figures.hbm_efficiency if is_hbm(chip) else figures.gddr_efficiency
    return efficiency * software_efficiency(chip) * effective_bandwidth(chip)


# -- what a token costs ------------------------------------------------------------------------------------

class DecodeWork(NamedTuple):
    """What one decode step of one sequence reads and computes."""

    weight_bytes: float  # active weights read per step (all cards together)
    kv_bytes: float  # one sequence's KV cache read per step
    active_parameters: float  # multiply-adds per token (× 2 = FLOP)
    layers: int | None
    hidden: int | None
    attention_width: int | None  # query heads × head size (prefill attention FLOP)
    precision: str = "f16"  # the weight format (its math runs at the quantized or the 16-bit GEMM rate)


def decode_work(model: WorkloadModel | None, parameters: float, precision: str, context: int,
                kv_cache: str = "f16") -> DecodeWork:
    """The work of one token of `model` (or of `parameters` billions of unknown shape) in format `precision` with
    `context` tokens in the cache. Weights: each tensor in its format (formats.weight_bytes); the input embedding
    is a lookup of one row, so only a separate output head (or tied embeddings, which are the head) is read."""
    weights = formats.weight_bytes(model, parameters, precision)
    read = formats.read_per_token(model, weights)
    active = parameters
    if model is not None:
        derived = model.derived_active_parameters
        active = derived if derived is not None else (model.active_parameters or parameters)
    if model is None or model.kv_heads is None:
        return DecodeWork(read, 0.0, active * 1e9, None, None, None, precision)
    kv = kv_cache_bytes(model, context, 1, kv_cache, padded=False) if context > 0 else 0.0
    width = (model.attention_heads or 0) * model.head_size
    return DecodeWork(read, kv, active * 1e9, model.layers, model.hidden_size, width, precision)


# -- how several cards talk --------------------------------------------------------------------------------

@dataclass(frozen=True)
class Interconnect:
    """The link tensor parallel all-reduces cross."""

    kind: Literal["pcie", "nvlink"]
    bandwidth: float  # GB/s per direction per card
    label: str  # "PCIe 4.0 x16", "NVLink (SXM baseboard)"
    assumed: bool = False  # True when no build says how the cards are linked

    @property
    def latency_us(self) -> float:
        return (params.ALLREDUCE_LATENCY_NVLINK if self.kind == "nvlink" else params.ALLREDUCE_LATENCY_PCIE).value


def pcie(gen: int, lanes: int, *, assumed: bool = False) -> Interconnect:
    return Interconnect("pcie", lanes * lane_bandwidth(gen), f"PCIe {gen}.0 x{lanes}", assumed)


def interconnect(chip: GpuChip, count: int, links: list[tuple[int, int]] | None = None,
                 card_gen: int | None = None) -> Interconnect:
    """How `count` cards of `chip` are linked: NVLink on an SXM/OAM baseboard (or a bridge joining two cards that
    take one, assumed fitted), else PCIe at the slowest of the build's links (`links`: (gen, lanes) per card),
    or at the card's own generation × 16 when there is no build (an assumption)."""
    if chip.form in ("sxm", "oam"):
        family = "cdna" if chip.architecture.startswith("cdna") else chip.architecture
        figure = params.NVLINK_BANDWIDTH.values.get(family, params.NVLINK_BANDWIDTH.values["ampere"])[0]
        assert figure is not None
        return Interconnect("nvlink", figure, "NVLink (SXM baseboard)" if family != "cdna"
                            else "Infinity Fabric (OAM baseboard)")
    if chip.nvlink and count == 2:
        bridge = params.NVLINK_BANDWIDTH.values["bridge"][0]
        assert bridge is not None
        return Interconnect("nvlink", bridge, "an NVLink bridge (assumed fitted)", assumed=True)
    if links:
        gen, lanes = min(links, key=lambda link: lane_bandwidth(link[0]) * link[1])
        return pcie(gen, lanes)
    return pcie(card_gen or 4, 16, assumed=True)


# -- decode, serving, prefill ------------------------------------------------------------------------------

@dataclass(frozen=True)
class DecodeEstimate:
    """Decode speed of one option, with what each term costs per step."""

    tokens_per_s: float  # per user
    aggregate_tokens_per_s: float  # all users together
    users: int
    ms_per_token: float
    weights_ms: float  # streaming the weights (and KV caches), or the math when batching makes it compute-bound
    overhead_ms: float
    multi_gpu_ms: float  # layer-split hand-overs or tensor-parallel all-reduces
    mode: Literal["single card", "layer split", "tensor parallel"]
    engine: str
    link: str | None  # the interconnect, for tensor parallel


def decode(chip: GpuChip, work: DecodeWork, engine: str = "llama.cpp", count: int = 1,
           link: Interconnect | None = None, users: int = 1) -> DecodeEstimate:
    """Decode speed of `count` cards of `chip` serving `users` sequences at once with `engine`."""
    figures = engine_params(engine)
    bandwidth = streaming_bandwidth(chip, engine) * 1e9
    tensor_parallel = figures.tensor_parallel and count > 1
    split = count if tensor_parallel else 1
    memory = (work.weight_bytes + users * work.kv_bytes) / split / bandwidth
    compute = users * 2 * work.active_parameters / split / (_gemm_rate(chip, work.precision) * 1e12)
    k = params.ROOFLINE_SHARPNESS.value
    step = (memory**k + compute**k) ** (1 / k) if users > 1 else memory
    overhead = figures.overhead_ms / 1e3
    mode: Literal["single card", "layer split", "tensor parallel"] = "single card"
    multi = 0.0
    if count > 1 and tensor_parallel:
        mode = "tensor parallel"
        link = link or interconnect(chip, count)
        multi = _allreduces(work, count, link, users)
    elif count > 1:
        mode = "layer split"
        multi = params.LAYER_SPLIT_HOP.value / 1e3 * (count - 1)
    total = step + overhead + multi
    return DecodeEstimate(1 / total, users / total, users, total * 1e3, step * 1e3, overhead * 1e3, multi * 1e3,
                          mode, engine, link.label if mode == "tensor parallel" and link else None)


def _allreduces(work: DecodeWork, count: int, link: Interconnect, tokens: int) -> float:
    """Seconds of the two all-reduces per layer that tensor parallel needs for `tokens` tokens."""
    layers, hidden = work.layers or 32, work.hidden or 4096
    message = tokens * hidden * 2  # 16-bit activations
    one = link.latency_us / 1e6 + 2 * (count - 1) / count * message / (link.bandwidth * 1e9)
    return 2 * layers * one


def _gemm_rate(chip: GpuChip, precision: str) -> float:
    """TFLOPS of matrix-matrix work: the fp16 tensor rate with fp16 accumulation (what llama.cpp's cuBLAS path
    uses) × the fitted prefill efficiency for 16-bit or quantized weights."""
    rate = chip.tensor_fp16_acc16 or chip.tensor_fp16 or chip.fp32 or 1.0
    quantized = formats.weight_format(precision).bits < 16
    efficiency = params.PREFILL_EFFICIENCY.values["quantized" if quantized else "16-bit"][0]
    assert efficiency is not None
    return rate * efficiency * software_efficiency(chip)


@dataclass(frozen=True)
class PrefillEstimate:
    prompt_tokens: int
    tokens_per_s: float
    seconds: float  # time to first token (the prompt's prefill; decode's first step is left out)


def prefill(chip: GpuChip, work: DecodeWork, prompt_tokens: int, engine: str = "llama.cpp", count: int = 1,
            link: Interconnect | None = None) -> PrefillEstimate:
    """Time to process a prompt of `prompt_tokens` tokens (time to first token)."""
    tokens = max(prompt_tokens, 1)
    attention = 2 * (work.layers or 0) * (work.attention_width or 0) * tokens * tokens  # causal QKᵀ and PV
    flop = 2 * work.active_parameters * tokens + attention
    seconds = flop / (_gemm_rate(chip, work.precision) * 1e12)
    figures = engine_params(engine)
    if count > 1 and figures.tensor_parallel:
        seconds = seconds / count + _allreduces(work, count, link or interconnect(chip, count), tokens)
    elif count > 1:  # micro-batches flow through the cards' layers as a pipeline
        batches = math.ceil(tokens / MICRO_BATCH)
        seconds = seconds * (batches + count - 1) / (batches * count)
    return PrefillEstimate(tokens, tokens / seconds, seconds)


__all__ = ["AMD_ARCHITECTURES", "ENGINES", "ENGINE_LABELS", "DecodeEstimate", "DecodeWork", "Engine",
           "EngineParams", "Interconnect", "PrefillEstimate", "decode", "decode_work", "effective_bandwidth",
           "engine_params", "interconnect", "is_hbm", "pcie", "prefill", "software_efficiency",
           "streaming_bandwidth"]
