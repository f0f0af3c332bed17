"""Does a candidate fit a given build? Substitute its cards for the build's GPUs and run the checks.

The placement, power, outlet and thermal checks (docs/verdicts.md) then decide, so every check added to the
planner limits the recommendation too. A few checks look at parts other than the GPUs (the board's
form factor in the case, the PSU bays, the PSU's cord); their errors belong to the build whatever the
GPUs, so they are reported once and do not exclude candidates.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from planner.build import buildfile
from planner.build.resolve import ResolvedBuild, resolve
from planner.catalog import Catalog
from planner.checks.engine.context import Settings
from planner.checks.engine.findings import Finding
from planner.checks.engine.runner import run_checks
from planner.models.build import Region
from planner.models.parts import GpuBoard
from planner.util.errors import InputError

#: Check codes (docs/verdicts.md) whose errors do not depend on the GPUs.
GPU_INDEPENDENT_CODES = frozenset({"case.form-factor", "case.psu", "outlet.inlet"})


def with_gpus(raw: dict[str, Any], board_id: str, count: int) -> dict[str, Any]:
    """The build's data with every [[gpu]] table replaced by `count` × `board_id` at stock power (the old
    cards' power limits, slots and risers belonged to them)."""
    changed = dict(raw)
    changed["gpu"] = [{"part": board_id, "count": count}]
    return changed


class BuildFit:
    """A build file that candidates are tried in."""

    def __init__(self, path: Path, catalog: Catalog, region: Region | None = None) -> None:
        self.path = path
        self.catalog = catalog
        self.settings = Settings(region=region)
        spec, self.raw, text = buildfile.load(path)
        self.original = resolve(spec, self.raw, catalog, label=str(path), text=text, region=region)
        own = run_checks(self.original, catalog, self.settings, propose_fixes=False)
        #: errors of the build that no choice of GPUs changes
        self.own_problems: list[Finding] = [f for f in own if f.severity == "error" and f.code in GPU_INDEPENDENT_CODES]
        self._cache: dict[tuple[object, ...], str | None] = {}
        self._links: dict[tuple[object, ...], list[tuple[int, int]] | None] = {}

    @property
    def label(self) -> str:
        return str(self.path)

    def resolve_with(self, board: GpuBoard, count: int) -> ResolvedBuild:
        """The build with `count` × `board` (InputError if it does not resolve)."""
        data = with_gpus(self.raw, board.id, count)
        spec = buildfile.validate(data, "", self.label)
        return resolve(spec, data, self.catalog, label=self.label, region=self.settings.region)

    def links(self, board: GpuBoard, count: int) -> list[tuple[int, int]] | None:
        """(PCIe generation, lanes) of each placed card's link with `count` × `board` in the build, or None
        when they cannot be placed (tensor parallel then assumes the card's own link)."""
        from planner.placement import GpuMount, place

        key = ("links", _physical(board), count)
        if key not in self._links:
            try:
                mounts: tuple[GpuMount | None, ...] = place(self.resolve_with(board, count)).mounts
            except InputError:
                mounts = ()
            found = [(int(m.gen or board.pcie_gen), int(m.lanes)) for m in mounts if m is not None and m.lanes]
            self._links[key] = found or None
        return self._links[key]

    def problem(self, board: GpuBoard, count: int) -> str | None:
        """None when `count` × `board` passes the build's checks (but for the build's own problems), else
        the first error as "code: message"."""
        key = (_physical(board), count)
        if key not in self._cache:
            self._cache[key] = self._problem(board, count)
        return self._cache[key]

    def _problem(self, board: GpuBoard, count: int) -> str | None:
        try:
            build = self.resolve_with(board, count)
        except InputError as error:
            return f"the build does not take it: {error.message}"
        for finding in run_checks(build, self.catalog, self.settings, propose_fixes=False):
            if finding.severity == "error" and finding.code not in GPU_INDEPENDENT_CODES:
                return f"{finding.code}: {finding.message}"
        return None


def _physical(board: GpuBoard) -> tuple[object, ...]:
    """What the checks can see of a board: two boards alike in all of it fit a build alike."""
    return (board.chip, board.tdp, board.power_limit_min, board.power_limit_max, tuple(board.power_connectors),
            board.slot_width, board.length, board.height, board.cooler, board.pcie_gen, board.pcie_lanes,
            board.temp_target, board.temp_max_operating, board.excursions, board.id if board.perf_curve else None)
