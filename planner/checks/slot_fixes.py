"""Fixes for cards that do not fit (README: Placement): thinner cards, risers to vertical mounts, a case with more
slots, or letting the solver choose the slots. Each candidate is first tried on the placement problem
alone (microseconds), and only one that places every GPU is re-checked as a whole build (`ctx.fix`), so a
suggestion is offered only when it verifies."""

from __future__ import annotations

import copy
import json
import math
from collections.abc import Callable, Iterator
from typing import Any

from planner.build.resolve import GpuInstance
from planner.checks.case_fit import cases_for, takes_board
from planner.checks.engine.context import Context
from planner.checks.engine.findings import Change, Fix
from planner.models.parts import Case, Cpu, GpuBoard, GpuChip, Motherboard, Riser
from planner.placement.from_build import problem_of
from planner.placement.layout import CARD_SLOT_SIZE, OPEN_AIR_COOLERS, CardNeed, Layout
from planner.placement.solver import Problem, solve_within
from planner.util.errors import CatalogError, UnknownPartError
from planner.util.fmt import price_text

MAX_FIXES = 2  # suggestions of each sort
MAX_TRIES = 8  # candidates re-checked as whole builds, at most, for each sort


def _fits(ctx: Context, problem: Problem) -> bool:
    """Does every GPU get a mount? The searches of one run's fixes share one allowance of states
    (planner/placement/solver.py): past it a candidate counts as not fitting, and is not offered."""
    solution = solve_within(problem, ctx.placement_allowance)
    return solution is not None and solution.placed == len(problem.needs)


def slots_enough(problem: Problem) -> bool:
    """Every GPU needs a full-length slot of its own, for its card or its riser's plug: with fewer slots than
    GPUs, no card, riser or case fixes it (only another board)."""
    full = sum(1 for s in problem.layout.slots if s.size >= CARD_SLOT_SIZE)
    return len(problem.needs) <= full


def _by_price(part: Any) -> tuple[bool, float, str]:
    return (part.price is None, part.price or 0.0, part.id)


def spec_cards(ctx: Context, spec: int) -> list[GpuInstance]:
    return [g for g in ctx.build.gpus if g.spec_index == spec]


def verified(ctx: Context, tries: list[tuple[str, list[Change]]], code: str) -> list[Fix]:
    return ctx.first_verified(tries, code, wanted=MAX_FIXES, most=MAX_TRIES)


# -- thinner cards ---------------------------------------------------------------------------------------
def thinner_cards(ctx: Context, code: str) -> list[Fix]:
    """Swap one [[gpu]] table's cards for thinner ones (the same chip first, blowers first, then by price).
    Candidates are tried lazily, best first, so a cold `planner check` stops after the first few."""
    problem = problem_of(ctx.build)
    if not slots_enough(problem):
        return []
    boards: list[GpuBoard] | None = None  # read from the catalog only when some thinner card could help
    fixes: list[Fix] = []
    for spec in sorted({g.spec_index for g in ctx.build.gpus if not (g.riser and g.riser.kind == "cable")}):
        cards = spec_cards(ctx, spec)
        current, chip = cards[0].board, cards[0].chip
        slimmest = tuple(n._replace(width=1) if ctx.build.gpus[n.gpu].spec_index == spec else n for n in problem.needs)
        if not _fits(ctx, problem._replace(needs=slimmest)):
            continue  # not even 1-slot cards would all fit
        if boards is None:
            boards = [b for b in ctx.catalog.all("gpu", curated=True) if isinstance(b, GpuBoard)]
        tried = 0
        for board in _thinner_boards(ctx, boards, current, chip):
            needs = tuple(_swapped(n, board) if ctx.build.gpus[n.gpu].spec_index == spec else n
                          for n in problem.needs)
            if not _fits(ctx, problem._replace(needs=needs)):
                continue
            slots = math.ceil(board.slot_width)
            fix = ctx.fix(f"use {slots}-slot cards: the {board.name} ({board.id}{price_text(board)}, {slots}-slot "
                          f"{board.cooler}) instead of the {len(cards)} × {current.name}"
                          f"{chip_cost(ctx, chip, board)}", [Change(path=f"gpu[{spec}].part", value=board.id)], code)
            tried += 1
            if fix is not None:
                fixes.append(fix)
            if len(fixes) == MAX_FIXES or tried == MAX_TRIES:
                break
        if len(fixes) == MAX_FIXES:
            break
    return fixes


def _thinner_boards(ctx: Context, boards: list[GpuBoard], current: GpuBoard, chip: GpuChip) -> Iterator[GpuBoard]:
    """Catalog boards thinner than `current` with at least its memory, best first; a board's chip is only
    looked up when it differs from the current one (most good answers share it)."""
    width = math.ceil(current.slot_width)
    case = ctx.build.case
    thinner = [b for b in boards if math.ceil(b.slot_width) < width and b.length <= case.max_gpu_length
               and (b.cooler != "passive" or case.server_airflow)]
    thinner.sort(key=lambda b: (b.chip != current.chip, b.cooler != "blower", *_by_price(b)))
    for board in thinner:
        if board.chip != current.chip:
            try:
                other = ctx.catalog.typed("gpu-chip", board.chip, GpuChip)
            except (CatalogError, UnknownPartError):  # an unreadable chip entry: not a candidate
                continue
            if not other.workstation_installable or other.memory < chip.memory:
                continue
        yield board


def chip_cost(ctx: Context, chip: GpuChip, board: GpuBoard) -> str:
    """What a card of another chip costs in speed and memory, by the figure the build's workload is bound by
    (memory bandwidth for memory-bound work such as LLM decode, the fp16 tensor rate for compute-bound work);
    nothing for a card of the same chip."""
    if board.chip == chip.id:
        return ""
    try:
        other = ctx.catalog.typed("gpu-chip", board.chip, GpuChip)
    except (CatalogError, UnknownPartError):
        return f"; another chip ({board.chip}): speed and memory unknown"
    from planner.physics.slowdown import workload_kind

    if workload_kind(ctx.build.workload) == "memory-bound" or not (chip.tensor_fp16 and other.tensor_fp16):
        ratio, basis = other.memory_bandwidth / chip.memory_bandwidth, (
            f"{other.memory_bandwidth:g} vs {chip.memory_bandwidth:g} GB/s of memory bandwidth")
    else:
        assert chip.tensor_fp16 and other.tensor_fp16
        ratio, basis = other.tensor_fp16 / chip.tensor_fp16, (
            f"{other.tensor_fp16:g} vs {chip.tensor_fp16:g} fp16 tensor TFLOPS")
    speed = f"{(ratio - 1) * 100:+.0f} %".replace("-", "−")
    return (f"; another chip, the {other.name}: about {speed} speed for {ctx.build.workload} ({basis}), "
            f"{other.memory:g} GB of memory per card instead of {chip.memory:g} GB")


def _swapped(need: CardNeed, board: GpuBoard) -> CardNeed:
    return need._replace(width=0 if need.on_mount else math.ceil(board.slot_width), lanes=board.pcie_lanes,
                         gen=board.pcie_gen, open_air=board.cooler in OPEN_AIR_COOLERS)


# -- risers to vertical mounts ----------------------------------------------------------------------------
def risers_to_mounts(ctx: Context, code: str, riser_ok: Callable[[Riser, int], bool]) -> list[Fix]:
    """Move the fewest cards of one [[gpu]] table onto riser cables to vertical/remote mounts: in this
    case if it has the mounts, else in the cheapest catalog case that has them and takes the board."""
    build = ctx.build
    problem = problem_of(build)
    if not slots_enough(problem):
        return []
    tries: list[tuple[str, list[Change]]] = []
    with_mounts: list[Case] | None = None  # catalog cases with mounts, read once and only when needed
    for spec in sorted({g.spec_index for g in build.gpus}):
        cards = spec_cards(ctx, spec)
        if cards[0].riser is not None or any(g.slot for g in cards):
            continue
        lanes = cards[0].board.pcie_lanes
        if not _fits(ctx, Problem(problem.layout._replace(case_end=None, mounts=len(build.gpus)),
                             _on_risers(problem.needs, cards, "riser", lanes))):
            continue  # not even with every card of this table on a riser, in an endless case
        riser = _riser_for(ctx, cards[0], riser_ok)
        if riser is None:
            continue
        for moved in range(1, len(cards) + 1):
            needs = _on_risers(problem.needs, cards[-moved:], riser.id, riser.lanes)
            if _fits(ctx, Problem(problem.layout, needs)):
                case: Case | None = build.case
            elif not _fits(ctx, Problem(problem.layout._replace(case_end=None, mounts=moved), needs)):
                continue  # no case at all would hold this split
            else:
                if with_mounts is None:
                    with_mounts = [c for c in cases_for(ctx) if c.vertical_gpu_mounts]
                case = next((c for c in with_mounts if c.vertical_gpu_mounts >= moved
                             and _fits(ctx, Problem(with_case(problem.layout, c), needs))), None)
            if case is None:
                continue
            changes = [Change(path="gpu", value=_split(build.raw["gpu"], spec, moved, riser.id))]
            where = f"to vertical mounts (this case has {build.case.vertical_gpu_mounts})"
            if case is not build.case:
                changes.append(Change(path="case", value=case.id))
                where = (f"to vertical mounts in the {case.name} ({case.id}{price_text(case)}, "
                         f"{case.vertical_gpu_mounts} mounts; this case has {build.case.vertical_gpu_mounts})")
            tries.append((f"put {moved} of the {len(cards)} {cards[0].board.name} on riser cables "
                          f"({riser.name}, {riser.id}{price_text(riser)} each) {where}", changes))
            break
    return verified(ctx, tries, code)


def _riser_for(ctx: Context, gpu: GpuInstance, riser_ok: Callable[[Riser, int], bool]) -> Riser | None:
    """The cheapest catalog riser cable that carries the card's full link without a signal warning, else the
    cheapest one rated for the link's generation (a card on a marginal riser still beats a card with no mount)."""
    gen = min(gpu.board.pcie_gen, ctx.build.cpu.pcie_gen, max(s.gen for s in ctx.build.motherboard.slots))
    risers = [r for r in ctx.catalog.all("riser", curated=True) if isinstance(r, Riser) and r.kind == "cable"
              and r.lanes >= gpu.board.pcie_lanes and r.pcie_gen >= gen]
    return min(risers, key=lambda r: (not riser_ok(r, gen), *_by_price(r)), default=None)


def _on_risers(needs: tuple[CardNeed, ...], moved: list[GpuInstance], riser: str,
               lanes: int) -> tuple[CardNeed, ...]:
    indices = {g.index for g in moved}
    return tuple(n._replace(width=0, on_mount=True, riser=riser, riser_lanes=lanes, slot=None)
                 if n.gpu in indices else n for n in needs)


def _split(raw_gpus: list[dict[str, Any]], spec: int, moved: int, riser: str) -> list[dict[str, Any]]:
    """The build's [[gpu]] tables with `moved` cards of table `spec` in a new table on risers."""
    tables: list[dict[str, Any]] = []
    for i, table in enumerate(raw_gpus):
        table = copy.deepcopy(table)
        if i != spec:
            tables.append(table)
            continue
        count = int(table.get("count", 1))
        if count > moved:
            tables.append({**table, "count": count - moved})
        tables.append({**table, "count": moved, "riser": riser})
    return tables


# -- a case with more slots -------------------------------------------------------------------------------
def bigger_case(ctx: Context, code: str) -> list[Fix]:
    """The cheapest catalog cases with enough expansion slots, when more slots would place every GPU."""
    problem = problem_of(ctx.build)
    layout = problem.layout
    if layout.case_end is None or not slots_enough(problem):
        return []
    if not _fits(ctx, Problem(layout._replace(case_end=None), problem.needs)):
        return []  # not even an endless case would do: the board's slots are the limit
    needed = next((end for end in range(layout.case_end + 1, 21)
                   if _fits(ctx, Problem(layout._replace(case_end=end), problem.needs))), None)
    if needed is None:
        return []  # only an open frame would do (a cooler runs past position 20), or the search ran out
    tries = [(f"use a case with ≥ {needed} expansion slots: the {case.name} ({case.id}{price_text(case)}, "
              f"{case.expansion_slots} slots)", [Change(path="case", value=case.id)])
             for case in cases_for(ctx) if _fits(ctx, Problem(with_case(layout, case), problem.needs))]
    return verified(ctx, tries, code)


def with_case(layout: Layout, case: Case) -> Layout:
    return layout._replace(case_end=None if case.open_frame else case.expansion_slots,
                           case_slots=case.expansion_slots, mounts=case.vertical_gpu_mounts)


# -- the solver's own slots ---------------------------------------------------------------------------------
def solver_slots(ctx: Context, specs: set[int], code: str) -> list[Fix]:
    """Let the solver place the cards of the [[gpu]] tables `specs` (which name slots that clash)."""
    problem = problem_of(ctx.build)
    needs = tuple(n._replace(slot=None) if ctx.build.gpus[n.gpu].spec_index in specs else n for n in problem.needs)
    solution = solve_within(problem._replace(needs=needs), ctx.placement_allowance)
    if solution is None or solution.placed < len(needs):
        return []
    changes: list[Change] = []
    for spec in sorted(specs):
        names = [solution.slots[g.index] for g in spec_cards(ctx, spec)]
        changes.append(Change(path=f"gpu[{spec}].slot", value=names[0] if len(names) == 1 else names))
    listed = "; ".join(f"{c.path.removesuffix('.slot')}: slot = {json.dumps(c.value)}" for c in changes)
    return verified(ctx, [(f"use the slots the planner finds: {listed}", changes)], code)


# -- another board (and a CPU for its socket) ---------------------------------------------------------------
BOARD_TRIES = 6  # boards whose changed build is placed (a resolve and a placement search each)


def other_boards(ctx: Context, code: str) -> list[Fix]:
    """A board with enough CPU-wired full-length slots for every card, cheapest first: in this case when it takes
    the board and the cards fit, else in the cheapest curated case that does; with the cheapest curated CPU of
    its socket when the build's CPU does not fit it; and, when the cards are too thick for its slot spacing,
    with thinner cards of the same chip (another chip only when none is). Offered for slot failures no card,
    riser or case change alone fixes (fewer full-length slots than cards, or a card in a slot too narrow)."""
    from planner.checks.platform import same_socket, supports

    build = ctx.build
    cards = len(build.gpus)
    if not cards:
        return []
    boards = [b for b in ctx.catalog.all("motherboard", curated=True)
              if isinstance(b, Motherboard) and b.id != build.motherboard.id
              and sum(1 for s in b.slots if s.size >= 16 and s.source == "cpu" and s.lanes >= 8) >= cards]
    boards.sort(key=_by_price)
    cpus = sorted((c for c in ctx.catalog.all("cpu", curated=True) if isinstance(c, Cpu)), key=_by_price)
    cases = [build.case, *(c for c in ctx.catalog.all("case", curated=True)
                           if isinstance(c, Case) and c.id != build.case.id)]
    cases.sort(key=lambda c: (c.id != build.case.id, *_by_price(c)))
    longest = max(g.board.length for g in build.gpus)
    cards_options = _card_options(ctx)
    fixes: list[Fix] = []
    placed = 0
    for board in boards:
        cpu = build.cpu if same_socket(build.cpu.socket, board.socket) and supports(board, build.cpu) is not False \
            else next((c for c in cpus if same_socket(c.socket, board.socket) and supports(board, c) is not False
                       and c.price is not None), None)
        if cpu is None:
            continue
        found = None
        for case in cases:
            if not takes_board(case, board.form_factor) or case.max_gpu_length < longest:
                continue
            for card_changes, card_words in cards_options:
                changes = [Change(path="motherboard", value=board.id)]
                if cpu.id != build.cpu.id:
                    changes.append(Change(path="cpu", value=cpu.id))
                if case.id != build.case.id:
                    changes.append(Change(path="case", value=case.id))
                changes.extend(card_changes)
                changed = ctx.changed(changes)
                placed += 1
                if changed is not None and changed.placement.feasible and _on_cpu_lanes(changed):
                    found = (changes, case, card_words)
                    break
                if placed >= BOARD_TRIES * 4:
                    return fixes
            if found:
                break
        if found is None:
            continue
        changes, case, card_words = found
        with_cpu = f" with the {cpu.name} ({cpu.id}{price_text(cpu)})" if cpu.id != build.cpu.id else ""
        in_case = f", in the {case.name} ({case.id}{price_text(case)})" if case.id != build.case.id else ""
        plugs = " (or its riser's plug)" if any(g.riser is not None for g in build.gpus) else ""
        fix = ctx.fix(f"use the {board.name} ({board.id}{price_text(board)}){with_cpu}{in_case}{card_words}: every"
                      f" card{plugs} in a full-length slot on CPU lanes", changes, code)
        if fix is not None:
            fixes.append(fix)
            if len(fixes) == MAX_FIXES:
                break
    return fixes


def _card_options(ctx: Context) -> list[tuple[list[Change], str]]:
    """The cards as they are, then every [[gpu]] table's cards as the thinnest same-chip board of the catalog
    (a blower first) that is thinner than them, when there is one for each table."""
    options: list[tuple[list[Change], str]] = [([], "")]
    boards = [b for b in ctx.catalog.all("gpu", curated=True) if isinstance(b, GpuBoard)]
    changes, words = [], []
    for spec in sorted({g.spec_index for g in ctx.build.gpus}):
        current = spec_cards(ctx, spec)[0].board
        same = [b for b in _thinner_boards(ctx, boards, current, spec_cards(ctx, spec)[0].chip)
                if b.chip == current.chip]
        if not same:
            continue
        board = same[0]
        changes.append(Change(path=f"gpu[{spec}].part", value=board.id))
        words.append(f"the {board.name} ({board.id}{price_text(board)}, {math.ceil(board.slot_width)}-slot"
                     f" {board.cooler}) for the {len(spec_cards(ctx, spec))} × {current.name}")
    if changes:
        options.append((changes, ", and " + "; ".join(words)))
    return options


def _on_cpu_lanes(ctx: Context) -> bool:
    """Every card sits in a full-length slot wired to the CPU with 8 lanes or more."""
    slots = {s.name: s for s in ctx.build.motherboard.slots}
    for gpu in ctx.build.gpus:
        mount = ctx.placement.of(gpu.index)
        slot = slots.get(mount.slot) if mount is not None and mount.slot else None
        if slot is None or slot.source != "cpu" or slot.lanes < 8:
            return False
    return True


# -- two riser cards sharing one slot (bifurcation kits) ----------------------------------------------------
def shared_slot_kits(ctx: Context, unplaced: int) -> list[Fix]:
    """More riser plugs than full-length slots and no board in the catalog with enough: two cards can share one
    x16 slot set to x8x8 through a SlimSAS/MCIO host adapter and two x8 cable kits (a catalog riser cable of 8
    lanes). The placement model gives each plug a slot of its own, so this cannot be re-checked: advice (not
    verified), offered only when the catalog has such a kit and the board has enough x16 CPU slots to pair on."""
    build = ctx.build
    on_cables = [g for g in build.gpus if g.riser is not None and g.riser.kind == "cable"]
    hosts = [s for s in build.motherboard.slots if s.size >= CARD_SLOT_SIZE and s.lanes >= 16 and s.source == "cpu"]
    if not unplaced or len(on_cables) < 2 * unplaced or len(hosts) < unplaced:
        return []
    kits = sorted((r for r in ctx.catalog.all("riser", curated=True)
                   if isinstance(r, Riser) and r.kind == "cable" and r.lanes == 8), key=_by_price)
    if not kits:
        return []
    kit = kits[0]
    paired = on_cables[-2 * unplaced:]
    labels = ", ".join(f"GPU{g.index + 1}" for g in paired)
    slots = "one x16 slot" if unplaced == 1 else f"{unplaced} x16 slots"
    return [Fix(description=f"feed two cards from one x16 slot: set {slots} to x8x8 in the BIOS (if the "
                            f"{build.motherboard.name} offers it) and put {labels} on the {kit.name} ({kit.id}"
                            f"{price_text(kit)} each), two behind each host adapter, each card then linking at x8; "
                            "the planner cannot model two cards sharing one slot, so this is not re-checked")]
