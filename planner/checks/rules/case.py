"""The case (docs/verdicts.md `case.*`): the motherboard's form factor, each card's length and height, the cards'
coolers against the case's expansion slots, and the PSUs in their mounts.

PSUs: a case holds its PSUs in mounts (`Case.mounts()`: its `psu_mounts`, else `psu_bays` ATX mounts of
`max_psu_length`). An ATX mount also takes SFX and SFX-L units on an adapter plate; CRPS and server bays take
only their own modules. The build's PSUs are matched to the mounts (a small bipartite matching): first on
form factor alone (`case.psu-bays`), then with lengths where both are published (`case.psu`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence

from planner.checks import slot_fixes
from planner.checks.case_fit import cases_for, takes_board
from planner.checks.engine.context import MODEL_READS, Context
from planner.checks.engine.findings import Change, Finding, Fix, estimated
from planner.checks.engine.registry import check
from planner.checks.links import estimated_note, placed_mounts, span
from planner.checks.power_fixes import replacement_psus
from planner.models.parts import MOUNT_TAKES, Case, GpuBoard, GpuChip, Psu, PsuMount
from planner.physics import params
from planner.placement.layout import layout_of
from planner.util.errors import CatalogError, UnknownPartError
from planner.util.fmt import mm, names, price_text


def _distinct_boards(ctx: Context) -> Iterator[tuple[GpuBoard, list[str]]]:
    seen: dict[str, tuple[GpuBoard, list[str]]] = {}
    for gpu in ctx.build.gpus:
        seen.setdefault(gpu.board.id, (gpu.board, []))[1].append(f"GPU{gpu.index + 1}")
    yield from seen.values()


def _other_cases(ctx: Context, code: str, reason: Callable[[Case], str]) -> list[Fix]:
    """Up to two cheapest catalog cases (with at least the build's slots) that clear `code`, verified."""
    if not ctx.propose_fixes:
        return []
    tries = ((f"use the {case.name} ({case.id}{price_text(case)}): {reason(case)}",
              [Change(path="case", value=case.id)])
             for case in cases_for(ctx) if case.expansion_slots >= ctx.build.case.expansion_slots)
    return ctx.first_verified(tries, code, wanted=2, most=6)


@check("case.form-factor", reads={"motherboard", "case"}, order=10, section="Fit",
       error="the case does not list the board's form factor",
       warning="—",
       evidence="case and board spec pages")
def form_factor(ctx: Context) -> list[Finding]:
    """The motherboard's form factor fits the case."""
    case, board = ctx.build.case, ctx.build.motherboard
    if takes_board(case, board.form_factor):
        return []
    return [form_factor.finding(
        severity="error",
        message=f"The {board.name} is {board.form_factor.upper()}, but the {case.name} takes only "
                f"{', '.join(f.upper() for f in case.form_factors)} boards.",
        subject=[case.id, board.id],
        fixes=_other_cases(ctx, "case.form-factor",
                           lambda c: f"takes {board.form_factor.upper()} and {c.expansion_slots} slots"),
    )]


@check("case.gpu-length", reads={"gpus", "case"}, order=20, section="Fit",
       error="a card is longer than the case's maximum",
       warning="less than 10 mm spare (cables, fans)",
       evidence="published lengths; the 10 mm is a planner margin")
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
        findings.append(gpu_length.finding(
            severity="error" if too_long else "warning",
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


@check("case.gpu-height", reads={"gpus", "case"}, order=30, section="Fit",
       error=("a card is taller than a published side-panel clearance; for a GeForce card with a top-edge "
              "12VHPWR/12V-2x6 plug, its height + the 35 mm straight cable run exceed it"),
       warning=("only the estimated plug height (20 mm) tips it over, or a figure is estimated; info when the case"
                " publishes no clearance (says to check height + 55 mm)"),
       evidence="published heights; the 35 mm run from builders' guides (second-hand)")
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
        return [gpu_height.finding(
            severity="info",
            message=f"The {case.name} publishes no side-panel clearance for card height; the tallest card "
                    f"here is {mm(tallest.height)}{estimated(tallest, 'height')} (a full-height bracket is "
                    f"111 mm), so check it by hand{extra}.",
            subject=[case.id], value=tallest.height, unit="mm")]
    findings = []
    clearance = case.max_gpu_height
    for board, labels in _distinct_boards(ctx):
        if board.height > clearance:
            findings.append(gpu_height.finding(
                severity="error",
                message=f"The {board.name} is {mm(board.height)}{estimated(board, 'height')} tall; the "
                        f"{case.name}'s side panel clears {mm(clearance)}"
                        f"{estimated(case, 'max_gpu_height')} ({mm(board.height - clearance)} too tall).",
                subject=[*labels, board.id, case.id], value=board.height, limit=clearance, unit="mm",
                fixes=_lower_cards(ctx, board, clearance) + _roomier_cases(ctx, board.height)))
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
    guessed = ("height" in board.estimated or "max_gpu_height" in case.estimated) \
        and not ctx.settings.estimates_as_sourced
    evidence = board.height + run > clearance and not guessed
    why = ("" if evidence else
           " (an estimate: " + ("the card's height or the case's clearance is estimated" if guessed else
                                f"only the assumed {mm(plug)} plug height takes it over") + ")")
    return gpu_height.finding(
        severity="error" if evidence else "warning",
        message=f"The {board.name} is {mm(board.height)}{estimated(board, 'height')} tall and {_plug_room(board)}:"
                f" {mm(need)} in all, but the {case.name}'s side panel clears {mm(clearance)}"
                f"{estimated(case, 'max_gpu_height')} ({mm(need - clearance)} short{why}). Bending the cable"
                " against the panel strains the plug, a cause of melted 12VHPWR connectors.",
        subject=[*labels, board.id, case.id], value=need, limit=clearance, unit="mm",
        fixes=_roomier_cases(ctx, need))


def _lower_cards(ctx: Context, board: GpuBoard, clearance: float) -> list[Fix]:
    """Catalog cards lower than the side panel's clearance (with room for a top-edge plug) for every [[gpu]] table
    of this card, verified: the same chip first (cheapest first), another chip of at least its memory only when
    none is, with its cost in speed and memory."""
    if not ctx.propose_fixes:
        return []
    case = ctx.build.case
    plug_room = params.HPWR_PLUG_HEIGHT.value + params.HPWR_STRAIGHT_RUN.value
    chip = next(g.chip for g in ctx.build.gpus if g.board.id == board.id)
    specs = sorted({g.spec_index for g in ctx.build.gpus if g.board.id == board.id})

    def chip_of(other: GpuBoard) -> GpuChip | None:
        if other.chip == chip.id:
            return chip
        try:
            found = ctx.catalog.typed("gpu-chip", other.chip, GpuChip)
        except (CatalogError, UnknownPartError):  # an unreadable chip entry: not a candidate
            return None
        return found if found.workstation_installable and found.memory >= chip.memory else None

    lower: list[tuple[GpuBoard, GpuChip]] = []
    for other in ctx.catalog.all("gpu", curated=True):
        if not isinstance(other, GpuBoard) or other.id == board.id or "height" in other.estimated \
                or other.height > clearance or other.length > case.max_gpu_length \
                or (other.cooler == "passive" and not case.server_airflow):
            continue
        if (other_chip := chip_of(other)) is None:
            continue
        if top_plug(other, other_chip.name) and other.height + plug_room > clearance:
            continue
        lower.append((other, other_chip))
    if any(other_chip is chip for _, other_chip in lower):
        lower = [(b, c) for b, c in lower if c is chip]  # a chip-changing card only when no same-chip one is
    lower.sort(key=lambda bc: (bc[0].price is None, bc[0].price or 0.0, bc[0].id))
    tries = ((f"use a lower card: the {b.name} ({b.id}{price_text(b)}, {mm(b.height)} tall) instead of the "
              f"{board.name}{slot_fixes.chip_cost(ctx, chip, b)}",
              [Change(path=f"gpu[{spec}].part", value=b.id) for spec in specs]) for b, _ in lower)
    return ctx.first_verified(tries, "case.gpu-height", wanted=2, most=4)


def _roomier_cases(ctx: Context, need: float) -> list[Fix]:
    """Cheapest curated cases whose published side-panel clearance takes `need`, verified."""
    if not ctx.propose_fixes:
        return []
    tries = ((f"use the {c.name} ({c.id}{price_text(c)}): its side panel clears {mm(c.max_gpu_height or 0)}",
              [Change(path="case", value=c.id)])
             for c in cases_for(ctx)
             if c.max_gpu_height is not None and c.max_gpu_height >= need and "max_gpu_height" not in c.estimated)
    return ctx.first_verified(tries, "case.gpu-height", wanted=2, most=6)


@check("case.expansion-slots", reads=MODEL_READS["placement"], order=80, section="Fit",
       error="a cooler runs past the case's last expansion slot",
       warning="—",
       evidence="slot counts, card widths")
def expansion_slots(ctx: Context) -> list[Finding]:
    """A card's cooler runs past the case's last expansion slot."""
    layout = layout_of(ctx.build)
    if layout.case_end is None:
        return []
    case = ctx.build.case
    findings = []
    for mount in placed_mounts(ctx):
        if not mount.positions or max(mount.positions) <= layout.case_end:
            continue
        gpu = ctx.build.gpus[mount.gpu]
        past = max(mount.positions) - layout.case_end
        fixes = slot_fixes.solver_slots(ctx, {gpu.spec_index}, "case.expansion-slots") if ctx.propose_fixes else []
        if ctx.propose_fixes:
            fixes += _case_with_slots(ctx, max(mount.positions), "case.expansion-slots")
        findings.append(expansion_slots.finding(
            severity="error",
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


#: what a case's `estimated` names when its PSU mounts are a guess (imported cases: psu_bays)
_MOUNTS_ESTIMATED = ("psu_bays", "psu_mounts")


def _fits(psu: Psu, mount: PsuMount, lengths: bool) -> bool:
    if psu.form_factor not in MOUNT_TAKES[mount.form_factor]:
        return False
    return not (lengths and psu.length is not None and mount.max_length is not None and psu.length > mount.max_length)


def assign(psus: Sequence[Psu], mounts: Sequence[PsuMount], *, lengths: bool) -> list[int] | None:
    """A mount for each PSU (indices into `mounts`), or None when no assignment exists; `lengths`: a PSU must
    also be no longer than its mount where both lengths are known. Augmenting paths (Kuhn's algorithm)."""
    owner: dict[int, int] = {}  # mount -> psu

    def place(p: int, seen: set[int]) -> bool:
        for m, mount in enumerate(mounts):
            if m in seen or not _fits(psus[p], mount, lengths):
                continue
            seen.add(m)
            if m not in owner or place(owner[m], seen):
                owner[m] = p
                return True
        return False

    if len(psus) > len(mounts) or not all(place(p, set()) for p in range(len(psus))):
        return None
    by_psu = {p: m for m, p in owner.items()}
    return [by_psu[p] for p in range(len(psus))]


def takes_psus(case: Case, psus: Sequence[Psu]) -> bool:
    """Does the case hold all these PSUs (form factors and, where known, lengths)?"""
    return assign(psus, case.mounts(), lengths=True) is not None


def _describe_mounts(case: Case) -> str:
    mounts = case.mounts()
    if not mounts:
        return "no PSU mount"
    kinds: dict[str, int] = {}
    for mount in mounts:
        kinds[mount.form_factor.upper()] = kinds.get(mount.form_factor.upper(), 0) + 1
    return " and ".join(f"{n} {kind} mount{'s' if n > 1 else ''}" for kind, n in kinds.items())


def _psu_label(ctx: Context, index: int) -> str:
    part = ctx.build.psus[index].part
    return f"PSU {index + 1} ({part.name})" if len(ctx.build.psus) > 1 else f"the {part.name}"


def _psu_cases(ctx: Context, code: str) -> list[Fix]:
    """Up to two cheapest curated cases that take the board, the longest card and the build's PSUs, verified (the
    re-check also confirms every card still has a slot)."""
    if not ctx.propose_fixes:
        return []
    psus = [p.part for p in ctx.build.psus]
    tries = ((f"use the {case.name} ({case.id}{price_text(case)}): it holds {_describe_mounts(case)}",
              [Change(path="case", value=case.id)])
             for case in cases_for(ctx)
             if takes_psus(case, psus) and not set(_MOUNTS_ESTIMATED) & set(case.estimated))
    return ctx.first_verified(tries, code, wanted=2, most=6)


@check("case.psu-bays", reads={"case", "psus"}, order=40, section="Fit",
       error=("more PSUs than the case has mounts, or a form factor no free mount takes, on published mounts"),
       warning=("the same on estimated mounts (every imported case); info: a mount needs an accessory (bracket)"),
       evidence="case spec pages")
def psu_bays(ctx: Context) -> list[Finding]:
    """The number and form factor of the PSUs against the case's PSU mounts."""
    build = ctx.build
    case, psus = build.case, [p.part for p in build.psus]
    mounts = case.mounts()
    placed = assign(psus, mounts, lengths=False)
    if placed is not None:
        return _needs(ctx, assign(psus, mounts, lengths=True) or placed)
    guessed = bool(set(_MOUNTS_ESTIMATED) & set(case.estimated)) and not ctx.settings.estimates_as_sourced
    caveat = (" The catalog only estimates this case's PSU mounts (check its manual): a warning, not an error."
              if guessed else "")
    if len(psus) > len(mounts):
        problem = (f"The build has {len(psus)} PSUs; the {case.name} holds {len(mounts)} "
                   f"({_describe_mounts(case)}).")
        value, limit = float(len(psus)), float(len(mounts))
    else:
        kinds = ", ".join(sorted({p.form_factor.upper() for p in psus}))
        problem = (f"The build's PSUs are {kinds}; the {case.name} has {_describe_mounts(case)}, and not every PSU"
                   " has a mount its form factor fits (an ATX mount takes SFX units on an adapter plate, not the"
                   " reverse; CRPS and server bays take only their own modules).")
        value, limit = None, None
    return [psu_bays.finding(
        severity="warning" if guessed else "error", message=problem + caveat,
        subject=[case.id, *dict.fromkeys(p.part.id for p in build.psus)], value=value, limit=limit,
        unit="PSUs" if value is not None else None,
        fixes=_fewer_psus(ctx, len(mounts)) + _psu_cases(ctx, "case.psu-bays"))]


def _fewer_psus(ctx: Context, mounts: int) -> list[Fix]:
    """Keep the first PSUs, as many as the case has mounts (verified: the rest must carry the load)."""
    raw = ctx.build.raw.get("psu", [])
    if not ctx.propose_fixes or not 0 < mounts < len(raw):
        return []
    extra = [str(i + 1) for i in range(mounts, len(raw))]
    dropped = f"PSU {extra[0]}" if len(extra) == 1 else f"PSUs {names(extra)}"
    fix = ctx.fix(f"drop {dropped} and let the {'PSU' if mounts == 1 else f'{mounts} PSUs'} the case holds carry"
                  " the build", [Change("psu", [dict(p) for p in raw[:mounts]])], "case.psu-bays")
    return [fix] if fix else []


def _needs(ctx: Context, placed: list[int]) -> list[Finding]:
    """Info: a mount the build uses that needs something not in the box (a second-PSU bracket)."""
    mounts = ctx.build.case.mounts()
    return [psu_bays.finding(
        severity="info",
        message=f"{_psu_label(ctx, p)[0].upper()}{_psu_label(ctx, p)[1:]} goes in the {ctx.build.case.name}'s"
                f" mount {m + 1}, which needs {mounts[m].needs}.",
        subject=[ctx.build.case.id, ctx.build.psus[p].part.id])
        for p, m in enumerate(placed) if mounts[m].needs]


@check("case.psu", reads={"case", "psus"}, order=50, section="Fit",
       error="a PSU longer than the longest mount, both lengths published",
       warning="the same when a length is estimated; nothing when unknown",
       evidence="case and PSU spec pages")
def psu_length(ctx: Context) -> list[Finding]:
    """Each PSU's length against its mount's, where both are published."""
    build = ctx.build
    case, psus = build.case, [p.part for p in build.psus]
    mounts = case.mounts()
    if assign(psus, mounts, lengths=False) is None or assign(psus, mounts, lengths=True) is not None:
        return []  # no mounts to measure against (case.psu-bays says so), or every PSU fits
    longest_mount = max((m.max_length for m in mounts if m.max_length is not None), default=None)
    if longest_mount is None:
        return []
    findings = []
    for index, psu in enumerate(psus):
        if psu.length is None or psu.length <= longest_mount:
            continue
        guessed = ("length" in psu.estimated or bool({"max_psu_length", *_MOUNTS_ESTIMATED} & set(case.estimated))) \
            and not ctx.settings.estimates_as_sourced
        label = _psu_label(ctx, index)
        findings.append(psu_length.finding(
            severity="warning" if guessed else "error",
            message=f"{label[0].upper()}{label[1:]} is {mm(psu.length)} long; the {case.name} takes PSUs up to"
                    f" {mm(longest_mount)} ({mm(psu.length - longest_mount)} too long)"
                    + (": one of these lengths is an estimate, so measure before buying." if guessed else "."),
            subject=[case.id, psu.id], value=psu.length, limit=longest_mount, unit="mm",
            fixes=_shorter_psus(ctx, index, longest_mount)
            + _psu_cases(ctx, "case.psu")))
    if not findings:  # each PSU fits some mount, but not all of them at once
        sizes = ", ".join(mm(m.max_length) if m.max_length else "unknown length" for m in mounts)
        lengths = ", ".join(mm(p.length) if p.length else "length unknown" for p in psus)
        findings.append(psu_length.finding(
            severity="error",
            message=f"The {case.name}'s PSU mounts ({sizes}) cannot take these {len(psus)} PSUs ({lengths}) at once.",
            subject=[case.id, *dict.fromkeys(p.id for p in psus)],
            fixes=_psu_cases(ctx, "case.psu")))
    return findings


def _shorter_psus(ctx: Context, index: int, limit: float) -> list[Fix]:
    """Curated PSUs that fit the mount and carry this one's load within the target."""
    needed = ctx.power_split.psus[index].load / ctx.settings.psu_target

    def accept(psu: Psu, rating: float) -> bool:
        return psu.length is not None and psu.length <= limit and rating >= needed and "length" not in psu.estimated

    return replacement_psus(ctx, index, accept, "case.psu",
                            lambda psu, rating: f"{mm(psu.length or 0)} long, {rating:,.0f} W", wanted=1, tries=3)
