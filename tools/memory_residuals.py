"""Print the residual tables of docs/memory-model.md: the memory model against the public figures in
tests/data/memory/ (weight file sizes, KV-cache sizes from load logs, documented fits and out-of-memory runs).

    python tools/memory_residuals.py
"""

from __future__ import annotations

import csv
from pathlib import Path
from typing import NamedTuple

from planner.catalog import Catalog
from planner.models.workloads import WorkloadModel
from planner.recommend import engines, formats
from planner.recommend.memory import MemoryRequest, estimate, kv_cache_bytes

DATA = Path(__file__).resolve().parent.parent / "tests" / "data" / "memory"


class FitRow(NamedTuple):
    case: str
    need: float
    usable: float
    documented: bool
    rule: str = "generic"  # the engine rule that decided (docs/memory-model.md)

    @property
    def predicted(self) -> bool:
        return self.need <= self.usable


def rows(name: str) -> list[dict[str, str]]:
    with (DATA / name).open(newline="") as handle:
        return list(csv.DictReader(handle))


def weight_residuals(catalog: Catalog) -> list[tuple[dict[str, str], float]]:
    """Each published file size with the model's figure (GB, 10^9 bytes, as the hubs show them)."""
    out = []
    for row in rows("weights.csv"):
        model = catalog.typed("llm", row["model"], WorkloadModel)
        out.append((row, formats.weight_bytes(model, model.parameters, row["format"]).total / 1e9))
    return out


def kv_residuals(catalog: Catalog) -> list[tuple[dict[str, str], float]]:
    """Each logged KV-cache size with the model's figure (MiB)."""
    out = []
    for row in rows("kv_cache.csv"):
        model = catalog.typed("llm", row["model"], WorkloadModel)
        out.append((row, kv_cache_bytes(model, int(row["context"]), 1, row["cache"]) / 2**20))
    return out


def fit_request(row: dict[str, str], model: WorkloadModel) -> MemoryRequest:
    """The request a documented fit case describes (LoRA rank 32, as the Unsloth runs used)."""
    method = row["method"] or None
    return MemoryRequest(row["workload"], model, precision=row["format"], context=int(row["context"]),  # type: ignore[arg-type]
                         batch=int(row["batch"]), method=method,  # type: ignore[arg-type]
                         framework=row["framework"] or "hf", lora_rank=32 if method else None,  # type: ignore[arg-type]
                         engine=row.get("engine") or None, engine_version=row.get("version") or None,
                         memory_fraction=float(row["fraction"]) if row.get("fraction") else None)


def fit_residuals(catalog: Catalog) -> list[tuple[dict[str, str], FitRow]]:
    out = []
    for row in rows("fit_cases.csv"):
        model = catalog.typed("llm", row["model"], WorkloadModel)
        need = estimate(fit_request(row, model))
        per_card = need.per_gpu(int(row["gpus"]))
        out.append((row, FitRow(row["case"], per_card, need.usable(float(row["card_gib"])).usable,
                                row["fits"] == "yes", engines.get(need.engine).memory if need.engine else "generic")))
    return out


def markdown(catalog: Catalog) -> str:
    lines = ["### Weights against published file sizes (GB = 10^9 bytes)", "",
             "| model | format | published | model | error |", "|---|---|---:|---:|---:|"]
    for row, value in weight_residuals(catalog):
        published = float(row["published_gb"])
        lines.append(f"| {row['model']} | {row['format']} | {published:g} | {value:.2f} |"
                     f" {(value / published - 1) * 100:+.1f} % |")
    lines += ["", "### KV cache against llama.cpp load logs (MiB)", "",
              "| model | context | cache | attention | logged | model | error |", "|---|---:|---|---|---:|---:|---:|"]
    for row, value in kv_residuals(catalog):
        published = float(row["published_mib"])
        lines.append(f"| {row['model']} | {int(row['context']):,} | {row['cache']} | {row['attention']} |"
                     f" {published:g} | {value:.1f} | {(value / published - 1) * 100:+.1f} % |")
    lines += ["", "### Fit verdicts against documented runs (GiB per card)", "",
              "| case | engine rule | cards | need | usable | documented | planner |",
              "|---|---|---|---:|---:|---|---|"]
    fits = fit_residuals(catalog)
    for row, fit in fits:
        lines.append(f"| {fit.case} | {fit.rule} | {row['gpus']} × {row['card_gib']} GiB | {fit.need:.1f} |"
                     f" {fit.usable:.1f} | {'fits' if fit.documented else 'out of memory'} |"
                     f" {'fits' if fit.predicted else 'does not fit'} |")
    agree = sum(fit.predicted == fit.documented for _, fit in fits)
    lines += ["", f"{agree} of {len(fits)} verdicts agree with the documented runs."]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    print(markdown(Catalog()), end="")
