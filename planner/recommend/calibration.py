"""The published figures the performance model is calibrated on, and its error on each.

`python -m planner.recommend.calibration` prints the Markdown table of docs/performance-model.md.
Figures marked `check` were not used to fit the parameters: they show how the model does off its
calibration set.
"""

from __future__ import annotations

from typing import Literal, NamedTuple

from planner.catalog import Catalog
from planner.models.parts import GpuChip
from planner.models.workloads import WorkloadModel
from planner.recommend.perf import Profile, decode_bytes_per_token, decode_tokens_per_s, relative

LAMBDA_4090 = ("Lambda (2022), 'NVIDIA GeForce RTX 4090 vs RTX 3090 Deep Learning Benchmark', PyTorch NGC 22.09,"
               " FP16 training throughput")
MLC = ("MLC LLM benchmark (github.com/mlc-ai/llm-perf-bench README): Llama 2 in 4-bit (q4f16_1), batch 1,"
       " 256 tokens decoded")

LLAMA_CPP_XTX = ("llama.cpp issue #20934 (github.com/ggml-org/llama.cpp, 2026): LLaMA 7B Q4_0 (4.5 bits), llama-bench"
                 " tg128: ")


class Figure(NamedTuple):
    """One published figure: a speed ratio between two cards, or a decode speed."""

    label: str
    chip: str
    published: float
    source: str
    versus: str | None = None  # the ratio's denominator card
    profile: Profile | None = None
    model: str | None = None  # decode speed of this model
    precision: str = "int4"
    context: int = 128  # average tokens in the KV cache while decoding
    role: Literal["calibration", "check"] = "calibration"

    @property
    def unit(self) -> str:
        return "tokens/s" if self.model else "×"


FIGURES: tuple[Figure, ...] = (
    Figure("A100 SXM4 ÷ V100 SXM2, 16-bit transformer training", "a100-sxm4-40gb", 1.70,
           "Dettmers, 'Which GPU(s) to Get for Deep Learning' (2020, 2023): 1.70× on transformers; bandwidth"
           " ratio 1555/900 = 1.73", versus="v100-sxm2-16gb", profile="fp16_training"),
    Figure("RTX 4090 ÷ H100 SXM, 8-bit inference", "rtx-4090", 0.33,
           "Dettmers (2023): the H100 SXM is about 3× an RTX 4090 for 8-bit inference",
           versus="h100-sxm5-80gb", profile="int8_inference"),
    Figure("RTX 4090 ÷ RTX 3090, BERT-base fine-tuning (fp16)", "rtx-4090", 297 / 172,
           f"{LAMBDA_4090}: 297 vs 172", versus="rtx-3090", profile="fp16_training"),
    Figure("RTX 4090 ÷ RTX 3090, Transformer-XL large training (fp16)", "rtx-4090", 40427 / 22863,
           f"{LAMBDA_4090}: 40,427 vs 22,863", versus="rtx-3090", profile="fp16_training"),
    Figure("RTX 4090, Llama 2 7B decode (4-bit)", "rtx-4090", 204.8, MLC, model="llama-2-7b"),
    Figure("RTX 4090, Llama 2 13B decode (4-bit)", "rtx-4090", 113.5, MLC, model="llama-2-13b"),
    Figure("RTX 3090 Ti, Llama 2 7B decode (4-bit)", "rtx-3090-ti", 186.7, MLC, model="llama-2-7b"),
    Figure("RTX 3090 Ti, Llama 2 13B decode (4-bit)", "rtx-3090-ti", 107.4, MLC, model="llama-2-13b"),
    Figure("RX 7900 XTX, Llama 2 7B decode (4-bit, llama.cpp Vulkan)", "rx-7900-xtx", 172, LLAMA_CPP_XTX + "Vulkan"
           " (RADV) 167–177 tok/s", model="llama-2-7b", context=64),
    Figure("RX 7900 XTX, Llama 2 7B decode (4-bit, llama.cpp ROCm)", "rx-7900-xtx", 136.5, LLAMA_CPP_XTX + "ROCm"
           " 129–144 tok/s", model="llama-2-7b", context=64),
    Figure("RTX 4090 ÷ RTX 3090, ResNet-50 training (fp16)", "rtx-4090", 379 / 236,
           f"{LAMBDA_4090}: 379 vs 236 images/s (a CNN: outside the transformer calibration)",
           versus="rtx-3090", profile="fp16_training", role="check"),
    Figure("RTX 4090 ÷ RTX 3090, SSD detection training (fp16)", "rtx-4090", 1301 / 905,
           f"{LAMBDA_4090}: 1,301 vs 905 images/s (a CNN: outside the transformer calibration)",
           versus="rtx-3090", profile="fp16_training", role="check"),
)


class Row(NamedTuple):
    figure: Figure
    model_value: float

    @property
    def error(self) -> float:
        """Model ÷ published − 1."""
        return self.model_value / self.figure.published - 1


def model_value(figure: Figure, catalog: Catalog) -> float:
    """What the performance model predicts for a figure."""
    chip = catalog.typed("gpu-chip", figure.chip, GpuChip)
    if figure.model is not None:
        model = catalog.typed("model", figure.model, WorkloadModel)
        return decode_tokens_per_s(chip, decode_bytes_per_token(model, figure.precision, figure.context))
    assert figure.versus is not None and figure.profile is not None
    return relative(chip, catalog.typed("gpu-chip", figure.versus, GpuChip), figure.profile)


def evaluate(catalog: Catalog) -> list[Row]:
    return [Row(figure, model_value(figure, catalog)) for figure in FIGURES]


def markdown_table(catalog: Catalog) -> str:
    lines = ["| figure | role | published | model | error | source |", "|---|---|---:|---:|---:|---|"]
    for row in evaluate(catalog):
        f = row.figure
        digits = 1 if f.model else 2
        lines.append(f"| {f.label} | {f.role} | {f.published:.{digits}f} {f.unit} | {row.model_value:.{digits}f}"
                     f" {f.unit} | {row.error * 100:+.1f} % | {f.source} |")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    print(markdown_table(Catalog()), end="")
