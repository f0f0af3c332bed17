"""The cards in the board's slots (docs/verdicts.md `slot.*`; the placement itself is planner/placement/): coolers that
cover another card's slot, cards with no mount, and the lanes each card's link gets.

The solver never overlaps cards, so `slot.overlap` catches the slots a build file names itself; `slot.placement`
says which GPUs get no mount at all, with the counts, and offers fixes that were re-checked.

Lanes: each cause is reported once: a slot wired narrower than the card, or a riser that carries fewer lanes, is
`slot.lanes`; a slot that a lane-sharing rule narrows or switches off because another slot is used is
`slot.sharing` (what the CPU gives the slots is `pcie.cpu-lanes`, pcie.py). The expected cost of a narrower link
is stated as bandwidth plus what it means for deep learning: Dettmers finds that lanes barely matter for 2–4 GPU
builds (x8 is fine), Puget Systems measured little difference between x16 and x8 on 4 GPUs in TensorFlow training;
it matters more where GPUs swap gradients over PCIe without NVLink and when weights are loaded.
"""

from __future__ import annotations

from collections import defaultdict

from planner.build.resolve import GpuInstance
from planner.checks import slot_fixes
from planner.checks.engine.context import MODEL_READS, Context
from planner.checks.engine.findings import Finding, Fix, Severity
from planner.checks.engine.registry import check
from planner.checks.links import USABLE_LANES, cost, estimated_note, fine_link, linked_mounts, placed_mounts, span
from planner.checks.rules.riser import riser_ok
from planner.placement.explain import shortfall
from planner.placement.from_build import problem_of
from planner.placement.layout import layout_of, need_of, slot_lanes
from planner.placement.mounts import GpuMount
from planner.util.fmt import names

#: Where the cards sit; the checks that state a link's speed read the CPU too (its PCIe generation).
_PLACED = MODEL_READS["placement"]


def _gpu(ctx: Context, mount: GpuMount) -> GpuInstance:
    return ctx.build.gpus[mount.gpu]


@check("slot.overlap", reads=_PLACED, order=90, section="Fit",
       error="a card's cooler covers a slot another card uses",
       warning="—",
       evidence="slot positions, card widths (the finding says when a board's positions are estimated)")
def overlap(ctx: Context) -> list[Finding]:
    """A card's cooler covers a slot that another card (or a riser) uses."""
    layout = layout_of(ctx.build)
    mounts = placed_mounts(ctx)
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
            findings.append(overlap.finding(
                severity="error",
                message=f"{a.label}'s cooler in {upper.slot} covers {span(upper.positions)}, including {lower.slot} "
                        f"(position {position}), where {b.label} {what}{estimated_note(layout)}.",
                subject=[f"GPU{a.index + 1}", f"GPU{b.index + 1}", str(upper.slot), lower.slot], fixes=fixes))
    return findings


@check("slot.placement", reads=_PLACED, order=100, section="Fit",
       error="no mount exists for a GPU (counts of positions needed and offered)",
       warning="—",
       evidence=("the exact placement solver over the board's slots and the case's mounts (a search past 20,000 "
                 "states stops with exit 2 and asks for the slots to be named: never a guessed placement); among "
                 "placements that fit it serves the worst-placed card first, CPU lanes above chipset lanes (x8/x8 "
                 "on the CPU beats x16 plus a chipset x4)"))
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
        findings.append(placement.finding(
            severity="error",
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
        fixes = [*slot_fixes.thinner_cards(ctx, "slot.placement"),
                 *slot_fixes.risers_to_mounts(ctx, "slot.placement", riser_ok),
                 *slot_fixes.bigger_case(ctx, "slot.placement")]
        if not fixes:  # the board's slots are the limit: another board (with a CPU for it)
            fixes = slot_fixes.other_boards(ctx, "slot.placement")
        if not fixes and info.riser_cards:  # riser plugs short of slots, and no board has them: pair the plugs
            plugs = min(info.riser_cards, info.mounts)
            fixes = slot_fixes.shared_slot_kits(ctx, plugs + info.cards - info.riser_cards - info.full_slots)
    return [placement.finding(
        severity="error",
        message=f"{len(left)} of the {info.cards} GPUs {'gets' if len(left) == 1 else 'get'} no slot "
                f"({names(labels)}): {info.slot_sentence}"
                f"{estimated_note(problem.layout)}.",
        subject=[*(f"GPU{g + 1}" for g in left), build.motherboard.id, build.case.id],
        value=info.needed_positions if counted else info.placed, limit=info.offered_positions if counted else None,
        unit="positions" if counted else "GPUs", fixes=fixes)]


def _estimated_layout(ctx: Context) -> list[Finding]:
    layout = layout_of(ctx.build)
    on_board = [m for m in placed_mounts(ctx) if m.positions]
    if not layout.estimated or len(on_board) < 2:
        return []
    board = ctx.build.motherboard
    slots = names(str(m.slot) for m in on_board)
    positions = names(str(layout.slot(str(m.slot)).position) for m in on_board)
    return [placement.finding(
        severity="info",
        message=f"The slot positions of the {board.name} are estimated, not read off its manual: check that "
                f"{slots} sit at positions {positions} before relying on this placement.",
        subject=[board.id])]


_SEVERITY: dict[str, Severity] = {"error": "error", "warning": "warning", "info": "info"}


@check("slot.lanes", reads=_PLACED | {"cpu"}, order=110, section="Fit",
       error="a card gets fewer than x4 electrical lanes",
       warning=("x4, or x8 below PCIe 4.0, with what that costs in GB/s; info (not a warning): at least half the "
                "card's lanes at PCIe 4.0 or newer (x8 of x16 = 15.8 GB/s each way, what a PCIe 3.0 x16 slot gave:"
                " how builders run two to four cards; Dettmers: \"x8 is fine for 2–4 GPUs\", Puget's PCIe 4.0 x8 vs "
                "x16 tests)"),
       evidence="board manuals' lane tables")
def lanes(ctx: Context) -> list[Finding]:
    """A GPU runs at fewer lanes than it has (error below x4; warning at x8 or x4 with the expected cost)."""
    build = ctx.build
    layout = layout_of(build)
    groups: dict[tuple[str, int, int, int], list[tuple[str, str]]] = defaultdict(list)
    for mount in linked_mounts(ctx):
        gpu = build.gpus[mount.gpu]
        need, site = need_of(gpu), layout.slot(str(mount.slot))
        actual = int(mount.lanes or 0)
        wired = min(site.lanes, need.link_cap)
        if actual >= need.lanes or actual == 0:
            continue  # full width, or switched off (slot.sharing)
        if wired >= need.lanes and actual >= USABLE_LANES:
            continue  # only a sharing rule narrows it: slot.sharing says so
        if need.riser_lanes and need.riser_lanes < min(site.lanes, need.lanes):
            cause = f"its riser carries x{need.riser_lanes}"
        elif site.source == "chipset":
            cause = f"{site.name} is a chipset slot wired x{site.lanes}"
        else:
            cause = f"{site.name} is wired x{site.lanes}" if site.lanes < need.lanes else \
                f"{site.name} is shared down to x{actual}"
        gen = int(mount.gen or site.gen)
        severity = "error" if actual < USABLE_LANES else "info" if fine_link(actual, need.lanes, gen) else "warning"
        groups[(severity, actual, need.lanes, gen)].append((f"GPU{gpu.index + 1}", cause))
    findings = []
    for (severity, actual, full, gen), members in groups.items():
        labels = [label for label, _ in members]
        causes = sorted({cause for _, cause in members})
        one = len(labels) == 1
        # a slot too narrow for a GPU: another board that has the slots (the placement already chose the widest)
        fixes = slot_fixes.other_boards(ctx, "slot.lanes") if severity == "error" and ctx.propose_fixes else []
        findings.append(lanes.finding(
            severity=_SEVERITY[severity],
            message=f"{names(labels)} run{'s' if one else ''} at x{actual} of {'its' if one else 'their'} "
                    f"x{full} lanes ({'; '.join(causes)}): {cost(actual, full, gen)}{estimated_note(layout)}.",
            subject=labels, value=actual, limit=full, unit="lanes", fixes=fixes))
    return findings


@check("slot.sharing", reads=_PLACED | {"cpu"}, order=120, section="Fit",
       error="a lane-sharing rule switches off a used slot",
       warning=("a rule narrows one (info when the narrowed link keeps half the card's lanes at PCIe 4.0 or newer,"
                " as `slot.lanes`)"),
       evidence="board manuals")
def sharing(ctx: Context) -> list[Finding]:
    """A lane-sharing rule narrows (warning) or switches off (error) a slot a GPU uses."""
    build = ctx.build
    layout = layout_of(build)
    mounts = linked_mounts(ctx)
    used = {str(m.slot) for m in mounts}
    slot_names = {s.name for s in layout.slots}
    by_slot = {str(m.slot): m for m in mounts}
    findings = []
    for mount in mounts:
        site = layout.slot(str(mount.slot))
        gpu = build.gpus[mount.gpu]
        actual = slot_lanes(site, used)
        label = f"GPU{gpu.index + 1}"
        if actual < site.lanes:
            triggers = [r.when_used for r in site.shares if r.when_used in used and r.lanes < site.lanes]
            others = [build.gpus[by_slot[t].gpu] for t in triggers]
            by = names(f"{t} (GPU{other.index + 1})" for t, other in zip(triggers, others, strict=True))
            specs = {gpu.spec_index, *(other.spec_index for other in others)}
            explicit = gpu.slot or any(other.slot for other in others)  # the solver's own choice is already best
            fixes = slot_fixes.solver_slots(ctx, specs, "slot.sharing") if ctx.propose_fixes and explicit else []
            if actual == 0:
                findings.append(sharing.finding(
                    severity="error",
                    message=f"{site.name} is switched off when {by} is used, so {label} gets no lanes"
                            f"{estimated_note(layout)}.",
                    subject=[label, site.name, *triggers], value=0, limit=site.lanes, unit="lanes", fixes=fixes))
            else:
                link = min(actual, need_of(gpu).link_cap)
                full = min(site.lanes, gpu.board.pcie_lanes)
                gen = int(mount.gen or site.gen)
                findings.append(sharing.finding(
                    severity="info" if fine_link(link, full, gen) else "warning",
                    message=f"{site.name} drops from x{site.lanes} to x{actual} because {by} is used, so {label} "
                            f"runs at x{link}: {cost(link, full, gen)}"
                            f"{estimated_note(layout)}.",
                    subject=[label, site.name, *triggers], value=link, limit=site.lanes, unit="lanes", fixes=fixes))
        for rule in site.shares:
            if rule.when_used not in slot_names and rule.lanes < actual:
                findings.append(sharing.finding(
                    severity="info",
                    message=f"{site.name} ({label}) drops to x{rule.lanes} if {rule.when_used} is used; the build file "
                            f"cannot say whether it is: leave {rule.when_used} empty to keep x{actual}.",
                    subject=[label, site.name, rule.when_used], value=rule.lanes, limit=actual, unit="lanes"))
    return findings
