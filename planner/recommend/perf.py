"""A performance model from GPU specs (SPEC §6): relative speed for 8-bit inference, 16-bit inference and
16-bit training like the Dettmers charts, and batch-1 LLM decode speed in tokens/s.

Each workload is a softened roofline. Per byte of DRAM traffic it does I FLOP of tensor-core math, so
one byte of work takes

    t = ((I / F)^k + (1 / B_eff)^k)^(1/k)          F = tensor throughput for the precision
    B_eff = B / (1 − s · L2 / (L2 + L2_half))       B = memory bandwidth, L2 = its cache

— the compute-bound and the memory-bound part, whichever dominates (k softens the corner because not
every kernel sits at the same intensity), with a large L2 cache saving up to s of the DRAM traffic.
Relative performance is 1/t divided by the H100 SXM's. Intensities: 16-bit training I = 110 FLOP/B;
batched inference I = 512 FLOP/B at 16-bit and 1,024 at 8-bit (a weight byte serves a batch of 512
tokens; 8-bit packs two weights in the bytes of one). FP8 counts only on Ada, Hopper and Blackwell (the
chips with FP8 tensor cores in the catalog); FP4 only on Blackwell; elsewhere the work runs at the next
precision the chip has, and the model says so.

Batch-1 decode reads every active weight (and the KV cache) once per token:
tokens/s = η · B_eff / bytes per token, η = 0.73. Over several cards the layers run one card after
another (llama.cpp's layer split), so more cards add memory, not decode speed. AMD cards get 0.76 of
every figure: their ROCm and Vulkan kernels reach less of the hardware than CUDA's (llama.cpp decode).

Every parameter is in planner/physics/params.py (GPU recommendation); the calibration set and the
model's error on it are in planner/recommend/calibration.py and docs/performance-model.md.
"""

from __future__ import annotations

import math
from typing import Literal

from planner.models.parts import GpuChip
from planner.models.workloads import WorkloadModel
from planner.physics import params
from planner.recommend import formats
from planner.recommend.formats import Compute
from planner.recommend.memory import GB, kv_cache_bytes

Profile = Literal["int8_inference", "fp16_inference", "fp16_training"]
#: Architectures of AMD chips (ROCm / Vulkan software rather than CUDA).
AMD_ARCHITECTURES = ("rdna", "cdna", "gcn")
#: The three charts of Dettmers' guide, in the order the JSON output lists them.
PROFILES: tuple[Profile, ...] = ("int8_inference", "fp16_inference", "fp16_training")


def effective_bandwidth(chip: GpuChip) -> float:
    """GB/s of DRAM bandwidth, raised by the traffic a large L2 cache saves."""
    l2 = chip.l2_cache or 0.0
    saving = params.L2_TRAFFIC_SAVING.value * l2 / (l2 + params.L2_HALF_SIZE.value)
    return chip.memory_bandwidth / (1 - saving)


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


def software_efficiency(chip: GpuChip) -> float:
    """The share of the CUDA-calibrated speed the chip's software stack reaches (AMD: ROCm/Vulkan)."""
    return params.AMD_SOFTWARE_EFFICIENCY.value if chip.architecture.startswith(AMD_ARCHITECTURES) else 1.0


def speed(chip: GpuChip, profile: Profile) -> float:
    """Work per unit time of one card (arbitrary units; divide by the reference card's)."""
    batch = params.INFERENCE_BATCH.value
    if profile == "fp16_training":
        time = _time_per_byte(chip, params.TRAINING_INTENSITY.value, tensor_throughput(chip, "fp16")[0])
    elif profile == "fp16_inference":
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


def scaling(count: int) -> float:
    """Throughput of `count` cards in units of one card (data or tensor parallel over PCIe)."""
    return count * params.MULTI_GPU_SCALING.value ** math.log2(count) if count > 1 else 1.0


def weight_bytes_per_parameter(precision: str) -> float:
    """Bytes per weight of a format's linear layers (formats.py; the performance issue refines the rest)."""
    return formats.weight_format(precision).bits / 8


def _compute(precision: str) -> Compute:
    if precision in ("fp32", "fp16", "bf16", "fp8", "int8", "int4", "fp4"):
        return precision  # type: ignore[return-value]
    return formats.weight_format(precision).compute


def decode_bytes_per_token(model: WorkloadModel, precision: str, context: int) -> float:
    """Bytes read from memory to decode one token: the active weights (without the input embedding,
    of which one row is read) and the KV cache of `context` tokens."""
    bytes_per = weight_bytes_per_parameter(precision)
    active = (model.active_parameters or model.parameters) * 1e9
    if not model.tied_embeddings and model.vocab_size and model.hidden_size:
        active -= model.vocab_size * model.hidden_size
    return active * bytes_per + kv_cache_bytes(model, context, 1, padded=False)


def decode_tokens_per_s(chip: GpuChip, bytes_per_token: float) -> float:
    """Batch-1 decode speed: every byte per token streamed at the card's effective bandwidth."""
    efficiency = params.DECODE_EFFICIENCY.value * software_efficiency(chip)
    return efficiency * effective_bandwidth(chip) * 1e9 / bytes_per_token


def decode_relative(chip: GpuChip, reference: GpuChip) -> float:
    """Decode speed relative to the reference card (the same model on each)."""
    return (software_efficiency(chip) * effective_bandwidth(chip)
            / (software_efficiency(reference) * effective_bandwidth(reference)))


__all__ = ["AMD_ARCHITECTURES", "GB", "PROFILES", "Profile", "decode_bytes_per_token", "decode_relative",
           "decode_tokens_per_s", "effective_bandwidth", "eight_bit_throughput", "inference_speed", "relative",
           "relative_perf", "scaling", "software_efficiency", "speed", "tensor_throughput",
           "weight_bytes_per_parameter"]
