"""Why no placement exists, in counts a builder can check by hand (README: Placement):
"4 cards × 3 slots need 12 positions; this board and case offer 9"."""


from typing import NamedTuple

from planner.placement.layout import CARD_SLOT_SIZE, CardNeed, Layout
from planner.placement.solver import Problem


class Shortfall(NamedTuple):
    """The counts behind a placement that leaves GPUs out."""

    cards: int  # GPUs in the build
    placed: int  # GPUs the best placement mounts
    unplaced: tuple[int, ...]  # GPU indices left without a mount
    without_mount: tuple[int, ...]  # of those, riser-cable cards beyond the case's mounts
    riser_cards: int  # GPUs on riser cables
    mounts: int  # the case's vertical/remote mounts
    needed_positions: int  # positions the coolers and riser plugs need, side by side
    offered_positions: int  # positions from the first full-length slot to the last a cooler may reach
    full_slots: int  # full-length (x16) slots on the board
    slot_sentence: str  # why the cards that need a slot do not all get one
    mount_sentence: str | None  # why riser cards lack mounts (None: the mounts suffice)


def offered_positions(layout: Layout, widest: int) -> int:
    """Positions from the first full-length slot down to the last one a cooler may cover."""
    full = [s.position for s in layout.slots if s.size >= CARD_SLOT_SIZE]
    if not full:
        return 0
    reach = full[-1] + max(widest, 1) - 1
    if layout.case_end is not None:
        reach = min(reach, layout.case_end)
    return max(0, reach - full[0] + 1)


def _plural(count: int, word: str) -> str:
    return f"{count} {word}{'' if count == 1 else 's'}"


def _positions_phrase(row: list[CardNeed], plugs: int) -> tuple[int, str]:
    widths = [n.width for n in row]
    needed = sum(widths) + plugs
    if not widths:
        text = _plural(plugs, "riser plug")
    elif len(set(widths)) == 1:
        text = f"{_plural(len(widths), 'card')} × {widths[0]} slots"
    else:
        text = f"{len(widths)} cards ({' + '.join(str(w) for w in widths)} slots)"
    if widths and plugs:
        text += f" and {_plural(plugs, 'riser plug')}"
    return needed, f"{text} need{'s' if len(widths) + plugs == 1 else ''} {needed} positions"


def shortfall(problem: Problem, slots: tuple[str | None, ...]) -> Shortfall:
    """The counts that explain why the best placement (`slots`, per GPU) leaves GPUs out."""
    layout, needs = problem
    unplaced = tuple(n.gpu for n, s in zip(needs, slots, strict=True) if s is None)
    placed = len(needs) - len(unplaced)
    risers = [n for n in needs if n.on_mount]
    row = [n for n in needs if not n.on_mount]
    plugs = min(len(risers), layout.mounts)
    # Riser cables beyond the mounts: the last ones in build order, as the solver leaves them out.
    without_mount = tuple(n.gpu for n in risers[layout.mounts:])
    mount_sentence = None
    if without_mount:
        mount_sentence = (f"{_plural(len(risers), 'card')} on riser cables need{'s' if len(risers) == 1 else ''} "
                          f"{_plural(len(risers), 'vertical/remote mount')}; the case has {layout.mounts}")
    needed, needs_text = _positions_phrase(row, plugs)
    widest = max((n.width for n in row), default=1)
    offered = offered_positions(layout, widest)
    full = sum(1 for s in layout.slots if s.size >= CARD_SLOT_SIZE)
    wanted = len(row) + plugs
    if wanted > full:
        parts = [p for p in (_plural(len(row), "card") if row else "", _plural(plugs, "riser plug") if plugs else "")
                 if p]
        slot_sentence = (f"{' and '.join(parts)} need{'s' if wanted == 1 else ''} "
                         f"{_plural(wanted, 'full-length slot')}; this board has {full}")
    elif needed > offered:
        slot_sentence = f"{needs_text}; this board and case offer {offered}{_offer_detail(layout, widest)}"
    else:
        positions = ", ".join(str(s.position) for s in layout.slots if s.size >= CARD_SLOT_SIZE)
        slot_sentence = (f"{needs_text} and this board and case offer {offered}, but the full-length slots sit "
                         f"at positions {positions}: with these coolers at most {placed} of the {wanted} fit")
    return Shortfall(len(needs), placed, unplaced, without_mount, len(risers), layout.mounts, needed, offered,
                     full, slot_sentence, mount_sentence)


def _offer_detail(layout: Layout, widest: int) -> str:
    full = [s.position for s in layout.slots if s.size >= CARD_SLOT_SIZE]
    if not full:
        return ""
    first, last = full[0], full[-1]
    if layout.case_end is not None and last + widest - 1 > layout.case_end:
        return f" (positions {first}–{layout.case_end}: the case has {layout.case_slots} expansion slots)"
    return (f" (positions {first}–{last + widest - 1}: the last full-length slot is at position {last}, "
            "so a case with more slots would not help)")


def why_unplaced(problem: Problem, slots: tuple[str | None, ...]) -> str:
    """One sentence: how many GPUs could not be placed, and why."""
    info = shortfall(problem, slots)
    reasons = [r for r in (info.mount_sentence if info.without_mount else None,
                           info.slot_sentence if len(info.unplaced) > len(info.without_mount) else None) if r]
    return f"{len(info.unplaced)} of the {info.cards} GPUs cannot be placed: {'; and '.join(reasons)}"
