"""The performance model against the public tables in tests/data/perf/: residuals per row and per group, fitted
and held-out sources reported apart, and (with --fit) the fit of the engine eras (planner/recommend/engines.toml)
and the constants of planner/recommend/params.py.

    python tools/perf_residuals.py          # the residual tables of docs/performance-model.md
    python tools/perf_residuals.py --fit    # re-fit the engine eras, link, prefill and training constants

A residual is model ÷ measured. The split is by source: rows of a `fit` source were used to fit, rows of a
`holdout` source never were; `check` rows come from software versions no era models and are shown, never fitted.
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
from planner.recommend import decode, engines, params, perf

DATA = Path(__file__).resolve().parent.parent / "tests" / "data" / "perf"
REFERENCE_SYSTEM = "H100 80GB SXM5"  # Lambda's own 1 × H100 SXM row: every training ratio's denominator
PCIE_4_X16 = decode.pcie(4, 16)  # llm-perf-bench: "all numbers are based on PCIe, not NVLink"


class Residual(NamedTuple):
    table: str  # decode | training | scaling | engines | prefill | current | serving
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
    kind: str = ""  # transformer | cnn for training rows; decode | prefill | serving for LLM rows
    source: str = ""  # the source the split goes by
    version: str = ""  # the engine era
    users: int = 1
    billions: float = 0.0  # the model's parameters
    moe_layers: int = 0  # the model's mixture-of-experts layers (0: dense)

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
            self.models[model_id] = self.catalog.typed("llm", model_id, WorkloadModel)
        return self.models[model_id]


def _family(chip: GpuChip) -> str:
    return "hbm" if decode.is_hbm(chip) else "gddr"


def _size(model: WorkloadModel) -> str:
    """"70B" for Llama 3 70B: the size its name gives (else its parameter count)."""
    last = model.name.split()[-1]
    return last if last[:-1].replace(".", "").isdigit() and last.endswith("B") else f"{model.parameters:.3g}B"


XIONGJIE_SOURCE = "XiongjieDai/GPU-Benchmarks-on-LLM-Inference"


def _parallel(engine: str, count: int) -> str:
    return "" if count == 1 else engines.get(engine).parallel


def decode_residuals(catalog: Catalog, cache: _Cache | None = None) -> list[Residual]:
    """llama.cpp decode of May 2024 (tg 1024: 1,024 tokens from an empty cache, 512 cached on average) on 1–8
    cards: the 2024 era."""
    cache = cache or _Cache(catalog)
    out = []
    for row in rows("llama_cpp.csv"):
        if row["tg_1024"] == "OOM":
            continue
        chip, model, count = cache.chip(row["chip"]), cache.model(row["model"]), int(row["count"])
        work = decode.decode_work(model, model.parameters, row["format"], 512)
        speed = decode.decode(chip, work, "llama.cpp", count, version="2024").tokens_per_s
        out.append(Residual("decode", row["gpu"], row["chip"], _family(chip), _size(model), row["format"],
                            "llama.cpp", count, float(row["tg_1024"]), speed, row["split"], "decode",
                            XIONGJIE_SOURCE, "2024", 1, model.parameters))
    return out


def prefill_residuals(catalog: Catalog, cache: _Cache | None = None) -> list[Residual]:
    """llama.cpp prompt processing of May 2024 (pp 1024) on one card: the 2024 era."""
    cache = cache or _Cache(catalog)
    out = []
    for row in rows("llama_cpp.csv"):
        if row["pp_1024"] == "OOM" or row["count"] != "1":
            continue
        chip, model = cache.chip(row["chip"]), cache.model(row["model"])
        work = decode.decode_work(model, model.parameters, row["format"], 0)
        speed = decode.prefill(chip, work, 1024, version="2024").tokens_per_s
        out.append(Residual("prefill", row["gpu"], row["chip"], _family(chip), _size(model), row["format"],
                            "llama.cpp", 1, float(row["pp_1024"]), speed, row["split"], "prefill",
                            XIONGJIE_SOURCE, "2024", 1, model.parameters))
    return out


def _source(text: str) -> str:
    """The source a row's split goes by: its repository, or its site (and page)."""
    first = text.split(" @ ")[0].split(" (")[0].strip()
    return first.removeprefix("github.com/")


def engine_residuals(catalog: Catalog, cache: _Cache | None = None) -> list[Residual]:
    """Other engines (and older llama.cpp builds) on 1–8 cards over PCIe (llm-perf-bench, 2023) or one A100
    (premAI, January 2024), each at its era."""
    cache = cache or _Cache(catalog)
    out = []
    for row in rows("engines.csv"):
        chip, model, count = cache.chip(row["chip"]), cache.model(row["model"]), int(row["count"])
        decoded = 256 if "perf-bench" in row["source"] else 512  # tokens generated after a short prompt
        work = decode.decode_work(model, model.parameters, row["format"], decoded // 2)
        link = decode.pcie(4, 16, p2p=decode.peer_to_peer(chip)) if count > 1 else None
        speed = decode.decode(chip, work, row["engine"], count, link, version=row["version"]).tokens_per_s
        out.append(Residual("engines", f"{row['engine']} {count} × {row['chip']}", row["chip"], _family(chip),
                            _size(model), row["format"], row["engine"], count, float(row["tokens_per_s"]), speed,
                            row["split"], "decode", _source(row["source"]), row["version"], 1, model.parameters))
    return out


#: Decode and prefill rows of 2024–26 builds (current.csv) and of tensor-parallel and mixture-of-experts
#: engines on HBM cards (tensor_parallel.csv), one format.
CURRENT_FILES = ("current.csv", "tensor_parallel.csv")


def _row_link(row: dict[str, str], chip: GpuChip, count: int) -> decode.Interconnect | None:
    """The link a row's source states (`link`: pcie<gen>x<lanes>, or nvlink), with peer-to-peer as the card's
    driver allows it; None when the source does not say (the planner's own assumption then: NVLink on a baseboard
    or a bridged pair, else PCIe at the card's generation × 16)."""
    text = (row.get("link") or "").strip().lower()
    if not text or count < 2:
        return None
    if text == "nvlink":
        return decode.interconnect(chip, count)
    gen, lanes = text.removeprefix("pcie").split("x")
    return decode.pcie(int(gen), int(lanes), p2p=decode.peer_to_peer(chip))


def current_residuals(catalog: Catalog, cache: _Cache | None = None) -> list[Residual]:
    """Decode (tg), prefill (pp) and whole-request (e2e: a prompt of `context` tokens, then `tokens` output tokens,
    measured as output tokens ÷ the request's latency) rows of 2024–26 builds from several sources
    (tests/data/perf/current.csv, tensor_parallel.csv)."""
    cache = cache or _Cache(catalog)
    out = []
    for row in (row for name in CURRENT_FILES for row in rows(name)):
        chip, model, count = cache.chip(row["chip"]), cache.model(row["model"]), int(row["count"])
        tokens, context = int(row["tokens"]), int(row["context"])
        link = _row_link(row, chip, count)
        if row["test"] == "pp":
            work = decode.decode_work(model, model.parameters, row["format"], 0)
            speed = decode.prefill(chip, work, tokens, row["engine"], count, link,
                                   version=row["version"]).tokens_per_s
            kind = "prefill"
        elif row["test"] == "e2e":  # the prompt's prefill gives the first token, decode steps the others
            first = decode.decode_work(model, model.parameters, row["format"], 0)
            seconds = decode.prefill(chip, first, context, row["engine"], count, link, version=row["version"]).seconds
            work = decode.decode_work(model, model.parameters, row["format"], context + tokens // 2)
            step = decode.decode(chip, work, row["engine"], count, link, version=row["version"]).ms_per_token / 1e3
            speed = tokens / (seconds + (tokens - 1) * step)
            kind = "decode"
        else:
            work = decode.decode_work(model, model.parameters, row["format"], context + tokens // 2)
            speed = decode.decode(chip, work, row["engine"], count, link, version=row["version"]).tokens_per_s
            kind = "decode"
        out.append(Residual("current", f"{row['engine']} {row['test']} {count} × {row['chip']}", row["chip"],
                            _family(chip), _size(model), row["format"], row["engine"], count, float(row["measured"]),
                            speed, row["split"], kind, _source(row["source"]), row["version"], 1, model.parameters,
                            work.moe_layers))
    return out


def serving_residuals(catalog: Catalog, cache: _Cache | None = None) -> list[Residual]:
    """All users' output tokens/s with continuous batching (tests/data/perf/serving.csv): the KV cache the
    engine's memory rule leaves decides how many sequences run at once."""
    from planner.recommend import memory

    cache = cache or _Cache(catalog)
    out = []
    for row in rows("serving.csv"):
        chip, model, count = cache.chip(row["chip"]), cache.model(row["model"]), int(row["count"])
        users, prompt, output = int(row["users"]), int(row["prompt"]), int(row["output"])
        work = decode.decode_work(model, model.parameters, row["format"], prompt + output)
        capacity = memory.sequences_that_fit(model, row["format"], chip.memory, count, row["engine"],
                                             prompt + output)
        estimate = decode.decode(chip, work, row["engine"], count, users=users, version=row["version"],
                                 prompt=prompt, output=output, capacity=capacity)
        out.append(Residual("serving", f"{row['engine']} {users} users × {row['chip']}", row["chip"], _family(chip),
                            _size(model), row["format"], row["engine"], count, float(row["measured"]),
                            estimate.aggregate_tokens_per_s, row["split"], "serving", _source(row["source"]),
                            row["version"], users, model.parameters))
    return out


def llm_residuals(catalog: Catalog, cache: _Cache | None = None) -> list[Residual]:
    """Every LLM inference row: decode, prefill and serving, fitted and held out."""
    cache = cache or _Cache(catalog)
    return (decode_residuals(catalog, cache) + engine_residuals(catalog, cache) + prefill_residuals(catalog, cache)
            + current_residuals(catalog, cache) + serving_residuals(catalog, cache))


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

def _single_decode(r: Residual) -> bool:
    return r.kind == "decode" and r.split != "check" and r.count == 1


#: The groups of issue 24 over the LLM rows; each held-out median ratio must lie within 0.85–1.15.
GROUPS: dict[str, Callable[[Residual], bool]] = {
    "HBM decode": lambda r: _single_decode(r) and r.family == "hbm",
    "GDDR decode": lambda r: _single_decode(r) and r.family == "gddr",
    "models ≤ 4 B": lambda r: r.kind == "decode" and r.split != "check" and r.billions <= 4.5,
    "tensor parallel, 2–8 cards": lambda r: (r.kind == "decode" and r.split != "check" and r.count > 1
                                             and _parallel(r.engine, r.count) == "tensor"),
    "layer split, 2–8 cards": lambda r: (r.kind == "decode" and r.split != "check" and r.count > 1
                                         and _parallel(r.engine, r.count) == "layer"),
    "aggregate tok/s, 4–64 users": lambda r: r.kind == "serving" and 4 <= r.users <= 64,
    "aggregate tok/s, > 64 users": lambda r: r.kind == "serving" and r.users > 64,
    "prefill": lambda r: r.kind == "prefill" and r.split != "check",
}
#: The groups of issue 15 over the training rows.
TRAINING_GROUPS: dict[str, Callable[[Residual], bool]] = {
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
    """Every row the acceptance tables summarise: the LLM rows and PyTorch training (Lambda)."""
    cache = _Cache(catalog)
    return (llm_residuals(catalog, cache) + training_residuals(catalog, cache)
            + scaling_residuals(catalog, cache))


def _cell(summary: Summary) -> str:
    if not summary.count:
        return "– | – | –"
    return f"{summary.count} | {summary.median_ratio:.3f} | {summary.median_error * 100:.1f} %"


def _split_row(name: str, residuals: list[Residual]) -> str:
    fitted = Summary.of(r for r in residuals if r.split == "fit")
    held = Summary.of(r for r in residuals if r.split == "holdout")
    return f"| {name} | {_cell(fitted)} | {_cell(held)} |"


SPLIT_HEAD = ["| group | fitted rows | fitted: median model ÷ measured | fitted: median \\|error\\| | held-out rows"
              " | held out: median model ÷ measured | held out: median \\|error\\| |",
              "|---|---:|---:|---:|---:|---:|---:|"]


def acceptance_table(residuals: list[Residual]) -> str:
    """Issue 24's table: every group, fitted and held-out sources apart."""
    llm = [r for r in residuals if r.kind in ("decode", "prefill", "serving")]
    lines = [*SPLIT_HEAD, _split_row("all LLM rows", [r for r in llm if r.split != "check"])]
    lines += [_split_row(name, [r for r in llm if keep(r)]) for name, keep in GROUPS.items()]
    return "\n".join(lines) + "\n"


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


def _row_table(residuals: list[Residual], head: str) -> list[str]:
    lines = ["", head, "", "| engine (era) | card | count | model | format | users | measured | model | ratio | split"
             " | source |", "|---|---|---:|---|---|---:|---:|---:|---:|---|---|"]
    lines += [f"| {r.engine} ({r.version}) | {r.chip} | {r.count} | {r.size} | {r.precision} | {r.users} |"
              f" {r.measured:g} | {r.model:.1f} | {r.ratio:.2f} | {r.split} | {r.source} |" for r in residuals]
    return lines


def markdown(catalog: Catalog) -> str:
    cache = _Cache(catalog)
    decoded, engined, prefilled = (decode_residuals(catalog, cache), engine_residuals(catalog, cache),
                                   prefill_residuals(catalog, cache))
    current, served = current_residuals(catalog, cache), serving_residuals(catalog, cache)
    trained, scaled = training_residuals(catalog, cache), scaling_residuals(catalog, cache)
    lines = ["### Issue 24's groups: fitted and held-out sources apart", "",
             acceptance_table(decoded + engined + prefilled + current + served).rstrip("\n")]
    head = ["| group | rows | median model ÷ measured | median \\|error\\| | worst |"
            " held out: median \\|error\\| (rows) |", "|---|---:|---:|---:|---:|---:|"]
    lines += ["", "### llama.cpp decode of May 2024 by card family × model size × format × card count"
              " (XiongjieDai, tg 1024; fitted)", "", *head]
    lines += [_summary_row(f"{family.upper()} {size} {fmt} × {count}", group) for (family, size, fmt, count), group
              in _by(decoded, lambda r: (r.family, r.size, r.precision, r.count))]
    lines += ["", "### Prefill, one card (XiongjieDai, pp 1024; fitted)", "", *head]
    lines += [_summary_row(f"{family.upper()} {fmt}", group)
              for (family, fmt), group in _by(prefilled, lambda r: (r.family, r.precision))]
    lines += _row_table(engined, "### Engines by era (llm-perf-bench over PCIe, 2023: fitted; premAI on one A100,"
                                 " January 2024: held out)")
    lines += _row_table(current, "### 2024–26 builds: decode, prefill and whole-request rows (tests/data/perf/"
                                 "current.csv, tensor_parallel.csv)")
    lines += _row_table(served, "### Serving many users: all users' output tokens/s (tests/data/perf/serving.csv)")
    lines += ["", "### Training, the groups of issue 15 (Lambda)", "", *head, _summary_row("all training rows",
                                                                                          trained + scaled)]
    lines += [_summary_row(name, [r for r in trained + scaled if keep(r)]) for name, keep in TRAINING_GROUPS.items()]
    lines += ["", "### Training by kind × card family × count (Lambda; 1 card: ÷ one H100 SXM, n cards: ÷ one card)",
              "", *head]
    lines += [_summary_row(f"{kind} {family.upper()} × {count}" + (f" ({link})" if count > 1 else ""), group)
              for (kind, family, count, link), group
              in _by(trained + scaled, lambda r: (r.kind, r.family, r.count, r.precision))]
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


#: No decode kernel streams more of a card's bandwidth than this (DRAM refresh, page switches: STREAM-like copies
#: reach 90-95 % of the data-sheet figure); a share the fit pushes above it is held there.
MAX_SHARE = 0.95


def _era(engine: str, version: str) -> engines.Era:
    return engines.get(engine).era(version)


def fit(catalog: Catalog) -> dict[str, Any]:
    """Fit the engine eras and constants on the rows of `fit` sources; returns them (it also leaves them set in
    this process). Each era is fitted on its own engine's rows; the figures an era cannot be fitted on are its
    engines.toml estimates."""
    cache = _Cache(catalog)
    result: dict[str, Any] = {}

    def llama_2024(x: list[float]) -> float:
        overhead, per_layer, gddr, hbm, ceiling, quantized, hop = (abs(v) for v in x)
        engines.set_era("llama.cpp", "2024", overhead_ms=overhead, per_layer_us=per_layer, gddr=min(gddr, MAX_SHARE),
                        hbm=min(hbm, MAX_SHARE), ceiling_gbs=ceiling, quantized=min(quantized, 1.0), hop_ms=hop)
        return _mean_log_error(r for r in decode_residuals(catalog, cache) if r.split == "fit")

    start = [0.36, 80.0, 0.95, 0.62, 8400.0, 1.0, 0.19]  # a fixed start: the fit gives the same figures every run
    best = [abs(v) for v in _nelder_mead(llama_2024, start, iterations=6000)]
    llama_2024(best)
    era = _era("llama.cpp", "2024")  # the figures as set (shares held at MAX_SHARE, quantized at most 1)
    result["llama.cpp 2024: overhead_ms, per_layer_us, gddr, hbm, ceiling_gbs, quantized, hop_ms"] = [
        era.overhead_ms, era.per_layer_us, era.gddr, era.hbm, era.ceiling_gbs, era.quantized, era.hop_ms]

    for label, quantized in (("prefill_16bit", False), ("prefill_quantized", True)):
        engines.set_era("llama.cpp", "2024", **{label: 1.0})
        ratios = [r.measured / r.model for r in prefill_residuals(catalog, cache)
                  if r.split == "fit" and (r.precision != "f16") == quantized]
        engines.set_era("llama.cpp", "2024", **{label: statistics.median(ratios)})
        result[f"llama.cpp 2024 {label}"] = statistics.median(ratios)

    # the 2025 era: the same kernels' bandwidth, a per-token overhead scaled by one factor (CUDA graphs, fusions)
    # and the int8 tensor-core prefill; fitted on the fit rows of tests/data/perf/current.csv
    base = _era("llama.cpp", "2024")
    engines.set_era("llama.cpp", "2025", gddr=base.gddr, hbm=base.hbm, ceiling_gbs=base.ceiling_gbs,
                    quantized=base.quantized, prefill_16bit=base.prefill_16bit)

    def llama_2025(x: list[float]) -> float:
        scale = abs(x[0])
        engines.set_era("llama.cpp", "2025", overhead_ms=base.overhead_ms * scale,
                        per_layer_us=base.per_layer_us * scale)
        return _mean_log_error(r for r in current_residuals(catalog, cache)
                               if r.split == "fit" and r.version == "2025" and r.engine == "llama.cpp"
                               and r.kind == "decode")

    scale = abs(_nelder_mead(llama_2025, [0.65], iterations=400)[0])
    llama_2025([scale])
    result["llama.cpp 2025: overhead scale"] = scale
    engines.set_era("llama.cpp", "2025", prefill_quantized=1.0)
    ratios = [r.measured / r.model for r in current_residuals(catalog, cache)
              if r.split == "fit" and r.kind == "prefill" and r.version == "2025"]
    engines.set_era("llama.cpp", "2025", prefill_quantized=statistics.median(ratios))
    result["llama.cpp 2025 prefill_quantized"] = statistics.median(ratios)

    # 2023 engines over PCIe (llm-perf-bench): MLC with its own cost per all-reduce (the link steps are NCCL's,
    # params.LINKS), ExLlamaV2, vLLM 0.2
    def engines_2023(x: list[float]) -> float:
        x = [abs(v) for v in x]
        engines.set_era("mlc", "2023", overhead_ms=x[0], gddr=min(x[1], MAX_SHARE), hbm=min(x[2], MAX_SHARE),
                        allreduce_us=x[3])
        engines.set_era("exllama", "2023", overhead_ms=x[4], gddr=min(x[5], MAX_SHARE), hbm=min(x[6], MAX_SHARE))
        engines.set_era("vllm", "2023", overhead_ms=x[7], allreduce_us=x[8], quantized=min(x[9], 1.0))
        return _mean_log_error(r for r in engine_residuals(catalog, cache) if r.split == "fit")

    start = [0.2, 0.95, 0.9, 49.0, 1.1, 0.95, 0.88, 8.4, 164.0, 1.0]
    best = [abs(v) for v in _nelder_mead(engines_2023, start, iterations=12000)]
    engines_2023(best)
    mlc, ex, old = _era("mlc", "2023"), _era("exllama", "2023"), _era("vllm", "2023")
    result["2023: mlc overhead, gddr, hbm, allreduce_us; exllama overhead, gddr, hbm;"
           " vllm overhead, allreduce_us, quantized"] = [
        mlc.overhead_ms, mlc.gddr, mlc.hbm, mlc.allreduce_us, ex.overhead_ms,
        ex.gddr, ex.hbm, old.overhead_ms, old.allreduce_us, old.quantized]

    # vLLM and TensorRT-LLM from 2024 read the weights as MLC's kernels do (an estimate, tested on premAI's A100)
    fitted = _era("mlc", "2023")
    for engine, version in (("vllm", "2024"), ("vllm", "2025"), ("tensorrt-llm", "2024")):
        engines.set_era(engine, version, gddr=fitted.gddr, hbm=fitted.hbm, ceiling_gbs=fitted.ceiling_gbs)

    # TensorRT-LLM 2024 on NVLink baseboards (NeMo Framework's Llama 2 7B requests, 1-8 × A100 SXM4 and H100 SXM):
    # its per-token overhead, the ceiling its kernels put on HBM and its own cost per all-reduce (the NVLink steps
    # are NCCL's, params.LINKS)
    def tensorrt_2024(x: list[float]) -> float:
        overhead, ceiling, allreduce = (abs(v) for v in x)
        engines.set_era("tensorrt-llm", "2024", overhead_ms=overhead, ceiling_gbs=ceiling, allreduce_us=allreduce)
        return _mean_log_error(r for r in current_residuals(catalog, cache)
                               if r.split == "fit" and r.engine == "tensorrt-llm")

    best = [abs(v) for v in _nelder_mead(tensorrt_2024, [0.78, 4000.0, 30.0], iterations=3000)]
    tensorrt_2024(best)
    result["tensorrt-llm 2024: overhead_ms, ceiling_gbs, allreduce_us"] = best

    # vLLM 2025 on every fit row of its era at once: the serving sweep (per-sequence cost, batched GEMM share) and
    # the single-user rows (per-token and per-layer costs, a mixture-of-experts layer's cost against dense models
    # measured the same way); the per-layer costs at the reference kernel clock (params.KERNEL_CLOCK)
    def vllm_2025(x: list[float]) -> float:
        overhead, per_layer, per_sequence, gemm, moe = (abs(v) for v in x)
        engines.set_era("vllm", "2025", overhead_ms=overhead, per_layer_us=per_layer, per_sequence_us=per_sequence,
                        prefill_16bit=min(gemm, MAX_SHARE), moe_layer_us=moe)
        return _mean_log_error([r for r in serving_residuals(catalog, cache) if r.split == "fit"]
                               + [r for r in current_residuals(catalog, cache) if r.split == "fit"
                                  and r.engine == "vllm" and r.version == "2025"])

    best = [abs(v) for v in _nelder_mead(vllm_2025, [0.5, 40.0, 72.0, 0.51, 15.0], iterations=4000)]
    vllm_2025(best)
    result["vllm 2025: overhead_ms, per_layer_us, per_sequence_us, prefill_16bit, moe_layer_us"] = best

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
