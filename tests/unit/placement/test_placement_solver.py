"""The placement solver is exact: on random small boards, cases and cards it finds what brute force over
every assignment finds, every placement it returns keeps the rules, and its objective orders placements
as README: Placement says (GPUs placed, then lanes x16 first, then free space below open-air cards)."""

from __future__ import annotations

import itertools

from hypothesis import given, settings
from hypothesis import strategies as st

from planner.models.parts import ShareRule
from planner.placement.layout import CardNeed, Layout, SlotSite, slot_lanes
from planner.placement.solver import Problem, Score, score, solve

# -- brute force, written independently of the solver: every assignment, the valid ones, the best score --

def fixed_slots(problem: Problem) -> dict[int, str]:
    """The build's own placements, minus riser cables beyond the case's mounts (taken in build order)."""
    names = {s.name for s in problem.layout.slots}
    mounts = problem.layout.mounts
    fixed: dict[int, str] = {}
    for need in problem.needs:
        if need.slot is None or need.slot not in names:
            continue
        if need.on_mount:
            if mounts == 0:
                continue
            mounts -= 1
        fixed[need.gpu] = need.slot
    return fixed


def _span(position: int, need: CardNeed) -> set[int]:
    return set(range(position, position + max(need.width, 1)))


def valid(problem: Problem, slots: tuple[str | None, ...]) -> bool:
    """Does this assignment keep every rule for the GPUs the solver places (all but the build's own)?"""
    layout, needs = problem
    fixed = fixed_slots(problem)
    if any(slots[g] != s for g, s in fixed.items()):
        return False
    by_name = {s.name: s for s in layout.slots}
    chosen = [s for s in slots if s is not None]
    if len(chosen) != len(set(chosen)):
        return False
    used = set(chosen)
    fixed_used = set(fixed.values())
    auto = [n for n in needs if n.gpu not in fixed and slots[n.gpu] is not None]
    if sum(n.on_mount for n in auto) > layout.mounts - sum(needs[g].on_mount for g in fixed):
        return False
    for need in auto:
        if need.slot is not None:  # a GPU the build places but cannot have (no mount left) stays unplaced
            return False
        site = by_name[slots[need.gpu]]  # type: ignore[index]
        span = _span(site.position, need)
        if site.size < need.plug_size or slot_lanes(site, used) == 0:
            return False
        if need.width and layout.case_end is not None and max(span) > layout.case_end:
            return False
        for other in needs:
            name = slots[other.gpu]
            if other.gpu == need.gpu or name is None:
                continue
            if span & _span(by_name[name].position, other):
                return False
    for name in fixed_used:
        if slot_lanes(by_name[name], used) == 0 and slot_lanes(by_name[name], fixed_used) != 0:
            return False
    return True


def brute_force(problem: Problem) -> Score:
    """The best score over every valid assignment."""
    names: list[str | None] = [None, *(s.name for s in problem.layout.slots)]
    best: Score | None = None
    for slots in itertools.product(names, repeat=len(problem.needs)):
        if valid(problem, slots):
            found = score(problem, slots)
            if best is None or found > best:
                best = found
    assert best is not None
    return best


@st.composite
def problems(draw: st.DrawFn) -> Problem:
    count = draw(st.integers(1, 5))
    positions = sorted(draw(st.sets(st.integers(1, 8), min_size=count, max_size=count)))
    names = [f"S{p}" for p in positions]
    slots = []
    for name, position in zip(names, positions, strict=True):
        size = draw(st.sampled_from([16, 16, 16, 8, 4, 1]))
        lanes = draw(st.sampled_from([x for x in (1, 2, 4, 8, 16) if x <= size]))
        others = [n for n in names if n != name]
        shares = draw(st.lists(st.builds(ShareRule, when_used=st.sampled_from(others),
                                         lanes=st.sampled_from([0, 4, 8])), max_size=1)) if others else []
        slots.append(SlotSite(name, position, size, lanes, 4, "cpu", tuple(shares)))
    case_end = draw(st.one_of(st.none(), st.integers(max(positions), 11)))
    mounts = draw(st.integers(0, 2))
    cards = draw(st.integers(1, 4))
    needs = []
    free_names = list(names)
    for gpu in range(cards):
        on_mount = draw(st.booleans()) and draw(st.booleans())
        slot = None
        if free_names and draw(st.integers(0, 4)) == 0:  # now and then the build places a card itself
            slot = draw(st.sampled_from(free_names))
            free_names.remove(slot)
        needs.append(CardNeed(
            gpu=gpu, width=0 if on_mount else draw(st.integers(1, 3)), lanes=draw(st.sampled_from([4, 8, 16])),
            gen=4, open_air=draw(st.booleans()), on_mount=on_mount, riser="riser" if on_mount else None,
            riser_lanes=draw(st.sampled_from([8, 16])) if on_mount else None, slot=slot))
    return Problem(Layout(tuple(slots), case_end, case_end or 7, mounts, 4, False), tuple(needs))


@settings(max_examples=400, deadline=None)
@given(problems())
def test_solver_finds_the_brute_force_optimum(problem: Problem) -> None:
    assert solve(problem).score == brute_force(problem)


@settings(max_examples=400, deadline=None)
@given(problems())
def test_every_placement_the_solver_returns_keeps_the_rules(problem: Problem) -> None:
    solution = solve(problem)
    assert valid(problem, solution.slots)
    assert solution.score == score(problem, solution.slots)


@settings(max_examples=300, deadline=None)
@given(problems())
def test_when_the_solver_leaves_a_gpu_out_no_assignment_places_them_all(problem: Problem) -> None:
    solution = solve(problem)
    placeable = len(problem.needs) - sum(1 for n in problem.needs if n.slot is not None and n.gpu
                                         not in fixed_slots(problem))
    if solution.placed < placeable:
        assert brute_force(problem)[0] == solution.placed


def _board(*lanes: int, shares: dict[str, ShareRule] | None = None) -> tuple[SlotSite, ...]:
    shares = shares or {}
    return tuple(SlotSite(f"S{p}", p, 16, lane, 4, "cpu", (shares[f"S{p}"],) if f"S{p}" in shares else ())
                 for p, lane in enumerate(lanes, start=1))


def _card(gpu: int, width: int, *, open_air: bool = True, lanes: int = 16) -> CardNeed:
    return CardNeed(gpu, width, lanes, 4, open_air, False, None, None, None)


def test_x16_slots_win_over_free_space() -> None:
    # two 2-slot cards on x16/x8/x16/x8 slots at 1–4 in a 5-slot case: S1 + S3 keeps both at x16, even
    # though S1 + S4 would leave a free slot between them
    problem = Problem(Layout(_board(16, 8, 16, 8), 5, 5, 0, 4, False), (_card(0, 2), _card(1, 2)))
    assert solve(problem).slots == ("S1", "S3")


def test_free_space_between_open_air_cards_breaks_a_lane_tie() -> None:
    # four x16 slots at 1–4 in a 5-slot case, two 1-slot open-air cards: one free slot below each
    problem = Problem(Layout(_board(16, 16, 16, 16), 5, 5, 0, 4, False), (_card(0, 1), _card(1, 1)))
    assert solve(problem).slots == ("S1", "S3")


def test_a_slot_a_sharing_rule_switches_off_is_never_used() -> None:
    # S2 is disabled when S1 is used: two cards go to S1 and S3, not S1 and S2
    board = _board(16, 16, 16, shares={"S2": ShareRule(when_used="S1", lanes=0)})
    problem = Problem(Layout(board, 4, 4, 0, 4, False), (_card(0, 1, open_air=False), _card(1, 1, open_air=False)))
    solution = solve(problem)
    assert "S2" not in solution.slots or "S1" not in solution.slots


def test_four_3_slot_cards_place_at_most_three_on_a_7_slot_board() -> None:
    problem = Problem(Layout(_board(*[16] * 7), 9, 9, 0, 4, False), tuple(_card(g, 3) for g in range(4)))
    solution = solve(problem)
    assert solution.slots == ("S1", "S4", "S7", None)
