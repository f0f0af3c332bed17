"""A lab, checked: each machine through the check façade, then the room — every circuit, PDU bank and line
within its limit, three-phase balance, the UPS's W, VA and runtime, heat against cooling, the network under
multi-node training, and noise where people sit. Each fix is applied to the lab and re-checked before it is
offered (verified: the finding is gone and no new error appears), as the single-machine checks do."""

from __future__ import annotations

import itertools
from typing import Any, NamedTuple

from planner.api import Catalog, Report, check_build
from planner.lab import assign, load, params
from planner.lab.power import Line, Node, connection, imbalance, loads
from planner.lab.spec import LabFile
from planner.models.parts import Outlet
from planner.physics.efficiency import wall_draw
from planner.physics.power import rated_watts
from planner.util.errors import InputError
from planner.util.tomlpos import line_of
from planner.util.validation import location

Verdict = str


class PsuLoad(NamedTuple):
    grade: str
    dc_w: float
    wattage: Any  # the Psu part (rating by voltage)
    c20: bool


class KindCheck(NamedTuple):
    report: Report
    psus: tuple[PsuLoad, ...]
    blowers: int
    power_limits: tuple[float, ...]  # each GPU's
    power_limit_min: float  # highest of the cards' lowest settable limits


class Psu(NamedTuple):
    id: str  # INSTANCE:K (K 1-based)
    machine: str  # instance
    kind: int  # machine index in the lab file
    number: int  # 0-based among the machine's PSUs


class State(NamedTuple):
    where: tuple[int, ...]  # node of each PSU
    power_limits: tuple[float | None, ...]  # per machine kind
    nic: tuple[float | None, ...]  # per machine kind
    switch_gbps: float | None
    places: tuple[str, ...]  # per machine kind


class Room:
    """What of the lab does not change while it is checked: nodes, lines, PSUs, the user's plugs."""

    def __init__(self, spec: LabFile, text: str, label: str, catalog: Catalog) -> None:
        self.spec, self.text, self.label, self.catalog = spec, text, label, catalog
        self.spec = spec = self._with_parts(spec)
        self.nodes: list[Node] = []
        self.lines: list[Line] = []
        self.pdu_of_node: dict[int, str] = {}
        self._build_nodes()
        self.node_index = {node.id: i for i, node in enumerate(self.nodes)}
        self.raw = [load.load_machine(label, m, i, text) for i, m in enumerate(spec.machine)]
        self.instances: list[tuple[str, int]] = []
        for k, m in enumerate(spec.machine):
            names = [m.name] if m.count == 1 else [f"{m.name}-{j + 1}" for j in range(m.count)]
            self.instances += [(name, k) for name in names]
        names = [n for n, _ in self.instances]
        if len(set(names)) != len(names):
            raise self.error("two machines have the same name", ("machine",))
        self._checks: dict[tuple[int, float, float | None], KindCheck] = {}
        self.psus: list[Psu] = []
        for name, k in self.instances:
            count = len(self.raw[k][0].get("psu") or [])
            self.psus += [Psu(f"{name}:{j + 1}", name, k, j) for j in range(count)]
        self.psu_index = {p.id: i for i, p in enumerate(self.psus)}
        self.plugged: dict[int, int] = {}
        for i, plug in enumerate(spec.plug):
            pid = f"{plug.machine}:{plug.psu}"
            if pid not in self.psu_index:
                raise self.error(f"no PSU {plug.psu} on a machine named {plug.machine!r}", ("plug", i, "machine"))
            if plug.into not in self.node_index:
                raise self.error(f"no circuit or PDU bank named {plug.into!r} (PDU banks are PDU/BANK)",
                                 ("plug", i, "into"))
            if self.psu_index[pid] in self.plugged:
                raise self.error(f"PSU {pid} is plugged in twice", ("plug", i))
            self.plugged[self.psu_index[pid]] = self.node_index[plug.into]
        if not self.nodes:
            raise self.error("a lab needs at least one [[circuit]] or [[pdu]] to plug its machines into", ())
        self._check_ups_and_network()

    def _part(self, kind: str, part_id: str, where: tuple[str | int, ...]) -> Any:
        from planner.util.errors import PlannerError

        try:
            return self.catalog.get(kind, part_id)
        except (PlannerError, KeyError, LookupError) as problem:
            raise self.error(f"unknown {kind}: {problem}", where) from None

    def _with_parts(self, spec: LabFile) -> LabFile:
        """The lab file with what its catalog parts (PDU, UPS, NIC, switch) give filled in where it is silent."""
        from planner.lab.spec import BankSpec

        pdus = []
        for i, p in enumerate(spec.pdu):
            if p.part is not None:
                part = self._part("pdu", p.part, ("pdu", i, "part"))
                update: dict[str, Any] = {}
                if not p.bank:
                    update["bank"] = [BankSpec(name=str(j + 1), phase=phase, breaker_a=part.bank_breaker,
                                               c13=part.bank_c13, c19=part.bank_c19)
                                      for j, phase in enumerate(part.bank_phases)]
                if p.phase_limit_a is None:
                    update["phase_limit_a"] = part.input_current
                p = p.model_copy(update=update)
            if not p.bank:
                raise self.error("a PDU needs its banks ([[pdu.bank]]) or part = a pdus.toml id", ("pdu", i))
            pdus.append(p)
        upss = []
        for i, u in enumerate(spec.ups):
            if u.part is not None:
                part = self._part("ups", u.part, ("ups", i, "part"))
                u = u.model_copy(update={"va": u.va or part.va, "w": u.w or part.w,
                                         "runtime": u.runtime or part.runtime})
            if u.va is None or u.w is None or u.runtime is None:
                raise self.error("a UPS needs va, w and runtime, or part = a ups.toml id", ("ups", i))
            upss.append(u)
        machines = []
        for i, m in enumerate(spec.machine):
            if m.nic is not None and m.nic_gbps is None:
                m = m.model_copy(update={"nic_gbps": self._part("nic", m.nic, ("machine", i, "nic")).speed_gbps})
            machines.append(m)
        network = spec.network
        if network.switch is not None:
            part = self._part("switch", network.switch, ("network", "switch"))
            network = network.model_copy(update={"switch_gbps": network.switch_gbps or part.speed_gbps,
                                                 "switch_ports": network.switch_ports or part.ports})
        return spec.model_copy(update={"pdu": pdus, "ups": upss, "machine": machines, "network": network})

    def error(self, text: str, where: tuple[str | int, ...]) -> InputError:
        return InputError(text, file=self.label, line=line_of(self.text, where) if where else None,
                          key=location(where) if where else None)

    def _build_nodes(self) -> None:
        from planner.util.errors import PlannerError

        spec = self.spec
        for i, c in enumerate(spec.circuit):
            try:
                outlet = self.catalog.typed("outlet", c.outlet, Outlet)
            except (PlannerError, KeyError, LookupError) as problem:
                raise self.error(f"unknown outlet: {problem}", ("circuit", i, "outlet")) from None
            limit = outlet.continuous_limit - c.other_load
            if limit <= 0:
                raise self.error("its other load takes all of the circuit", ("circuit", i, "other_load"))
            self.nodes.append(Node(c.name, "circuit", outlet.voltage, limit, outlet.breaker_current,
                                   c.receptacles, 0, (), None, True))
        feeds = {}
        for i, f in enumerate(spec.feed):
            if f.name in feeds:
                raise self.error(f"a feed named {f.name!r} is already defined", ("feed", i, "name"))
            if f.phases == 3 and f.wiring is None:
                raise self.error("a three-phase feed needs wiring = \"wye\" or \"delta\"", ("feed", i))
            feeds[f.name] = f
            factor = f.continuous_factor or params.CONTINUOUS_FACTOR.values[spec.region][0] or 1.0
            for line in ("L1", "L2", "L3")[: f.phases]:
                self.lines.append(Line(f"{f.name}:{line}", f.breaker_a * factor, f.name, f.phases == 3))
        for i, p in enumerate(spec.pdu):
            if p.feed not in feeds:
                raise self.error(f"no [[feed]] named {p.feed!r}", ("pdu", i, "feed"))
            f = feeds[p.feed]
            feed_lines = {line.id.split(":")[1]: j for j, line in enumerate(self.lines) if line.feed == f.name}
            pdu_lines = {}
            if p.phase_limit_a is not None:
                for name in ("L1", "L2", "L3")[: f.phases]:
                    pdu_lines[name] = len(self.lines)
                    self.lines.append(Line(f"{p.name}:{name}", p.phase_limit_a, f.name, f.phases == 3))
            for j, b in enumerate(p.bank):
                try:
                    voltage, draws = connection(b.phase, f.voltage, f.phases == 3, f.wiring == "wye")
                except ValueError as problem:
                    raise self.error(str(problem), ("pdu", i, "bank", j, "phase")) from None
                lines = tuple((feed_lines[name], unit) for name, unit in draws)
                lines += tuple((pdu_lines[name], unit) for name, unit in draws if name in pdu_lines)
                limit = voltage * b.breaker_a * params.PDU_BANK_FACTOR.value
                self.nodes.append(Node(f"{p.name}/{b.name}", "bank", voltage, limit, b.breaker_a, b.c13, b.c19,
                                       lines, p.name, False))
                self.pdu_of_node[len(self.nodes) - 1] = p.name

    def _check_ups_and_network(self) -> None:
        known = {c.name for c in self.spec.circuit} | {p.name for p in self.spec.pdu}
        for i, u in enumerate(self.spec.ups):
            for j, fed in enumerate(u.feeds):
                if fed not in known:
                    raise self.error(f"no [[pdu]] or [[circuit]] named {fed!r}", ("ups", i, "feeds", j))
            for j, row in enumerate(u.runtime or []):
                if len(row) != 2 or row[0] <= 0 or row[1] <= 0:
                    raise self.error("each runtime row is [load W, minutes], both above 0", ("ups", i, "runtime", j))
        training = self.spec.network.training
        if training:
            kinds = {m.name for m in self.spec.machine} | {n for n, _ in self.instances}
            for j, name in enumerate(training.machines):
                if name not in kinds:
                    raise self.error(f"no machine named {name!r}", ("network", "training", "machines", j))
            members = {n for n, k in self.instances if n in training.machines
                       or self.spec.machine[k].name in training.machines}
            if len(members) < 2:
                raise self.error("multi-node training needs two machines at least", ("network", "training"))

    # -- machines ---------------------------------------------------------------------------------------

    def reference_voltage(self, kind: int) -> float:
        for i, n in self.plugged.items():
            if self.psus[i].kind == kind:
                return self.nodes[n].voltage
        return max(node.voltage for node in self.nodes)

    def kind_check(self, kind: int, power_limit: float | None) -> KindCheck:
        voltage = self.reference_voltage(kind)
        key = (kind, voltage, power_limit)
        if key not in self._checks:
            raw, text, label = self.raw[kind]
            try:
                build = load.lab_build(raw, text, label, self.catalog, voltage, self.spec.region, power_limit)
            except InputError as problem:
                if isinstance(self.spec.machine[kind].build, str) or not problem.key:
                    raise
                # an inline build: the key and line in the lab file
                from planner.build.edit import parse_path

                where = ("machine", kind, "build", *parse_path(problem.key))
                error = self.error(problem.message, where)
                inline = [m for m in self.spec.machine if not isinstance(m.build, str)]
                if len(inline) == 1:  # tomlpos keys the tables under [[machine]] without its index
                    error.line = line_of(self.text, ("machine", "build", *parse_path(problem.key))) or error.line
                raise error from None
            report = check_build(build, self.catalog)
            psus = tuple(PsuLoad(p.part.efficiency, s.load_w or 0.0, p.part, p.part.ac_inlet == "c20")
                         for p, s in zip(build.psus, report.summary.psus, strict=True))
            self._checks[key] = KindCheck(report, psus, sum(g.board.cooler == "blower" for g in build.gpus),
                                          tuple(g.power_limit for g in build.gpus),
                                          max((g.board.power_limit_min for g in build.gpus), default=0.0))
        return self._checks[key]

    def wall(self, kind: KindCheck, psu: int, voltage: float) -> float:
        p = kind.psus[psu]
        return wall_draw(p.dc_w, rated_watts(p.wattage, voltage), p.grade, voltage)

    def items(self, state: State, free: set[int] | None = None) -> list[assign.Item]:
        """The PSUs as the solver's items; `free`: PSUs it may move (others stay), None: all."""
        out = []
        for i, p in enumerate(self.psus):
            kc = self.kind_check(p.kind, state.power_limits[p.kind])
            walls = tuple(self.wall(kc, p.number, node.voltage) for node in self.nodes)
            fixed = None if free is None or i in free else state.where[i]
            now = state.where[i] if state.where[i] >= 0 else None
            out.append(assign.Item(p.id, walls, kc.psus[p.number].c20, now, fixed,
                                   f"{p.kind}:{p.number}:{now}"))
        return out

    def initial(self) -> tuple[State, list[str]]:
        """The user's plugs, the solver's for the PSUs without one."""
        limits = tuple(m.power_limit for m in self.spec.machine)
        nic = tuple(m.nic_gbps for m in self.spec.machine)
        where = tuple(self.plugged.get(i, -1) for i in range(len(self.psus)))
        state = State(where, limits, nic, self.spec.network.switch_gbps, tuple(m.place for m in self.spec.machine))
        free = {i for i in range(len(self.psus)) if i not in self.plugged}
        if not free:
            return state, []
        result = assign.solve(self.items(state, free), self.nodes, self.lines)
        if result.where is None:
            raise self.error("the PSUs do not fit the outlets: too few C13/C19 outlets or receptacles for "
                             f"{len(self.psus)} PSUs", ("pdu",) if self.spec.pdu else ("circuit",))
        notes = [f"{self.psus[i].id} → {self.nodes[result.where[i]].id} (assigned by the planner)"
                 for i in sorted(free)]
        if not result.proven:
            notes.append(f"the assignment is the best found in {assign.BUDGET_S:g} s of search, not proven the best "
                         f"(a worst-fit start, then branch and bound); every limit is still checked on it")
        if result.score is not None and result.score.util > 1:
            notes.append(f"no assignment keeps every limit: the best loads {result.binding} to "
                         f"{result.score.util:.0%} of its limit (the binding limit)")
        return state._replace(where=result.where), notes


# -- evaluation -----------------------------------------------------------------------------------------


class LimitRow(NamedTuple):
    """A load against its limit (JSON: per node, line and UPS)."""

    id: str
    kind: str  # circuit | bank | line | ups-w | ups-va | ups-runtime | cooling
    load: float
    limit: float
    unit: str
    margin: float  # limit − load

    @property
    def over(self) -> bool:
        return self.load > self.limit + 1e-9


class Evaluation(NamedTuple):
    walls: tuple[float, ...]  # per PSU
    nodes: tuple[LimitRow, ...]
    lines: tuple[LimitRow, ...]
    ups: tuple[LimitRow, ...]
    cooling: LimitRow
    imbalance: dict[str, float]  # per three-phase feed
    heat_w: float
    network: dict[str, Any]


def runtime_minutes(table: list[list[float]], load_w: float) -> float:
    """Minutes at `load_w` from a datasheet table, linear between its rows; below its lightest row, that row's
    (the table says no more); above its heaviest, 0."""
    rows = sorted((w, m) for w, m in table)
    if load_w <= rows[0][0]:
        return rows[0][1]
    for (w0, m0), (w1, m1) in itertools.pairwise(rows):
        if load_w <= w1:
            return m0 + (m1 - m0) * (load_w - w0) / (w1 - w0)
    return 0.0


def cooling_limit(spec: LabFile) -> tuple[float, bool, str]:
    """Heat the room removes, W; whether it is the user's figure (evidence) and where it comes from."""
    c = spec.cooling
    if c.removal_w is not None:
        return c.removal_w, True, c.source or "the lab file"
    if c.removal_btu_h is not None:
        return c.removal_btu_h / params.BTU_PER_W.value, True, c.source or "the lab file"
    area = c.area_m2 or params.OFFICE_AREA_M2.value
    return (area * params.OFFICE_COOLING_W_PER_M2.value, False,
            f"office default: {area:g} m² × {params.OFFICE_COOLING_W_PER_M2.value:g} W/m² "
            f"({params.OFFICE_COOLING_W_PER_M2.source})")


def training_need(room: Room) -> tuple[float, list[int], float] | None:
    """Gbit/s each training machine needs (the estimate and the floor), the kinds, the estimate alone."""
    t = room.spec.network.training
    if t is None:
        return None
    kinds = {m.name: k for k, m in enumerate(room.spec.machine)}
    members = {n for name in t.machines for n, k in room.instances if name in (n, room.spec.machine[k].name)}
    n = len(members)
    volume = 2 * (n - 1) / n * t.params_b * 1e9 * t.bytes_per_param * 8  # bits each machine sends per step
    estimate = volume / (t.step_s * params.DP_OVERLAP.value) / 1e9
    used = sorted({k for name, k in room.instances if name in members} | {kinds[x] for x in t.machines if x in kinds})
    return max(estimate, params.DP_FLOOR_GBPS.value), used, estimate


def evaluate(room: Room, state: State) -> Evaluation:
    walls = []
    for i, p in enumerate(room.psus):
        kc = room.kind_check(p.kind, state.power_limits[p.kind])
        walls.append(room.wall(kc, p.number, room.nodes[state.where[i]].voltage))
    ld = loads(room.nodes, len(room.lines), walls, state.where)
    nodes = tuple(LimitRow(n.id, n.kind, round(w, 1), round(n.limit_w, 1), "W", round(n.limit_w - w, 1))
                  for n, w in zip(room.nodes, ld.node_w, strict=True))
    lines = tuple(LimitRow(line.id, "line", round(a, 2), round(line.limit_a, 2), "A", round(line.limit_a - a, 2))
                  for line, a in zip(room.lines, ld.line_a, strict=True))
    feeds: dict[str, list[float]] = {}
    for line, a in zip(room.lines, ld.line_a, strict=True):
        if line.three_phase and line.id.split(":")[0] == line.feed:
            feeds.setdefault(line.feed, []).append(a)
    ups_rows = []
    for u in room.spec.ups:
        assert u.w is not None and u.va is not None and u.runtime is not None  # filled in by Room._with_parts
        w = sum(ld.node_w[i] for i, node in enumerate(room.nodes)
                if node.id in u.feeds or room.pdu_of_node.get(i) in u.feeds)
        w += sum(c.other_load for c in room.spec.circuit if c.name in u.feeds)
        va = w / params.LOAD_POWER_FACTOR.value
        minutes = runtime_minutes(u.runtime, w)
        ups_rows += [LimitRow(u.name, "ups-w", round(w, 1), u.w, "W", round(u.w - w, 1)),
                     LimitRow(u.name, "ups-va", round(va, 1), u.va, "VA", round(u.va - va, 1)),
                     LimitRow(u.name, "ups-runtime", round(u.shutdown_minutes, 1), round(minutes, 1), "min",
                              round(minutes - u.shutdown_minutes, 1))]
    heat = sum(walls) + sum(c.other_load for c in room.spec.circuit)
    removal, _, _ = cooling_limit(room.spec)
    cooling = LimitRow("room", "cooling", round(heat, 1), round(removal, 1), "W", round(removal - heat, 1))
    network: dict[str, Any] = {}
    need = training_need(room)
    if need is not None:
        network = {"need_gbps": round(need[0], 1), "estimate_gbps": round(need[2], 1),
                   "floor_gbps": params.DP_FLOOR_GBPS.value, "machines": [room.spec.machine[k].name for k in need[1]],
                   "nic_gbps": {room.spec.machine[k].name: state.nic[k] for k in need[1]},
                   "switch_gbps": state.switch_gbps}
    return Evaluation(tuple(round(w, 1) for w in walls), nodes, lines, tuple(ups_rows), cooling,
                      {f: round(imbalance(c), 4) for f, c in feeds.items()}, round(heat, 1), network)
