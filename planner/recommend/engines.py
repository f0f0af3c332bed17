"""Inference engines as data: planner/recommend/engines.toml, one table per engine with its version eras.

An era is what one engine's kernels did over a span of releases: its per-token overhead, the share of a card's
bandwidth its decode kernels reach on GDDR and on HBM, the ceiling the bytes they keep in flight put on any
memory, its cost per batched sequence and per tensor-parallel all-reduce. `--engine-version` picks the era in
force on a date (a year or YYYY-MM); by default the newest. ollama runs llama.cpp's kernels and SGLang is taken
at vLLM's figures (`speed_as`); each keeps its own memory rule (planner/recommend/memory.py)."""

from __future__ import annotations

import dataclasses
import re
import tomllib
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any, Literal

from planner.util.errors import InputError

DATA = Path(__file__).with_name("engines.toml")
Parallel = Literal["layer", "tensor"]


@dataclass(frozen=True)
class Era:
    """An engine's decode figures over a span of its releases."""

    version: str
    since: str  # YYYY-MM
    overhead_ms: float  # per decode step, whatever the model
    per_layer_us: float  # per layer per step (kernel launches and tails the CUDA graph does not hide)
    gddr: float  # share of the card's effective bandwidth its decode kernels reach on GDDR memory
    hbm: float  # … and on HBM
    ceiling_gbs: float  # GB/s the bytes its kernels keep in flight allow on any card (Little's law)
    quantized: float  # bandwidth share of quantized formats relative to 16-bit weights
    per_sequence_us: float  # per batched sequence per step (sampling, scheduling, attention launch)
    allreduce_us: float  # the engine's own cost per tensor-parallel all-reduce (launch, synchronisation)
    moe_layer_us: float = 0.0  # per mixture-of-experts layer per step, on every card (routing, top-k, the
    #   grouped-GEMM launches of the routed experts): a fixed cost tensor parallel does not divide
    accumulate: str = "fp16"  # prefill GEMMs at the fp16-accumulate tensor rate (llama.cpp) or fp32 (PyTorch)
    prefill_16bit: float = 0.45  # share of that rate prefill reaches with 16-bit weights
    prefill_quantized: float = 0.35  # … with quantized weights (dequantized on the way, or int8 tensor cores)
    hop_ms: float = 0.0  # layer split: per extra card per token
    one_shot_allreduce: bool = True  # the engine's one-shot all-reduce where the link allows (else NCCL's ring)
    fitted: tuple[str, ...] = ()
    source: str = ""


@dataclass(frozen=True)
class Engine:
    id: str
    label: str
    names: tuple[str, ...]
    parallel: Parallel
    memory: str  # the memory rule (memory.py ENGINE_RULES)
    batched_tokens: int  # tokens of one prefill chunk (vLLM max_num_batched_tokens, llama.cpp n_ubatch)
    memory_fraction: float  # of the card the engine takes for itself (vLLM gpu_memory_utilization)
    max_sequences: int  # sequences it batches at most (vLLM max_num_seqs)
    eras: tuple[Era, ...]
    source: str
    speed_as: str | None = None

    @property
    def tensor_parallel(self) -> bool:
        return self.parallel == "tensor"

    @property
    def custom_allreduce(self) -> bool:
        """A one-shot all-reduce through peer memory (vLLM from 0.4 in 2024, SGLang, TensorRT-LLM) when the link
        allows it and the era has it (`one_shot_allreduce`; TensorRT-LLM 2024 is fitted as NCCL's ring)."""
        return self.id in ("vllm", "sglang", "tensorrt-llm")

    def era(self, version: str | None = None) -> Era:
        """The era in force at `version` (a year, YYYY-MM, or an era's name); the newest when None."""
        if version is None:
            return self.eras[-1]
        date = _date(version)
        if date is None:
            raise InputError(f"--engine-version: expected a year or YYYY-MM such as 2024 or 2025-06, got"
                             f" {version[:40]!r}")
        if date < self.eras[0].since:
            return self.eras[0]
        return [era for era in self.eras if era.since <= date][-1]


def _date(text: str) -> str | None:
    match = re.fullmatch(r"\s*(\d{4})(?:[-.](\d{1,2}))?\s*", text)
    if not match or not 1990 <= int(match.group(1)) <= 2100:
        return None
    month = int(match.group(2)) if match.group(2) else 12
    if not 1 <= month <= 12:
        return None
    return f"{match.group(1)}-{month:02d}"


@cache
def _load() -> dict[str, Engine]:
    data = tomllib.loads(DATA.read_text(encoding="utf-8"))
    engines: dict[str, Engine] = {}
    for key, table in data.items():
        eras = tuple(sorted((Era(**{**era, "fitted": tuple(era.get("fitted", ()))}) for era in table.get("eras", ())),
                            key=lambda e: e.since))
        fields = {k: v for k, v in table.items() if k != "eras"}
        engines[key] = Engine(id=key, names=tuple(fields.pop("names")), eras=eras, **fields)
    for key, engine in engines.items():
        if engine.speed_as is not None:
            engines[key] = dataclasses.replace(engine, eras=engines[engine.speed_as].eras)
        assert engines[key].eras, key
    return engines


#: Engines under the names the CLI takes (the first name of each is its canonical id).
def engines() -> dict[str, Engine]:
    return _load()


NAMES: tuple[str, ...] = tuple(name for engine in _load().values() for name in engine.names)
CANONICAL: tuple[str, ...] = tuple(engine.names[0] for engine in _load().values())


def get(name: str) -> Engine:
    """The engine a name stands for (InputError with the names when unknown)."""
    for engine in _load().values():
        if name.lower() in engine.names:
            return engine
    raise InputError(f"unknown engine {name!r}; one of {', '.join(CANONICAL)}")


def label(name: str) -> str:
    try:
        return get(name).label
    except InputError:
        return name


def set_era(name: str, version: str, **figures: Any) -> None:
    """Replace figures of one era (tools/perf_residuals.py --fit); engines that share its eras follow."""
    table = _load()
    target = get(name)
    for key, engine in table.items():
        if engine.eras is target.eras or key == target.id or engine.speed_as == target.id:
            eras = tuple(dataclasses.replace(era, **figures) if era.version == version else era
                         for era in engine.eras)
            table[key] = dataclasses.replace(engine, eras=eras)


__all__ = ["CANONICAL", "DATA", "NAMES", "Engine", "Era", "engines", "get", "label", "set_era"]
