"""Case fit: motherboard form factor, card length and card height (SPEC §3 `case.*`)."""

from __future__ import annotations

from collections.abc import Callable, Iterator

from planner.checks.context import Context
from planner.checks.findings import Change, Finding, Fix, estimated
from planner.checks.registry import check
from planner.fmt import mm, price_text
from planner.models.parts import Case, GpuBoard
from planner.physics import params

#: Board sizes of the ATX family that share mounting holes, smallest first; a case that takes a size
#: also takes every smaller one. E-ATX and EEB (12" × 13") are the same size for this purpose; CEB is
#: 12" × 10.5". XL-ATX is wider rather than longer, so it only implies ATX and smaller.
_ATX_FAMILY = {"mini-itx": 0, "micro-atx": 1, "atx": 2, "ceb": 3, "e-atx": 4, "eeb": 4, "xl-atx": 2}
#: Names that mean the same board size.
_SAME_SIZE = {"ssi-eeb": "eeb", "ssi-ceb": "ceb"}


def takes_board(case: Case, form_factor: str) -> bool:
    """Does the case mount a board of this form factor? A case listing a larger ATX-family size also
    takes the smaller ones (an EEB case takes CEB, ATX, micro-ATX and mini-ITX boards)."""
    wanted = _SAME_SIZE.get(form_factor, form_factor)
    listed = {_SAME_SIZE.get(f, f) for f in case.form_factors}
    if wanted in listed:
        return True
    if wanted == "xl-atx":
        return False
    rank = _ATX_FAMILY[wanted]
    return any(_ATX_FAMILY[f] >= rank for f in listed)


def _distinct_boards(ctx: Context) -> Iterator[tuple[GpuBoard, list[str]]]:
    seen: dict[str, tuple[GpuBoard, list[str]]] = {}
    for gpu in ctx.build.gpus:
        seen.setdefault(gpu.board.id, (gpu.board, []))[1].append(f"GPU{gpu.index + 1}")
    yield from seen.values()


def cases_for(ctx: Context) -> list[Case]:
    """Curated catalog cases, other than the build's, that take its board and its longest card (with
    spare length), cheapest first."""
    build = ctx.build
    longest = max(g.board.length for g in build.gpus)
    cases = [c for c in ctx.catalog.all("case", curated=True)
             if isinstance(c, Case) and c.id != build.case.id and takes_board(c, build.motherboard.form_factor)
             and c.max_gpu_length >= longest + params.GPU_LENGTH_SPARE.value]
    return sorted(cases, key=lambda c: (c.price is None, c.price or 0.0, c.id))


def _other_cases(ctx: Context, code: str, reason: Callable[[Case], str]) -> list[Fix]:
    """Up to two cheapest catalog cases (with at least the build's slots) that clear `code`, verified."""
    if not ctx.propose_fixes:
        return []
    tries = ((f"use the {case.name} ({case.id}{price_text(case)}): {reason(case)}",
              [Change(path="case", value=case.id)])
             for case in cases_for(ctx) if case.expansion_slots >= ctx.build.case.expansion_slots)
    return ctx.first_verified(tries, code, wanted=2, most=6)


@check("case.form-factor")
def form_factor(ctx: Context) -> list[Finding]:
    """The motherboard's form factor fits the case."""
    case, board = ctx.build.case, ctx.build.motherboard
    if takes_board(case, board.form_factor):
        return []
    return [Finding(
        code="case.form-factor", severity="error",
        message=f"The {board.name} is {board.form_factor.upper()}, but the {case.name} takes only "
                f"{', '.join(f.upper() for f in case.form_factors)} boards.",
        subject=[case.id, board.id],
        fixes=_other_cases(ctx, "case.form-factor",
                           lambda c: f"takes {board.form_factor.upper()} and {c.expansion_slots} slots"),
    )]


@check("case.gpu-length")
def gpu_length(ctx: Context) -> list[Finding]:
    """Each card's length against the case's maximum (warn below 10 mm spare)."""
    case = ctx.build.case
    spare_needed = params.GPU_LENGTH_SPARE.value
    findings = []
    for board, labels in _distinct_boards(ctx):
        spare = case.max_gpu_length - board.length
        if spare >= spare_needed:
            continue
        too_long = spare < 0
        findings.append(Finding(
            code="case.gpu-length", severity="error" if too_long else "warning",
            message=(f"The {board.name} is {mm(board.length)}{estimated(board, 'length')} long; the {case.name} "
                     f"takes cards up to {mm(case.max_gpu_length)}{estimated(case, 'max_gpu_length')}"
                     + (f" ({mm(-spare)} too long)." if too_long else
                                                    f", leaving only {mm(spare)} for power cables.")),
            subject=[*labels, board.id, case.id], value=board.length, limit=case.max_gpu_length, unit="mm",
            fixes=_other_cases(ctx, "case.gpu-length",
                               lambda c: f"takes cards up to {mm(c.max_gpu_length)}") if too_long else [],
        ))
    return findings


#: power inputs whose plug stands on a GeForce card's top edge (towards the side panel)
_TOP_PLUGS = ("12vhpwr", "12v-2x6")


def top_plug(board: GpuBoard, chip_name: str) -> bool:
    """Does the card's 12VHPWR/12V-2x6 plug sit on its top edge? Assumed for GeForce cards (their boards put it
    there); workstation and datacenter cards are not assumed either way (some have it at the end)."""
    return any(c in _TOP_PLUGS for c in board.power_connectors) and "geforce" in chip_name.lower()


def _plug_room(board: GpuBoard) -> str:
    plug = "12V-2x6" if "12v-2x6" in board.power_connectors else "12VHPWR"
    return (f"its {plug} plug is on its top edge (as on GeForce cards), so it needs the plug"
            f" (~{mm(params.HPWR_PLUG_HEIGHT.value)}, assumed) and {mm(params.HPWR_STRAIGHT_RUN.value)} of straight"
            " cable before the first bend")


@check("case.gpu-height")
def gpu_height(ctx: Context) -> list[Finding]:
    """Each card's height against the case's side-panel clearance, with room for a top-edge 12VHPWR plug and
    the straight cable run before its bend."""
    case = ctx.build.case
    if case.open_frame or not ctx.build.gpus:  # the base system, GPUs not chosen yet: no card to measure
        return []
    chips = {g.board.id: g.chip.name for g in ctx.build.gpus}
    plug_room = params.HPWR_PLUG_HEIGHT.value + params.HPWR_STRAIGHT_RUN.value
    if case.max_gpu_height is None:
        tallest = max((g.board for g in ctx.build.gpus), key=lambda b: b.height)
        plugged = [b for b, _ in _distinct_boards(ctx) if top_plug(b, chips[b.id])]
        extra = ""
        if plugged:
            need = max(plugged, key=lambda b: b.height)
            extra = (f"; the {need.name} is {mm(need.height)}{estimated(need, 'height')} tall and {_plug_room(need)}:"
                     f" check for {mm(need.height + plug_room)} between its slot's bottom edge and the side panel")
        return [Finding(
            code="case.gpu-height", severity="info",
            message=f"The {case.name} publishes no side-panel clearance for card height; the tallest card "
                    f"here is {mm(tallest.height)}{estimated(tallest, 'height')} (a full-height bracket is "
                    f"111 mm), so check it by hand{extra}.",
            subject=[case.id], value=tallest.height, unit="mm")]
    findings = []
    clearance = case.max_gpu_height
    for board, labels in _distinct_boards(ctx):
        if board.height > clearance:
            findings.append(Finding(
                code="case.gpu-height", severity="error",
                message=f"The {board.name} is {mm(board.height)}{estimated(board, 'height')} tall; the "
                        f"{case.name}'s side panel clears {mm(clearance)}"
                        f"{estimated(case, 'max_gpu_height')} ({mm(board.height - clearance)} too tall).",
                subject=[*labels, board.id, case.id], value=board.height, limit=clearance, unit="mm"))
        elif top_plug(board, chips[board.id]) and board.height + plug_room > clearance:
            findings.append(_plug_finding(ctx, board, labels, clearance))
    return findings


def _plug_finding(ctx: Context, board: GpuBoard, labels: list[str], clearance: float) -> Finding:
    """A top-edge 12VHPWR plug with too little room to the side panel. The 35 mm straight run is the published
    guidance and the heights are published: over without the (assumed) plug height is an error; over only with
    it, or on an estimated height or clearance, a warning that names the assumption."""
    case = ctx.build.case
    plug, run = params.HPWR_PLUG_HEIGHT.value, params.HPWR_STRAIGHT_RUN.value
    need = board.height + plug + run
    guessed = "height" in board.estimated or "max_gpu_height" in case.estimated
    evidence = board.height + run > clearance and not guessed
    why = ("" if evidence else
           " (an estimate: " + ("the card's height or the case's clearance is estimated" if guessed else
                                f"only the assumed {mm(plug)} plug height takes it over") + ")")
    return Finding(
        code="case.gpu-height", severity="error" if evidence else "warning",
        message=f"The {board.name} is {mm(board.height)}{estimated(board, 'height')} tall and {_plug_room(board)}:"
                f" {mm(need)} in all, but the {case.name}'s side panel clears {mm(clearance)}"
                f"{estimated(case, 'max_gpu_height')} ({mm(need - clearance)} short{why}). Bending the cable"
                " against the panel strains the plug, a cause of melted 12VHPWR connectors.",
        subject=[*labels, board.id, case.id], value=need, limit=clearance, unit="mm",
        fixes=_roomier_cases(ctx, need))


def _roomier_cases(ctx: Context, need: float) -> list[Fix]:
    """Cheapest curated cases whose published side-panel clearance takes `need`, verified."""
    if not ctx.propose_fixes:
        return []
    tries = ((f"use the {c.name} ({c.id}{price_text(c)}): its side panel clears {mm(c.max_gpu_height or 0)}",
              [Change(path="case", value=c.id)])
             for c in cases_for(ctx)
             if c.max_gpu_height is not None and c.max_gpu_height >= need and "max_gpu_height" not in c.estimated)
    return ctx.first_verified(tries, "case.gpu-height", wanted=2, most=6)
