"""Case air and GPU temperatures (README: Thermals): transparent and conservative, not CFD.

* **Case air.** The heat released inside the case (each card's share by cooler type — blowers exhaust most
  of theirs through the bracket, open-air cards keep all of it in — plus CPU, board, RAM, drives, fans)
  warms the intake air by ΔT = 1.76 × W / CFM at the case's effective intake airflow.
* **Airflow graph.** Intake air reaches the slot row at the bottom and rises through the stack: every
  card's heat warms the air of the cards above it, and an open-air or flow-through card whose intake sits
  on the next card down (no free slot) also breathes a share of that card's exhaust. The graph (card →
  cards above it) is walked in topological order, so each card's inlet is known from the cards below it,
  including their throttled power. It is built and walked on every check, so it uses the standard
  library's `graphlib`, not networkx (docs/architecture.md, "Start-up"); a DAG of at most 16 cards needs
  nothing more.
* **Cards.** T = T_inlet + P × R_th with R_th = (rise at the card's default power, by cooler type) / tdp,
  times a penalty when sandwiched. Near its temperature target a card raises its fans and then lowers its
  clocks, so above the target the model reports the power it settles at (holding the target) instead of
  an ever higher temperature; the throughput that costs comes from the slowdown model.
* **What is under the lowest card.** A card with no card below it faces what sits under the last expansion
  slot: the PSU (under its shroud), a drive cage, the bare floor, or floor intake fans. With less than one
  slot of room (the case's `floor_clearance`, else an assumed figure) a card that draws its air from below
  is starved: it cools worse, part of its own exhaust curls back into its intake, and a PSU under it adds
  part of its loss heat. Each term is kept, so a finding can say what its inlet air is made of.
* Cards off the slot row (riser mounts) or not placed yet take well-mixed case air and no neighbour
  penalty; passive cards have no temperature without server airflow (the check says so).

Every parameter, with its source and why: planner/physics/params.py.
"""


import math
from functools import lru_cache
from graphlib import TopologicalSorter
from typing import Literal, NamedTuple

from planner.build.resolve import ResolvedBuild
from planner.models.parts import Case, GpuBoard
from planner.physics import params
from planner.placement.mounts import Placement

#: Rise over the card's inlet air at its default board power, °C, by cooler type.
COOLER_RISE: dict[str, params.Param] = {
    "flow-through": params.RISE_FLOW_THROUGH, "open-air": params.RISE_OPEN_AIR, "blower": params.RISE_BLOWER,
    "liquid": params.RISE_LIQUID, "passive": params.RISE_PASSIVE,
}
#: Share of a card's heat released inside the case, by cooler type.
CASE_SHARE: dict[str, params.Param] = {
    "flow-through": params.CASE_SHARE_FLOW_THROUGH, "open-air": params.CASE_SHARE_OPEN_AIR,
    "blower": params.CASE_SHARE_BLOWER, "liquid": params.CASE_SHARE_LIQUID, "passive": params.CASE_SHARE_PASSIVE,
}
#: Coolers that draw their air from the face pointing at the next card down.
BOTTOM_INTAKE = ("open-air", "flow-through")

Where = Literal["slot-row", "off-row", "unknown"]


class Floor(NamedTuple):
    """What the fans of the lowest card face when it has less than one slot of room under it."""

    what: str  # "the PSU", "a drive cage", "the case floor"
    gap_mm: float
    psu: bool  # a PSU under it adds part of its loss heat
    assumed: tuple[str, ...]  # what the case entry does not say and the model assumed


#: One term of a card's inlet air: what warms it and by how many °C (the first term is the room).
InletTerm = tuple[str, float]


class GpuThermal(NamedTuple):
    """One card's predicted temperature."""

    gpu: int
    where: Where  # on the slot row, on a riser mount off it, or not placed yet
    inlet_c: float
    unthrottled_c: float | None  # T_inlet + P × R_th at its power limit (None: passive without server airflow)
    temperature_c: float | None  # where it settles: the above, or its target while it throttles to hold it
    limit_w: float
    power_w: float  # what it draws: its limit, or less while holding its temperature target
    sandwiched_by: int | None  # the card right below it (no free slot) whose exhaust it breathes
    floor: Floor | None = None  # starved over the PSU shroud, a drive cage or the floor
    inlet_terms: tuple[InletTerm, ...] = ()  # what its inlet air is made of: the room, then each warming term

    @property
    def throttled(self) -> bool:
        return self.power_w < self.limit_w


class CaseAir(NamedTuple):
    """The case's air: heat released in it, effective intake airflow and the rise over the room."""

    heat_w: float
    rated_airflow_cfm: float  # the intake fans' free-air ratings (assumed fans when the case ships with none)
    airflow_cfm: float  # effective: after filters and mesh
    assumed_fans: int | None  # intake fans assumed because the case ships without any (or its intake is unknown)
    rise_c: float | None  # 0 on an open frame; None: no fan moves air through an enclosed case (unknown)
    open_frame: bool
    intake_unknown: bool = False  # the catalog does not know the case's stock intake: the fans are an assumption


class Thermal(NamedTuple):
    gpus: tuple[GpuThermal, ...]
    case: CaseAir
    order: tuple[int, ...]  # the order the airflow graph was walked in (bottom of the stack first)


def thermal_resistance(board: GpuBoard) -> float:
    """R_th in °C/W: the cooler type's rise at the card's default power, divided by that power."""
    return COOLER_RISE[board.cooler].value / board.tdp


def case_share(board: GpuBoard) -> float:
    return CASE_SHARE[board.cooler].value


def intake_unknown(case: Case) -> bool:
    """The case's stock intake airflow is not known: absent, or 0 marked as an estimate (fans not confirmed)."""
    if case.open_frame:
        return False
    return case.intake_airflow is None or (case.intake_airflow == 0 and "intake_airflow" in case.estimated)


def case_airflow(build: ResolvedBuild) -> tuple[float, int | None]:
    """Rated intake airflow in CFM, and the intake fans assumed when the case ships without any or its stock
    intake is not known (0 CFM when the build says it has no fans: `[extras] fans = 0`)."""
    if build.case.open_frame:
        return build.case.intake_airflow or 0.0, None
    if build.case.intake_airflow and not intake_unknown(build.case):
        return build.case.intake_airflow, None
    fans = build.extras.fans if build.extras.fans is not None else int(params.DEFAULT_FANS.value)
    if fans == 0:
        return 0.0, None
    intake_fans = max(fans - 1, 1)  # one of them exhausts, as the DC budget's default assumes
    return intake_fans * params.ASSUMED_INTAKE_FAN.value, intake_fans


def _air_rise(heat_w: float, airflow_cfm: float) -> float:
    return params.AIR_HEATING.value * heat_w / airflow_cfm


def case_air(build: ResolvedBuild, rest_w: float) -> CaseAir:
    """Heat into the case at the power limits (sustained full load) and the air rise it causes."""
    heat = sum(case_share(g.board) * g.power_limit for g in build.gpus) + rest_w
    rated, assumed = case_airflow(build)
    if build.case.open_frame:
        return CaseAir(heat, rated, float("inf"), assumed, 0.0, True)
    effective = rated * params.EFFECTIVE_AIRFLOW_FRACTION.value
    if effective <= 0:  # no fan at all: the model has no figure for the rise (thermal.case says so)
        return CaseAir(heat, rated, 0.0, assumed, None, False, intake_unknown(build.case))
    return CaseAir(heat, rated, effective, assumed, _air_rise(heat, effective), False, intake_unknown(build.case))


#: One card on the airflow graph: its index, whether it draws its air from below, the slot positions its
#: cooler covers (None: not placed yet; (): off the slot row, on a riser to a mount), and the share of its last
#: position the cooler leaves free (a 2.5-slot card in 3 positions: 0.5).
_Card = tuple[int, bool, tuple[int, ...] | None, float]
#: What the case puts under its slot row: last slot position, what sits there (None: not known), the room
#: between them in mm (None: not known), whether the floor can starve a card at all (an enclosed case
#: without forced server airflow), and the case fields among these that the catalog marks as estimates.
_Under = tuple[int, str | None, float | None, bool, frozenset[str]]

_BELOW_SLOTS = {"psu": "the PSU", "drive-cage": "a drive cage", "floor": "the case floor"}


class _Airflow(NamedTuple):
    below: dict[int, frozenset[int]]  # for each card, the cards below it on the slot row
    sandwiched: dict[int, int]  # cards that draw the exhaust of the card right below them
    floored: dict[int, Floor]  # lowest cards starved by what is under the slot row
    where: dict[int, Where]
    order: tuple[int, ...]  # a topological order: cards below come before the cards above


def _airflow(build: ResolvedBuild, placement: Placement) -> _Airflow:
    """The airflow graph of the cards where they sit. It depends only on where each card sits and how it
    breathes, not on its power: re-checks that change power limits, PSUs or circuits share one."""
    cards = []
    for gpu in build.gpus:
        mount = placement.of(gpu.index)
        width = gpu.board.slot_width
        cards.append((gpu.index, gpu.board.cooler in BOTTOM_INTAKE,
                      None if mount is None else tuple(mount.positions), math.ceil(width) - width))
    case = build.case
    under = (case.expansion_slots, case.below_slots, case.floor_clearance,
             not (case.open_frame or case.server_airflow),
             frozenset(case.estimated) & {"below_slots", "floor_clearance"})
    return _airflow_of(tuple(cards), under)


def _floor(bottom: int, spare: float, under: _Under) -> Floor | None:
    """What a card whose cooler ends at position `bottom` (leaving `spare` of it free), with no card under
    it, faces; None when it has room enough (or floor fans feed it)."""
    last, below_slots, clearance, enclosed, estimated = under
    if not enclosed or below_slots == "intake-fans":
        return None
    what = _BELOW_SLOTS[below_slots or "psu"]
    assumed = []
    if below_slots is None or "below_slots" in estimated:
        assumed.append(f"{what} under the slots" + ("" if below_slots is None else " (an estimate in the catalog)"))
    if clearance is None or "floor_clearance" in estimated:
        clearance = params.FLOOR_CLEARANCE_ASSUMED.value if clearance is None else clearance
        assumed.append(f"{clearance:g} mm of room under the last slot")
    gap = (last - bottom + spare) * params.SLOT_PITCH.value + clearance
    if gap >= params.STARVED_INTAKE_GAP.value:
        return None
    return Floor(what, gap, below_slots in (None, "psu"), tuple(assumed))


@lru_cache(maxsize=512)
def _airflow_of(cards: tuple[_Card, ...], under: _Under) -> _Airflow:
    span: dict[int, tuple[int, int]] = {}
    where: dict[int, Where] = {}
    for index, _, positions, _ in cards:
        if positions is None:
            where[index] = "unknown"
        elif not positions:
            where[index] = "off-row"
        else:
            where[index] = "slot-row"
            span[index] = (min(positions), max(positions))
    bottom_intake = {index for index, from_below, _, _ in cards if from_below}
    spare = {index: free for index, _, _, free in cards}
    below: dict[int, set[int]] = {index: set() for index, _, _, _ in cards}
    sandwiched: dict[int, int] = {}
    for upper, (_, bottom) in span.items():
        for lower, (top, _) in span.items():
            if top > bottom:  # positions count from the top: the lower card's top edge is under this one
                below[upper].add(lower)
                if top == bottom + 1 and upper in bottom_intake:
                    sandwiched[upper] = lower
    floored = {}
    for index, (_, bottom) in span.items():
        if index in bottom_intake and not below[index] and (floor := _floor(bottom, spare[index], under)):
            floored[index] = floor
    order = tuple(TopologicalSorter(below).static_order())
    return _Airflow({i: frozenset(b) for i, b in below.items()}, sandwiched, floored, where, order)


def _exhaust_rise(board: GpuBoard, power_w: float, penalty: float) -> float:
    """How much warmer a card's exhaust is than its intake: its heat in the air through its cooler, which a
    starved cooler moves `penalty` times less of."""
    return _air_rise(case_share(board) * power_w, params.CARD_AIRFLOW.value / penalty)


def psu_loss(build: ResolvedBuild, rest_w: float) -> float:
    """Heat lost in one PSU at the power limits: an even share of the DC load at WALL_EFFICIENCY."""
    dc = (sum(g.power_limit for g in build.gpus) + rest_w) / max(len(build.psus), 1)
    return dc * (1 / params.WALL_EFFICIENCY.value - 1)


def thermal_model(build: ResolvedBuild, placement: Placement, rest_w: float) -> Thermal:
    """Every card's inlet air and temperature, and the case air rise. `rest_w`: the heat of everything but
    the GPUs (CPU, board, RAM, drives, fans, other), all of it released inside the case."""
    air = case_air(build, rest_w)
    below, sandwiched, floored, where, order = _airflow(build, placement)
    server_airflow = build.case.server_airflow
    still_air = air.rise_c is None  # an enclosed case with no fan: no card's temperature can be predicted
    results: dict[int, GpuThermal] = {}
    exhaust: dict[int, float] = {}
    gpus, room = build.gpus, build.ambient
    sandwich_penalty, starved_penalty = params.SANDWICH_PENALTY.value, params.FLOOR_STARVED_PENALTY.value
    mixed_case_air = None if air.open_frame or air.rise_c is None else params.CASE_AIR_MIX.value * air.rise_c
    for index in order:
        gpu = gpus[index]
        board, limit = gpu.board, gpu.power_limit
        floor = floored.get(index)
        lower = sandwiched.get(index)
        penalty = sandwich_penalty if lower is not None else starved_penalty if floor else 1.0
        place = where[index]
        terms: list[InletTerm] = [("room", room)]
        inlet = room  # the sum of the terms, in their order
        if still_air:
            pass  # no airflow through the case: its air temperature is unknown (the inlet is the room's at least)
        elif place == "slot-row":
            heat_below = sum(case_share(gpus[j].board) * results[j].power_w for j in below[index])
            if heat_below and not air.open_frame:
                term = _air_rise(heat_below, air.airflow_cfm)
                terms.append(("case air warmed by the cards below", term))
                inlet += term
            if lower is not None:
                m = params.SANDWICH_RECIRCULATION.value
                term = m * (exhaust[lower] - inlet)
                terms.append((f"the exhaust of GPU{lower + 1} right below it", term))
                inlet += term
            elif floor:
                m = params.FLOOR_RECIRCULATION.value
                # its own exhaust at its limit: the intake mixes (1 − m) air with m of its exhaust
                term = m / (1 - m) * _exhaust_rise(board, limit, penalty)
                terms.append((f"its own exhaust, trapped by {floor.what} {floor.gap_mm:.0f} mm under it", term))
                inlet += term
                if floor.psu:
                    heat = params.PSU_BELOW_HEAT_SHARE.value * psu_loss(build, rest_w)
                    term = _air_rise(heat, params.CARD_AIRFLOW.value / penalty)
                    terms.append(("the PSU below", term))
                    inlet += term
        elif mixed_case_air is not None:
            terms.append(("well-mixed case air", mixed_case_air))
            inlet += mixed_case_air
        if (board.cooler == "passive" and not server_airflow) or still_air:
            results[index] = GpuThermal(index, place, inlet, None, None, limit, limit, lower, floor, tuple(terms))
            power = limit
        else:
            resistance = thermal_resistance(board) * penalty
            unthrottled = inlet + limit * resistance
            power = limit
            if unthrottled >= board.temp_target:
                # GPU Boost holds the target by lowering clocks, down to the card's lowest power limit
                power = min(limit, max((board.temp_target - inlet) / resistance, board.power_limit_min))
            results[index] = GpuThermal(index, place, inlet, unthrottled, inlet + power * resistance,
                                        limit, power, lower, floor, tuple(terms))
        exhaust[index] = inlet + _exhaust_rise(board, power, penalty)
    return Thermal(tuple(results[g.index] for g in build.gpus), air, order)
