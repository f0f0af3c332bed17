"""Which PSU feeds what, and the load on each PSU and circuit (README: DC budget, docs/verdicts.md psu.split).

The PSU listed first feeds the motherboard: the CPU (through its EPS plugs), board, RAM, drives, fans and
`extras.other`, and any card without power inputs (it draws from its slot). Each other GPU takes all its
power from one PSU (its cables never mix two units): the one the build pins with `[[gpu]] psu = N`, else
the one this module chooses. Among the ways to share the GPUs out it prefers, in order: every input fed
(adapters allowed), no PSU over its rating, no circuit over its breaker rating, then none over its continuous
limit (a code rule for multi-hour loads, which outlet.continuous warns about), the lowest peak of "load ÷ target"
over PSUs and circuits, fewest adapters. Identical cards are interchangeable, so the
search runs over how many of each kind go to each PSU; past SPLIT_MAX_CANDIDATES it goes greedy.

This module is plain Python (no networkx): it runs on every check. When no split works, delivery_graph.py
names the bottleneck with a max-flow/min-cut.
"""


import itertools
import math
from collections.abc import Iterator, Sequence
from typing import NamedTuple

from planner.build.resolve import ResolvedBuild
from planner.physics import params
from planner.physics.connectors import PlugNeed, PlugUse, allocate_to, cpu_eps_plugs, gpu_plug_need
from planner.physics.power import DcBudget, psu_rating
from planner.physics.transients import gpu_peak
from planner.physics.wall import CircuitDraw, PsuOnCircuit, circuit_draws

BOARD_PSU = 0  # the first [[psu]] feeds the motherboard


class PsuShare(NamedTuple):
    """One PSU's part of the load."""

    psu: int  # its index in the build
    gpus: tuple[int, ...]  # GPU indices it feeds through their power inputs
    load: float  # sustained DC, W
    peak: float  # DC with every GPU on it at its transient peak, W
    rating: float  # continuous rating on its circuit, W
    plugs: PlugUse

    @property
    def fraction(self) -> float:
        return self.load / self.rating


class Split(NamedTuple):
    """The chosen way to share the load among PSUs, and what it puts on each PSU and circuit."""

    psus: tuple[PsuShare, ...]
    circuits: tuple[CircuitDraw, ...]
    gpu_psu: tuple[int, ...]  # the PSU feeding each GPU
    feasible: bool  # inputs fed, every PSU within its rating and every circuit within its breaker rating

    def circuit_of(self, psu: int) -> CircuitDraw:
        return next(c for c in self.circuits if psu in c.psus)


class _Problem:
    """What every candidate split shares, computed once."""

    def __init__(self, build: ResolvedBuild, budget: DcBudget, psu_target: float) -> None:
        self.build = build
        self.target = psu_target
        self.ratings = [psu_rating(build, i) for i in range(len(build.psus))]
        # identical cards (same board, chip and limit) have the same inputs and peak: work them out once
        needs: dict[tuple[int, int, float], tuple[PlugNeed, float]] = {}
        for g in build.gpus:
            key = (id(g.board), id(g.chip), g.power_limit)
            if key not in needs:
                needs[key] = (gpu_plug_need(g), gpu_peak(g))
        self.needs = [needs[id(g.board), id(g.chip), g.power_limit][0] for g in build.gpus]
        self.peaks = [needs[id(g.board), id(g.chip), g.power_limit][1] for g in build.gpus]
        self.cabled = [need != _NO_INPUTS for need in self.needs]
        self.limits = [g.power_limit for g in build.gpus]
        self.cpu_eps = cpu_eps_plugs(budget.cpu)
        self.rest = budget.rest
        self.circuits = [(c.name, c.outlet, c.other_load) for c in build.circuits]
        # each circuit's breaker rating and continuous limit (CircuitDraw's properties), in the order of its draws
        self.circuit_limits = [(c.outlet.voltage * c.outlet.breaker_current, c.outlet.continuous_limit)
                               for c in build.circuits]

    def evaluate(self, gpu_psu: Sequence[int]) -> tuple[tuple[float, ...], Split]:
        """A candidate split and its sort key (lower is better)."""
        key, shares, draws = self.score(gpu_psu)
        return key, self.split(shares, draws, gpu_psu)

    def score(self, gpu_psu: Sequence[int]) -> tuple[tuple[float, ...], list[PsuShare], tuple[CircuitDraw, ...]]:
        """A candidate's sort key (lower is better), and what it puts on each PSU and circuit."""
        shares, draws = self.loads(gpu_psu)
        target, limits = self.target, self.circuit_limits
        short = sum(sum(s.plugs.short.values()) for s in shares)  # PlugUse.short_total
        over_psu = sum(max(0.0, s.load - s.rating) for s in shares)
        over_breaker = sum(max(0.0, c.wall - breaker) for c, (breaker, _) in zip(draws, limits, strict=True))
        over_continuous = sum(max(0.0, c.wall - continuous) for c, (_, continuous) in zip(draws, limits, strict=True))
        pressure = max([s.load / s.rating / target for s in shares]  # PsuShare.fraction ÷ target
                       + [c.wall / continuous for c, (_, continuous) in zip(draws, limits, strict=True)])
        adapters = sum(len(s.plugs.adapters) for s in shares)
        key = (float(short), round(over_psu, 6), round(over_breaker, 6), round(over_continuous, 6), round(pressure, 9),
               float(adapters))
        return key, shares, draws

    def loads(self, gpu_psu: Sequence[int]) -> tuple[list[PsuShare], tuple[CircuitDraw, ...]]:
        """What a candidate split puts on each PSU and circuit."""
        build, needs, peaks, cabled, limits = self.build, self.needs, self.peaks, self.cabled, self.limits
        psus = build.psus
        on_psu: list[list[int]] = [[] for _ in psus]  # the GPU indices on each PSU, in build order
        for index, p in enumerate(gpu_psu):
            if p >= 0:  # the greedy search's cards not placed yet (-1) count on no PSU
                on_psu[p].append(index)
        shares = []
        on_circuits = []
        for p, use in enumerate(psus):
            on = on_psu[p]
            board = p == BOARD_PSU
            fed = tuple([i for i in on if cabled[i]])
            plugs = allocate_to(use.part, fed, tuple([needs[i] for i in fed]), self.cpu_eps if board else 0)
            load = sum([limits[i] for i in on]) + (self.rest if board else 0.0)
            peak = sum([peaks[i] for i in on]) + (self.rest if board else 0.0)
            rating = self.ratings[p]
            shares.append(PsuShare(p, tuple(on), load, peak, rating, plugs))
            on_circuits.append(PsuOnCircuit(use.circuit, use.part, rating, load, peak))
        return shares, circuit_draws(self.circuits, on_circuits)

    @staticmethod
    def split(shares: list[PsuShare], draws: tuple[CircuitDraw, ...], gpu_psu: Sequence[int]) -> Split:
        feasible = (not any(s.plugs.short for s in shares) and all(s.load <= s.rating for s in shares)
                    and all(c.wall <= c.breaker_rating for c in draws))
        return Split(tuple(shares), draws, tuple(gpu_psu), feasible=feasible)


_NO_INPUTS = PlugNeed(0, 0, 0, 0)


def power_split(build: ResolvedBuild, budget: DcBudget, psu_target: float = params.PSU_TARGET_LOAD.value) -> Split:
    """The best way to feed every GPU from the build's PSUs (README: DC budget), with each PSU's and circuit's load."""
    problem = _Problem(build, budget, psu_target)
    fixed: dict[int, int] = {}
    # cards the split cannot tell apart (the same board at the same limit, with the same inputs and riser) form
    # one group however the file lists them: sixteen [[gpu]] tables of one card split like one table of sixteen
    free: dict[tuple[object, ...], list[int]] = {}
    for gpu, need in zip(build.gpus, problem.needs, strict=True):
        if len(build.psus) == 1 or need == _NO_INPUTS:
            fixed[gpu.index] = BOARD_PSU
        elif gpu.psu is not None:
            fixed[gpu.index] = gpu.psu
        else:
            key = (gpu.board.id, gpu.power_limit, need, gpu.riser.id if gpu.riser is not None else None)
            free.setdefault(key, []).append(gpu.index)
    if not free:  # one candidate: no key to rank it by
        gpu_psu = [fixed[g.index] for g in build.gpus]
        return problem.split(*problem.loads(gpu_psu), gpu_psu)
    groups = list(free.values())
    count = math.prod(math.comb(len(g) + len(build.psus) - 1, len(build.psus) - 1) for g in groups)
    if count <= params.SPLIT_MAX_CANDIDATES.value:
        candidates = _every_split(groups, len(build.psus), fixed, len(build.gpus))
        _, shares, draws, best = min(((*problem.score(c), c) for c in candidates), key=lambda scored: scored[0])
        return problem.split(shares, draws, best)
    return _greedy(problem, fixed, [g for group in groups for g in group])


def _every_split(groups: list[list[int]], psus: int, fixed: dict[int, int], gpus: int) -> Iterator[list[int]]:
    """Every way to deal each group of identical GPUs out over the PSUs (counts per PSU, in order)."""
    per_group = [list(_compositions(len(group), psus)) for group in groups]
    for choice in itertools.product(*per_group):
        assignment = [0] * gpus
        for index, psu in fixed.items():
            assignment[index] = psu
        for group, counts in zip(groups, choice, strict=True):
            members = iter(group)
            for psu, n in enumerate(counts):
                for _ in range(n):
                    assignment[next(members)] = psu
        yield assignment


def _compositions(total: int, parts: int) -> Iterator[tuple[int, ...]]:
    """Ways to write `total` as an ordered sum of `parts` non-negative counts, most on the first part first."""
    if parts == 1:
        yield (total,)
        return
    for first in range(total, -1, -1):
        for rest in _compositions(total - first, parts - 1):
            yield (first, *rest)


def _greedy(problem: _Problem, fixed: dict[int, int], free: list[int]) -> Split:
    """Place the largest free card first on the PSU where the split so far scores best."""
    build = problem.build
    assignment = [fixed.get(g.index, -1) for g in build.gpus]
    for index in sorted(free, key=lambda i: -build.gpus[i].power_limit):
        best: tuple[tuple[float, ...], int] | None = None
        for psu in range(len(build.psus)):
            assignment[index] = psu
            key = problem.evaluate(assignment)[0]  # cards not placed yet (-1) count on no PSU
            if best is None or key < best[0]:
                best = (key, psu)
        assert best is not None
        assignment[index] = best[1]
    return problem.evaluate(assignment)[1]

