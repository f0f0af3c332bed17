"""The lab's assignment solver equals brute force on small labs (issue 30, acceptance 2)."""

from __future__ import annotations

import cmath
import math
from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from planner.lab import assign
from planner.lab.power import Line, Node, connection, imbalance, loads

from conftest import ROOT

PAIRS = ("L1-L2", "L2-L3", "L3-L1")


def room(banks: list[tuple[int, float, int, int]], feed_a: float) -> tuple[list[Node], list[Line]]:
    """A 208 V delta feed with banks (line pair index, breaker A, C13, C19)."""
    lines = [Line(f"f:{name}", feed_a, "f", True) for name in ("L1", "L2", "L3")]
    nodes = []
    for i, (pair, breaker, c13, c19) in enumerate(banks):
        voltage, draws = connection(PAIRS[pair], 208, True, False)
        index = {"L1": 0, "L2": 1, "L3": 2}
        nodes.append(Node(f"p/{i}", "bank", voltage, voltage * breaker * 0.8, breaker, c13, c19,
                          tuple((index[name], unit) for name, unit in draws), "p", False))
    return nodes, lines


labs = st.fixed_dictionaries({
    "banks": st.lists(st.tuples(st.integers(0, 2), st.sampled_from([15.0, 20.0, 30.0]), st.integers(0, 3),
                                st.integers(0, 3)), min_size=1, max_size=4),
    "feed": st.sampled_from([20.0, 30.0, 50.0]),
    "psus": st.lists(st.tuples(st.floats(200, 2500), st.booleans(), st.integers(0, 5), st.booleans()),
                     min_size=1, max_size=6),
})


@settings(max_examples=150, deadline=None)
@given(labs)
def test_branch_and_bound_equals_brute_force(lab: dict[str, Any]) -> None:
    nodes, lines = room(lab["banks"], lab["feed"])
    items = []
    for k, (watts, c20, now, alike) in enumerate(lab["psus"]):
        walls = tuple(watts for _ in nodes)
        at = now if now < len(nodes) else None
        items.append(assign.Item(f"m{k}:1", walls, c20, at, None, f"{watts}:{c20}:{at}" if alike else str(k)))
    exact = assign.solve(items, nodes, lines, budget_s=None)
    brute = assign.brute_force(items, nodes, lines)
    assert exact.proven
    assert (exact.where is None) == (brute.where is None)
    if brute.score is not None:
        assert exact.score is not None
        assert math.isclose(exact.score.util, brute.score.util, rel_tol=1e-9, abs_tol=1e-9)
        assert math.isclose(exact.score.line_util, brute.score.line_util, rel_tol=1e-9, abs_tol=1e-9)
        assert exact.score.moves == brute.score.moves
        assert exact.binding is not None


def test_a_balanced_delta_feed_carries_root_3_times_a_bank() -> None:
    nodes, _lines = room([(0, 20, 0, 2), (1, 20, 0, 2), (2, 20, 0, 2)], 30)
    ld = loads(nodes, 3, [2080.0, 2080.0, 2080.0], [0, 1, 2])
    assert all(math.isclose(a, 10 * math.sqrt(3)) for a in ld.line_a)
    assert imbalance(ld.line_a) < 1e-9


def test_a_line_to_line_bank_puts_its_current_on_both_lines() -> None:
    voltage, draws = connection("L1-L2", 208, True, False)
    assert voltage == 208 and [name for name, _ in draws] == ["L1", "L2"]
    assert math.isclose(cmath.phase(draws[0][1]), math.pi / 6)  # 30° ahead of L1's line-to-neutral phasor


def test_when_nothing_fits_the_binding_limit_is_named() -> None:
    nodes, lines = room([(0, 20, 0, 2)], 50)
    items = [assign.Item(f"m{k}:1", (3000.0,), True, None, None, "a") for k in range(2)]
    result = assign.solve(items, nodes, lines)
    assert result.score is not None and result.score.util > 1 and result.binding == "p/0"


def test_a_400_v_wye_bank_to_neutral_runs_at_230_v_on_one_line() -> None:
    voltage, draws = connection("L2-N", 400, True, True)
    assert math.isclose(voltage, 400 / math.sqrt(3)) and [name for name, _ in draws] == ["L2"]


def test_runtime_is_linear_between_the_datasheet_rows() -> None:
    from planner.lab.lab import runtime_minutes

    table = [[1000.0, 30.0], [2000.0, 14.0], [4000.0, 5.0]]
    assert runtime_minutes(table, 500) == 30  # below the lightest row: that row's, no more
    assert math.isclose(runtime_minutes(table, 3000), 9.5)
    assert runtime_minutes(table, 4500) == 0


def twin_room(units: list[tuple[int, float, int]], circuits: list[float]) -> tuple[list[Node], list[Line]]:
    """Single-phase 208 V feeds, each with one PDU of `banks` alike banks (banks, feed A, C19 per bank), and
    120 V wall circuits of the given continuous limits: alike units and banks, the twins the search skips."""
    nodes: list[Node] = []
    lines: list[Line] = []
    for u, (banks, feed_a, c19) in enumerate(units):
        lines.append(Line(f"f{u}:L1", feed_a, f"f{u}", False))
        for b in range(banks):
            nodes.append(Node(f"p{u}/{b}", "bank", 208, 208 * 20 * 0.8, 20, 1, c19, ((len(lines) - 1, 1 + 0j),),
                              f"p{u}", False))
    for c, limit in enumerate(circuits):
        nodes.append(Node(f"c{c}", "circuit", 120, limit, 20, 2, 0, (), None, True))
    return nodes, lines


twin_labs = st.fixed_dictionaries({
    "units": st.lists(st.tuples(st.integers(1, 2), st.sampled_from([16.0, 24.0]), st.integers(1, 2)),
                      min_size=1, max_size=3),
    "circuits": st.lists(st.sampled_from([1440.0, 1920.0]), max_size=2),
    "psus": st.lists(st.tuples(st.sampled_from([600.0, 1100.0, 1700.0]), st.booleans(), st.integers(0, 6),
                               st.integers(0, 2)), min_size=1, max_size=5),
})


@settings(max_examples=200, deadline=None)
@given(twin_labs)
def test_the_search_skips_twin_pdus_and_banks_and_still_equals_brute_force(lab: dict[str, Any]) -> None:
    nodes, lines = twin_room(lab["units"], lab["circuits"])
    if len(nodes) > 6:
        nodes = nodes[:6]  # brute force stays small; a cut unit is still a room
        lines = lines[: max((k for n in nodes for k, _ in n.lines), default=-1) + 1]
    items = []
    for k, (watts, c20, at, how) in enumerate(lab["psus"]):
        walls = tuple(watts * (1.04 if node.voltage < 200 else 1.0) for node in nodes)  # worse efficiency at 120 V
        now = at if how == 1 and at < len(nodes) else None
        fixed = at if how == 2 and at < len(nodes) else None
        items.append(assign.Item(f"m{k}:1", walls, c20, now, fixed, f"{watts}:{c20}:{now}:{fixed}"))
    exact = assign.solve(items, nodes, lines, budget_s=None)
    brute = assign.brute_force(items, nodes, lines)
    assert exact.proven
    assert (exact.where is None) == (brute.where is None)
    if brute.score is not None and exact.score is not None:
        assert math.isclose(exact.score.util, brute.score.util, rel_tol=1e-9, abs_tol=1e-9)
        assert math.isclose(exact.score.line_util, brute.score.line_util, rel_tol=1e-9, abs_tol=1e-9)
        assert exact.score.moves == brute.score.moves


def test_twin_pdus_and_banks_are_found() -> None:
    nodes, lines = twin_room([(2, 24.0, 2), (2, 24.0, 2), (1, 16.0, 1)], [1920.0, 1920.0])
    guards = assign.symmetry_guards([], nodes, lines)
    ids = [n.id for n in nodes]
    assert guards[ids.index("p0/1")] == ((ids.index("p0/0"),),)  # the second bank of a PDU after its first
    assert (ids.index("p0/0"), ids.index("p0/1")) in guards[ids.index("p1/0")]  # the second PDU after the first
    assert guards[ids.index("p2/0")] == ()  # a PDU unlike the others
    assert guards[ids.index("c1")] == ((ids.index("c0"),),)  # alike wall circuits


def test_the_20_machine_benchmark_lab_is_proved_optimal(tmp_path: Path) -> None:
    """benchmarks/lab.py's lab: 20 PSUs on 15 banks of six PDUs, no plugs given; the search completes (a count of
    search nodes bounds it, not the clock) and the optimum is the pigeonhole one: eleven PSUs on three single-phase
    lines of four C19 outlets, so one line carries four workstations."""
    import importlib.util

    from planner.catalog import Catalog, builtin_dir
    from planner.lab.lab import Room
    from planner.lab.load import read

    loader = importlib.util.spec_from_file_location("benchmark_lab", ROOT / "benchmarks" / "lab.py")
    assert loader is not None and loader.loader is not None
    bench = importlib.util.module_from_spec(loader)
    loader.loader.exec_module(bench)

    path = ROOT / "examples" / "labs" / f".test-{tmp_path.name}.toml"
    path.write_text(bench.lab_text("../.."), encoding="utf-8")
    try:
        spec, text, label = read(path)
        room = Room(spec, text, label, Catalog([builtin_dir()]))
        placed, _ = room.initial()
    finally:
        path.unlink()
    unplugged = placed._replace(where=tuple(-1 for _ in placed.where))
    result = assign.solve(room.items(unplugged, set(range(len(room.psus)))), room.nodes, room.lines, budget_s=None)
    assert result.proven and result.score is not None
    assert result.binding is not None and result.binding.split(":")[0] in {"pdu-4", "pdu-5", "pdu-6", "f4", "f5",
                                                                            "f6"}
    single_phase_line = 24 * 208
    workstation = min(min(item.walls) for item, p in zip(room.items(unplugged), room.psus, strict=True)
                      if p.machine.startswith("ws"))
    assert math.isclose(result.score.util, 4 * workstation / single_phase_line, rel_tol=1e-6)
    replug = assign.solve(room.items(placed), room.nodes, room.lines, budget_s=None)
    assert replug.proven and replug.score is not None and replug.score.moves == 0
