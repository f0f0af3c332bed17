"""Risers (docs/verdicts.md `riser.mount`, `riser.signal`).

`riser.signal` walks each riser-fed GPU's path in the PCIe tree (planner/placement/tree.py, networkx):
it is built only for builds with a riser, so ordinary builds never import networkx.
"""

from __future__ import annotations

import copy
import math
from typing import Any

from planner.checks import slot_fixes
from planner.checks.case_fit import cases_for
from planner.checks.engine.context import MODEL_READS, Context
from planner.checks.engine.findings import Change, Finding, Fix
from planner.checks.engine.registry import check
from planner.checks.links import lane_bandwidth
from planner.models.parts import Riser
from planner.placement import params as placement_params
from planner.placement.explain import shortfall
from planner.placement.from_build import problem_of
from planner.placement.solver import Problem, solve_within
from planner.util.fmt import mm, names


def riser_problem(riser: Riser, gen: int, validated: bool = False) -> str | None:
    """Why a link of generation `gen` over this riser is marginal, or None when it is fine. `validated`: its maker
    validated it with the build's case or board (see `Riser.validated_with`)."""
    if riser.pcie_gen < gen:
        return f"the riser is rated for PCIe {riser.pcie_gen}.0 only"
    if gen >= 5 and riser.signal != "retimer":
        return f"PCIe {gen}.0 through a {riser.signal} riser has almost no signal margin (a retimer resets it)"
    ribbon = riser.signal == "passive" and riser.construction == "ribbon"
    if gen > placement_params.RISER_RIBBON_MAX_GEN.value and ribbon and not validated:
        # only PCIe 4.0 reaches here (5.0 and up needs a retimer above), and the evidence is about 4.0
        return (f"it is a {mm(riser.length)} passive ribbon riser, and ribbons sold for PCIe 4.0 have failed at that "
                "speed in documented builds (AER/WHEA errors, crashes, a 6-card WRX80 rig that booted only at PCIe "
                "3.0, a small case's own riser its maker told owners to run at 3.0) with no safe length documented, "
                "nor has its maker validated it with this case or board")
    return None


def riser_ok(riser: Riser, gen: int) -> bool:
    """Does a link of generation `gen` run cleanly over this riser, whatever the case and board?"""
    return riser_problem(riser, gen) is None


def validated_here(ctx: Context, riser: Riser) -> bool:
    """Has the riser's maker validated it with this build's case or motherboard?"""
    return bool({ctx.build.case.id, ctx.build.motherboard.id} & set(riser.validated_with))


def clean_gen(riser: Riser, gen: int, validated: bool = False) -> int:
    """The fastest generation below `gen` that runs cleanly over the riser (what to set the slot to)."""
    return next((g for g in range(gen - 1, 0, -1) if riser_problem(riser, g, validated) is None), 1)


@check("riser.mount", reads=MODEL_READS["placement"], order=140, section="Fit",
       error="more risers than the case's vertical/remote mounts",
       warning="—",
       evidence="case spec")
def mounts(ctx: Context) -> list[Finding]:
    """Vertical/remote mounts for the GPUs on riser cables (error when too few)."""
    build, case = ctx.build, ctx.build.case
    on_cables = [g for g in build.gpus if g.riser is not None and g.riser.kind == "cable"]
    if len(on_cables) <= case.vertical_gpu_mounts:
        return []
    problem = problem_of(build)
    slots = tuple(m.slot if m is not None else None for m in ctx.placement.mounts)
    info = shortfall(problem, slots)
    left = [build.gpus[g].label for g in info.without_mount]
    return [mounts.finding(
        severity="error",
        message=f"{info.mount_sentence or ''}, so {names(left)} {'has' if len(left) == 1 else 'have'} nowhere to go.",
        subject=[*(f"GPU{g + 1}" for g in info.without_mount), case.id], value=len(on_cables),
        limit=case.vertical_gpu_mounts, unit="mounts",
        fixes=[*_case_with_mounts(ctx, len(on_cables)), *_off_risers(ctx, problem)] if ctx.propose_fixes else [])]


def _case_with_mounts(ctx: Context, needed: int) -> list[Fix]:
    cases = [c for c in cases_for(ctx) if c.vertical_gpu_mounts >= needed]
    return slot_fixes.verified(ctx, [(f"use a case with {needed} or more vertical mounts: the {c.name} ({c.id}"
                                      f"{slot_fixes.price_text(c)}, {c.vertical_gpu_mounts} mounts)",
                                      [Change(path="case", value=c.id)]) for c in cases], "riser.mount")


def _off_risers(ctx: Context, problem: Problem) -> list[Fix]:
    """Take the cards off their riser cables and into slots, when they all fit there."""
    needs = tuple(n._replace(on_mount=False, width=math.ceil(ctx.build.gpus[n.gpu].board.slot_width),
                             riser=None, riser_lanes=None) if n.on_mount else n for n in problem.needs)
    solution = solve_within(problem._replace(needs=needs), ctx.placement_allowance)
    if solution is None or solution.placed < len(needs):
        return []
    tables: list[dict[str, Any]] = []
    for table in ctx.build.raw["gpu"]:
        table = copy.deepcopy(table)
        table.pop("riser", None)
        tables.append(table)
    return slot_fixes.verified(ctx, [("take the cards off the riser cables: they all fit in the board's slots",
                                      [Change(path="gpu", value=tables)])], "riser.mount")


@check("riser.signal", reads=MODEL_READS["placement"] | {"cpu"}, order=150, section="Fit",
       error="—",
       warning=("a PCIe 4.0+ link over a passive ribbon riser at any length unless its maker validated the "
                "pairing; a riser rated below the link; Gen5 without a retimer"),
       evidence=("documented failures (Level1Techs 6×3090 rig booting only at Gen3, AER errors on ribbon risers, "
                 "Fractal's Ridge riser at Gen4); the outcome depends on card, board and cable, so never an error"))
def signal(ctx: Context) -> list[Finding]:
    """A riser's construction, signal conditioning and rating against the PCIe generation of the link it carries
    (warnings only: whether a marginal link fails depends on the card, the board and the cable)."""
    build = ctx.build
    findings = []
    for mount in ctx.placement.mounts:
        riser = build.gpus[mount.gpu].riser if mount is not None else None
        if mount is None or riser is None or not mount.gen:
            continue
        gen, validated = int(mount.gen), validated_here(ctx, riser)
        problem = riser_problem(riser, gen, validated)
        if problem is None:
            continue
        gpu = build.gpus[mount.gpu]
        slot, lanes = str(mount.slot), int(mount.lanes or gpu.board.pcie_lanes)
        slower = clean_gen(riser, gen, validated)
        better = "a retimer riser" if gen >= 5 else "a redriver/retimer kit or shielded twinax cables"
        why = f"the fastest a {riser.signal} {riser.construction} riser is trusted at; " if slower < gen - 1 else ""
        findings.append(signal.finding(
            severity="warning",
            message=f"GPU{gpu.index + 1}'s PCIe {gen}.0 link runs over the {riser.name}{_path(ctx, mount.gpu)}: "
                    f"{problem}; expect link errors, crashes or a slower link unless {slot} is set to PCIe "
                    f"{slower}.0 in the BIOS ({why}{_bandwidth_cost(lanes, gen, slower)}) or the link runs over "
                    f"{better}.",
            subject=[f"GPU{gpu.index + 1}", riser.id, slot], value=gen, limit=riser.pcie_gen,
            unit="PCIe generation", fixes=_signal_fixes(ctx, gpu.spec_index, riser, gen, slot, lanes, slower)
            if ctx.propose_fixes else []))
    return findings


def _bandwidth_cost(lanes: int, gen: int, slower: int) -> str:
    """'the x16 link drops from 31.5 to 15.8 GB/s each way'"""
    return (f"the x{lanes} link drops from {lanes * lane_bandwidth(gen):.1f} to {lanes * lane_bandwidth(slower):.1f}"
            " GB/s each way")


def _path(ctx: Context, gpu: int) -> str:
    """' (CPU → PCIEX16_4 → riser → GPU3)': the link's hops from the PCIe tree (networkx). Only when the
    report is written (fixes proposed), never while a fix is re-checked, where only the verdict counts."""
    if not ctx.propose_fixes:
        return ""
    from planner.placement.tree import path_to, pcie_tree

    tree = pcie_tree(ctx.build, ctx.placement)
    hops = ["riser" if tree.nodes[node]["kind"] == "riser" else node for node in path_to(tree, gpu)]
    return f" ({' → '.join(hops)})"


def _signal_fixes(ctx: Context, spec: int, riser: Riser, gen: int, slot: str, lanes: int, slower: int) -> list[Fix]:
    """Catalog risers that carry the link cleanly (re-checked), then the BIOS setting (not re-checkable)."""
    better = sorted((r for r in ctx.catalog.all("riser", curated=True)
                     if isinstance(r, Riser) and r.kind == riser.kind and r.lanes >= riser.lanes
                     and riser_problem(r, gen, validated_here(ctx, r)) is None),
                    key=lambda r: (r.price is None, r.price or 0.0, r.id))
    fixes = slot_fixes.verified(ctx, [(f"use the {r.name} ({r.id}{slot_fixes.price_text(r)}, rated PCIe "
                                       f"{r.pcie_gen}.0, {mm(r.length)}, {r.construction}, {r.signal})",
                                       [Change(path=f"gpu[{spec}].riser", value=r.id)]) for r in better],
                                "riser.signal")
    fixes.append(Fix(description=f"set {slot} to PCIe {slower}.0 in the BIOS ({_bandwidth_cost(lanes, gen, slower)};"
                                 " not something a build file can say, so not re-checked)"))
    return fixes
