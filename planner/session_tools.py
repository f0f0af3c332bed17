"""What an interactive face does with a build besides editing it: load the catalogs, tune a card's power
limit, optimise, complete, export, draw the slots, look parts up, rank GPUs, keep an unsaved build.

`planner.session` re-exports all of it, so a face (the TUI) reaches the core through the session and
`planner.api` alone. The solver, recommender, optimiser, placement and exporters load on first use: a
face that never asks for them starts without them.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from planner.build.resolve import ResolvedBuild
from planner.catalog import Catalog
from planner.checks.engine.context import Settings
from planner.models.parts import GpuBoard, GpuChip, Part, Psu
from planner.util.errors import PlannerError

if TYPE_CHECKING:
    from planner.checks.optimize import Plan
    from planner.models.build import Region
    from planner.placement import Placement
    from planner.recommend.rank import Recommendation
    from planner.solve import SolveResult

#: Export formats by the file's suffix; any other suffix is a plain-text parts list.
EXPORT_SUFFIXES = {".md": "md", ".csv": "csv", ".json": "json", ".sh": "nvidia-smi", ".service": "systemd"}


# -- the catalogs ------------------------------------------------------------------------------------------
# -- the power-limit tuner ---------------------------------------------------------------------------------
def power_limit_codes() -> frozenset[str]:
    """The finding codes a power limit can change: every registered check that declares it reads power limits
    (what the tuner re-shows after each step)."""
    from planner.checks.engine.registry import codes_reading

    return codes_reading("gpus.power_limit")


class Tuning(NamedTuple):
    """One `[[gpu]]` entry's power limit as the tuner shows it: the card, its range and its slowdown curve.
    Its figures come from one check of the build; stepping needs no other."""

    spec_index: int
    cards: int  # cards in the entry
    board: GpuBoard
    chip: GpuChip
    workload: str
    limit: float  # W, now
    stock: float  # W, the board's default power
    low: float  # W, the lowest settable limit
    high: float  # W, the highest

    def relative_perf(self, power: float) -> float:
        """The card's estimated throughput at `power` W, relative to stock."""
        from planner.physics.slowdown import relative_perf

        return relative_perf(self.board, self.chip, power, self.workload).relative_perf

    def curve(self) -> str:
        """Which slowdown curve the estimate reads (measured, or the chip's DVFS model)."""
        from planner.physics.slowdown import relative_perf

        return relative_perf(self.board, self.chip, self.limit, self.workload).curve

    def at(self, limit: float) -> Tuning:
        """The same card at another limit, kept within its range."""
        return self._replace(limit=min(self.high, max(self.low, limit)))

    def stepped(self, watts: float) -> Tuning:
        """The limit `watts` higher (lower when negative), kept within the card's range."""
        return self.at(self.limit + watts)


def tuning(build: ResolvedBuild, spec_index: int) -> Tuning | None:
    """The tuner's view of the `[[gpu]]` entry `spec_index` of a checked build (None when it has no card)."""
    cards = [g for g in build.gpus if g.spec_index == spec_index]
    if not cards:
        return None
    card = cards[0]
    return Tuning(spec_index, len(cards), card.board, card.chip, build.workload, card.power_limit, card.board.tdp,
                  card.board.power_limit_min, card.board.power_limit_max)


def optimise(build: ResolvedBuild, catalog: Catalog, settings: Settings | None = None) -> Plan:
    """The optimiser's power limits for a checked build (planner/checks/optimize.py); the caller applies its
    `changes`."""
    from planner.checks.optimize import optimize

    return optimize(build, catalog, settings)


# -- completing, exporting, the slot diagram, recovery --------------------------------------------------
def complete(text: str, label: str, catalog: Catalog, region: Region | None = None) -> SolveResult:
    """The solver's completion of a build's text (`planner solve`): the cheapest parts with which every
    check passes. PlannerError when the build cannot be read as a partial build. Takes up to a second on
    the full catalogs: a face runs it off its event loop."""
    from planner.solve import parse_partial, solve

    return solve(parse_partial(text, label, catalog, region), catalog, label=label)


def export_format(path: Path) -> str:
    """The export format a file name asks for (its suffix)."""
    return EXPORT_SUFFIXES.get(path.suffix, "text")


def export_build(build: ResolvedBuild, path: Path) -> None:
    """Write the parts list or the power-limit script the file name asks for; never over an existing file
    (InputError)."""
    from planner.export.formats import export
    from planner.util.fileio import atomic_write

    atomic_write(path, export(build, export_format(path)), force=False)


def slot_diagram(build: ResolvedBuild, placement: Placement | None = None) -> str:
    """Which case positions each card covers, risers, free gaps and lanes (`planner check --diagram`).
    `placement`: the one the build was checked with (`CheckResult.checked.placement`), else it is placed here."""
    from planner.placement.diagram import slot_diagram as draw

    if placement is None:
        from planner.placement import place

        placement = place(build)
    return draw(build, placement)


def save_recovery(text: str, build_path: Path | None) -> Path:
    """Keep an unsaved build in a new recovery file (planner/util/recovery.py); InputError when nowhere can be
    written."""
    from planner.util.recovery import save_recovery as save

    return save(text, build_path)


# -- parts -------------------------------------------------------------------------------------------------
def part_kind(catalog: Catalog, part_id: str) -> str | None:
    """The kind of the first catalog part with this id (None: no such part)."""
    for kind, _ in catalog.find(part_id):
        return kind
    return None


def part_summary(part: Part) -> str:
    """The figures a builder compares at a glance (`planner catalog show`)."""
    from planner.describe import summary

    return summary(part)


def key_figures(catalog: Catalog, part: Part) -> str:
    """The figures of a part, shortest first: a GPU's memory, slots, length, board power and cooler."""
    if isinstance(part, GpuBoard):
        memory = gpu_memory(catalog, part)
        return ", ".join(([f"{memory:g} GB"] if memory else [])
                         + [f"{part.slot_width:g}-slot", f"{part.length:g} mm", f"{part.tdp:g} W", part.cooler])
    return part_summary(part)


def gpu_memory(catalog: Catalog, part: Part) -> float | None:
    """A GPU board's memory, GB, from its chip (None for other parts, or a chip the catalogs lack)."""
    if not isinstance(part, GpuBoard):
        return None
    try:
        chip = catalog.get("gpu-chip", part.chip)
    except PlannerError:  # an unknown or invalid chip: no figure
        return None
    return chip.memory if isinstance(chip, GpuChip) else None


def part_power(part: Part) -> float | None:
    """A part's power, W: a GPU's or CPU's default power, a PSU's rating."""
    tdp = getattr(part, "tdp", None)
    if isinstance(tdp, (int, float)) and tdp:
        return float(tdp)
    return part.wattage if isinstance(part, Psu) else None


def perf_per_dollar(catalog: Catalog, part: Part) -> float | None:
    """A GPU board's fp16 training speed (the recommendation's performance model) per $1,000 of its price."""
    if not isinstance(part, GpuBoard) or not part.price:
        return None
    from planner.recommend.perf import speed

    try:
        chip = catalog.get("gpu-chip", part.chip)
    except PlannerError:
        return None
    return speed(chip, "fp16_training") / part.price * 1000 if isinstance(chip, GpuChip) else None


# -- GPU recommendations -----------------------------------------------------------------------------------
def workload_models(catalog: Catalog, category: str | None) -> list[tuple[str, str]]:
    """(label, id) of the catalog's models of a category (llm, diffusion, vision; None: every one)."""
    from planner.models.workloads import WorkloadModel

    return [(f"{m.name} ({m.parameters:g} B)", m.id) for m in catalog.all("llm")
            if isinstance(m, WorkloadModel) and (category is None or m.category == category)]


def recommend_gpus(catalog: Catalog, workload: str, *, model: str | None = None, memory: float | None = None,
                   precision: str = "fp16", budget: float | None = None, count: int | None = None) -> Recommendation:
    """GPUs ranked for a workload (`planner recommend`): for a named model or a memory need in GiB, at a
    weight format, within a budget for the GPUs and a card count. PlannerError or ValueError for a request
    the recommender cannot answer."""
    from planner.recommend.memory import MemoryRequest
    from planner.recommend.rank import Request, recommend

    named = catalog.get("llm", model) if model is not None else None
    request = MemoryRequest(workload=workload, model=named, memory=memory,  # type: ignore[arg-type]
                            precision=precision)
    return recommend(Request(request, budget=budget, gpus=count), catalog)
