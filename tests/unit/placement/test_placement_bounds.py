"""The placement solver stays bounded (issue 13): a ring of lane-sharing rules is solved exactly in a few
hundred states, a search past its limit stops with a clear message naming the way out, and the fixes of
one check share one allowance of states. Effort is counted in states visited, never timed."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest
from test_placement_solver import brute_force

from planner.api import check_file
from planner.catalog import Catalog
from planner.cli.main import main
from planner.models.parts import ShareRule
from planner.placement import solver
from planner.placement.layout import CardNeed, Layout, SlotSite
from planner.placement.solver import (
    STATE_BUDGET,
    PlacementTooLarge,
    Problem,
    SearchAllowance,
    link_value,
    solve,
    solve_within,
)

from helpers import ROOT

RING_BUILD = ROOT / "benchmarks" / "builds" / "ring-20-slots.toml"


def _ring(slots: int) -> tuple[SlotSite, ...]:
    """Each slot narrows to x8 when the next one is used; the last when the first is."""
    return tuple(SlotSite(f"S{p}", p, 16, 16, 4, "cpu", (ShareRule(when_used=f"S{p % slots + 1}", lanes=8),))
                 for p in range(1, slots + 1))


def _cards(count: int, width: int = 1) -> tuple[CardNeed, ...]:
    return tuple(CardNeed(g, width, 16, 4, True, False, None, None, None) for g in range(count))


def _all_different(count: int) -> tuple[CardNeed, ...]:
    """Cards that differ in width, lanes or cooler: no two are interchangeable, so the search cannot merge them."""
    kinds = list(itertools.product((1, 2, 3), (16, 8, 4, 2), (True, False)))
    return tuple(CardNeed(g, kinds[g][0], kinds[g][1], 4, kinds[g][2], False, None, None, None) for g in range(count))


def _twenty_slots() -> tuple[SlotSite, ...]:
    return tuple(SlotSite(f"S{p}", p, 16, (16, 8, 4, 16)[p % 4], 4, "cpu", ()) for p in range(1, 21))


def test_a_ring_of_20_sharing_slots_is_solved_in_a_few_hundred_states() -> None:
    # before: one dynamic programme per used/empty choice of the 20 trigger slots (2^20), ~15 s and 800 MB
    solver.solve_cache_clear()
    solution = solve(Problem(Layout(_ring(20), 21, 21, 0, 4, False), _cards(4)))
    assert solution.placed == 4
    assert min(solution.score[1]) == link_value(16, "cpu")  # every card keeps x16: no used slot has its next one used
    assert solution.states < 2_000


def test_the_ring_solution_is_the_brute_force_optimum() -> None:
    problem = Problem(Layout(_ring(7), 8, 8, 0, 4, False), _cards(3))
    assert solve(problem).score == brute_force(problem)


def test_the_ring_build_checks_and_passes() -> None:
    report = check_file(RING_BUILD, Catalog())
    assert report.verdict == "pass"


def test_a_search_past_its_limit_stops_with_a_message_that_names_the_way_out() -> None:
    solver.solve_cache_clear()
    with pytest.raises(PlacementTooLarge, match=r"passes its limit of 20,000 states; name each GPU's slot"):
        solve(Problem(Layout(_twenty_slots(), 21, 21, 0, 4, False), _all_different(12)))


def test_a_build_past_the_search_limit_is_reported_for_its_file_without_a_traceback(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    slots = "\n".join(f'  {{ name = "S{p}", position = {p}, size = 16, lanes = {(16, 8, 4, 16)[p % 4]}, gen = 4, '
                      'source = "cpu" },' for p in range(1, 21))
    cards = "\n".join(f'[[gpu]]\npart = {{ base = "nvidia-rtx-a4000", slot_width = {w}, pcie_lanes = {lanes}, '
                      f'cooler = "{cooler}" }}\n'
                      for w, lanes, cooler in itertools.islice(
                          itertools.product((1, 2, 3), (16, 8, 4, 2), ("open-air", "blower")), 12))
    build = tmp_path / "twelve-kinds.toml"
    build.write_text(f'name = "Twelve kinds of card"\ncpu = "amd-epyc-7543p"\n'
                     'case = { base = "generic-8-gpu-aluminium-mining-frame", expansion_slots = 20 }\n'
                     f'[[psu]]\npart = "corsair-hx1200i"\n[motherboard]\nbase = "asrock-rack-romed8-2t"\n'
                     f'slots = [\n{slots}\n]\n{cards}')
    solver.solve_cache_clear()
    assert main(["check", str(build)]) == 2
    err = capsys.readouterr().err
    assert f"{build}: the search for the best placement of 12 of the 12 GPUs" in err
    assert "Traceback" not in err


def test_searches_paid_from_an_allowance_stop_when_it_runs_out() -> None:
    solver.solve_cache_clear()
    allowance = SearchAllowance(500)
    # eight kinds of card on 20 slots need thousands of states: more than the allowance holds
    assert solve_within(Problem(Layout(_twenty_slots(), 21, 21, 0, 4, False), _all_different(8)), allowance) is None
    assert allowance.states == 0
    assert solve_within(Problem(Layout(_ring(5), 6, 6, 0, 4, False), _cards(1)), allowance) is None


def test_the_fixes_of_one_check_share_one_allowance_of_states(monkeypatch: pytest.MonkeyPatch) -> None:
    # eight kinds of 1–3-slot cards on a 20-slot board: one is left out, so slot.placement searches for
    # fixes (risers, thinner cards, bigger cases) — dozens of variants, each thousands of states
    visited: list[int] = []
    programme = solver._Search.programme

    def counted(self: solver._Search, budget: int) -> tuple[list[tuple[int, int]] | None, int]:
        try:
            chosen, states = programme(self, budget)
        except PlacementTooLarge:
            visited.append(budget)
            raise
        visited.append(states)
        return chosen, states

    monkeypatch.setattr(solver._Search, "programme", counted)
    monkeypatch.setattr(solver, "FIX_SEARCH_STATES", 5_000)
    solver.solve_cache_clear()
    slots = "\n".join(f'  {{ name = "S{p}", position = {p}, size = 16, lanes = {(16, 8, 4, 16)[p % 4]}, gen = 4, '
                      'source = "cpu" },' for p in range(1, 21))
    cards = "\n".join(f'[[gpu]]\npart = {{ base = "nvidia-rtx-a4000", slot_width = {w}, pcie_lanes = {lanes}, '
                      f'cooler = "{cooler}" }}\n'
                      for w, lanes, cooler in itertools.islice(
                          itertools.product((3, 2, 1), (16, 8, 4, 2), ("open-air", "blower")), 8))
    text = (f'name = "Eight kinds of card"\ncpu = "amd-epyc-7543p"\n'
            'case = { base = "generic-8-gpu-aluminium-mining-frame", expansion_slots = 20 }\n'
            f'[[psu]]\npart = "corsair-hx1200i"\n[motherboard]\nbase = "asrock-rack-romed8-2t"\n'
            f'slots = [\n{slots}\n]\n{cards}')
    from planner.build.buildfile import loads
    from planner.build.resolve import resolve
    from planner.checks.engine.runner import run_checks

    catalog = Catalog()
    spec, raw = loads(text, "eight-kinds.toml")
    findings = run_checks(resolve(spec, raw, catalog, label="eight-kinds.toml", text=text), catalog)
    assert any(f.code == "slot.placement" and f.severity == "error" for f in findings)
    # the build's own search, then at most the allowance (the search it runs out in stops one state past it)
    assert visited[0] <= STATE_BUDGET
    assert sum(visited[1:]) <= 5_000 + 1


def test_a_card_that_only_an_open_frame_would_hold_gets_no_case_fix_and_no_crash(tmp_path: Path) -> None:
    # a 3-slot card in a slot at position 20 runs past any case (20 positions at most); an endless frame
    # holds it, so bigger_case looked for a case size above 20 and raised StopIteration
    build = tmp_path / "last-position.toml"
    build.write_text('name = "A slot at the last position"\ncpu = "amd-epyc-7543p"\n'
                     'case = { base = "generic-8-gpu-aluminium-mining-frame", expansion_slots = 20, '
                     'open_frame = false }\n[[psu]]\npart = "corsair-hx1200i"\n'
                     '[motherboard]\nbase = "asrock-rack-romed8-2t"\nslots = [\n'
                     '  { name = "S17", position = 17, size = 16, lanes = 16, gen = 4, source = "cpu" },\n'
                     '  { name = "S20", position = 20, size = 16, lanes = 16, gen = 4, source = "cpu" },\n]\n'
                     '[[gpu]]\npart = "nvidia-rtx-3090-fe"\ncount = 2\npower_limit = "200 W"\n')
    report = check_file(build, Catalog())
    placement = next(f for f in report.findings if f.code == "slot.placement")
    assert not any("expansion slots" in fix.description for fix in placement.fixes)
