"""Published figures outside the fitted tables (tests/data/perf/), and the model's error on each.

`python -m planner.recommend.calibration` prints the Markdown table of docs/performance-model.md. Figures
marked `calibration` fix a parameter (the batched-inference roofline's batch); `check` figures were not used
to fit anything: Dettmers' A100 ÷ V100 ratios (issue 15's acceptance), the Lambda RTX 4090 ÷ 3090 blog
figures, and two RX 7900 XTX decode speeds from a llama.cpp build two years newer than the fitted table.
The decode, engine, prefill and training fits, their held-out split and residuals per group are
tools/perf_residuals.py.
"""

from __future__ import annotations

from typing import Literal, NamedTuple

from planner.catalog import Catalog
from planner.models.parts import GpuChip
from planner.models.workloads import WorkloadModel
from planner.recommend.decode import decode, decode_work
from planner.recommend.perf import NetworkKind, Profile, relative, training_speed

LAMBDA_4090 = ("Lambda (2022), 'NVIDIA GeForce RTX 4090 vs RTX 3090 Deep Learning Benchmark', PyTorch NGC 22.09,"
               " FP16 training throughput")
DETTMERS = "Dettmers, 'Which GPU(s) to Get for Deep Learning' (2020, 2023)"

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
    role: Literal["calibration", "check"] = "check"
    kind: NetworkKind | None = None  # training figures: per-sample speed of this kind of network

    @property
    def unit(self) -> str:
        return "tokens/s" if self.model else "×"


FIGURES: tuple[Figure, ...] = (
    Figure("A100 SXM4 ÷ V100 SXM2, 16-bit transformer training", "a100-sxm4-40gb", 1.70,
           f"{DETTMERS}: 1.70× on transformers (NLP); bandwidth ratio 1555/900 = 1.73", versus="v100-sxm2-16gb",
           kind="transformer"),
    Figure("A100 SXM4 ÷ V100 SXM2, 16-bit CNN training", "a100-sxm4-40gb", 1.45,
           f"{DETTMERS}: 1.45× on computer vision", versus="v100-sxm2-16gb", kind="cnn"),
    Figure("RTX 4090 ÷ H100 SXM, 8-bit inference", "rtx-4090", 0.33,
           "Dettmers (2023): the H100 SXM is about 3× an RTX 4090 for 8-bit inference",
           versus="h100-sxm5-80gb", profile="int8_inference", role="calibration"),
    Figure("RTX 4090 ÷ RTX 3090, BERT-base fine-tuning (fp16)", "rtx-4090", 297 / 172,
           f"{LAMBDA_4090}: 297 vs 172", versus="rtx-3090", kind="transformer"),
    Figure("RTX 4090 ÷ RTX 3090, Transformer-XL base training (fp16)", "rtx-4090", 40427 / 22863,
           f"{LAMBDA_4090}: 40,427 vs 22,863 (the transformerxlbase column; this row was labelled 'large')",
           versus="rtx-3090", kind="transformer"),
    Figure("RTX 4090 ÷ RTX 3090, ResNet-50 training (fp16)", "rtx-4090", 1301 / 905,
           f"{LAMBDA_4090}: 1,301 vs 905 images/s (the resnet50 column; these labels were swapped with SSD's)",
           versus="rtx-3090", kind="cnn"),
    Figure("RTX 4090 ÷ RTX 3090, SSD detection training (fp16)", "rtx-4090", 379 / 236,
           f"{LAMBDA_4090}: 379 vs 236 images/s", versus="rtx-3090", kind="cnn"),
    Figure("RX 7900 XTX, Llama 2 7B decode (4-bit, llama.cpp Vulkan)", "rx-7900-xtx", 172, LLAMA_CPP_XTX + "Vulkan"
           " (RADV) 167–177 tok/s", model="llama-2-7b", precision="q4_0", context=64),
    Figure("RX 7900 XTX, Llama 2 7B decode (4-bit, llama.cpp ROCm)", "rx-7900-xtx", 136.5, LLAMA_CPP_XTX + "ROCm"
           " 129–144 tok/s", model="llama-2-7b", precision="q4_0", context=64),
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
        model = catalog.typed("llm", figure.model, WorkloadModel)
        return decode(chip, decode_work(model, model.parameters, figure.precision, figure.context)).tokens_per_s
    assert figure.versus is not None
    versus = catalog.typed("gpu-chip", figure.versus, GpuChip)
    if figure.kind is not None:
        return training_speed(chip, figure.kind) / training_speed(versus, figure.kind)
    assert figure.profile is not None
    return relative(chip, versus, figure.profile)


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
