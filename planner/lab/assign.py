"""Assign each PSU to an outlet of a node (wall circuit or PDU bank) so every limit holds and phases balance.

Exact branch and bound, no dependency: the objective is lexicographic — (1) the highest utilisation of any
limit (node watts over its continuous limit, line amps over its limit), (2) the highest line utilisation
(which balances the phases of a feed), (3) the PSUs moved from where they are plugged now. Each part only
grows as PSUs are placed (a line current is a sum of phasors at most 60° apart), so a partial assignment whose
objective already reaches the best complete one is cut. PSUs of one machine kind with the same load are
interchangeable: they take nodes in non-decreasing order, which cuts their permutations. Lab sizes (≤ 64 PSUs,
≤ 40 nodes) solve in milliseconds to a second; an ILP library (OR-Tools, PuLP) would add a dependency and a
solver binary for no gain at this size. `brute_force` enumerates every assignment (tests hold them equal).

Outlets are a hard limit: a C20 inlet needs a C19 outlet; a C14 inlet takes a C13, or a C19 through a
C19-to-C14 cord; a wall circuit's receptacles take either (a plug-to-C13/C19 cord)."""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from typing import NamedTuple

from planner.lab.power import Line, Node, loads

EPS = 1e-9
MAX_NODES = 400_000  # search nodes before the answer is returned as the best found (not proven)
BUDGET_S = 0.5  # seconds of search before the same


class Item(NamedTuple):
    """A PSU to place."""

    id: str  # MACHINE:PSU
    walls: tuple[float, ...]  # its wall draw at each node's voltage, W
    c20: bool
    now: int | None  # node it is plugged into now (a move is counted when it changes)
    fixed: int | None  # node it must stay on
    alike: str  # items with the same key are interchangeable


class Score(NamedTuple):
    util: float  # highest utilisation of any limit
    line_util: float  # highest line utilisation
    moves: int

    def better(self, other: Score) -> bool:
        if self.util < other.util - EPS:
            return True
        if self.util > other.util + EPS:
            return False
        if self.line_util < other.line_util - EPS:
            return True
        if self.line_util > other.line_util + EPS:
            return False
        return self.moves < other.moves


class Result(NamedTuple):
    where: tuple[int, ...] | None  # node of each item; None: no assignment fits the outlets
    score: Score | None
    binding: str | None  # the limit at the best assignment's highest utilisation
    proven: bool  # the search ran to the end


def score(items: Sequence[Item], nodes: Sequence[Node], lines: Sequence[Line], where: Sequence[int]) -> Score:
    walls = [item.walls[n] for item, n in zip(items, where, strict=True)]
    ld = loads(nodes, len(lines), walls, where)
    node_u = max((w / node.limit_w for w, node in zip(ld.node_w, nodes, strict=True)), default=0.0)
    line_u = max((a / line.limit_a for a, line in zip(ld.line_a, lines, strict=True)), default=0.0)
    moves = sum(1 for item, n in zip(items, where, strict=True) if item.now is not None and item.now != n)
    return Score(max(node_u, line_u), line_u, moves)


def binding(items: Sequence[Item], nodes: Sequence[Node], lines: Sequence[Line], where: Sequence[int]) -> str:
    """The limit at the highest utilisation of an assignment."""
    walls = [item.walls[n] for item, n in zip(items, where, strict=True)]
    ld = loads(nodes, len(lines), walls, where)
    best = max([(w / node.limit_w, node.id) for w, node in zip(ld.node_w, nodes, strict=True)]
               + [(a / line.limit_a, line.id) for a, line in zip(ld.line_a, lines, strict=True)])
    return best[1]


def _fits_outlets(items: Sequence[Item], nodes: Sequence[Node], where: Sequence[int]) -> bool:
    for n, node in enumerate(nodes):
        c20 = sum(1 for item, w in zip(items, where, strict=False) if w == n and item.c20)
        c14 = sum(1 for item, w in zip(items, where, strict=False) if w == n and not item.c20)
        if node.wall_outlet:
            if c20 + c14 > node.c13:
                return False
        elif c20 > node.c19 or c14 > node.c13 + node.c19 - c20:
            return False
    return True


def brute_force(items: Sequence[Item], nodes: Sequence[Node], lines: Sequence[Line]) -> Result:
    """Every assignment (tests only)."""
    best: tuple[int, ...] | None = None
    best_score: Score | None = None
    choices = [[item.fixed] if item.fixed is not None else range(len(nodes)) for item in items]
    for where in itertools.product(*choices):
        if not _fits_outlets(items, nodes, where):
            continue
        s = score(items, nodes, lines, where)
        if best_score is None or s.better(best_score):
            best, best_score = tuple(where), s
    return Result(best, best_score, binding(items, nodes, lines, best) if best else None, True)


def solve(items: Sequence[Item], nodes: Sequence[Node], lines: Sequence[Line],
          budget_s: float | None = BUDGET_S) -> Result:
    """The best assignment by branch and bound; after `budget_s` seconds (None: no limit) the best found, with
    `proven` False."""
    import time

    deadline = None if budget_s is None else time.perf_counter() + budget_s
    n_items, n_nodes, n_lines = len(items), len(nodes), len(lines)
    order = sorted(range(n_items), key=lambda i: (items[i].fixed is None, -max(items[i].walls), items[i].alike))
    node_w = [0.0] * n_nodes
    phasor = [0j] * n_lines
    c20_used = [0] * n_nodes
    c14_used = [0] * n_nodes
    where = [-1] * n_items
    best: list[int] | None = None
    best_score: Score | None = None
    visited = 0
    proven = True
    total_limit = sum(node.limit_w for node in nodes)
    # the least wall draw still to place after the k-th item of the order: no node's utilisation can end below
    # (placed + still to place) ÷ every node's limit, the average
    rest = [0.0] * (n_items + 1)
    for k in range(n_items - 1, -1, -1):
        rest[k] = rest[k + 1] + min(items[order[k]].walls)

    def fits(item: Item, n: int) -> bool:
        node = nodes[n]
        if node.wall_outlet:
            return c20_used[n] + c14_used[n] < node.c13
        if item.c20:
            return c20_used[n] < node.c19 and c14_used[n] <= node.c13 + node.c19 - c20_used[n] - 1
        return c14_used[n] < node.c13 + node.c19 - c20_used[n]

    def partial(moves: int) -> Score:
        node_u = max((node_w[n] / nodes[n].limit_w for n in range(n_nodes)), default=0.0)
        line_u = max((abs(phasor[k]) / lines[k].limit_a for k in range(n_lines)), default=0.0)
        return Score(max(node_u, line_u), line_u, moves)

    def place(i: int, n: int, sign: int) -> None:
        item = items[i]
        w = item.walls[n] * sign
        node_w[n] += w
        current = w / nodes[n].voltage
        for line, unit in nodes[n].lines:
            phasor[line] += current * unit
        if item.c20:
            c20_used[n] += sign
        else:
            c14_used[n] += sign

    def prunes(s: Score) -> bool:
        return best_score is not None and not s.better(best_score)

    def search(k: int, moves: int) -> None:
        nonlocal best, best_score, visited, proven
        visited += 1
        if visited > MAX_NODES or (deadline is not None and visited % 256 == 0 and time.perf_counter() > deadline):
            proven = False
            return
        if not proven:
            return
        if best_score is not None and total_limit > 0 and \
                (sum(node_w) + rest[k]) / total_limit > best_score.util + EPS:
            return
        if k == n_items:
            s = partial(moves)
            if best_score is None or s.better(best_score):
                best, best_score = list(where), s
            return
        i = order[k]
        item = items[i]
        low = 0
        if k > 0 and item.fixed is None:
            prev = order[k - 1]
            if items[prev].alike == item.alike and items[prev].fixed is None and items[prev].now == item.now:
                low = where[prev]  # interchangeable: non-decreasing nodes
        candidates = [item.fixed] if item.fixed is not None else range(low, n_nodes)
        trials = []
        for n in candidates:
            if not fits(item, n):
                continue
            place(i, n, 1)
            step = moves + (item.now is not None and item.now != n)
            s = partial(step)
            # ties (the busiest limit is elsewhere) go to the node, then the lines, left with the most room
            own = node_w[n] / nodes[n].limit_w
            own_lines = max((abs(phasor[k]) / lines[k].limit_a for k, _ in nodes[n].lines), default=0.0)
            place(i, n, -1)
            if not prunes(s):
                trials.append((s.util, s.line_util, step, own_lines, own, n))
        trials.sort()
        for _, _, step, _, _, n in trials:
            place(i, n, 1)
            s = partial(step)
            if not prunes(s):
                where[i] = n
                search(k + 1, step)
                where[i] = -1
            place(i, n, -1)

    # an incumbent first: each PSU, heaviest first, where it leaves the most room (no symmetry rule: the search's
    # rule that alike PSUs take nodes in order would steer this greedy pass into a corner)
    greedy_moves = 0
    for k in range(n_items):
        i = order[k]
        item = items[i]
        choice: tuple[float, float, float, float, int] | None = None
        for n in [item.fixed] if item.fixed is not None else range(n_nodes):
            if not fits(item, n):
                continue
            place(i, n, 1)
            s = partial(0)
            own_lines = max((abs(phasor[j]) / lines[j].limit_a for j, _ in nodes[n].lines), default=0.0)
            key = (s.util, s.line_util, own_lines, node_w[n] / nodes[n].limit_w, n)
            place(i, n, -1)
            if choice is None or key < choice:
                choice = key
        if choice is None:
            break
        where[i] = choice[-1]
        place(i, choice[-1], 1)
        greedy_moves += item.now is not None and item.now != choice[-1]
    else:
        best, best_score = list(where), partial(greedy_moves)
    for i in range(n_items):
        if where[i] >= 0:
            place(i, where[i], -1)
            where[i] = -1
    search(0, 0)
    if best is None:
        return Result(None, None, None, proven)
    return Result(tuple(best), best_score, binding(items, nodes, lines, best), proven)
