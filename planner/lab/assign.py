"""Assign each PSU to an outlet of a node (wall circuit or PDU bank) so every limit holds and phases balance.

Exact branch and bound, no dependency: the objective is lexicographic — (1) the highest utilisation of any
limit (node watts over its continuous limit, line amps over its limit), (2) the highest line utilisation
(which balances the phases of a feed), (3) the PSUs moved from where they are plugged now. Each part only
grows as PSUs are placed (a line current is a sum of phasors at most 60° apart), so a partial assignment whose
objective already reaches the best complete one is cut. Three more cuts make it prove lab-sized optima:

* PSUs of one machine kind with the same load are interchangeable: they take nodes in non-decreasing order.
* Alike PDUs on alike feeds, alike banks of one PDU and alike wall circuits are interchangeable too: the second
  takes a PSU only once the first holds one (`symmetry_guards`).
* A capacity bound (`_CapacityBound`): the PSUs still to place must fit the outlets left and the room left under
  the best utilisation, bank by bank and, where a line's current is a plain sum (single-phase feeds, PDU inputs,
  wye lines to neutral), line by line; this proves pigeonhole optima the plain cut would enumerate.

With PSUs plugged in now, the utilisations are solved first as if none were, then the fewest moves among the
assignments that reach them. The 20-machine lab of benchmarks/lab.py (20 PSUs, 15 banks) is proved in about a
tenth of a second; an ILP library (OR-Tools, PuLP) would add a dependency and a solver binary for no gain at
this size. `brute_force` enumerates every assignment (tests hold them equal, twins included).

Outlets are a hard limit: a C20 inlet needs a C19 outlet; a C14 inlet takes a C13, or a C19 through a
C19-to-C14 cord; a wall circuit's receptacles take either (a plug-to-C13/C19 cord)."""

from __future__ import annotations

import itertools
import math
import time
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


class _CapacityBound:
    """Whether the PSUs still to place can fit under a utilisation T at all: each node takes at most its free
    outlets (a C20 inlet only a C19) and, at T, at most its room left over the lightest PSU still to place, and
    at most the heaviest such PSUs that fit that room; a line whose nodes all draw the same phasor (a single-phase
    feed, a PDU's input, a wye line to neutral) caps the nodes under it together, its current being their plain
    sum. These caps nest (a feed over its PDUs over their banks), so what the room can still take is summed up the
    nesting; when it is less than the PSUs still to place, in number or in the least watts they draw, no
    completion reaches T. This is what proves a pigeonhole optimum (eleven PSUs on three single-phase lines of four
    outlets: one line takes four) without trying every way to fill the outlets."""

    def __init__(self, items: Sequence[Item], nodes: Sequence[Node], lines: Sequence[Line],
                 order: Sequence[int]) -> None:
        self.nodes, self.lines, self.n_items = nodes, lines, len(items)
        self.first_free = sum(1 for i in order if items[i].fixed is not None)
        heaviest = [max(items[i].walls) for i in order]
        self.top = [0.0]
        for w in heaviest:
            self.top.append(self.top[-1] + w)
        self.lightest = [math.inf] * (len(order) + 1)
        self.c14_left = [0] * (len(order) + 1)
        self.rest = [0.0] * (len(order) + 1)  # the least watts the PSUs from the k-th on draw
        for k in range(len(order) - 1, -1, -1):
            item = items[order[k]]
            self.lightest[k] = min(self.lightest[k + 1], min(item.walls))
            self.c14_left[k] = self.c14_left[k + 1] + (not item.c20)
            self.rest[k] = self.rest[k + 1] + min(item.walls)
        members: dict[int, list[tuple[int, complex]]] = {}
        for n, node in enumerate(nodes):
            for line, unit in node.lines:
                members.setdefault(line, []).append((n, unit))
        groups: dict[frozenset[int], list[tuple[int, float]]] = {}
        for line, drawn in members.items():
            voltages = {round(nodes[n].voltage, 6) for n, _ in drawn}
            if len(voltages) == 1 and all(abs(unit - drawn[0][1]) < 1e-9 for _, unit in drawn):
                groups.setdefault(frozenset(n for n, _ in drawn), []).append((line, nodes[drawn[0][0]].voltage))
        sets = sorted(groups, key=len)
        laminar = [a for a in sets if all(a <= b or b <= a or not a & b for b in sets)]
        self.groups = [(a, groups[a]) for a in laminar]  # smallest first: children before their parents
        self.parent: list[int | None] = []
        for i, a in enumerate(laminar):
            self.parent.append(next((j for j in range(i + 1, len(laminar)) if a < laminar[j]), None))
        covered = set().union(*laminar) if laminar else set()
        self.innermost = {n: next((i for i, a in enumerate(laminar) if n in a), None) for n in covered}

    def cannot_fit(self, k: int, t: float, t_line: float, node_w: Sequence[float], phasor: Sequence[complex],
                   c20_used: Sequence[int], c14_used: Sequence[int]) -> bool:
        """Whether no completion keeps every node at or under `t` and every line at or under `t_line`."""
        if k < self.first_free:
            return False  # PSUs fixed to their nodes are still to place: they are not sorted by weight
        left = self.n_items - k
        lightest = self.lightest[k]
        c14_left = self.c14_left[k]
        top = self.top

        def most(count: int) -> float:
            return top[min(k + count, self.n_items)] - top[k]

        count = [0] * len(self.groups)
        cap = [0.0] * len(self.groups)
        total_count, total_cap = 0, 0.0
        for n, node in enumerate(self.nodes):
            if node.wall_outlet:
                slots = node.c13 - c20_used[n] - c14_used[n]
            else:
                free_c19 = node.c19 - c20_used[n]
                slots = min(node.c13 + node.c19 - c20_used[n] - c14_used[n], free_c19 + c14_left)
            room = t * node.limit_w - node_w[n]
            fit = min(slots, int(room / lightest + 1e-9)) if room > 0 else 0
            fit = max(fit, 0)
            take = min(room, most(fit)) if fit else 0.0
            g = self.innermost.get(n)
            if g is None:
                total_count += fit
                total_cap += take
            else:
                count[g] += fit
                cap[g] += take
        for g, (_, on) in enumerate(self.groups):
            room = min((t_line * self.lines[line].limit_a - abs(phasor[line])) * voltage for line, voltage in on)
            fit = min(count[g], int(room / lightest + 1e-9)) if room > 0 else 0
            fit = max(fit, 0)
            take = min(cap[g], room, most(fit)) if fit else 0.0
            up = self.parent[g]
            if up is None:
                total_count += fit
                total_cap += take
            else:
                count[up] += fit
                cap[up] += take
        return total_count < left or total_cap + 1e-6 < self.rest[k]


def symmetry_guards(items: Sequence[Item], nodes: Sequence[Node],
                    lines: Sequence[Line]) -> list[tuple[tuple[int, ...], ...]]:
    """For each node, sets of nodes: of each set, one node at least must hold a PSU before this node may take one: the
    lowest-first rule for interchangeable parts of the room, so the search never tries a placement that only
    relabels one it has tried.

    A unit is a set of nodes joined by the lines they draw from (a feed with its PDUs, or one wall circuit). Two
    units are alike when their nodes, in order, have the same voltage, limit and outlets and draw the same
    phasors from lines with the same limits, and their nodes lie in ranges that do not overlap; of alike units,
    the second may take a PSU only once the first holds one, and so on. Within a unit, banks alike (the same
    figures on the same lines) follow the same rule. Units where a PSU is fixed or plugged now are nobody's twin
    (a move counts on them). Together with alike PSUs taking nodes in order, every assignment keeps a twin the
    search reaches: relabel the units and banks a group of alike PSUs is the first to use in the order it uses
    them (`tests/unit/lab/test_lab_assign.py` holds the search equal to brute force on rooms with twins)."""
    n_nodes = len(nodes)
    parent = list(range(n_nodes))

    def find(a: int) -> int:
        while parent[a] != a:
            parent[a] = parent[parent[a]]
            a = parent[a]
        return a

    by_line: dict[int, int] = {}
    for n, node in enumerate(nodes):
        for line, _ in node.lines:
            if line in by_line:
                parent[find(n)] = find(by_line[line])
            else:
                by_line[line] = n
    units: dict[int, list[int]] = {}
    for n in range(n_nodes):
        units.setdefault(find(n), []).append(n)
    pinned = {item.fixed for item in items if item.fixed is not None} | {item.now for item in items
                                                                         if item.now is not None}

    def figures(node: Node) -> tuple[object, ...]:
        return (round(node.voltage, 6), round(node.limit_w, 6), node.c13, node.c19, node.wall_outlet)

    def signature(members: list[int]) -> tuple[object, ...]:
        local: dict[int, int] = {}
        out: list[object] = []
        for n in members:
            draws = []
            for line, unit in nodes[n].lines:
                local.setdefault(line, len(local))
                draws.append((local[line], round(lines[line].limit_a, 6), round(unit.real, 6),
                              round(unit.imag, 6)))
            out.append((figures(nodes[n]), tuple(draws)))
        return tuple(out)

    guards: list[list[tuple[int, ...]]] = [[] for _ in range(n_nodes)]
    classes: dict[tuple[object, ...], list[list[int]]] = {}
    for members in sorted(units.values()):
        if any(n in pinned for n in members):
            continue
        classes.setdefault(signature(members), []).append(members)
        # banks alike within the unit: the same figures on the same lines
        twins: dict[tuple[object, ...], list[int]] = {}
        for n in members:
            key = (figures(nodes[n]), tuple((line, round(u.real, 6), round(u.imag, 6)) for line, u in nodes[n].lines))
            twins.setdefault(key, []).append(n)
        for group in twins.values():
            for earlier, later in itertools.pairwise(group):
                guards[later].append((earlier,))
    for alike_units in classes.values():
        for first, then in itertools.pairwise(alike_units):
            if max(first) < min(then):
                for n in then:
                    guards[n].append(tuple(first))
    return [tuple(g) for g in guards]


def solve(items: Sequence[Item], nodes: Sequence[Node], lines: Sequence[Line],
          budget_s: float | None = BUDGET_S) -> Result:
    """The best assignment by branch and bound; after `budget_s` seconds (None: no limit) the best found, with
    `proven` False.

    In two passes when PSUs are plugged in now: first the lowest utilisations as if none were (every PSU free to
    go anywhere, so alike PDUs and banks are twins and the capacity bound is sharp), then the fewest moves among
    the assignments that reach them, starting from that answer and from where the PSUs are now."""
    deadline = None if budget_s is None else time.perf_counter() + budget_s
    if all(item.now is None for item in items):
        return _branch_and_bound(items, nodes, lines, deadline, [])
    first = _branch_and_bound([item._replace(now=None) for item in items], nodes, lines, deadline, [])
    if first.where is None:
        return first
    now = [item.fixed if item.fixed is not None else item.now for item in items]
    starts = [list(first.where)]
    if all(n is not None for n in now) and _fits_outlets(items, nodes, now):  # type: ignore[arg-type]
        starts.append(now)  # type: ignore[arg-type]
    second = _branch_and_bound(items, nodes, lines, deadline, starts)
    return second._replace(proven=first.proven and second.proven)


def _branch_and_bound(items: Sequence[Item], nodes: Sequence[Node], lines: Sequence[Line], deadline: float | None,
                      starts: Sequence[Sequence[int]]) -> Result:
    """The search of `solve`, from the best of `starts` (complete assignments) and a greedy pass."""
    n_items, n_nodes, n_lines = len(items), len(nodes), len(lines)
    order = sorted(range(n_items), key=lambda i: (items[i].fixed is None, -max(items[i].walls), items[i].alike))
    node_w = [0.0] * n_nodes
    phasor = [0j] * n_lines
    c20_used = [0] * n_nodes
    c14_used = [0] * n_nodes
    guards = symmetry_guards(items, nodes, lines)
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

    bound = _CapacityBound(items, nodes, lines, order)

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
        if best_score is not None and k < n_items:
            # better is a lower utilisation, or the same with a lower line utilisation, or the same two with fewer
            # moves: prune when neither the first nor the second can still be had
            util, line_util = best_score.util, best_score.line_util
            tie_line = min(line_util + (EPS if moves < best_score.moves else -EPS), util + EPS)
            state = (node_w, phasor, c20_used, c14_used)
            if bound.cannot_fit(k, util + EPS, tie_line, *state) and \
                    (tie_line >= util - EPS or bound.cannot_fit(k, util - EPS, util - EPS, *state)):
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
            if not fits(item, n) or any(not any(c20_used[m] or c14_used[m] for m in twins) for twins in guards[n]):
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
    for start in starts:
        start_score = score(items, nodes, lines, start)
        if best_score is None or start_score.better(best_score):
            best, best_score = list(start), start_score
    search(0, 0)
    if best is None:
        return Result(None, None, None, proven)
    return Result(tuple(best), best_score, binding(items, nodes, lines, best), proven)
