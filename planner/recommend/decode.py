"""LLM inference speed (docs/performance-model.md): decode tokens/s, prefill (time to first token) and serving many
users with continuous batching, per inference engine and version (planner/recommend/engines.toml) and per way of using
several cards. Formulas, fitted constants and residuals: docs/performance-model.md; the data they are fitted on:
tests/data/perf/.

Decode reads every active weight once per step (and each sequence's KV cache), so a step of u sequences takes

    t = (W + u · KV) / B_a  (softened max with the math)  + c + k · (c_L · L + c_MoE · L_MoE) + c_s · u
        + multi-GPU term
    B_a = 1 / (1 / (η · B_eff) + 1 / C)      η: the engine's share of GDDR or HBM bandwidth; C: the ceiling the
                                             bytes its kernels keep in flight put on any memory (Little's law)
    k = 2.5 GHz / the card's kernel clock    the fixed per-layer GPU work (small latency-bound kernels) runs in
                                             clock cycles: an A100 (1.41 GHz) pays 1.77× an RTX 4090's
    c_MoE · L_MoE: each mixture-of-experts layer's routing, top-k and grouped-GEMM launches, on every card
    layer split (llama.cpp, ExLlamaV2):  the cards run one after another: W over one card's bandwidth,
                                         + h · (n − 1) for the hand-overs
    tensor parallel (vLLM, SGLang, TensorRT-LLM, MLC):  each card reads W / n, + 2 all-reduces per layer of
                                         (engine latency + a one-shot all-reduce's 2 link steps where the engine
                                         has one (NVLink up to 8 cards, PCIe peer-to-peer for 2), else NCCL's base
                                         latency and ring of 2 (n − 1) steps, + 2 (n − 1) / n · tokens · hidden ·
                                         2 B / link GB/s); NCCL's own step latencies (NVLink, PCIe) and through
                                         host memory on GeForce RTX 20–50 cards, whose peer-to-peer access
                                         NVIDIA's current drivers turn off

Serving N users (continuous batching): b = min(N, the sequences the KV cache and the engine hold) decode together;
each step also prefills the prompts of the requests that replace finished ones (b · P / O tokens for prompts of P
and outputs of O tokens), so all users get b / t(b, b · P / O) tokens/s and each one 1 / t while decoding.
Prefill is matrix-matrix work: P · 2 · N_active FLOP (plus causal attention) at the fp16 tensor rate × a fitted
efficiency; a layer split pipelines 512-token micro-batches over its cards, tensor parallel divides the math and
adds its all-reduces.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal, NamedTuple

from planner.checks.links import lane_bandwidth
from planner.models.parts import GpuChip
from planner.models.workloads import WorkloadModel
from planner.physics.interconnect import peer_to_peer as physics_peer_to_peer
from planner.recommend import engines, formats, params
from planner.recommend.memory import kv_cache_bytes

Engine = str
ENGINES: tuple[str, ...] = engines.CANONICAL
ENGINE_LABELS = {name: engines.label(name) for name in engines.NAMES}
#: Architectures of AMD chips (ROCm / Vulkan software rather than CUDA).
AMD_ARCHITECTURES = ("rdna", "cdna", "gcn")
MICRO_BATCH = 512  # llama.cpp's n_ubatch: the pipeline's unit over a layer split


class EngineParams(NamedTuple):
    gddr_efficiency: float
    hbm_efficiency: float
    overhead_ms: float
    tensor_parallel: bool


def engine_params(engine: str, version: str | None = None) -> EngineParams:
    """An engine era's main figures (planner/recommend/engines.toml); InputError when unknown."""
    found = engines.get(engine)
    era = found.era(version)
    return EngineParams(era.gddr, era.hbm, era.overhead_ms, found.tensor_parallel)


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


def streaming_bandwidth(chip: GpuChip, engine: str = "llama.cpp", version: str | None = None,
                        precision: str | None = None) -> float:
    """GB/s an engine's decode kernels actually stream from the card's memory: its share of the bandwidth for
    the memory type (and the weight format), capped by what the bytes its kernels keep in flight allow."""
    era = engines.get(engine).era(version)
    share = era.hbm if is_hbm(chip) else era.gddr
    if precision is not None and formats.weight_format(precision).bits < 16:
        share *= era.quantized
    direct = share * software_efficiency(chip) * effective_bandwidth(chip)
    return 1 / (1 / direct + 1 / era.ceiling_gbs)


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
    context: int = 0  # tokens in the cache the KV figure is for
    kv_per_token: float = 0.0  # bytes of KV cache one more cached token adds to a step's reads
    moe_layers: int = 0  # layers whose MLP is routed experts (each costs the era's moe_layer_us a step)


def decode_work(model: WorkloadModel | None, parameters: float, precision: str, context: int,
                kv_cache: str = "f16") -> DecodeWork:
    """The work of one token of `model` (or of `parameters` billions of unknown shape) in format `precision` with
    `context` tokens in the cache. Weights: each tensor in its format (formats.weight_bytes); the input embedding
    is a lookup of one row, so only a separate output head (or tied embeddings, which are the head) is read; a
    mixture of experts reads its experts_per_token of the routed experts."""
    weights = formats.weight_bytes(model, parameters, precision)
    read = formats.read_per_token(model, weights)
    active = parameters
    if model is not None:
        derived = model.derived_active_parameters
        active = derived if derived is not None else (model.active_parameters or parameters)
    if model is None or model.kv_heads is None:
        return DecodeWork(read, 0.0, active * 1e9, None, None, None, precision)
    kv = kv_cache_bytes(model, context, 1, kv_cache, padded=False) if context > 0 else 0.0
    per_token = kv_cache_bytes(model, 1, 1, kv_cache, padded=False)  # the first token is cached by every layer
    width = (model.attention_heads or 0) * model.head_size
    moe = (model.moe_layers if model.moe_layers is not None else model.layers or 0) if model.experts else 0
    return DecodeWork(read, kv, active * 1e9, model.layers, model.hidden_size, width, precision, context, per_token,
                      moe)


def kv_at(work: DecodeWork, context: float) -> float:
    """One sequence's KV reads at `context` cached tokens, scaled from the figure the work was made for (with a
    sliding window the cache grows more slowly than this past the window: an upper bound)."""
    if work.context > 0 and work.kv_bytes > 0:
        if context <= work.context:
            return work.kv_bytes * context / work.context
        return work.kv_bytes + (context - work.context) * work.kv_per_token
    return context * work.kv_per_token


# -- how several cards talk --------------------------------------------------------------------------------

LinkKind = Literal["pcie", "nvlink"]


@dataclass(frozen=True)
class Interconnect:
    """The link tensor parallel all-reduces cross."""

    kind: LinkKind
    bandwidth: float  # GB/s per direction per card
    label: str  # "PCIe 4.0 x16", "NVLink (SXM baseboard)"
    assumed: bool = False  # True when no build says how the cards are linked
    p2p: bool = True  # the cards reach each other's memory (PCIe peer-to-peer); False: through host memory

    @property
    def route(self) -> str:
        """nvlink | pcie-p2p | pcie-host: the row of params.LINKS the all-reduce steps cost."""
        return "nvlink" if self.kind == "nvlink" else ("pcie-p2p" if self.p2p else "pcie-host")

    @property
    def step_us(self) -> float:
        value = params.LINKS.values[self.route][0]
        assert value is not None
        return value

    @property
    def effective_bandwidth(self) -> float:
        """GB/s an all-reduce moves per card (half the link when each copy goes through host memory)."""
        share = params.LINKS.values[self.route][1]
        assert share is not None
        return self.bandwidth * share

    @property
    def latency_us(self) -> float:  # the old name: one step's latency
        return self.step_us


def peer_to_peer(chip: GpuChip) -> bool:
    """Whether the driver lets two of these cards reach each other's memory over PCIe: not on GeForce RTX 20 to
    50 cards (NVIDIA's current drivers disable it there; NCCL copies through host memory), unless the catalog
    says otherwise (planner/physics/interconnect.py, the rule the PCIe checks use)."""
    return physics_peer_to_peer(chip)


def pcie(gen: int, lanes: int, *, assumed: bool = False, p2p: bool = True) -> Interconnect:
    route = "" if p2p else ", through host memory (no peer-to-peer on GeForce RTX cards)"
    return Interconnect("pcie", lanes * lane_bandwidth(gen), f"PCIe {gen}.0 x{lanes}{route}", assumed, p2p)


def interconnect(chip: GpuChip, count: int, links: list[tuple[int, int]] | None = None,
                 card_gen: int | None = None) -> Interconnect:
    """How `count` cards of `chip` are linked: NVLink on an SXM/OAM baseboard (or a bridge joining two cards that
    take one, assumed fitted), else PCIe at the slowest of the build's links (`links`: (gen, lanes) per card),
    or at the card's own generation × 16 when there is no build (an assumption) — peer-to-peer or, on GeForce
    RTX 40/50, through host memory."""
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
    p2p = peer_to_peer(chip)
    if links:
        gen, lanes = min(links, key=lambda link: lane_bandwidth(link[0]) * link[1])
        return pcie(gen, lanes, p2p=p2p)
    return pcie(card_gen or 4, 16, assumed=True, p2p=p2p)


# -- decode, serving, prefill ------------------------------------------------------------------------------

Mode = Literal["single card", "layer split", "tensor parallel"]


@dataclass(frozen=True)
class DecodeEstimate:
    """Decode speed of one option, with what each term costs per step."""

    tokens_per_s: float  # per user, while decoding
    aggregate_tokens_per_s: float  # all users together (prefill of arriving prompts included)
    users: int
    ms_per_token: float
    weights_ms: float  # streaming the weights (and KV caches), or the math when batching makes it compute-bound
    overhead_ms: float
    multi_gpu_ms: float  # layer-split hand-overs or tensor-parallel all-reduces
    mode: Mode
    engine: str
    link: str | None  # the interconnect, for tensor parallel
    batched: int = 1  # sequences decoding together (users beyond what the KV cache holds wait)
    prefill_ms: float = 0.0  # of each step: the prompts of arriving requests (continuous batching)
    version: str = ""  # the engine era


def decode(chip: GpuChip, work: DecodeWork, engine: str = "llama.cpp", count: int = 1,
           link: Interconnect | None = None, users: int = 1, *, version: str | None = None,
           prompt: int = 0, output: int = 0, capacity: int | None = None) -> DecodeEstimate:
    """Decode speed of `count` cards of `chip` serving `users` sequences at once with `engine` (at `version`).

    With `output` > 0 and several users this is continuous batching: the steps also prefill the `prompt` tokens
    of the requests that replace finished ones, the KV caches are read at the average context (prompt + half the
    output), and at most `capacity` sequences (what the KV cache holds) and the engine's max_num_seqs decode at
    once; the others wait their turn."""
    found = engines.get(engine)
    era = found.era(version)
    tensor_parallel = found.tensor_parallel and count > 1
    batched = max(1, min(users, found.max_sequences if users > 1 else 1, capacity if capacity else users))
    serving = users > 1 and output > 0
    context = prompt + output / 2 if serving else work.context
    kv = kv_at(work, context) if serving else work.kv_bytes
    arriving = batched * prompt / output if serving else 0.0  # prompt tokens prefilled per step
    link = link or (interconnect(chip, count) if tensor_parallel else None)
    core, prefill_ms = _step(chip, work, found.id, era, count if tensor_parallel else 1, batched, kv, arriving)
    clock = kernel_clock_factor(chip)
    overhead = (era.overhead_ms + clock * (era.per_layer_us * (work.layers or 32) + era.moe_layer_us * work.moe_layers)
                / 1e3 + era.per_sequence_us * (batched - 1 if batched > 1 else 0) / 1e3) / 1e3
    mode: Mode = "single card"
    multi = 0.0
    if count > 1 and tensor_parallel:
        mode = "tensor parallel"
        assert link is not None
        multi = _allreduces(work, count, link, batched + arriving, found, era)
    elif count > 1:
        mode = "layer split"
        multi = era.hop_ms / 1e3 * (count - 1)
    total = core + overhead + multi
    per_user = 1 / total
    aggregate = batched / total if users > 1 else per_user
    if users > batched:  # the rest wait for a free slot: each user's share of the batch's tokens
        per_user *= batched / users
    return DecodeEstimate(per_user, aggregate, users, total * 1e3, (core - prefill_ms / 1e3) * 1e3,
                          overhead * 1e3, multi * 1e3, mode, found.id,
                          link.label if mode == "tensor parallel" and link else None, batched, prefill_ms,
                          era.version)


def kernel_clock_factor(chip: GpuChip) -> float:
    """How much longer than at the reference clock the fixed per-layer GPU work of a decode step takes on this
    chip: its family's boost clock (params.KERNEL_CLOCK; GA100's A100 runs at 1.41 GHz, other Ampere cards ~1.74)
    against the 2.5 GHz the engine eras' per-layer figures are stated at."""
    family = chip.architecture
    if family == "ampere" and is_hbm(chip):
        family = "ampere-hbm"
    value = params.KERNEL_CLOCK.values.get(family, (params.REFERENCE_KERNEL_CLOCK.value,))[0]
    assert value is not None
    return params.REFERENCE_KERNEL_CLOCK.value / value


def _step(chip: GpuChip, work: DecodeWork, engine: str, era: engines.Era, split: int, batched: int,
          kv: float, arriving: float) -> tuple[float, float]:
    """Seconds of one step on each card, and the ms of it the arriving prompts' prefill adds. The decode part
    is a softened roofline of its memory traffic (weights once, each sequence's KV cache) and its math; the
    prefill of arriving prompts is matrix-matrix work on top of it: its chunk runs its own attention and pushes
    the step's GEMMs past the ridge, so its math adds to the step rather than hiding under the weight streaming
    (docs/performance-model.md, 'Serving many users')."""
    bandwidth = streaming_bandwidth(chip, engine, era.version, work.precision) * 1e9
    memory = (work.weight_bytes + batched * kv) / split / bandwidth
    rate = _gemm_rate(chip, work.precision, era) * 1e12
    decode_math = batched * 2 * work.active_parameters / split / rate
    if batched > 1:
        k = params.ROOFLINE_SHARPNESS.value
        core = (memory**k + decode_math**k) ** (1 / k)
    else:
        core = memory
    if arriving <= 0:
        return core, 0.0
    prompt = arriving / max(batched, 1) * batched  # tokens of arriving prompts in this step
    attention = 2 * (work.layers or 0) * (work.attention_width or 0) * prompt * (prompt / max(batched, 1))
    prefill = (prompt * 2 * work.active_parameters + attention) / split / rate
    return core + prefill, prefill * 1e3


def _allreduces(work: DecodeWork, count: int, link: Interconnect, tokens: float,
                engine: engines.Engine | None = None, era: engines.Era | None = None) -> float:
    """Seconds of the two all-reduces per layer that tensor parallel needs for `tokens` tokens: the engine's own
    cost per all-reduce (launch, synchronisation), then either a one-shot all-reduce through peer memory (2 link
    steps) or NCCL's ring (its base latency and 2 (n − 1) link steps, params.LINKS and NCCL_BASE_LATENCY from
    NCCL's own tuner), and the bytes a ring moves per card."""
    layers, hidden = work.layers or 32, work.hidden or 4096
    message = tokens * hidden * 2  # 16-bit activations
    one_shot = _one_shot(count, link, engine, era)
    nccl = 0.0 if one_shot else params.NCCL_BASE_LATENCY.value
    steps = 2 if one_shot else 2 * (count - 1)
    own = era.allreduce_us if era is not None else 0.0
    one = ((own + nccl + steps * link.step_us) / 1e6
           + 2 * (count - 1) / count * message / (link.effective_bandwidth * 1e9))
    return 2 * layers * one


def _one_shot(count: int, link: Interconnect, engine: engines.Engine | None, era: engines.Era | None) -> bool:
    """Whether the engine all-reduces in one shot through peer memory: vLLM's, SGLang's and TensorRT-LLM's custom
    all-reduce, up to 8 cards over NVLink and only 2 over PCIe peer-to-peer (vLLM disables it on more PCIe-only
    cards, and wherever peer-to-peer is off: vllm/distributed/device_communicators/custom_all_reduce.py); else
    NCCL's ring."""
    custom = (engine is not None and engine.custom_allreduce
              and (era is None or (era.since >= "2024-01" and era.one_shot_allreduce)))
    return bool(custom and ((link.route == "nvlink" and count <= 8) or (link.route == "pcie-p2p" and count == 2)))


def _gemm_rate(chip: GpuChip, precision: str, era: engines.Era | None = None) -> float:
    """TFLOPS of matrix-matrix work: the dense fp16 tensor rate the engine's GEMMs run at (fp16 accumulation in
    llama.cpp's cuBLAS and MMQ paths, fp32 in PyTorch engines) × the era's prefill efficiency for 16-bit or
    quantized weights."""
    era = era or engines.get("llama.cpp").era()
    acc16 = chip.tensor_fp16_acc16 if era.accumulate == "fp16" else None
    rate = acc16 or chip.tensor_fp16 or chip.fp32 or 1.0
    quantized = formats.weight_format(precision).bits < 16
    return rate * (era.prefill_quantized if quantized else era.prefill_16bit) * software_efficiency(chip)


@dataclass(frozen=True)
class PrefillEstimate:
    prompt_tokens: int
    tokens_per_s: float
    seconds: float  # time to first token (the prompt's prefill; decode's first step is left out)


def prefill(chip: GpuChip, work: DecodeWork, prompt_tokens: int, engine: str = "llama.cpp", count: int = 1,
            link: Interconnect | None = None, *, version: str | None = None) -> PrefillEstimate:
    """Time to process a prompt of `prompt_tokens` tokens (time to first token)."""
    tokens = max(prompt_tokens, 1)
    attention = 2 * (work.layers or 0) * (work.attention_width or 0) * tokens * tokens  # causal QKᵀ and PV
    flop = 2 * work.active_parameters * tokens + attention
    found = engines.get(engine)
    seconds = flop / (_gemm_rate(chip, work.precision, found.era(version)) * 1e12)
    if count > 1 and found.tensor_parallel:
        seconds = seconds / count + _allreduces(work, count, link or interconnect(chip, count), tokens, found,
                                                found.era(version))
    elif count > 1:  # micro-batches flow through the cards' layers as a pipeline
        batches = math.ceil(tokens / MICRO_BATCH)
        seconds = seconds * (batches + count - 1) / (batches * count)
    return PrefillEstimate(tokens, tokens / seconds, seconds)


def users_at(chip: GpuChip, work: DecodeWork, rate: float, engine: str = "vllm", count: int = 1,
             link: Interconnect | None = None, *, version: str | None = None, prompt: int = 0, output: int = 0,
             capacity: int | None = None, most: int = 4096) -> int:
    """How many users the option serves at `rate` tokens/s each (0 when not even one)."""
    def each(users: int) -> float:
        return decode(chip, work, engine, count, link, users, version=version, prompt=prompt, output=output,
                      capacity=capacity).tokens_per_s

    if each(1) < rate:
        return 0
    low, high = 1, most
    while low < high:
        middle = (low + high + 1) // 2
        if each(middle) >= rate:
            low = middle
        else:
            high = middle - 1
    return low


__all__ = ["AMD_ARCHITECTURES", "ENGINES", "ENGINE_LABELS", "DecodeEstimate", "DecodeWork", "Engine",
           "EngineParams", "Interconnect", "PrefillEstimate", "decode", "decode_work", "effective_bandwidth",
           "engine_params", "interconnect", "is_hbm", "kv_at", "pcie", "peer_to_peer", "prefill",
           "software_efficiency", "streaming_bandwidth", "users_at"]
