"""The placement solver of README: Placement: exact, by dynamic programming over the board's slots, top to bottom.

Every GPU the build does not place (`slot = …`) gets a slot of its own, or — on a riser cable — a slot
for its riser's plug and one of the case's vertical/remote mounts. Rules: a card at position p covers
p … p + ⌈slot_width⌉ − 1; no position is covered twice and nothing plugs into a covered slot; no cooler
runs past the case's last expansion slot (an open frame has nothing below the board); a slot that a
lane-sharing rule switches off holds nothing; a riser cable needs a free mount.

Among the valid placements the best is, comparing in this order (`score`, each a maximum):
1. the number of GPUs placed (so an impossible build still gets its best partial placement),
2. the lanes, the worst-served card first: each card's link counts as its lanes, and lanes on the CPU (directly
   or through a switch linked to it) above any on the chipset; the cards' links sorted from the narrowest are
   compared element by element (the narrowest as wide as it can be, then the next…), so two cards at x8/x8 on
   CPU lanes beat x16 plus a chipset x4, and a fourth card on a chipset slot is taken only when no CPU slot
   is left,
3. cooling: the open-air cards with a free position below them, then the free positions below open-air
   cards, each counted up to `params.OPEN_AIR_GAP_CAP` (a riser's plug and cable count as an obstacle),
4. a fixed tie-break: the build's first GPUs in the topmost slots.

How: each criterion is a sum over the cards (lanes compare like counts of the narrowest links, then the
next narrowest…, so one card on a chipset x4 costs more than any number of wider ones: weights
C − 17^(33 − link) with link = lanes + 17 on CPU lanes), so one integer holds the whole score and a dynamic
programme over (slot, next free position, cards left of each kind, mounts left, the open-air card waiting for
its gap, the used/empty choices of the sharing slots still open) finds the maximum exactly. Cards of the same
kind are interchangeable, so identical cards are never permuted.
Lane-sharing rules couple slots far apart: a rule of slot a triggered by slot t is decided at the upper of
the two (t used or empty) and carried down to the lower, where it is read or enforced, so the state holds
only the choices still open (a ring of rules, each slot narrowed by the next, holds two or three), and
never more "used" triggers ahead than cards left to fill them. Past `STATE_BUDGET` states the search stops
with PlacementTooLarge (a clear message, never a guess). Tests compare the result with brute force over
every assignment.

Plain Python, no networkx: it runs on every `planner check` (docs/architecture.md, "Start-up").
"""


import itertools
from functools import cache
from typing import NamedTuple

from planner.placement import params
from planner.placement.layout import CardNeed, Layout, covered, slot_lanes
from planner.util.errors import InputError

#: Compared as a whole, larger is better: (placed, links from the narrowest (`link_value`), cooling, tie-break).
Score = tuple[int, tuple[int, ...], tuple[int, int], tuple[int, ...]]

_NO_POSITION = -100  # tie-break entry of a GPU without a mount
_INVALID = -(1 << 512)  # value of a dead end: below any sum of valid parts, and it stays so when they are added
_POSITION_BASE = 22  # > the largest slot position (20) + 1
_LINK_TOP = 33  # the largest link_value: x16 on CPU lanes
_LINK_BASE = 17  # > the most cards one placement holds (16): a narrower link outweighs any number of wider ones


def link_value(lanes: int, source: str) -> int:
    """How well a card's link serves it, as the placement compares links: its lanes, and any CPU link above
    any chipset one (a chipset link shares the chipset's one uplink with the drives, USB and network)."""
    return lanes + (_LINK_BASE if source == "cpu" else 0)


def _link_weight(value: int) -> int:
    """A link's share of the objective (a sum to maximise): each step narrower costs more than all wider
    links together could gain, so the sum compares the links from the narrowest (leximin)."""
    return _LINK_BASE ** (_LINK_TOP + 1) - _LINK_BASE ** (_LINK_TOP - value)


class Problem(NamedTuple):
    layout: Layout
    needs: tuple[CardNeed, ...]  # every GPU of the build, in build order


class Solution(NamedTuple):
    """Per GPU (build order): the slot its card or riser plugs into, and its mount number for a riser cable."""

    slots: tuple[str | None, ...]
    mounts: tuple[int | None, ...]
    score: Score
    states: int = 0  # states the search visited (0: not searched)

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
        lanes.append(link_value(min(slot_lanes(site, used), need.link_cap), site.source))
        tie.append(-site.position)
        # a riser's plug and cable also sit below the card above it: an obstacle, not a card that breathes
        rows.append((site.position, site.position + max(need.width, 1) - 1, need.open_air and need.width > 0))
    return (len(used), tuple(sorted(lanes)), cooling(rows, layout.case_end), tuple(tie))


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


class PlacementTooLarge(InputError):
    """The exact search would pass `STATE_BUDGET` states: the build is refused with a clear message rather
    than checked for seconds (or a wrong placement guessed). Naming the GPUs' slots shrinks the search."""


#: States the exact search may visit (each a slot, the positions and cards left, the mounts and the
#: used/empty choices of the lane-sharing slots still open) before it gives up: ~0.15 s of plain Python.
#: The example builds need at most ~120, the synthetic worst case of benchmarks/placement.py (eight kinds of
#: card, sharing rules) ~2,500; only contrived layouts — nine or more kinds of card on 20 slots, or sharing
#: rules that tie many slots to distant ones — come near it.
STATE_BUDGET = 20_000
#: States the searches of one check run's fixes (another case, thinner cards, cards on risers: dozens of
#: variants of the build) may visit together. The example builds' fixes need at most ~600.
FIX_SEARCH_STATES = 20_000

#: Solved problems: a check run, the re-checks of its fixes (a power limit leaves the placement problem as it
#: was) and the TUI's edits pose the same problem again.
_SOLVED: dict[Problem, Solution] = {}


def solve(problem: Problem) -> Solution:
    """The best placement (see the module docstring); exact. Raises PlacementTooLarge when the search passes
    `STATE_BUDGET` states."""
    found = _SOLVED.get(problem)
    return found if found is not None else _search(problem, STATE_BUDGET)


class SearchAllowance:
    """States that a series of searches may still visit together: the fixes one check run tries share one,
    so their number cannot multiply the time a check takes."""

    def __init__(self, states: int | None = None) -> None:
        self.states = FIX_SEARCH_STATES if states is None else states


def solve_within(problem: Problem, allowance: SearchAllowance) -> Solution | None:
    """`solve`, paid from `allowance`; None when the allowance runs out first (a fix that cannot be searched
    is not offered)."""
    found = _SOLVED.get(problem)
    if found is not None:
        return found
    if allowance.states <= 0:
        return None
    try:
        found = _search(problem, min(allowance.states, STATE_BUDGET))
    except PlacementTooLarge:
        allowance.states = 0
        return None
    allowance.states -= found.states
    return found


def solve_cache_clear() -> None:
    """Forget the solved problems (benchmarks measure the search itself)."""
    _SOLVED.clear()


def _search(problem: Problem, budget: int) -> Solution:
    search = _Search(problem)
    chosen, states = search.programme(budget)
    found = search.solution(chosen if chosen is not None else [])._replace(states=states)
    if len(_SOLVED) >= 512:
        _SOLVED.clear()
    _SOLVED[problem] = found
    return found


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
        self._sharing(by_name, fixed_names)

    def _sharing(self, by_name: dict[str, int], fixed_names: set[str]) -> None:
        """Lane-sharing rules as the programme reads them. A rule of slot a triggered by a slot t that the
        solver fills or leaves empty (a "trigger") ties a and t together: from the upper of the two down to
        the lower, the programme carries whether t is used (bit t of its `assumed` mask), chosen where the
        first of them is reached and enforced at t. Rules triggered by the build's own slots apply always;
        rules triggered by an M.2 socket never (the planner places no drives)."""
        slots = self.slots
        self.base_lanes: list[int] = []  # lanes once the rules of the build's own slots apply
        self.rules: list[list[tuple[int, int]]] = []  # per slot: (trigger slot index, lanes then)
        open_at = [0] * (len(slots) + 1)  # per slot: the triggers whose state matters there (bit mask)
        triggers = 0
        for a, site in enumerate(slots):
            self.base_lanes.append(slot_lanes(site, fixed_names))
            rules = []
            for rule in site.shares:
                t = by_name.get(rule.when_used)
                if t is None or t in self.fixed:
                    continue
                rules.append((t, rule.lanes))
                triggers |= 1 << t
                for i in range(min(a, t), max(a, t) + 1):
                    open_at[i] |= 1 << t
            self.rules.append(rules)
        self.triggers = triggers
        # entering slot i: the choices kept from slot i − 1, and the new ones made here (every subset)
        self.carried = [open_at[i] & open_at[i - 1] if i else 0 for i in range(len(slots) + 1)]
        self.new_choices: list[list[int]] = []
        for i in range(len(slots)):
            fresh = [1 << t for t in range(len(slots)) if open_at[i] >> t & 1 and not self.carried[i] >> t & 1]
            self.new_choices.append([sum(c) for r in range(len(fresh) + 1) for c in itertools.combinations(fresh, r)])
        # triggers at or below slot i: each one assumed used still needs a card there
        self.ahead = [triggers & ~((1 << i) - 1) for i in range(len(slots) + 1)]

    def lanes_at(self, i: int, assumed: int) -> int:
        """Slot i's lanes when the triggers in `assumed` are used (and the build's own slots)."""
        lanes = self.base_lanes[i]
        for t, then in self.rules[i]:
            if assumed >> t & 1:
                lanes = min(lanes, then)
        return lanes

    def programme(self, budget: int) -> tuple[list[tuple[int, int]] | None, int]:
        """The best placement as (slot index, kind) pairs top to bottom (None: not even an empty one is
        valid), and the states visited."""
        slots, kinds, end, fixed_at = self.slots, self.kinds, self.layout.case_end, self.fixed
        total_counts = tuple(len(m) for m in self.members)
        units = self._units()
        cap = int(params.OPEN_AIR_GAP_CAP.value)
        last = len(slots)
        positions = [s.position for s in slots]
        riser_kinds = [k for k, kind in enumerate(kinds) if kind.on_mount]
        members = self.members
        triggers, carried, new_choices, ahead, lanes_at = (self.triggers, self.carried, self.new_choices, self.ahead,
                                                           self.lanes_at)
        # What placing kind k in slot i means, worked out once: None where it may not go, else (next free
        # position, bottom of an open-air card waiting for its gap (0: none)). Lanes depend on the choices.
        moves: list[list[tuple[int, int] | None]] = []
        for i, site in enumerate(slots):
            row: list[tuple[int, int] | None] = []
            for kind in kinds:
                span = covered(site.position, kind.width)
                if (i in fixed_at or site.size < kind.plug_size or not self.fixed_cover.isdisjoint(span)
                        or (kind.width and end is not None and span.stop - 1 > end)):
                    row.append(None)
                    continue
                row.append((span.stop, span.stop - 1 if kind.open_air and kind.width else 0))
            moves.append(row)
        tie = [[units.tie * (_POSITION_BASE - p) * unit for unit in self.tie_unit] for p in positions]
        # the value of kind k's link in a slot of `lanes` lanes on CPU (1) or chipset (0) lanes:
        # lane_value[cpu][lanes][k]
        lane_value = [[[units.lanes * _link_weight(link_value(min(lanes, kind.link_cap), "cpu" if cpu else ""))
                        for kind in kinds] for lanes in range(17)] for cpu in (0, 1)]
        on_cpu = [int(site.source == "cpu") for site in slots]
        on_mount = [int(kind.on_mount) for kind in kinds]
        visited = 0

        def gap_value(bottom: int, next_top: int | None) -> int:
            gap = gap_credit(_gap_below(bottom, next_top, end))
            return units.clear * (gap > 0) + units.gaps * gap

        def best(i: int, free_from: int, counts: tuple[int, ...], mounts: int, waiting: int,
                 assumed: int) -> tuple[int, int, int]:
            """(value, choice, new choices) from slot i on; choice −1 = leave empty; `waiting`: bottom of an
            open-air card whose gap is still open (0: none); `assumed`: the trigger slots taken to be used."""
            # Fewer states: a next free position at or above this slot's makes no difference from here on, nor
            # does an open-air card's exact bottom once its gap is full (credited now), nor mounts with no riser
            # cable left to place, nor the choice of a trigger no slot from here on reads.
            extra = 0
            if i < last:
                position = positions[i]
                if free_from <= position:
                    free_from = 0
                if waiting and position - waiting - 1 >= cap and (end is None or end - waiting >= cap):
                    extra, waiting = gap_value(waiting, waiting + cap + 1), 0
            if mounts and not any(counts[k] for k in riser_kinds):
                mounts = 0
            value, choice, new = cached(i, free_from, counts, mounts, waiting, assumed & carried[i])
            return value + extra, choice, new

        @cache
        def cached(i: int, free_from: int, counts: tuple[int, ...], mounts: int, waiting: int,
                   assumed: int) -> tuple[int, int, int]:
            nonlocal visited
            visited += 1
            if visited > budget:
                raise PlacementTooLarge(self._too_large(budget))
            if i == last:
                return (gap_value(waiting, None) if waiting else 0), -1, 0
            position = positions[i]
            gap = gap_value(waiting, position) if waiting else 0
            fixed = fixed_at.get(i)
            left_to_place = sum(counts)
            top = (_INVALID, -1, 0)
            for new in new_choices[i]:
                mask = assumed | new
                if (mask & ahead[i]).bit_count() > left_to_place:
                    continue  # more trigger slots to fill than cards left
                lanes = lanes_at(i, mask)
                if fixed is not None:
                    if lanes == 0 and i not in self.fixed_disabled:
                        continue  # an automatic placement must not switch off a slot the build chose
                    link = link_value(min(lanes, fixed.link_cap), slots[i].source)
                    value = units.placed + units.lanes * _link_weight(link) + tie[i][fixed.gpu] + gap
                    span = covered(position, fixed.width)
                    wait = span.stop - 1 if fixed.open_air and fixed.width else 0
                    rest = best(i + 1, max(free_from, span.stop), counts, mounts, wait, mask)[0]
                    if value + rest > top[0]:
                        top = (value + rest, -1, new)
                    continue
                must_use = mask >> i & 1
                if not must_use:
                    value = best(i + 1, free_from, counts, mounts, waiting, mask)[0]
                    if value > top[0]:
                        top = (value, -1, new)
                if lanes == 0 or (triggers >> i & 1 and not must_use) or position < free_from:
                    continue
                values, ties = lane_value[on_cpu[i]][lanes], tie[i]
                for k, move in enumerate(moves[i]):
                    if move is None or not counts[k] or (not mounts and on_mount[k]):
                        continue
                    stop, wait = move
                    left = (*counts[:k], counts[k] - 1, *counts[k + 1:])
                    rest = best(i + 1, stop, left, mounts - on_mount[k], wait, mask)[0]
                    if rest < 0:
                        continue
                    gpu = members[k][total_counts[k] - counts[k]]
                    value = units.placed + values[k] + ties[gpu] + gap + rest
                    if value > top[0]:
                        top = (value, k, new)
            return top

        top = best(0, 0, total_counts, self.mounts_left, 0, 0)[0]
        if top < 0:
            return None, visited
        # Walk the stored choices forward to recover the placement.
        chosen: list[tuple[int, int]] = []
        free_from, counts, mounts, waiting, assumed = 0, total_counts, self.mounts_left, 0, 0
        for i, site in enumerate(slots):
            _, k, new = best(i, free_from, counts, mounts, waiting, assumed)
            assumed = (assumed & carried[i]) | new
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
            free_from, waiting = move
            counts = (*counts[:k], counts[k] - 1, *counts[k + 1:])
            mounts -= kinds[k].on_mount
        cached.cache_clear()
        return chosen, visited

    def _too_large(self, budget: int) -> str:
        needs = self.problem.needs
        free = sum(len(m) for m in self.members)
        rules = sum(len(r) for r in self.rules)
        return (f"the search for the best placement of {free} of the {len(needs)} GPUs "
                f"({len(self.kinds)} kind{'s' if len(self.kinds) != 1 else ''} of card) on the board's "
                f"{len(self.slots)} slots ({rules} lane-sharing rule{'s' if rules != 1 else ''} between them) "
                f"passes its limit of {budget:,} states; name each GPU's slot in the build file "
                '(slot = "…" in its [[gpu]] table) and the planner checks that placement instead')

    def _units(self) -> "_Units":
        count = len(self.problem.needs)
        gaps = self.tie_range  # the tie-break fills the lowest digits
        clear = gaps * (2 * int(params.OPEN_AIR_GAP_CAP.value) * count + 1)
        lanes = clear * (count + 1)
        placed = lanes * _LINK_BASE ** (_LINK_TOP + 2)  # above the links of 16 cards
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
