"""A performance model from GPU specs (docs/performance-model.md): relative speed for 8-bit inference, 16-bit inference
and 16-bit training like the Dettmers charts, training throughput for transformers and CNNs on one or several cards, and
(planner/recommend/decode.py) LLM decode, prefill and serving speed per engine.

Batched inference is a softened roofline. Per byte of DRAM traffic it does I FLOP of tensor-core math, so
one byte of work takes

    t = ((I / F)^k + (1 / B_eff)^k)^(1/k)          F = tensor throughput for the precision
    B_eff = B / (1 − s · L2 / (L2 + L2_half))       B = memory bandwidth, L2 = its cache

with I = 512 FLOP/B at 16-bit and 1,024 at 8-bit (a weight byte serves a batch of 512 tokens). FP8 counts
only on Ada, Hopper and Blackwell, FP4 only on Blackwell; elsewhere the work runs at the next precision the
chip has, and the model says so.

Training, per sample, for a kind of network (transformer or CNN), fitted to Lambda's PyTorch table:

    t = a / F16 + 1 / (η · B) + b / F32 + t0          F16 dense tensor TFLOPS (fp32 accumulate), B GB/s
                                                      (η = 1 on GDDR, fitted on HBM), F32 CUDA-core TFLOPS
    at the largest batch a card holds:  × M / (M + M_half)   (M = its memory: small cards run small batches)

n cards train data-parallel at n × s^log2(n), s fitted over PCIe and over NVLink. AMD cards get 0.76 of
every figure (their ROCm and Vulkan kernels reach less of the hardware than CUDA's).

Every parameter is in planner/recommend/params.py; the fit, its held-out split and the
residual tables are tools/perf_residuals.py and docs/performance-model.md.
"""

from __future__ import annotations

import math
from typing import Literal

from planner.models.parts import GpuChip
from planner.models.workloads import WorkloadModel
from planner.recommend import formats, params
from planner.recommend.decode import (
    AMD_ARCHITECTURES,
    decode,
    decode_work,
    effective_bandwidth,
    engine_params,
    is_hbm,
    software_efficiency,
)
from planner.recommend.formats import Compute
from planner.recommend.memory import GB

Profile = Literal["int8_inference", "fp16_inference", "fp16_training"]
NetworkKind = Literal["transformer", "cnn"]
Interconnect = Literal["pcie", "nvlink"]
#: The three charts of Dettmers' guide, in the order the JSON output lists them.
PROFILES: tuple[Profile, ...] = ("int8_inference", "fp16_inference", "fp16_training")


def tensor_throughput(chip: GpuChip, precision: str) -> tuple[float, str | None]:
    """Dense TFLOPS (TOPS) the chip gives a precision (or a weight format: the math it runs at), and a note
    when it has to fall back."""
    precision = _compute(precision)
    sixteen = chip.tensor_fp16 or chip.fp32 or 1.0
    if precision == "fp32":
        return chip.tensor_tf32 or chip.fp32 or sixteen, None
    if precision in ("fp16", "bf16"):
        return sixteen, None
    if precision == "fp8":
        if chip.tensor_fp8:
            return chip.tensor_fp8, None
        return sixteen, "no FP8 tensor cores (FP8 needs Ada, Hopper or Blackwell): FP8 math runs at 16-bit speed"
    eight = chip.tensor_int8 or chip.tensor_fp8
    if precision == "fp4":
        if chip.tensor_fp4:
            return chip.tensor_fp4, None
        if eight:
            return eight, "no FP4 tensor cores (FP4 needs Blackwell): 4-bit weights run at 8-bit speed"
        return sixteen, "no FP4 or 8-bit tensor cores: 4-bit weights run at 16-bit speed"
    if eight:  # int8 and int4 (4-bit weights with 8-bit math, as llama.cpp's quantized kernels do)
        return eight, None
    return sixteen, "no 8-bit tensor cores: 8-bit math runs at 16-bit speed"


def eight_bit_throughput(chip: GpuChip) -> float:
    """The faster of the chip's INT8 and FP8 tensor rates (16-bit where it has neither): Dettmers' 8-bit."""
    return max(chip.tensor_int8 or 0.0, chip.tensor_fp8 or 0.0) or tensor_throughput(chip, "fp16")[0]


def _time_per_byte(chip: GpuChip, intensity: float, tflops: float) -> float:
    compute = intensity / (tflops * 1e3)  # ns per byte: I FLOP at F·10^12 FLOP/s
    memory = 1 / effective_bandwidth(chip)  # ns per byte at B·10^9 B/s
    k = params.ROOFLINE_SHARPNESS.value
    return float((compute**k + memory**k) ** (1 / k))


def training_speed(chip: GpuChip, kind: NetworkKind = "transformer", *, largest_batch: bool = False) -> float:
    """Samples per unit time of one card training a `kind` network in 16-bit mixed precision (arbitrary units;
    divide by the reference card's). `largest_batch`: at the batch its memory holds (Lambda's method), else per
    sample at any batch large enough to hide the per-step costs (Dettmers' comparisons)."""
    values = params.TRAINING.values[kind]
    tensor, cuda_cores, fixed_ms, batch_half, hbm = (float(v or 0.0) for v in values)
    bandwidth = chip.memory_bandwidth * (hbm if is_hbm(chip) else 1.0)
    sixteen = chip.tensor_fp16 or chip.fp32 or 1.0
    time = tensor / sixteen + 1 / bandwidth + cuda_cores / (chip.fp32 or sixteen) + fixed_ms / 1e3
    batch = chip.memory / (chip.memory + batch_half) if largest_batch else 1.0
    return software_efficiency(chip) * batch / time


def speed(chip: GpuChip, profile: Profile) -> float:
    """Work per unit time of one card (arbitrary units; divide by the reference card's)."""
    batch = params.INFERENCE_BATCH.value
    if profile == "fp16_training":
        return training_speed(chip, "transformer")
    if profile == "fp16_inference":
        time = _time_per_byte(chip, batch, tensor_throughput(chip, "fp16")[0])
    else:
        time = _time_per_byte(chip, 2 * batch, eight_bit_throughput(chip))
    return software_efficiency(chip) / time


def inference_speed(chip: GpuChip, precision: str) -> float:
    """Batched-inference speed at a given precision (weights of b bytes: intensity 2·batch/b FLOP/B)."""
    bytes_per = weight_bytes_per_parameter(precision)
    intensity = 2 * params.INFERENCE_BATCH.value / bytes_per
    return software_efficiency(chip) / _time_per_byte(chip, intensity, tensor_throughput(chip, precision)[0])


def relative(chip: GpuChip, reference: GpuChip, profile: Profile) -> float:
    """Speed relative to the reference card (the H100 SXM = 1.00)."""
    return speed(chip, profile) / speed(reference, profile)


def relative_perf(chip: GpuChip, reference: GpuChip) -> dict[str, float]:
    """The three Dettmers figures of one card."""
    return {profile: round(relative(chip, reference, profile), 4) for profile in PROFILES}


def scaling(count: int, link: Interconnect = "pcie") -> float:
    """Training throughput of `count` cards in units of one card (data parallel over PCIe or NVLink)."""
    per_doubling = params.MULTI_GPU_SCALING.values[link][0]
    assert per_doubling is not None
    return count * per_doubling ** math.log2(count) if count > 1 else 1.0


def training_link(chip: GpuChip, count: int) -> Interconnect:
    """NVLink on SXM/OAM baseboards (and a bridged pair), else PCIe."""
    return "nvlink" if chip.form in ("sxm", "oam") or (chip.nvlink and count == 2) else "pcie"


def weight_bytes_per_parameter(precision: str) -> float:
    """Bytes per weight of a format's linear layers (formats.py; the performance issue refines the rest)."""
    return formats.weight_format(precision).bits / 8


def _compute(precision: str) -> Compute:
    if precision in ("fp32", "fp16", "bf16", "fp8", "int8", "int4", "fp4"):
        return precision  # type: ignore[return-value]
    return formats.weight_format(precision).compute


def decode_bytes_per_token(model: WorkloadModel, precision: str, context: int) -> float:
    """Bytes read from memory to decode one token: the active weights, each tensor in its format (without the
    input embedding, of which one row is read), and the KV cache of `context` tokens."""
    work = decode_work(model, model.parameters, precision, context)
    return work.weight_bytes + work.kv_bytes


def decode_tokens_per_s(chip: GpuChip, bytes_per_token: float, engine: str = "llama.cpp") -> float:
    """Batch-1 decode speed on one card: the bytes streamed at the engine's share of the bandwidth, plus its
    per-token overhead (decode.decode has the multi-card and multi-user cases)."""
    from planner.recommend.decode import DecodeWork

    return decode(chip, DecodeWork(bytes_per_token, 0.0, 0.0, None, None, None), engine).tokens_per_s


def decode_relative(chip: GpuChip, reference: GpuChip, engine: str = "llama.cpp", version: str | None = None) -> float:
    """Decode bandwidth relative to the reference card (for a large model, where the overhead is small)."""
    from planner.recommend.decode import streaming_bandwidth

    return streaming_bandwidth(chip, engine, version) / streaming_bandwidth(reference, engine, version)


__all__ = ["AMD_ARCHITECTURES", "GB", "PROFILES", "NetworkKind", "Profile", "decode_bytes_per_token",
           "decode_relative", "decode_tokens_per_s", "effective_bandwidth", "eight_bit_throughput", "engine_params",
           "inference_speed", "relative", "relative_perf", "scaling", "software_efficiency", "speed",
           "tensor_throughput", "training_link", "training_speed", "weight_bytes_per_parameter"]
