"""The lab's assignment solver equals brute force on small labs (issue 30, acceptance 2)."""

from __future__ import annotations

import cmath
import math
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from planner.lab import assign
from planner.lab.power import Line, Node, connection, imbalance, loads

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
