"""Branch and bound over the parts a partial build leaves out (README: Completing a partial build).

Stages, in the order that prunes most: board → case → riser cables → CPU → PSUs and circuits. At each stage
the candidates come cheapest first; a branch is cut when the price of its choices plus an admissible lower
bound on the rest (the cheapest candidate of every kind still open, of the board's socket for the CPU) cannot
beat the best build found, and a candidate is dropped when a check that reads only the parts chosen so far
reports an error (planner/solve/reads.py). Each complete candidate is written as build-file data and checked
in full through the same path as `planner check`, so a build the solver returns passes it; the best is
proved optimal when the search ends without hitting its limits.

What is best: among builds with no error, those that pass (no warning but the ones every completion has) come
before those that warn, then the objective (a first search refuses warnings as it refuses errors; a second,
only when nothing passes, refuses errors alone); `accept_warnings` ranks every build without an error by the
objective alone. Estimated figures are judged as if sourced (Settings.estimates_as_sourced).
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Iterator, Sequence
from typing import Any, NamedTuple

from planner.build import buildfile
from planner.build.base_system import BaseItem, base_price, base_system
from planner.build.resolve import DEFAULT_OUTLETS, CircuitUse, GpuInstance, PsuUse, ResolvedBuild, resolve
from planner.catalog import Catalog
from planner.checks.engine.context import Context, Settings
from planner.checks.engine.findings import Finding
from planner.checks.engine.registry import registered
from planner.checks.engine.runner import run_checks
from planner.checks.platform import same_socket
from planner.checks.rules.case import assign
from planner.models.build import Region
from planner.models.parts import Case, Cpu, Motherboard, Outlet, Psu, Riser
from planner.physics.power import dc_budget, rated_watts, runs_on
from planner.solve.complete import Completion, RiserPlan, completed_raw
from planner.solve.partial import Partial
from planner.solve.reads import checks_at
from planner.solve.space import FREE, Candidate, Objective, Price, Score, candidates, space_size
from planner.util.errors import InputError

MAX_PSUS = 8  # the most [[psu]] tables a build file takes
MULTI_PSUS = 3  # the most PSUs the search that refuses warnings puts in one machine (builders stop at two or three)
#: Search limits: complete builds checked in full, and candidates judged in all. Past either the search stops
#: and its answer is not claimed optimal.
MAX_LEAVES = 3_000
MAX_NODES = 300_000
#: The first search (builds that pass) stops at this many complete builds: when none passes by then, the second
#: (builds that only warn) answers, and the answer is not claimed optimal.
#: The least estimated throughput (of the cards at stock) the solver's power limits may leave while it looks for
#: a build with no warning: Dettmers' guide and Puget's measurements put the limits builders use at a few per cent
#: of speed (an RTX 3090 at 300 W: about −7 %); below 85 % a second PSU or circuit is a builder's answer.
MIN_THROUGHPUT = 0.85
MAX_STRICT_LEAVES = 1_000
#: The kinds the solver decides, as the output names them.
KIND_NAMES = {"motherboard": "motherboard", "case": "case", "risers": "riser cables", "cpu": "CPU", "psu": "PSU"}


class Leaf(NamedTuple):
    """A complete build that passes: its data, its findings, the price of what was added, its score."""

    completion: Completion
    raw: dict[str, Any]
    build: ResolvedBuild
    findings: list[Finding]
    context: Context
    price: Price
    score: Score


class Rejection(NamedTuple):
    stage: str
    code: str
    message: str


class Outcome(NamedTuple):
    best: Leaf | None
    searched: int
    space: int
    proved: bool  # the search ran to its end: `best` is optimal (or no build passes)
    rejections: list[Rejection]  # the first few rejections of each (stage, code), for the explanation
    counts: dict[tuple[str, str], int]  # (stage, code) -> candidates rejected by it
    deepest: str  # the last stage any candidate reached
    infeasible: str | None  # a sentence when the search could show at once that nothing passes


class Search:
    """One solve: the partial build, the catalogs, the objective and the limits."""

    def __init__(self, partial: Partial, catalog: Catalog, objective: Objective, *, allow_power_limits: bool = False,
                 settings: Settings | None = None, accept_warnings: bool = False,
                 min_throughput: float = MIN_THROUGHPUT) -> None:
        self.partial = partial
        self.catalog = catalog
        self.objective = objective
        self.allow_power_limits = allow_power_limits
        #: in the searches that refuse warnings, power limits may leave no less than this share of the stock
        #: throughput: below it another PSU is the builder's answer (the last search takes any limit)
        self.min_throughput = min_throughput
        #: every estimated figure judged as if it were sourced: the search never picks a part because its data
        #: is uncertain (the completed build's own report still says "estimated")
        self.settings = (settings or Settings(region=partial.region))._replace(  # type: ignore[arg-type]
            estimates_as_sourced=True)
        #: with accept_warnings every build without an error ranks by the objective alone; without it, builds
        #: that pass come first (a first search that refuses warnings as it refuses errors), then the rest
        self.accept_warnings = accept_warnings
        self.strict = False
        #: the second search: as strict, with two PSUs or more (psu.multi's wiring advice is the one warning it
        #: takes): a builder adds a PSU before accepting a unit at its limit or a power limit that halves the speed
        self.multi = False
        self.strict_cut = False  # the first search stopped at its limits (a build that passes may exist unfound)
        #: warnings of the checks that read only what the file gives (the GPUs, extras, ambient): every
        #: completion has them, so they never tell two completions apart
        self.unavoidable = frozenset(checks_at(""))
        #: what refused the builds that would only have warned, when no build passes (for the explanation)
        self.warned: Counter[tuple[str, str]] = Counter()
        self.base = partial.base
        # only parts with a price: what the solver tells a user to buy must have a price they can find (a part
        # the catalogs hold without one is used once a price file prices it)
        priced_only = True
        self.lists: dict[str, list[Candidate]] = {}
        for kind in ("motherboard", "case", "cpu", "psu"):
            if kind != "psu" and partial.given[kind]:
                self.lists[kind] = [Candidate(getattr(self.base, kind), FREE, given=True)]
            elif kind == "psu" and partial.given["psu"]:
                self.lists[kind] = []
            else:
                self.lists[kind] = candidates(catalog, kind, priced_only=priced_only)
        self.risers = [c for c in candidates(catalog, "riser", priced_only=priced_only)
                       if isinstance(c.part, Riser) and c.part.kind == "cable"]
        self.outlet = catalog.typed("outlet", DEFAULT_OUTLETS[partial.region], Outlet)
        self.searched = 0
        self.leaves = 0
        self.cut = False
        self.best: Leaf | None = None
        self.counts: Counter[tuple[str, str]] = Counter()
        self.examples: dict[tuple[str, str], Rejection] = {}
        self.deepest = ""
        self._case_ok: dict[str, list[Finding]] = {}
        self._fit: dict[tuple[Any, ...], list[Finding]] = {}
        self._cpu_floor: dict[str, Price] = {}
        self._base_floors: dict[str, Price] = {}
        self._power_refused: dict[tuple[Any, ...], list[tuple[str, str]]] = {}
        self._given_psu: dict[tuple[Any, ...], list[Finding]] = {}
        self._floors: dict[tuple[str, str], float] = {}
        # which cards may go onto riser cables: tables the file neither places nor gives a riser
        self.movable = [i for i, spec in enumerate(partial.spec.gpu) if spec.riser is None and spec.slot is None]

    # -- the search --------------------------------------------------------------------------------------
    def run(self) -> Outcome:
        infeasible = self._root()
        if infeasible is None and not self.accept_warnings:
            self.strict = True
            if self._frugal_over_continuous() is None:  # else no single PSU passes: straight to two or more
                self._boards()
            if self.best is None and not self.partial.given["psu"] and MAX_PSUS > 1:
                self.multi = True
                if self._circuit_room(self._frugal() or self.base, continuous=True) is None:
                    self.counts, self.examples, self.deepest = Counter(), {}, ""
                    self.strict_cut, self.cut, self.leaves = self.strict_cut or self.cut, False, 0
                    self._boards()
                self.multi = False
            if self.best is None:
                self.strict = False
                self.warned = self.counts
                self.counts, self.examples, self.deepest = Counter(), {}, ""
                self.strict_cut, self.cut, self.leaves = self.strict_cut or self.cut, False, 0  # its own limits
                self._case_ok.clear()
                self._fit.clear()
                self._boards()
        elif infeasible is None:
            self._boards()
        space = space_size([len(self.lists[k]) for k in ("motherboard", "case", "cpu")],
                           len(self.lists["psu"]), self._psu_cap(None), self._riser_options())
        return Outcome(self.best, self.searched, space, proved=not (self.cut or self.strict_cut),
                       rejections=list(self.examples.values()), counts=dict(self.counts), deepest=self.deepest,
                       infeasible=infeasible)

    def _root(self) -> str | None:
        """A reason nothing can pass, found before any part is chosen (the GPUs' own errors)."""
        for finding in self._errors(self.base, checks_at("")):
            return f"{finding.code}: {finding.message}"
        if not self.lists["motherboard"] or not self.lists["case"] or not self.lists["cpu"]:
            missing = [k for k in ("motherboard", "case", "cpu") if not self.lists[k]]
            return f"the catalogs hold no {' or '.join(missing)} to choose from" + self._priced_note()
        if not self.partial.given["psu"] and not self.lists["psu"]:
            return "the catalogs hold no PSU to choose from" + self._priced_note()
        if (reason := self._plugs_short() or self._slots_short()) is not None:
            return reason
        # power that no choice of board, case or CPU can bring under the circuits' breakers or the file's own
        # PSUs: judged with the CPU that draws least (the DC load only grows with the CPU's power)
        cpus = [c.part for c in self.lists["cpu"] if isinstance(c.part, Cpu)]
        if (frugal := self._frugal()) is not None:
            for reason in (self._circuit_room(frugal), self._given_psus_short(frugal)):
                if reason is not None:
                    return reason.replace(f"with the {frugal.cpu.name}", "with the least power-hungry CPU")
        if self.partial.given["psu"] and cpus:  # the file's own PSUs, judged with every CPU before any board
            refusals = [self._given_psu_errors(self._lowest_limits(self.base._replace(cpu=cpu))) for cpu in cpus]
            if all(refusals):
                first = refusals[0][0]
                return f"{first.code}: {first.message}" + (
                    f" (and with each of the {len(cpus)} CPUs the catalogs offer)" if len(cpus) > 1 else "")
        return None

    def _slots_short(self) -> str | None:
        """More cards than any board has slots to take them: each card takes a full-length slot, and a card on a
        riser cable a slot of its plug's size (slot.placement), whatever the case."""
        from planner.placement.layout import CARD_SLOT_SIZE

        boards = [c.part for c in self.lists["motherboard"] if isinstance(c.part, Motherboard)]
        if not boards or not self.base.gpus:
            return None
        plugs = [r.part.lanes for r in self.risers if isinstance(r.part, Riser)]
        plugs += [g.riser.lanes for g in self.base.gpus if g.riser is not None]
        smallest = min([CARD_SLOT_SIZE, *plugs])

        def takes(board: Motherboard) -> int:
            return sum(1 for slot in board.slots if slot.size >= smallest)

        most = max(boards, key=lambda b: (takes(b), b.id))
        slots, cards = takes(most), len(self.base.gpus)
        if cards <= slots:
            return None
        size = "full-length slots" if smallest == CARD_SLOT_SIZE else f"slots of x{smallest} or longer"
        whose = "the file's board has" if self.partial.given["motherboard"] else \
            "the boards in the catalogs with a price have at most"
        return (f"slot.placement: {cards} cards need {cards} {size} (a card, or its riser cable's plug, takes one), "
                f"but {whose} {slots} (the {most.name})")

    def _plugs_short(self) -> str | None:
        """A card whose PCIe 8-pin inputs outnumber the 8-pin plugs of every PSU it could have: a card's cables
        come from one unit (psu.connectors, psu.split), and a 12VHPWR plug cannot feed an 8-pin input."""
        from planner.physics.connectors import PCIE, gpu_plug_need, usable_plugs

        units = ([use.part for use in self.base.psus] if self.partial.given["psu"] else
                 [c.part for c in self.lists["psu"] if isinstance(c.part, Psu)])
        if not units or not self.base.gpus:
            return None
        most = max(units, key=lambda u: (usable_plugs(u, PCIE), u.id))
        plugs = usable_plugs(most, PCIE)
        for gpu in self.base.gpus:
            need = gpu_plug_need(gpu).pcie
            if need > plugs:
                whose = "the file's PSUs" if self.partial.given["psu"] else "any PSU in the catalogs with a price"
                return (f"psu.connectors: GPU{gpu.index + 1} ({gpu.board.name}) has {need} PCIe 8-pin inputs, and "
                        f"a card's cables come from one PSU, but {whose} has at most {plugs} PCIe 8-pin plugs "
                        f"(the {most.name})")
        return None

    def _priced_note(self) -> str:
        return (" with a price (the solver chooses priced parts only; a price file, --prices, prices the"
                " catalogs' others)")

    def _beaten(self, price: Price) -> bool:
        """No build whose added parts cost at least `price` can beat the best one (or fit the budget)."""
        if self.objective.over_budget(price):
            return True
        return self.best is not None and self.objective.bound(price) >= self.best.score

    def _tick(self) -> bool:
        """Count one judged candidate; False once the search must stop."""
        self.searched += 1
        if self.searched > MAX_NODES or self.leaves > (MAX_STRICT_LEAVES if self.strict else MAX_LEAVES):
            self.cut = True
        return not self.cut

    def _boards(self) -> None:
        case_floor = self._floor("case")
        psu_floor = self._floor("psu")
        for board in self.lists["motherboard"]:
            assert isinstance(board.part, Motherboard)
            cpu_floor = self._cpu_floor_for(board.part)
            if self._beaten(board.cost + case_floor + (cpu_floor or FREE) + psu_floor):
                break
            if cpu_floor is None:
                self._reject("motherboard", "cpu.socket", f"no CPU in the catalogs has socket {board.part.socket}")
                continue
            cpu_floor = cpu_floor + self._base_floor(board.part)  # the base system comes with the board and CPU
            if self._beaten(board.cost + case_floor + cpu_floor + psu_floor):
                continue
            if not self._tick():
                return
            self._note_stage("motherboard")
            build = self.base._replace(motherboard=board.part)
            if self._rejected("motherboard", self._errors(build, checks_at("motherboard"))):
                continue
            self._cases(board, cpu_floor, psu_floor)
            if self.cut:
                return

    def _cases(self, board: Candidate, cpu_floor: Price, psu_floor: Price) -> None:
        assert isinstance(board.part, Motherboard)
        for case in self.lists["case"]:
            assert isinstance(case.part, Case)
            price = board.cost + case.cost
            if self._beaten(price + cpu_floor + psu_floor):
                break
            if not self._tick():
                return
            self._note_stage("case")
            build = self.base._replace(motherboard=board.part, case=case.part)
            if self._rejected("case", self._case_errors(build)):
                continue
            for plan, plan_price in self._riser_plans(case.part):
                if self._beaten(price + plan_price + cpu_floor + psu_floor):
                    break
                if not self._tick():
                    return
                self._note_stage("risers")
                fitted = build._replace(gpus=self._gpus_with(plan))
                if self._rejected("risers", self._fit_errors(fitted, plan)):
                    continue
                self._cpus(fitted, price + plan_price, board.part, case.part, plan, psu_floor)
                if self.cut:
                    return

    def _cpus(self, build: ResolvedBuild, price: Price, board: Motherboard, case: Case, plan: RiserPlan,
              psu_floor: Price) -> None:
        for cpu in self.lists["cpu"]:
            assert isinstance(cpu.part, Cpu)
            if not same_socket(cpu.part.socket, board.socket):
                continue  # cpu.socket fails on any other socket
            if self._beaten(price + cpu.cost + psu_floor):
                break
            base = self.base_cost(board, cpu.part)
            if self._beaten(price + cpu.cost + base + psu_floor):
                continue
            if not self._tick():
                return
            self._note_stage("cpu")
            with_cpu = build._replace(cpu=cpu.part)
            if (reason := self._circuit_room(with_cpu, continuous=self.strict)) is not None:
                self._reject("cpu", "outlet.continuous", reason)
                continue
            if (reason := self._given_psus_short(with_cpu)) is not None:
                self._reject("cpu", "psu.headroom", reason)
                continue
            hot = self._optimistic_power(with_cpu, self._psu_cap(case))
            if self._rejected("cpu", self._errors(hot, checks_at("cpu"))):
                continue
            if self._rejected("cpu", self._given_psu_errors(hot)):
                continue
            self._psus(with_cpu, price + cpu.cost + base, board, case, plan, cpu.part)
            if self.cut:
                return

    def _psus(self, build: ResolvedBuild, price: Price, board: Motherboard, case: Case, plan: RiserPlan,
              cpu: Cpu) -> None:
        if self.partial.given["psu"]:
            self._leaf(Completion(board, case, plan, cpu, (), len(self.base.circuits)), price)
            return
        dc = self._min_dc(build)
        # psu.headroom warns above the target load: the first search wants the rating to spare
        need = dc / self.settings.psu_target if self.strict else dc
        voltages = self._voltages()
        psus = [c for c in self.lists["psu"] if isinstance(c.part, Psu)
                and any(runs_on(c.part, v) for v in voltages)]  # outlet.inlet fails a unit on no circuit's voltage
        mounts = case.mounts()  # case.psu-bays fails a unit whose form factor fits none of the case's mounts
        psus = [c for c in psus if assign([_psu(c)], mounts, lengths=False) is not None]
        if self.strict and not self.multi:  # one unit feeds everything: psu.connectors warns where it needs
            psus = self._natively_fed(psus, build)  # adapters, fails when short
        if not psus:
            self._note_stage("psu")
            self._reject("psu", "case.psu-bays", f"no PSU in the catalogs with a price fits a mount of the {case.name}"
                         f" ({', '.join(sorted({m.form_factor.upper() for m in mounts})) or 'none'})")
            return
        top = max(voltages)
        ratings = [rated_watts(c.part, top) for c in psus if isinstance(c.part, Psu)]
        best_after = list(itertools.accumulate(reversed(ratings), max))[::-1]  # highest rating from index i on
        for count in range(2 if self.multi else 1, self._psu_cap(case) + 1):  # one PSU was the first search's
            for chosen, chosen_price in self._psu_sets(psus, ratings, best_after, count, need, price):
                if count > 1 and not self._whole_cards_fit([ratings[i] for i in chosen],
                                                           [_psu(psus[i]) for i in chosen], build):
                    self._note_stage("psu")
                    self._reject("psu", "psu.headroom", "no way to share the cards out over these PSUs keeps each"
                                 " within its rating" + (" target" if self.strict else "") + " (whole cards per PSU)")
                    continue
                for circuits, assignment in self._assignments(count):
                    units = tuple((_psu(psus[i]), c) for i, c in zip(chosen, assignment, strict=True))
                    if circuits == 1 and (reason := self._one_circuit_over(dc, [u for u, _ in units])):
                        self._note_stage("psu")
                        self._reject("psu", "outlet.continuous", reason)
                        continue
                    self._leaf(Completion(board, case, plan, cpu, units, circuits), chosen_price)
                    if self.cut:
                        return
                    if self._beaten(chosen_price):
                        break

    def _whole_cards_fit(self, ratings: list[float], units: list[Psu], build: ResolvedBuild) -> bool:
        """Whether cards of one kind (at the lowest limits the search may set) can be dealt out whole over PSUs of
        these ratings (at the highest circuit voltage) with each within its rating (its target load in the searches
        that refuse warnings), one of them also carrying the rest of the machine (psu.headroom warns or fails
        otherwise), and, where the cards take only PCIe 8-pin inputs, with each unit's own 8-pin plugs (in the
        searches that refuse warnings, which refuse adapters and pigtails: psu.connectors). Cards of several kinds
        are not judged here (True)."""
        low = self._lowest_limits(build)
        limits = {g.power_limit for g in low.gpus}
        if len(limits) != 1 or not low.gpus:
            return True
        [card] = limits
        if card <= 0:
            return True
        rest = dc_budget(low).total - card * len(low.gpus)
        share = self.settings.psu_target if self.strict else 1.0
        plugs: list[int | None] = [None] * len(units)
        if self.strict:
            from planner.physics.connectors import HPWR, PCIE, gpu_plug_need, usable_plugs

            needs = {gpu_plug_need(g) for g in low.gpus}
            if len(needs) == 1 and (need := next(iter(needs))).hpwr == 0 and need.pcie > 0:
                plugs = [usable_plugs(u, PCIE) // need.pcie for u in units]
            elif len(needs) == 1 and need.pcie == 0 and need.hpwr > 0:  # native 12VHPWR/12V-2x6 plugs only
                plugs = [usable_plugs(u, HPWR) // need.hpwr for u in units]

        def cards(power: float, i: int) -> int:
            by_power = int(max(power, 0.0) // card)
            by_plugs = plugs[i]
            return by_power if by_plugs is None else min(by_power, by_plugs)

        fits = [cards(r * share, i) for i, r in enumerate(ratings)]
        best = 0
        for i, rating in enumerate(ratings):  # unit i is the board's: it carries the rest of the machine too
            if rating * share < rest:
                continue
            best = max(best, cards(rating * share - rest, i) + sum(fits) - fits[i])
        return best >= len(low.gpus)

    def _psu_sets(self, psus: Sequence[Candidate], ratings: list[float], best_after: list[float], count: int,
                  need: float, price: Price) -> Iterator[tuple[tuple[int, ...], Price]]:
        """Multisets of `count` PSUs (indices, non-decreasing) cheapest first within each branch, cut by price and
        by rating: their ratings must add up to the DC load (psu.headroom fails a PSU over its rating)."""

        def extend(start: int, chosen: tuple[int, ...], spent: Price, rated: float) -> Iterator[
                tuple[tuple[int, ...], Price]]:
            left = count - len(chosen)
            if left == 0:
                if rated >= need:
                    yield chosen, spent
                return
            for i in range(start, len(psus)):
                if rated + left * best_after[i] < need:
                    break  # no unit from here on rates high enough
                if self._beaten(spent + psus[i].cost.times(left)):
                    break
                yield from extend(i, (*chosen, i), spent + psus[i].cost, rated + ratings[i])
                if self.cut:
                    return

        yield from extend(0, (), price, 0.0)

    def _assignments(self, count: int) -> Iterator[tuple[int, tuple[int, ...]]]:
        """Which circuit each of `count` PSUs plugs into: (circuits in use, assignment), fewest circuits first.
        Added circuits are alike, and so are the build's own circuits of one outlet and other load: among alike
        circuits only the first use of each is ordered (PSUs on 'a' and 'b' are PSUs on 'b' and 'a')."""
        for total, assignment in self._all_assignments(count):
            if self._canonical(assignment):
                yield total, assignment

    def _canonical(self, assignment: tuple[int, ...]) -> bool:
        """Whether, within each class of alike own circuits, the circuits are first used in their order."""
        own = [c for c in self.base.circuits if not c.assumed]
        if len(own) < 2:
            return True
        classes: dict[tuple[str, float], list[int]] = {}
        for index, circuit in enumerate(own):
            classes.setdefault((circuit.outlet.id, circuit.other_load), []).append(index)
        first_use = list(dict.fromkeys(assignment))
        for members in classes.values():
            used = [c for c in first_use if c in members]
            if used != members[:len(used)]:
                return False
        return True

    def _all_assignments(self, count: int) -> Iterator[tuple[int, tuple[int, ...]]]:
        own = len(self.partial.spec.circuit)
        if own == 0:
            own_slots, most = 0, self.partial.max_circuits
        else:
            own_slots, most = own, self.partial.max_circuits
        least = max(own, 1)
        for total in range(least, most + 1):
            added = total - own_slots
            for assignment in itertools.product(range(total), repeat=count):
                added_used = [c for c in dict.fromkeys(assignment) if c >= own_slots]
                if len(added_used) != added or added_used != list(range(own_slots, total)):
                    continue  # every added circuit used, in order of first use
                yield total, assignment

    # -- a complete build ----------------------------------------------------------------------------
    def _leaf(self, completion: Completion, price: Price) -> None:
        if self._beaten(price) or not self._tick():
            return
        self._note_stage("psu")
        key = self._power_key(completion)
        if key in self._power_refused:  # the same CPU, PSUs and circuits were refused by a check of those alone
            for code, message in self._power_refused[key]:
                self._reject("psu", code, message)
            return
        self.leaves += 1
        raw = completed_raw(self.partial, completion)
        checked = self.check(raw, wording=False)  # weighed by code and severity; worded only to explain
        if checked is None:
            return
        build, findings, ctx = checked
        errors = self._refusing(findings)
        if errors and any(("psu", f.code) not in self.examples for f in errors):
            errors = self._worded(raw, errors)
        self._remember_power(key, errors)
        if errors and self.allow_power_limits:
            limited = self._with_power_limits(completion, build, errors)
            if limited is None:
                self._rejected("psu", errors)
                return
            completion, raw, (build, findings, ctx) = limited
            errors = self._refusing(findings)
        if self._rejected("psu", errors):
            return
        warnings = sum(1 for f in findings if f.severity == "warning")
        score = self.objective.score(price, ctx.performance.relative_perf, warnings)
        if self.best is None or score < self.best.score:
            self.best = Leaf(completion, raw, build, findings, ctx, price, score)

    def _power_key(self, completion: Completion) -> tuple[Any, ...]:
        plan = completion.risers
        return (self.strict, self.multi, completion.cpu.id, tuple((p.id, c) for p, c in completion.psus),
                completion.circuits,
                plan.moves, plan.riser.id if plan.riser else None)

    def _remember_power(self, key: tuple[Any, ...], errors: list[Finding]) -> None:
        """Keep the refusals of checks that read nothing the board, case or risers decide (the PSU plugs, the
        units' ratings, the circuits: planner/solve/reads.py), when no power limit can lift them: any other
        completion with this CPU, these PSUs and circuits gets the same."""
        if not errors:
            return
        from planner.checks.optimize import power_limit_codes

        alone = [f for f in errors if _reads_power_only(f.code)
                 and not (self.allow_power_limits and f.code in power_limit_codes())]
        if alone:
            self._power_refused[key] = [(f.code, f.message) for f in alone]

    def _worded(self, raw: dict[str, Any], errors: list[Finding]) -> list[Finding]:
        """The same refusals with their messages (for the explanation's first example of each check)."""
        checked = self.check(raw)
        return self._refusing(checked[1]) if checked is not None else errors

    def check(self, raw: dict[str, Any], wording: bool = True) -> tuple[ResolvedBuild, list[Finding], Context] | None:
        """Every check on a build's data, as `planner check` runs them (without fixes); None when it does not
        resolve (never for the solver's own choices). Unworded, findings carry no message (Context.wording)."""
        try:
            spec = buildfile.validate(raw, "", self.partial.file)
            build = resolve(spec, raw, self.catalog, label=self.partial.file, region=self._region())
            ctx = Context(build, self.catalog, self.settings, propose_fixes=False, wording=wording)
            return build, run_checks(build, self.catalog, self.settings, propose_fixes=False, context=ctx), ctx
        except InputError as error:
            self._reject("psu", "input", error.message)
            return None

    def _with_power_limits(self, completion: Completion, build: ResolvedBuild, errors: list[Finding]) -> tuple[
            Completion, dict[str, Any], tuple[ResolvedBuild, list[Finding], Context]] | None:
        """The optimiser's power limits when they clear every error (README: Power-limit optimiser), else None."""
        from planner.checks.optimize import optimize, power_limit_codes

        if any(f.code not in power_limit_codes() for f in errors):
            return None
        plan = optimize(build, self.catalog, self.settings, strict=self.strict)
        if not plan.changes or (self.strict and plan.relative_perf < self.min_throughput - 1e-9):
            return None
        limited = completion._replace(limits=tuple(sorted(plan.limits.items())))
        raw = completed_raw(self.partial, limited)
        checked = self.check(raw, wording=False)
        if checked is None or self._refusing(checked[1]):
            return None
        return limited, raw, checked

    def _refusing(self, findings: Sequence[Finding]) -> list[Finding]:
        """The findings that refuse a build: its errors, and in the first (strict) search its warnings too, but
        those every completion has."""
        if not self.strict:
            return [f for f in findings if f.severity == "error"]
        taken = self.unavoidable | ({"psu.multi"} if self.multi else frozenset())
        return [f for f in findings if f.severity == "error" or (f.severity == "warning" and f.code not in taken)]

    # -- judging partial choices ---------------------------------------------------------------------
    def _errors(self, build: ResolvedBuild, codes: Sequence[str]) -> list[Finding]:
        ctx = Context(build, self.catalog, self.settings, propose_fixes=False)
        try:
            checks = registered()
            return self._refusing([f for code in codes for f in checks[code].run(ctx)])
        except InputError as error:  # a placement too large to search: the branch cannot be vouched for
            self.cut = True
            return [Finding(code="slot.placement", severity="error", message=error.message)]

    def _case_errors(self, build: ResolvedBuild) -> list[Finding]:
        """The case-stage checks; those that read the case alone (with the cards, not the board) are judged once
        per case."""
        codes, checks = checks_at("case"), registered()
        alone = tuple(c for c in codes if "motherboard" not in checks[c].reads)
        case = build.case
        if case.id not in self._case_ok:
            self._case_ok[case.id] = self._errors(build, alone)
        return [*self._case_ok[case.id], *self._errors(build, tuple(c for c in codes if c not in alone))]

    def _fit_errors(self, build: ResolvedBuild, plan: RiserPlan) -> list[Finding]:
        """Where the cards go: judged once per board, case geometry (slots, mounts, open frame) and riser plan."""
        case = build.case
        # the placement reads of a riser its kind and lanes only (planner/placement/layout.py): risers alike in
        # those place alike
        key = (build.motherboard.id, case.expansion_slots, case.open_frame, case.vertical_gpu_mounts, plan.moves,
               (plan.riser.kind, plan.riser.lanes) if plan.riser else None)
        if key not in self._fit:
            self._fit[key] = self._errors(build, checks_at("risers"))
        return self._fit[key]

    def _rejected(self, stage: str, errors: list[Finding]) -> bool:
        if not errors:
            return False
        for finding in errors:
            self._reject(stage, finding.code, finding.message)
        return True

    def _reject(self, stage: str, code: str, message: str) -> None:
        self.counts[(stage, code)] += 1
        self.examples.setdefault((stage, code), Rejection(stage, code, message))

    def _note_stage(self, stage: str) -> None:
        from planner.solve.reads import STAGES

        if not self.deepest or STAGES.index(stage) > STAGES.index(self.deepest):
            self.deepest = stage

    def base_cost(self, board: Motherboard, cpu: Cpu) -> Price:
        """What the base system (RAM, SSD, CPU cooler: planner/build/base_system.py) costs with this board and CPU;
        nothing when the file owns both (the machine it names is then the user's)."""
        if self.partial.owned["motherboard"] and self.partial.owned["cpu"]:
            return FREE
        items = self.base_items(board, cpu)
        usd, unpriced = base_price(items)
        return Price(unpriced, usd)

    def _base_floor(self, board: Motherboard) -> Price:
        """The cheapest base system with this board and any CPU of its socket (a lower bound for the branch)."""
        if board.id not in self._base_floors:
            costs = [self.base_cost(board, c.part) for c in self.lists["cpu"] if isinstance(c.part, Cpu)
                     and same_socket(c.part.socket, board.socket)]
            self._base_floors[board.id] = min(costs) if costs else FREE
        return self._base_floors[board.id]

    def base_items(self, board: Motherboard, cpu: Cpu) -> tuple[BaseItem, ...]:
        extras = self.partial.spec.extras
        memory = sum(g.chip.memory for g in self.base.gpus)
        return base_system(self.catalog, board, cpu, memory, extras.ram_modules, extras.ram_type)

    # -- bounds and optimistic builds ----------------------------------------------------------------
    def _floor(self, kind: str) -> Price:
        """The cheapest candidate of a kind (nothing for a kind the build gives)."""
        if kind == "psu" and self.partial.given["psu"]:
            return FREE
        return self.lists[kind][0].cost if self.lists[kind] else FREE

    def _cpu_floor_for(self, board: Motherboard) -> Price | None:
        socket = board.socket.replace(" ", "").casefold()
        if socket not in self._cpu_floor:
            cheapest = next((c.cost for c in self.lists["cpu"] if isinstance(c.part, Cpu)
                             and same_socket(c.part.socket, board.socket)), None)
            if cheapest is None:
                return None
            self._cpu_floor[socket] = cheapest
        return self._cpu_floor[socket]

    def _psu_cap(self, case: Case | None) -> int:
        """The most PSUs a build in this case can have without a case.psu-bays error (the case's mounts, estimated
        ones judged as sourced); one in the first search (psu.multi warns on two or more)."""
        if self.partial.given["psu"]:
            return len(self.base.psus)
        if self.strict and not self.multi:
            return 1  # psu.multi warns on every build with two or more PSUs: the first search takes one
        most = MULTI_PSUS if self.multi else MAX_PSUS
        if case is None:
            return most  # (estimated mounts are judged as sourced: self.settings)
        return max(min(len(case.mounts()), most), 0)

    def _voltages(self) -> list[float]:
        volts = [c.outlet.voltage for c in self.base.circuits if not c.assumed]
        if len(volts) < self.partial.max_circuits or not volts:
            volts.append(self.outlet.voltage)
        return volts

    def _region(self) -> Region | None:
        return self.partial.region  # type: ignore[return-value]

    def _min_dc(self, build: ResolvedBuild) -> float:
        """The sustained DC load at the cards' lowest allowed limits (their set limits without
        --allow-power-limits)."""
        return dc_budget(self._lowest_limits(build)).total

    def _lowest_limits(self, build: ResolvedBuild) -> ResolvedBuild:
        """The build at the lowest limits the search may set: the cards' minimums; in the searches that refuse
        warnings, where every card is the same, the lowest limit that keeps `min_throughput` of stock (the
        build's throughput, at most the cards' at their limit, is then no more than that at any lower limit)."""
        if not self.allow_power_limits:
            return build
        boards = {g.board.id for g in build.gpus}
        if self.strict and len(boards) == 1:
            floor = self._floor_limit(build.gpus[0], build.workload)
            return build._replace(gpus=[g._replace(power_limit=floor) for g in build.gpus])
        return build._replace(gpus=[g._replace(power_limit=g.board.power_limit_min) for g in build.gpus])

    def _floor_limit(self, gpu: GpuInstance, workload: str) -> float:
        """The lowest limit in the optimiser's 5 W steps at which the card keeps `min_throughput` of its stock
        speed (at its limit, before any thermal throttling), once per card and workload."""
        from planner.physics.slowdown import relative_perf

        key = (gpu.board.id, workload)
        if key not in self._floors:
            board, low = gpu.board, gpu.board.power_limit_min
            floor = board.tdp
            power = low
            while power < board.tdp:
                if relative_perf(board, gpu.chip, power, workload).relative_perf >= self.min_throughput - 1e-9:
                    floor = power
                    break
                power += 5.0
            self._floors[key] = floor
        return self._floors[key]

    def _optimistic_power(self, build: ResolvedBuild, psus: int) -> ResolvedBuild:
        """The build as cool as its PSUs and limits could make it: as many PSUs as the case takes share the
        conversion heat, and with --allow-power-limits every card is at its lowest limit."""
        if self.partial.given["psu"]:
            return self._lowest_limits(build)
        stand_in = self.base.psus[0]
        return self._lowest_limits(build)._replace(
            psus=[PsuUse(i, stand_in.part, stand_in.circuit) for i in range(max(psus, 1))])

    def _frugal(self) -> ResolvedBuild | None:
        """The build with the CPU that draws least (the power bounds judge every choice by it: the DC load only
        grows with the CPU's power), or None when the catalogs offer no CPU."""
        cpus = [c.part for c in self.lists["cpu"] if isinstance(c.part, Cpu)]
        if not cpus:
            return None
        return self.base._replace(cpu=min(cpus, key=lambda c: (c.package_power or c.tdp, c.id)))

    def _frugal_over_continuous(self) -> str | None:
        """A reason every completion draws more than the circuits' continuous limits (so warns), judged with the
        CPU that draws least."""
        frugal = self._frugal()
        if frugal is None:
            return None
        reason = self._circuit_room(frugal, continuous=True)
        if reason is not None:
            self._reject("cpu", "outlet.continuous", reason)
            return reason
        if not self.partial.given["psu"] and not self._natively_fed(self.lists["psu"], frugal):
            reason = "no single PSU in the catalogs feeds every input from its own plugs (adapters warn)"
            self._reject("psu", "psu.connectors", reason)
            return reason
        return None

    def openings(self) -> list[str]:
        """Options that lift the power bound that makes a build infeasible before any part is chosen: lower power
        limits, another circuit, a 240 V circuit (each judged by the same bound, with the least power-hungry CPU;
        the full search then decides)."""
        frugal = self._frugal()
        if frugal is None:
            return []
        if self._circuit_room(frugal) is None and self._given_psus_short(frugal) is None:
            return []
        found = []
        if not self.allow_power_limits:
            self.allow_power_limits = True
            if self._circuit_room(frugal) is None and self._given_psus_short(frugal) is None:
                found.append("--allow-power-limits (the cards at lower power limits fit the bound)")
            self.allow_power_limits = False
        if self._given_psus_short(frugal) is None and self._circuit_room(frugal) is not None:
            most, outlet = self.partial.max_circuits, self.outlet
            for extra in range(1, 4):
                self.partial = self.partial._replace(max_circuits=most + extra)
                fits = self._circuit_room(frugal) is None
                self.partial = self.partial._replace(max_circuits=most)
                if fits:
                    found.append(f"max_circuits = {most + extra} in the build file (another {outlet.standard} "
                                 "circuit, on its own breaker)")
                    break
            if outlet.voltage < 200 and self.partial.region == "us" and self.base.circuits[0].assumed:
                hot = self.catalog.typed("outlet", "nema-6-20", Outlet)
                self.outlet = hot
                if self._circuit_room(frugal) is None:
                    found.append("a 240 V circuit: [[circuit]] outlet = \"nema-6-20\" (240 V, 20 A)")
                self.outlet = outlet
        return found

    def _one_circuit_over(self, dc: float, units: Sequence[Psu]) -> str | None:
        """A reason PSUs that all plug into the one circuit draw more at the wall than its breaker carries (its
        continuous limit in the first search) even at their best efficiency (outlet.continuous)."""
        circuits = [c for c in self.base.circuits if not c.assumed]
        outlet, other = (circuits[0].outlet, circuits[0].other_load) if circuits else (self.outlet, 0.0)
        best = max(_peak_efficiency(u.efficiency, outlet.voltage) for u in units)
        wall = dc / best + other
        limit = outlet.continuous_limit if self.strict else outlet.voltage * outlet.breaker_current
        if wall <= limit:
            return None
        return (f"{len(units)} PSU{'s' if len(units) > 1 else ''} on one {outlet.standard} circuit draw at least "
                f"{wall:,.0f} W at the wall ({dc:,.0f} W DC at {best:.0%} efficiency at best), over its "
                f"{limit:,.0f} W {'continuous limit' if self.strict else 'breaker rating'}")

    def _natively_fed(self, psus: Sequence[Candidate], build: ResolvedBuild) -> list[Candidate]:
        """The PSUs whose own plugs alone feed every card and the CPU without adapters (estimates as sourced)."""
        from planner.physics.connectors import allocate_plugs, cpu_eps_plugs, gpu_plug_need

        gpus = self._lowest_limits(build).gpus
        needs = [gpu_plug_need(g) for g in gpus]
        eps = cpu_eps_plugs(dc_budget(build).cpu)
        fed = []
        for candidate in psus:
            use = allocate_plugs(_psu(candidate), gpus, needs, eps)
            if not use.adapters and not use.short:
                fed.append(candidate)
        return fed

    def _given_psu_errors(self, build: ResolvedBuild) -> list[Finding]:
        """With the file's own PSUs, the checks that read only the GPUs, the CPU, the PSUs and the circuits are
        decided once the CPU is (judged at the cards' lowest allowed limits): once per CPU."""
        if not self.partial.given["psu"]:
            return []
        key = (self.strict, self.multi, build.cpu.id,
               tuple((g.index, g.riser.id if g.riser else None) for g in build.gpus))
        if key not in self._given_psu:
            codes = tuple(c for c in checks_at("psu") if _reads_power_only(c))
            self._given_psu[key] = self._errors(build, codes)
        return self._given_psu[key]

    def _given_psus_short(self, build: ResolvedBuild) -> str | None:
        """With the file's own PSUs: a reason they cannot carry the DC load even at the cards' lowest allowed limits
        (psu.headroom fails a load over the units' ratings together)."""
        if not self.partial.given["psu"]:
            return None
        rated = sum(rated_watts(use.part, self.base.circuit(use.circuit).outlet.voltage) for use in self.base.psus)
        load = self._min_dc(build)
        if load <= rated:
            return None
        floor = " at the cards' lowest power limits" if self.allow_power_limits else ""
        return (f"the build draws at least {load:,.0f} W DC{floor} with the {build.cpu.name}, more than the "
                f"{rated:,.0f} W its PSUs are rated for together (the file gives its PSUs: add a PSU to the file, or "
                "leave the PSUs out to let the solver choose them)")

    def _circuit_room(self, build: ResolvedBuild, continuous: bool = False) -> str | None:
        """A reason no PSUs can work on the circuits the build may use: the DC load (at the lowest limits) is
        more than their breakers carry, even at 100 % conversion efficiency (outlet.continuous fails a circuit
        over its breaker rating); with `continuous`, more than the continuous limit of the one circuit the first
        search's single PSU plugs into (outlet.continuous warns over it: what that search refuses)."""
        if self.partial.given["psu"]:
            return None
        circuits = [c for c in self.base.circuits if not c.assumed]
        added = self.partial.max_circuits - len(circuits)

        def carries(outlet: Outlet) -> float:
            return outlet.continuous_limit if continuous else outlet.voltage * outlet.breaker_current

        capacity = sum(carries(c.outlet) - c.other_load for c in circuits) + added * carries(self.outlet)
        if continuous and not self.multi:  # the first search takes one PSU: it plugs into one circuit
            capacity = max([carries(c.outlet) - c.other_load for c in circuits]
                           + ([carries(self.outlet)] if added > 0 else []))
            added = min(added, 1)
        load = self._min_dc(build)
        if load <= capacity:
            return None
        outlets = _circuits_text(circuits, added, self.outlet)
        floor = " at the cards' lowest power limits" if self.allow_power_limits else ""
        limit = "continuous limit of the best single circuit" if continuous else "breakers"
        return (f"the build draws at least {load:,.0f} W DC{floor} with the {build.cpu.name}, more than the "
                f"{capacity:,.0f} W the {limit} of {outlets} carry (max_circuits = {self.partial.max_circuits})")

    # -- riser plans -------------------------------------------------------------------------------------
    def _riser_plans(self, case: Case) -> Iterator[tuple[RiserPlan, Price]]:
        """No risers first, then cards moved onto cables to the case's vertical mounts, cheapest first."""
        yield RiserPlan(), FREE
        mounts = case.vertical_gpu_mounts
        if mounts == 0 or not self.movable or not self.risers:
            return
        counts = [int(self.partial.spec.gpu[i].count) for i in self.movable]
        plans = []
        for moved in itertools.product(*(range(n + 1) for n in counts)):
            cables = sum(moved)
            if cables == 0 or cables > mounts:  # riser.mount fails more cables than mounts
                continue
            for riser in self.risers:
                assert isinstance(riser.part, Riser)
                moves = tuple((i, m) for i, m in zip(self.movable, moved, strict=True) if m)
                plans.append((riser.cost.times(cables), cables, riser.part.id, RiserPlan(moves, riser.part)))
        plans.sort(key=lambda p: (p[0], p[1], p[2]))
        for cost, _, _, plan in plans:
            yield plan, cost

    def _riser_options(self) -> int:
        options = 1
        for i in self.movable:
            options *= 1 + int(self.partial.spec.gpu[i].count) * len(self.risers)
        return options

    def _gpus_with(self, plan: RiserPlan) -> list[GpuInstance]:
        if plan.riser is None:
            return list(self.base.gpus)
        left = dict(plan.moves)
        gpus = []
        for gpu in self.base.gpus:
            if left.get(gpu.spec_index, 0) > 0 and gpu.riser is None:
                left[gpu.spec_index] -= 1
                gpu = gpu._replace(riser=plan.riser)
            gpus.append(gpu)
        return [g._replace(index=i) for i, g in enumerate(gpus)]


def _peak_efficiency(grade: str, voltage: float) -> float:
    """The highest efficiency a grade's curve reaches at a circuit's voltage."""
    from planner.physics.efficiency import efficiency_curve, is_low_line

    return max(eff for _, eff in efficiency_curve(grade, is_low_line(voltage)))


def _reads_power_only(code: str) -> bool:
    """Whether a check reads nothing but the GPUs, the CPU, the PSUs and the circuits (and what the file fixes)."""
    from planner.solve.reads import reads

    return reads(code) <= {"cpu", "psu"}


def _psu(candidate: Candidate) -> Psu:
    assert isinstance(candidate.part, Psu)
    return candidate.part


def _circuits_text(circuits: list[CircuitUse], added: int, outlet: Outlet) -> str:
    parts = [f"'{c.name}' ({c.outlet.standard})" for c in circuits]
    if added:
        parts.append(f"{added} {outlet.standard} circuit{'s' if added > 1 else ''}")
    return " and ".join(parts)
