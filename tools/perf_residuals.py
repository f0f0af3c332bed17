"""The performance model against the public tables in tests/data/perf/: residuals per row and per group, the
held-out split, and (with --fit) the fit of the constants in planner/recommend/params.py.

    python tools/perf_residuals.py          # the residual tables of docs/performance-model.md
    python tools/perf_residuals.py --fit    # re-fit the decode, engine, prefill and training constants

A residual is model ÷ measured. Rows marked `fit` were used to fit, `holdout` were not (whole cards or
configurations held back), `check` rows come from other software versions and are shown, never fitted.
"""

from __future__ import annotations

import csv
import math
import statistics
import sys
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any, NamedTuple

from planner.catalog import Catalog
from planner.models.parts import GpuChip
from planner.models.workloads import WorkloadModel
from planner.recommend import decode, params, perf

DATA = Path(__file__).resolve().parent.parent / "tests" / "data" / "perf"
REFERENCE_SYSTEM = "H100 80GB SXM5"  # Lambda's own 1 × H100 SXM row: every training ratio's denominator
PCIE_4_X16 = decode.pcie(4, 16)  # llm-perf-bench: "all numbers are based on PCIe, not NVLink"


class Residual(NamedTuple):
    table: str  # decode | training | scaling | engines | prefill
    label: str
    chip: str
    family: str  # gddr | hbm
    size: str  # model size or network kind
    precision: str
    engine: str
    count: int
    measured: float
    model: float
    split: str
    kind: str = ""  # transformer | cnn for training rows

    @property
    def ratio(self) -> float:
        return self.model / self.measured


def rows(name: str) -> list[dict[str, str]]:
    with (DATA / name).open(newline="") as handle:
        return list(csv.DictReader(handle))


class _Cache:
    def __init__(self, catalog: Catalog) -> None:
        self.catalog = catalog
        self.chips: dict[str, GpuChip] = {}
        self.models: dict[str, WorkloadModel] = {}

    def chip(self, chip_id: str) -> GpuChip:
        if chip_id not in self.chips:
            self.chips[chip_id] = self.catalog.typed("gpu-chip", chip_id, GpuChip)
        return self.chips[chip_id]

    def model(self, model_id: str) -> WorkloadModel:
        if model_id not in self.models:
            self.models[model_id] = self.catalog.typed("model", model_id, WorkloadModel)
        return self.models[model_id]


def _family(chip: GpuChip) -> str:
    return "hbm" if decode.is_hbm(chip) else "gddr"


def _size(model: WorkloadModel) -> str:
    """"70B" for Llama 3 70B: the size its name gives."""
    return model.name.split()[-1]


def decode_residuals(catalog: Catalog, cache: _Cache | None = None) -> list[Residual]:
    """llama.cpp decode (tg 1024: 1,024 tokens from an empty cache, 512 cached on average) on 1–8 cards."""
    cache = cache or _Cache(catalog)
    out = []
    for row in rows("llama_cpp.csv"):
        if row["tg_1024"] == "OOM":
            continue
        chip, model, count = cache.chip(row["chip"]), cache.model(row["model"]), int(row["count"])
        work = decode.decode_work(model, model.parameters, row["format"], 512)
        speed = decode.decode(chip, work, "llama.cpp", count).tokens_per_s
        out.append(Residual("decode", row["gpu"], row["chip"], _family(chip), _size(model), row["format"],
                            "llama.cpp", count, float(row["tg_1024"]), speed, row["split"]))
    return out


def prefill_residuals(catalog: Catalog, cache: _Cache | None = None) -> list[Residual]:
    """llama.cpp prompt processing (pp 1024) on one card."""
    cache = cache or _Cache(catalog)
    out = []
    for row in rows("llama_cpp.csv"):
        if row["pp_1024"] == "OOM" or row["count"] != "1":
            continue
        chip, model = cache.chip(row["chip"]), cache.model(row["model"])
        work = decode.decode_work(model, model.parameters, row["format"], 0)
        speed = decode.prefill(chip, work, 1024).tokens_per_s
        out.append(Residual("prefill", row["gpu"], row["chip"], _family(chip), _size(model), row["format"],
                            "llama.cpp", 1, float(row["pp_1024"]), speed, row["split"]))
    return out


def engine_residuals(catalog: Catalog, cache: _Cache | None = None) -> list[Residual]:
    """Other engines (and older llama.cpp builds) on 1–8 cards over PCIe (llm-perf-bench) or one A100 (premAI)."""
    cache = cache or _Cache(catalog)
    out = []
    for row in rows("engines.csv"):
        chip, model, count = cache.chip(row["chip"]), cache.model(row["model"]), int(row["count"])
        decoded = 256 if "perf-bench" in row["source"] else 512  # tokens generated after a short prompt
        work = decode.decode_work(model, model.parameters, row["format"], decoded // 2)
        speed = decode.decode(chip, work, row["engine"], count, PCIE_4_X16).tokens_per_s
        out.append(Residual("engines", f"{row['engine']} {count} × {row['chip']}", row["chip"], _family(chip),
                            _size(model), row["format"], row["engine"], count, float(row["tokens_per_s"]), speed,
                            row["split"]))
    return out


def _training_rows() -> tuple[list[dict[str, str]], dict[str, float], dict[tuple[str, str], float]]:
    table = rows("lambda_training.csv")
    reference = {r["benchmark"]: float(r["throughput"]) for r in table if r["system"] == REFERENCE_SYSTEM}
    single = {(r["chip"], r["benchmark"]): float(r["throughput"]) for r in table if r["count"] == "1"}
    return table, reference, single


def training_residuals(catalog: Catalog, cache: _Cache | None = None) -> list[Residual]:
    """One card's training throughput relative to one H100 SXM (at the batch each card holds, as Lambda ran it)."""
    cache = cache or _Cache(catalog)
    table, reference, _ = _training_rows()
    h100 = cache.chip(params.REFERENCE_CHIP)
    out = []
    for row in table:
        if row["count"] != "1" or row["system"] == REFERENCE_SYSTEM:
            continue
        chip = cache.chip(row["chip"])
        kind = row["kind"]
        model = (perf.training_speed(chip, kind, largest_batch=True)  # type: ignore[arg-type]
                 / perf.training_speed(h100, kind, largest_batch=True))  # type: ignore[arg-type]
        out.append(Residual("training", f"{row['system']}: {row['benchmark']}", row["chip"], _family(chip), kind,
                            "fp16", "pytorch", 1, float(row["throughput"]) / reference[row["benchmark"]], model,
                            row["split"], kind))
    return out


def scaling_residuals(catalog: Catalog, cache: _Cache | None = None) -> list[Residual]:
    """n cards' training throughput ÷ one card's, same card and benchmark."""
    cache = cache or _Cache(catalog)
    table, _, single = _training_rows()
    out = []
    for row in table:
        count = int(row["count"])
        one = single.get((row["chip"], row["benchmark"]))
        if count == 1 or one is None:
            continue
        chip = cache.chip(row["chip"])
        link = perf.training_link(chip, count)
        out.append(Residual("scaling", f"{row['system']}: {row['benchmark']}", row["chip"], _family(chip),
                            row["kind"], link, "pytorch", count, float(row["throughput"]) / one,
                            perf.scaling(count, link), row["split"], row["kind"]))
    return out


# -- groups ------------------------------------------------------------------------------------------------

#: The groups the issue names, each a filter over the residuals; each median ratio must lie within 0.85–1.15.
GROUPS: dict[str, Callable[[Residual], bool]] = {
    "HBM decode": lambda r: r.table == "decode" and r.family == "hbm",
    "GDDR decode": lambda r: r.table == "decode" and r.family == "gddr",
    "small models (≤ 13B) decode": lambda r: r.table == "decode" and float(r.size[:-1]) <= 13,
    "multi-GPU decode": lambda r: r.table == "decode" and r.count > 1,
    "multi-GPU training scaling": lambda r: r.table == "scaling",
    "GDDR training": lambda r: r.table == "training" and r.family == "gddr",
    "HBM training": lambda r: r.table == "training" and r.family == "hbm",
    "CNN training": lambda r: r.table == "training" and r.kind == "cnn",
    "transformer training": lambda r: r.table == "training" and r.kind == "transformer",
}


class Summary(NamedTuple):
    count: int
    median_ratio: float
    median_error: float  # median |ratio − 1|
    worst: float  # the ratio furthest from 1

    @classmethod
    def of(cls, residuals: Iterable[Residual]) -> Summary:
        ratios = [r.ratio for r in residuals]
        if not ratios:
            return cls(0, math.nan, math.nan, math.nan)
        return cls(len(ratios), statistics.median(ratios), statistics.median(abs(x - 1) for x in ratios),
                   max(ratios, key=lambda x: abs(math.log(x))))


def acceptance_residuals(catalog: Catalog) -> list[Residual]:
    """The two tables the issue names: llama.cpp decode (XiongjieDai) and PyTorch training (Lambda)."""
    cache = _Cache(catalog)
    return (decode_residuals(catalog, cache) + training_residuals(catalog, cache)
            + scaling_residuals(catalog, cache))


def _summary_row(name: str, residuals: list[Residual]) -> str:
    every, held = Summary.of(residuals), Summary.of(r for r in residuals if r.split == "holdout")
    held_text = f"{held.median_error * 100:.1f} % ({held.count})" if held.count else "–"
    return (f"| {name} | {every.count} | {every.median_ratio:.3f} | {every.median_error * 100:.1f} % |"
            f" {every.worst:.2f} | {held_text} |")


def _by(residuals: list[Residual], key: Callable[[Residual], Any]) -> list[tuple[Any, list[Residual]]]:
    groups: dict[Any, list[Residual]] = {}
    for r in residuals:
        groups.setdefault(key(r), []).append(r)
    return sorted(groups.items(), key=lambda item: str(item[0]))


def markdown(catalog: Catalog) -> str:
    cache = _Cache(catalog)
    decoded, trained, scaled = (decode_residuals(catalog, cache), training_residuals(catalog, cache),
                                scaling_residuals(catalog, cache))
    accepted = decoded + trained + scaled
    head = ["| group | rows | median model ÷ measured | median \\|error\\| | worst |"
            " held out: median \\|error\\| (rows) |", "|---|---:|---:|---:|---:|---:|"]
    lines = ["### Both tables, by the groups of issue 15", "", *head, _summary_row("all rows", accepted)]
    lines += [_summary_row(name, [r for r in accepted if keep(r)]) for name, keep in GROUPS.items()]
    lines += ["", "### llama.cpp decode by card family × model size × format × card count (XiongjieDai, tg 1024)",
              "", *head]
    lines += [_summary_row(f"{family.upper()} {size} {fmt} × {count}", group) for (family, size, fmt, count), group
              in _by(decoded, lambda r: (r.family, r.size, r.precision, r.count))]
    lines += ["", "### Training by kind × card family × count (Lambda; 1 card: ÷ one H100 SXM, n cards: ÷ one card)",
              "", *head]
    lines += [_summary_row(f"{kind} {family.upper()} × {count}" + (f" ({link})" if count > 1 else ""), group)
              for (kind, family, count, link), group
              in _by(trained + scaled, lambda r: (r.kind, r.family, r.count, r.precision))]
    engines = engine_residuals(catalog, cache)
    lines += ["", "### Engines by engine × card family × count (llm-perf-bench over PCIe, premAI on one A100)",
              "", "| engine | card | count | model | format | measured tok/s | model tok/s | ratio | split |",
              "|---|---|---:|---|---|---:|---:|---:|---|"]
    lines += [f"| {r.engine} | {r.chip} | {r.count} | {r.size} | {r.precision} | {r.measured:g} | {r.model:.1f} |"
              f" {r.ratio:.2f} | {r.split} |" for r in engines]
    prefilled = prefill_residuals(catalog, cache)
    lines += ["", "### Prefill, one card (XiongjieDai, pp 1024)", "", *head]
    lines += [_summary_row(f"{family.upper()} {fmt}", group)
              for (family, fmt), group in _by(prefilled, lambda r: (r.family, r.precision))]
    return "\n".join(lines) + "\n"


CARDS = ("h100-sxm5-80gb", "h100-pcie-80gb", "a100-sxm4-80gb", "a100-sxm4-40gb", "v100-sxm2-16gb",
         "rtx-pro-6000-blackwell", "rtx-6000-ada", "rtx-a6000", "rtx-5090", "rtx-4090", "rtx-3090", "rtx-5080",
         "rtx-4080", "rtx-4070-ti", "rtx-3080", "rtx-5060-ti-16gb", "rtx-4060-ti-16gb", "rtx-3060", "rx-7900-xtx")


def cards_table(catalog: Catalog) -> str:
    """The model's figures for some cards, H100 SXM = 1.00 (Llama 3 8B Q4_K_M and 70B Q4_K_M decode in tok/s)."""
    cache = _Cache(catalog)
    h100 = cache.chip(params.REFERENCE_CHIP)
    small, large = cache.model("llama-3.1-8b"), cache.model("llama-3-70b")
    lines = ["| card | 8-bit inference | 16-bit inference | transformer training | CNN training | 8B Q4_K_M decode |"
             " 70B Q4_K_M decode, 1 card |", "|---|---:|---:|---:|---:|---:|---:|"]
    for chip_id in CARDS:
        chip = cache.chip(chip_id)
        figures = perf.relative_perf(chip, h100)
        cnn = perf.training_speed(chip, "cnn") / perf.training_speed(h100, "cnn")
        speeds = [decode.decode(chip, decode.decode_work(m, m.parameters, "q4_k_m", 512)).tokens_per_s
                  for m in (small, large)]
        lines.append(f"| {chip.name} | {figures['int8_inference']:.2f} | {figures['fp16_inference']:.2f} |"
                     f" {figures['fp16_training']:.2f} | {cnn:.2f} | {speeds[0]:.0f} | {speeds[1]:.1f} |")
    return "\n".join(lines) + "\n"


# -- the fit -----------------------------------------------------------------------------------------------

def _nelder_mead(f: Callable[[list[float]], float], x0: list[float], step: float = 0.3,
                 iterations: int = 4000) -> list[float]:
    n = len(x0)
    points = [list(x0)] + [[v * (1 + step) if i == j else v for j, v in enumerate(x0)] for i in range(n)]
    values = [f(p) for p in points]
    for _ in range(iterations):
        order = sorted(range(n + 1), key=lambda i: values[i])
        points, values = [points[i] for i in order], [values[i] for i in order]
        if abs(values[-1] - values[0]) < 1e-12:
            break
        centre = [sum(p[j] for p in points[:-1]) / n for j in range(n)]

        worst = points[-1]
        reflected = [centre[j] - (worst[j] - centre[j]) for j in range(n)]
        value = f(reflected)
        if value < values[0]:
            expanded = [centre[j] - 2 * (worst[j] - centre[j]) for j in range(n)]
            other = f(expanded)
            points[-1], values[-1] = (expanded, other) if other < value else (reflected, value)
        elif value < values[-2]:
            points[-1], values[-1] = reflected, value
        else:
            contracted = [centre[j] + 0.5 * (worst[j] - centre[j]) for j in range(n)]
            other = f(contracted)
            if other < values[-1]:
                points[-1], values[-1] = contracted, other
            else:
                points = [points[0]] + [[points[0][j] + 0.5 * (p[j] - points[0][j]) for j in range(n)]
                                        for p in points[1:]]
                values = [values[0]] + [f(p) for p in points[1:]]
    return points[min(range(n + 1), key=lambda i: values[i])]


def _mean_log_error(residuals: Iterable[Residual]) -> float:
    return statistics.fmean(abs(math.log(r.ratio)) for r in residuals)


def _set(name: str, value: float) -> None:
    setattr(params, name, getattr(params, name)._replace(value=value))


def _set_table(name: str, key: str, values: tuple[float | None, ...]) -> None:
    table = getattr(params, name)
    setattr(params, name, table._replace(values={**table.values, key: values}))


def fit(catalog: Catalog) -> dict[str, Any]:
    """Fit every constant on the `fit` rows; returns them (it also leaves them set in this process)."""
    cache = _Cache(catalog)
    result: dict[str, Any] = {}

    def llama_cpp(x: list[float]) -> float:
        gddr, hbm, overhead, hop = (abs(v) for v in x)
        _set("DECODE_EFFICIENCY_GDDR", gddr)
        _set("DECODE_EFFICIENCY_HBM", hbm)
        _set("DECODE_OVERHEAD", overhead)
        _set("LAYER_SPLIT_HOP", hop)
        _set_table("ENGINES", "llama.cpp", (gddr, hbm, overhead, 0.0))
        return _mean_log_error(r for r in decode_residuals(catalog, cache) if r.split == "fit")

    best = [abs(v) for v in _nelder_mead(llama_cpp, [0.85, 0.55, 2.5, 0.3])]
    llama_cpp(best)
    result["llama.cpp"] = best

    def engines(x: list[float]) -> float:
        x = [abs(v) for v in x]
        _set_table("ENGINES", "mlc", (x[0], x[1], x[2], 1.0))
        _set_table("ENGINES", "exllama", (x[3], x[4], x[5], 0.0))
        _set_table("ENGINES", "vllm", (x[0], x[6], x[2], 1.0))
        _set_table("ENGINES", "tensorrt-llm", (x[0], x[7], x[2], 1.0))
        _set("ALLREDUCE_LATENCY_PCIE", x[8])
        return _mean_log_error(r for r in engine_residuals(catalog, cache) if r.split == "fit")

    best = [abs(v) for v in _nelder_mead(engines, [0.84, 0.8, 0.8, 0.85, 0.65, 1.5, 0.6, 0.7, 80.0], iterations=8000)]
    engines(best)
    result["engines"] = best

    for label, quantized in (("16-bit", False), ("quantized", True)):
        _set_table("PREFILL_EFFICIENCY", label, (1.0,))
        ratios = [r.measured / r.model for r in prefill_residuals(catalog, cache)
                  if r.split == "fit" and (r.precision != "f16") == quantized]
        _set_table("PREFILL_EFFICIENCY", label, (statistics.median(ratios),))
        result[f"prefill {label}"] = statistics.median(ratios)

    for kind in ("transformer", "cnn"):
        def training(x: list[float], kind: str = kind) -> float:
            _set_table("TRAINING", kind, tuple(abs(v) for v in x))
            return _mean_log_error(r for r in training_residuals(catalog, cache) if r.split == "fit" and r.kind == kind)

        best = [abs(v) for v in _nelder_mead(training, [0.08, 0.005, 0.25, 7.0, 0.8], iterations=6000)]
        training(best)
        result[f"training {kind}"] = best

    scaled = scaling_residuals(catalog, cache)
    for link in ("pcie", "nvlink"):
        per_doubling = [(r.measured / r.count) ** (1 / math.log2(r.count)) for r in scaled
                        if r.split == "fit" and r.precision == link]
        _set_table("MULTI_GPU_SCALING", link, (statistics.median(per_doubling),))
        result[f"scaling {link}"] = statistics.median(per_doubling)
    return result


def main(argv: list[str]) -> int:
    catalog = Catalog()
    if "--fit" in argv:
        for name, value in fit(catalog).items():
            shown = [round(v, 4) for v in value] if isinstance(value, list) else round(value, 4)
            print(f"{name}: {shown}")
        print()
    print(markdown(catalog))
    print(cards_table(catalog), end="")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
