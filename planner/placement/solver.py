"""The placement solver of SPEC §4.7: exact, by dynamic programming over the board's slots, top to bottom.

Every GPU the build does not place (`slot = …`) gets a slot of its own, or — on a riser cable — a slot
for its riser's plug and one of the case's vertical/remote mounts. Rules: a card at position p covers
p … p + ⌈slot_width⌉ − 1; no position is covered twice and nothing plugs into a covered slot; no cooler
runs past the case's last expansion slot (an open frame has nothing below the board); a slot that a
lane-sharing rule switches off holds nothing; a riser cable needs a free mount.

Among the valid placements the best is, comparing in this order (`score`, each a maximum):
1. the number of GPUs placed (so an impossible build still gets its best partial placement),
2. the lanes, x16 first: the GPUs' link widths sorted from the widest, compared element by element,
3. cooling: the open-air cards with a free position below them, then the free positions below open-air
   cards, each counted up to `params.OPEN_AIR_GAP_CAP` (a riser's plug and cable count as an obstacle),
4. a fixed tie-break: the build's first GPUs in the topmost slots.

How: each criterion is a sum over the cards (lanes compare like counts of x16, then x15, … cards, so a
card at x16 is worth more than any number of narrower ones: weights 17^lanes), so one integer holds the
whole score and a dynamic programme over (slot, next free position, cards left of each kind, mounts left,
the open-air card waiting for its gap) finds the maximum exactly. Cards of the same kind are
interchangeable, so identical cards are never permuted. Lane-sharing rules couple slots far apart: the
programme runs once for each used/empty choice of the slots that trigger a rule (few, usually none), so
every slot's lanes are known in advance. Tests compare the result with brute force over every assignment.

Plain Python, no networkx: it runs on every `planner check`, where importing networkx (~0.25 s) is not
affordable.
"""


import itertools
from functools import cache, lru_cache
from typing import NamedTuple

from planner.physics import params
from planner.placement.layout import CardNeed, Layout, covered, slot_lanes

#: Compared as a whole, larger is better: (placed, lanes, cooling, tie-break).
Score = tuple[int, tuple[int, ...], tuple[int, int], tuple[int, ...]]

_NO_POSITION = -100  # tie-break entry of a GPU without a mount
_INVALID = -(1 << 512)  # value of a dead end: below any sum of valid parts, and it stays so when they are added
_POSITION_BASE = 22  # > the largest slot position (20) + 1


class Problem(NamedTuple):
    layout: Layout
    needs: tuple[CardNeed, ...]  # every GPU of the build, in build order


class Solution(NamedTuple):
    """Per GPU (build order): the slot its card or riser plugs into, and its mount number for a riser cable."""

    slots: tuple[str | None, ...]
    mounts: tuple[int | None, ...]
    score: Score

    @property
    def placed(self) -> int:
        return self.score[0]


def score(problem: Problem, slots: tuple[str | None, ...]) -> Score:
    """The objective of an assignment of slots to GPUs (assumed valid): what the solver maximises."""
    layout, needs = problem
    by_name = {s.name: s for s in layout.slots}
    used = {name for name in slots if name is not None}
    lanes: list[int] = []
    rows: list[tuple[int, int, bool]] = []  # (top, bottom, open_air) of the cards in slots
    tie: list[int] = []
    for need, name in zip(needs, slots, strict=True):
        if name is None:
            tie.append(_NO_POSITION)
            continue
        site = by_name[name]
        lanes.append(min(slot_lanes(site, used), need.link_cap))
        tie.append(-site.position)
        # a riser's plug and cable also sit below the card above it: an obstacle, not a card that breathes
        rows.append((site.position, site.position + max(need.width, 1) - 1, need.open_air and need.width > 0))
    return (len(used), tuple(sorted(lanes, reverse=True)), cooling(rows, layout.case_end), tuple(tie))


def gap_credit(gap: int) -> int:
    """Free positions below an open-air card, as the objective counts them."""
    return max(0, min(gap, int(params.OPEN_AIR_GAP_CAP.value)))


def cooling(rows: list[tuple[int, int, bool]], case_end: int | None) -> tuple[int, int]:
    """(open-air cards with a free position below, free positions below open-air cards, each capped)."""
    rows = sorted(rows)
    clear = total = 0
    for i, (_, bottom, open_air) in enumerate(rows):
        if not open_air:
            continue
        gap = gap_credit(_gap_below(bottom, rows[i + 1][0] if i + 1 < len(rows) else None, case_end))
        clear += gap > 0
        total += gap
    return (clear, total)


def _gap_below(bottom: int, next_top: int | None, case_end: int | None) -> int:
    if next_top is not None:
        return next_top - bottom - 1
    return int(params.OPEN_AIR_GAP_CAP.value) if case_end is None else case_end - bottom


@lru_cache(maxsize=256)
def solve(problem: Problem) -> Solution:
    """The best placement (see the module docstring); exact. Cached: a check run, the re-checks of its fixes
    (a power limit leaves the placement problem as it was) and the TUI's edits pose the same problem again."""
    search = _Search(problem)
    best: Solution | None = None
    for used_triggers in search.trigger_choices():
        found = search.best_for(used_triggers)
        if found is not None and (best is None or found.score > best.score):
            best = found
    return best if best is not None else search.solution([])


class _Search:
    def __init__(self, problem: Problem) -> None:
        self.problem = problem
        layout, needs = problem
        self.layout = layout
        self.slots = layout.slots
        by_name = {s.name: i for i, s in enumerate(self.slots)}
        # Explicit placements stay where the build puts them (the checks report their conflicts); riser
        # cables beyond the case's mounts stay unplaced (riser.mount reports them).
        mounts_left = layout.mounts
        self.fixed: dict[int, CardNeed] = {}  # slot index -> the GPU the build puts there
        for need in needs:
            if need.slot is None or need.slot not in by_name:
                continue
            if need.on_mount:
                if mounts_left == 0:
                    continue
                mounts_left -= 1
            self.fixed[by_name[need.slot]] = need
        self.mounts_left = mounts_left
        self.fixed_cover: set[int] = set()
        for i, need in self.fixed.items():
            self.fixed_cover.update(covered(self.slots[i].position, need.width))
        fixed_names = {self.slots[i].name for i in self.fixed}
        self.fixed_disabled = {i for i in self.fixed if slot_lanes(self.slots[i], fixed_names) == 0}
        # The cards to place, grouped into kinds that the objective cannot tell apart; GPUs in build order.
        self.kinds: list[CardNeed] = []
        self.members: list[list[int]] = []
        for need in needs:
            if need.slot is not None:
                continue
            key = _kind(need)
            for k, first in enumerate(self.kinds):
                if _kind(first) == key:
                    self.members[k].append(need.gpu)
                    break
            else:
                self.kinds.append(need)
                self.members.append([need.gpu])
        count = len(needs)
        self.tie_unit = [_POSITION_BASE ** (count - 1 - g) for g in range(count)]
        self.tie_range = _POSITION_BASE ** count
        triggers = {r.when_used for s in self.slots for r in s.shares}
        self.free_triggers = [i for i, s in enumerate(self.slots) if s.name in triggers and i not in self.fixed]
        self.trigger_set = set(self.free_triggers)

    def trigger_choices(self) -> list[frozenset[int]]:
        """Every used/empty choice of the slots that trigger a sharing rule (and are not placed by the build)."""
        slots = self.free_triggers
        return [frozenset(c) for r in range(len(slots) + 1) for c in itertools.combinations(slots, r)]

    def best_for(self, used_triggers: frozenset[int]) -> Solution | None:
        """The best placement in which exactly `used_triggers` of the trigger slots hold something."""
        names = {self.slots[i].name for i in used_triggers} | {self.slots[i].name for i in self.fixed}
        lanes = [slot_lanes(s, names) for s in self.slots]
        if any(lanes[i] == 0 for i in used_triggers):
            return None
        if any(lanes[i] == 0 and i not in self.fixed_disabled for i in self.fixed):
            return None  # an automatic placement must not switch off a slot the build chose
        chosen = self._programme(lanes, used_triggers)
        return None if chosen is None else self.solution(chosen)

    def _programme(self, lanes: list[int], used_triggers: frozenset[int]) -> list[tuple[int, int]] | None:
        slots, kinds, end, fixed_at = self.slots, self.kinds, self.layout.case_end, self.fixed
        total_counts = tuple(len(m) for m in self.members)
        units = self._units()
        cap = int(params.OPEN_AIR_GAP_CAP.value)
        last = len(slots)
        positions = [s.position for s in slots]
        riser_kinds = [k for k, kind in enumerate(kinds) if kind.on_mount]
        # What placing kind k in slot i means, worked out once: None where it may not go, else (next free
        # position, bottom of an open-air card waiting for its gap (0: none), the lanes value of the link).
        moves: list[list[tuple[int, int, int] | None]] = []
        for i, site in enumerate(slots):
            row: list[tuple[int, int, int] | None] = []
            allowed = lanes[i] > 0 and i not in fixed_at and (i in used_triggers or i not in self.trigger_set)
            for kind in kinds:
                span = covered(site.position, kind.width)
                if (not allowed or site.size < kind.plug_size or not self.fixed_cover.isdisjoint(span)
                        or (kind.width and end is not None and span.stop - 1 > end)):
                    row.append(None)
                    continue
                wait = span.stop - 1 if kind.open_air and kind.width else 0
                row.append((span.stop, wait, units.lanes * 17 ** min(lanes[i], kind.link_cap)))
            moves.append(row)
        tie = [[units.tie * (_POSITION_BASE - p) * unit for unit in self.tie_unit] for p in positions]

        def gap_value(bottom: int, next_top: int | None) -> int:
            gap = gap_credit(_gap_below(bottom, next_top, end))
            return units.clear * (gap > 0) + units.gaps * gap

        def best(i: int, free_from: int, counts: tuple[int, ...], mounts: int, waiting: int) -> tuple[int, int]:
            """(value, choice) from slot i on; choice −1 = leave empty; `waiting`: bottom of an open-air card
            whose gap is still open (0: none)."""
            # Fewer states: a next free position at or above this slot's makes no difference from here on, nor
            # does an open-air card's exact bottom once its gap is full (credited now), nor mounts with no riser
            # cable left to place.
            extra = 0
            if i < last:
                position = positions[i]
                if free_from <= position:
                    free_from = 0
                if waiting and position - waiting - 1 >= cap and (end is None or end - waiting >= cap):
                    extra, waiting = gap_value(waiting, waiting + cap + 1), 0
            if mounts and not any(counts[k] for k in riser_kinds):
                mounts = 0
            value, choice = cached(i, free_from, counts, mounts, waiting)
            return value + extra, choice

        @cache
        def cached(i: int, free_from: int, counts: tuple[int, ...], mounts: int, waiting: int) -> tuple[int, int]:
            if i == last:
                return (gap_value(waiting, None) if waiting else 0), -1
            position = positions[i]
            gap = gap_value(waiting, position) if waiting else 0
            fixed = fixed_at.get(i)
            if fixed is not None:
                value = units.placed + units.lanes * 17 ** min(lanes[i], fixed.link_cap) + tie[i][fixed.gpu] + gap
                span = covered(position, fixed.width)
                wait = span.stop - 1 if fixed.open_air and fixed.width else 0
                rest, _ = best(i + 1, max(free_from, span.stop), counts, mounts, wait)
                return value + rest, -1
            top = (_INVALID, -1) if i in used_triggers else (best(i + 1, free_from, counts, mounts, waiting)[0], -1)
            if position >= free_from:
                for k, move in enumerate(moves[i]):
                    if move is None or not counts[k] or (not mounts and kinds[k].on_mount):
                        continue
                    stop, wait, lane_value = move
                    gpu = self.members[k][total_counts[k] - counts[k]]
                    left = (*counts[:k], counts[k] - 1, *counts[k + 1:])
                    rest, _ = best(i + 1, stop, left, mounts - kinds[k].on_mount, wait)
                    if rest < 0:
                        continue
                    value = units.placed + lane_value + tie[i][gpu] + gap + rest
                    if value > top[0]:
                        top = (value, k)
            return top

        top, _ = best(0, 0, total_counts, self.mounts_left, 0)
        if top < 0:
            return None
        # Walk the stored choices forward to recover the placement.
        chosen: list[tuple[int, int]] = []
        free_from, counts, mounts, waiting = 0, total_counts, self.mounts_left, 0
        for i, site in enumerate(slots):
            _, k = best(i, free_from, counts, mounts, waiting)
            fixed = fixed_at.get(i)
            if fixed is not None:
                span = covered(site.position, fixed.width)
                free_from = max(free_from, span.stop)
                waiting = span.stop - 1 if fixed.open_air and fixed.width else 0
                continue
            if k < 0:
                continue
            move = moves[i][k]
            assert move is not None
            chosen.append((i, k))
            free_from, waiting = move[0], move[1]
            counts = (*counts[:k], counts[k] - 1, *counts[k + 1:])
            mounts -= kinds[k].on_mount
        cached.cache_clear()
        return chosen

    def _units(self) -> "_Units":
        count = len(self.problem.needs)
        gaps = self.tie_range  # the tie-break fills the lowest digits
        clear = gaps * (2 * int(params.OPEN_AIR_GAP_CAP.value) * count + 1)
        lanes = clear * (count + 1)
        placed = lanes * 17 ** 17
        return _Units(placed=placed, lanes=lanes, clear=clear, gaps=gaps, tie=1)

    def solution(self, chosen: list[tuple[int, int]]) -> Solution:
        needs = self.problem.needs
        slots: list[str | None] = [None] * len(needs)
        for i, need in self.fixed.items():
            slots[need.gpu] = self.slots[i].name
        taken = [0] * len(self.kinds)
        for i, k in chosen:  # top to bottom, so each kind's first GPUs get the topmost slots
            slots[self.members[k][taken[k]]] = self.slots[i].name
            taken[k] += 1
        mounts: list[int | None] = [None] * len(needs)
        number = 0
        for need in needs:
            if need.on_mount and slots[need.gpu] is not None:
                number += 1
                mounts[need.gpu] = number
        final = tuple(slots)
        return Solution(final, tuple(mounts), score(self.problem, final))


class _Units(NamedTuple):
    """Place values of the score's parts inside one integer (see the module docstring)."""

    placed: int
    lanes: int
    clear: int
    gaps: int
    tie: int


def _kind(need: CardNeed) -> tuple[int, int, bool, bool, int]:
    """What the objective and the rules see of a card: cards alike in these are interchangeable."""
    return (need.width, need.link_cap, need.open_air and need.width > 0, need.on_mount, need.plug_size)
