"""Physical fit of the cards on the board and in the case (SPEC §3 `case.expansion-slots`, `slot.overlap`,
`slot.placement`; the placement itself is planner/placement/).

The solver never overlaps cards or runs a cooler past the case, so `slot.overlap` and
`case.expansion-slots` catch the slots a build file names itself; `slot.placement` says which GPUs get no
mount at all, with the counts, and offers fixes that were re-checked.
"""

from __future__ import annotations

from collections.abc import Iterable

from planner.build.resolve import GpuInstance
from planner.checks import slot_fixes
from planner.checks.case import cases_for
from planner.checks.context import Context
from planner.checks.findings import Change, Finding, Fix
from planner.checks.registry import check
from planner.fmt import names
from planner.placement.explain import shortfall
from planner.placement.from_build import problem_of
from planner.placement.layout import Layout, layout_of, need_of
from planner.placement.mounts import GpuMount

ESTIMATED = "slot positions of this board are estimated; check its manual"


def estimated_note(layout: Layout) -> str:
    """What a verdict that rests on an estimated slot layout must say."""
    return f" ({ESTIMATED})" if layout.estimated else ""


def span(positions: Iterable[int]) -> str:
    positions = sorted(positions)
    if len(positions) == 1:
        return f"position {positions[0]}"
    return f"positions {positions[0]}–{positions[-1]}"


def _gpu(ctx: Context, mount: GpuMount) -> GpuInstance:
    return ctx.build.gpus[mount.gpu]


def _placed(ctx: Context) -> list[GpuMount]:
    return [m for m in ctx.placement.mounts if m is not None]


@check("case.expansion-slots")
def expansion_slots(ctx: Context) -> list[Finding]:
    """A card's cooler runs past the case's last expansion slot."""
    layout = layout_of(ctx.build)
    if layout.case_end is None:
        return []
    case = ctx.build.case
    findings = []
    for mount in _placed(ctx):
        if not mount.positions or max(mount.positions) <= layout.case_end:
            continue
        gpu = _gpu(ctx, mount)
        past = max(mount.positions) - layout.case_end
        fixes = slot_fixes.solver_slots(ctx, {gpu.spec_index}, "case.expansion-slots") if ctx.propose_fixes else []
        if ctx.propose_fixes:
            fixes += _case_with_slots(ctx, max(mount.positions), "case.expansion-slots")
        findings.append(Finding(
            code="case.expansion-slots", severity="error",
            message=f"{gpu.label} in {mount.slot} covers {span(mount.positions)}, but the {case.name} has "
                    f"{case.expansion_slots} expansion slots: its cooler runs {past} position{'s' if past > 1 else ''}"
                    f" past the last one{estimated_note(layout)}.",
            subject=[f"GPU{gpu.index + 1}", str(mount.slot), case.id], value=max(mount.positions),
            limit=case.expansion_slots, unit="positions", fixes=fixes))
    return findings


def _case_with_slots(ctx: Context, needed: int, code: str) -> list[Fix]:
    cases = [c for c in cases_for(ctx) if c.expansion_slots >= needed or c.open_frame]
    return slot_fixes.verified(ctx, [(f"use a case with ≥ {needed} expansion slots: the {c.name} ({c.id}"
                                      f"{slot_fixes.price_text(c)}, {c.expansion_slots} slots)",
                                      [Change(path="case", value=c.id)]) for c in cases], code)


@check("slot.overlap")
def overlap(ctx: Context) -> list[Finding]:
    """A card's cooler covers a slot that another card (or a riser) uses."""
    layout = layout_of(ctx.build)
    mounts = _placed(ctx)
    findings = []
    for upper in mounts:
        for lower in mounts:
            if lower is upper or lower.slot is None:
                continue
            position = layout.slot(lower.slot).position
            if position not in upper.positions[1:]:
                continue
            a, b = _gpu(ctx, upper), _gpu(ctx, lower)
            what = "plugs its riser" if lower.positions == () else "sits"
            fixes = (slot_fixes.solver_slots(ctx, {a.spec_index, b.spec_index}, "slot.overlap")
                     if ctx.propose_fixes else [])
            findings.append(Finding(
                code="slot.overlap", severity="error",
                message=f"{a.label}'s cooler in {upper.slot} covers {span(upper.positions)}, including {lower.slot} "
                        f"(position {position}), where {b.label} {what}{estimated_note(layout)}.",
                subject=[f"GPU{a.index + 1}", f"GPU{b.index + 1}", str(upper.slot), lower.slot], fixes=fixes))
    return findings


@check("slot.placement")
def placement(ctx: Context) -> list[Finding]:
    """No mount exists for a GPU: a slot it cannot use, or no room on the board and in the case."""
    findings = [*_unusable_slots(ctx), *_unplaced(ctx)]
    if not findings:
        findings.extend(_estimated_layout(ctx))
    return findings


def _unusable_slots(ctx: Context) -> list[Finding]:
    layout = layout_of(ctx.build)
    findings = []
    for gpu in ctx.build.gpus:
        mount = ctx.placement.of(gpu.index)
        if mount is None or not gpu.slot:
            continue
        site, need = layout.slot(gpu.slot), need_of(gpu)
        if site.size >= need.plug_size:
            continue
        what = f"its riser's x{need.plug_size} plug needs" if need.on_mount else "a GPU needs"
        findings.append(Finding(
            code="slot.placement", severity="error",
            message=f"{gpu.label} cannot go in {site.name}: it is an x{site.size} slot and {what} an "
                    f"x{need.plug_size} slot.",
            subject=[f"GPU{gpu.index + 1}", site.name],
            fixes=slot_fixes.solver_slots(ctx, {gpu.spec_index}, "slot.placement") if ctx.propose_fixes else []))
    return findings


def _unplaced(ctx: Context) -> list[Finding]:
    if ctx.placement.feasible:
        return []
    problem = problem_of(ctx.build)
    slots = tuple(m.slot if m is not None else None for m in ctx.placement.mounts)
    info = shortfall(problem, slots)
    left = [g for g in info.unplaced if g not in info.without_mount]  # riser.mount reports the others
    if not left:
        return []
    build = ctx.build
    labels = [f"GPU{g + 1}" for g in left]
    counted = info.needed_positions > info.offered_positions
    fixes: list[Fix] = []
    if ctx.propose_fixes:
        from planner.checks.risers import riser_ok

        fixes = [*slot_fixes.thinner_cards(ctx, "slot.placement"),
                 *slot_fixes.risers_to_mounts(ctx, "slot.placement", riser_ok),
                 *slot_fixes.bigger_case(ctx, "slot.placement")]
    return [Finding(
        code="slot.placement", severity="error",
        message=f"{len(left)} of the {info.cards} GPUs {'gets' if len(left) == 1 else 'get'} no slot "
                f"({names(labels)}): {info.slot_sentence}"
                f"{estimated_note(problem.layout)}.",
        subject=[*(f"GPU{g + 1}" for g in left), build.motherboard.id, build.case.id],
        value=info.needed_positions if counted else info.placed, limit=info.offered_positions if counted else None,
        unit="positions" if counted else "GPUs", fixes=fixes)]


def _estimated_layout(ctx: Context) -> list[Finding]:
    layout = layout_of(ctx.build)
    on_board = [m for m in _placed(ctx) if m.positions]
    if not layout.estimated or len(on_board) < 2:
        return []
    board = ctx.build.motherboard
    slots = names(str(m.slot) for m in on_board)
    positions = names(str(layout.slot(str(m.slot)).position) for m in on_board)
    return [Finding(
        code="slot.placement", severity="info",
        message=f"The slot positions of the {board.name} are estimated, not read off its manual: check that "
                f"{slots} sit at positions {positions} before relying on this placement.",
        subject=[board.id])]
