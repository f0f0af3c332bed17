"""The power-delivery network as a graph, and the bottleneck its minimum cut names (README: DC budget, docs/verdicts.md
psu.split).

    wall → circuit → PSU → plug group (PCIe 8-pin, 12VHPWR, EPS) → GPU / CPU → load
                         → motherboard (24-pin) → board, RAM, drives, fans, slot-powered cards

Each edge carries two capacities, and the network is solved once for each:
* `watts` (DC): a circuit's breaker rating (the sustained load its breaker must hold; the lower continuous limit
  is a code rule for multi-hour loads that outlet.continuous warns about) less its other load, times the lowest
  efficiency of the PSUs on it; each PSU's rating on its circuit; each consumer's demand.
* `plugs`, counted in 8-pin equivalents (PCIe 8-pin 1, EPS 2, 12VHPWR 4): each PSU's plug groups; what each
  card's inputs take from each group it could use (natively or through its adapter); each consumer's need.
* `sockets`, only when a PSU's cables share its modular sockets (`shared_sockets`): plug groups whose cables
  take shared sockets hang below a sockets node whose edge carries the socket count; each consumer needs the
  fewest sockets it could take on any PSU it may use (0 when one of them has no shared sockets), the CPU its
  EPS cables' sockets on the board's PSU.
When the demand cannot flow, networkx's maximum flow and minimum cut name the saturated edges nearest the
wall: a circuit, a PSU, or a plug group. Both are relaxations (a card's watts may split over PSUs here), so
when both flows get through, the bottleneck is the indivisibility of cards, which the caller words itself.

Only imported when a multi-PSU build has no working split (networkx stays off the ordinary check's path:
docs/architecture.md, "Start-up").
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal, NamedTuple

import networkx as nx

from planner.build.resolve import ResolvedBuild
from planner.physics import params
from planner.physics.connectors import (
    EPS,
    HPWR,
    PCIE,
    PLUG_NAMES,
    PlugNeed,
    cpu_eps_plugs,
    gpu_plug_need,
    socket_use,
)
from planner.physics.delivery import BOARD_PSU
from planner.physics.efficiency import lowest_efficiency
from planner.physics.power import DcBudget, psu_rating
from planner.util.fmt import num, watts

if TYPE_CHECKING:
    from networkx import DiGraph

UNITS = {PCIE: 1, EPS: 2, HPWR: 4}  # 8-pin equivalents per plug
WALL, SINK, BOARD = "wall", "load", "motherboard"

Kind = Literal["circuit", "psu", "connectors", "split"]
PLUG_UNIT = "8-pin-equivalent plugs"
SOCKET_UNIT = "shared sockets"


class Bottleneck(NamedTuple):
    """Why the demand cannot be met: the limiting edges of the delivery network."""

    kind: Kind
    names: tuple[str, ...]  # the limiting parts, in words
    subject: tuple[str, ...]  # their ids, for the finding's subject
    wanted: float
    deliverable: float
    unit: str  # "W" or PLUG_UNIT
    circuits: tuple[str, ...] = ()  # names of the limiting circuits (several may share one outlet id)


def delivery_graph(build: ResolvedBuild, budget: DcBudget) -> DiGraph:
    """The build's power-delivery network with `watts` and `plugs` capacities (absent = unlimited)."""
    graph = nx.DiGraph()
    for circuit in build.circuits:
        on = [p for p in build.psus if p.circuit == circuit.name]
        if not on:
            continue
        outlet = circuit.outlet
        worst = min(lowest_efficiency(p.part.efficiency, outlet.voltage) for p in on)
        breaker = outlet.voltage * outlet.breaker_current  # the sustained load its breaker holds (UL 489, IEC 60898-1)
        dc = max(0.0, breaker - circuit.other_load) * worst
        graph.add_edge(WALL, ("circuit", circuit.name), watts=dc, kind="circuit", subject=outlet.id,
                       circuit=circuit.name,  # its name: several circuits may share an outlet id
                       name=f"circuit {circuit.name!r} ({outlet.standard}: {watts(breaker)} breaker rating"
                            + (f" less {watts(circuit.other_load)} other load" if circuit.other_load
                               else "") + f" ≈ {watts(dc)} DC)")
    for use in build.psus:
        i, part, rating = use.index, use.part, psu_rating(build, use.index)
        graph.add_edge(("circuit", use.circuit), ("psu", i), watts=rating, kind="psu", subject=part.id,
                       name=f"PSU {i + 1} ({part.name}, {watts(rating)})")
        counts = {PCIE: part.connectors.pcie_8pin, HPWR: part.connectors.hpwr, EPS: part.connectors.eps_8pin}
        per = socket_use(part)
        if part.shared_sockets is not None:
            graph.add_edge(("psu", i), ("sockets", i), sockets=part.shared_sockets, kind="connectors",
                           subject=part.id,
                           name=f"the shared sockets of PSU {i + 1} ({part.name}: {part.shared_sockets})")
        for plug, count in counts.items():
            above = ("sockets", i) if part.shared_sockets is not None and per[plug] else ("psu", i)
            graph.add_edge(above, ("plugs", i, plug), plugs=count * UNITS[plug], kind="connectors",
                           subject=part.id, name=f"the {PLUG_NAMES[plug]} plugs of PSU {i + 1} ({part.name}: {count})")
    board_part = build.psus[BOARD_PSU].part
    graph.add_edge(("psu", BOARD_PSU), BOARD)
    graph.add_edge(BOARD, "board loads")
    graph.add_edge("board loads", SINK, watts=budget.rest - budget.cpu, plugs=0, sockets=0)
    cpu_plugs = cpu_eps_plugs(budget.cpu)
    cpu_units = cpu_plugs * UNITS[EPS]
    cpu_sockets = cpu_plugs * socket_use(board_part)[EPS] if board_part.shared_sockets is not None else 0
    graph.add_edge(("plugs", BOARD_PSU, EPS), "cpu", plugs=cpu_units, kind="connectors",
                   subject=board_part.id, name=f"the EPS 8-pin plugs of PSU {BOARD_PSU + 1}")
    graph.add_edge("cpu", SINK, watts=budget.cpu, plugs=cpu_units, sockets=cpu_sockets)
    for gpu in build.gpus:
        _add_gpu(graph, build, gpu.index)
    return graph


def _fewest_sockets(build: ResolvedBuild, psu: int, need: PlugNeed) -> int:
    """The fewest shared sockets a card's cables take on one PSU (0 on a unit without shared sockets)."""
    part = build.psus[psu].part
    if part.shared_sockets is None:
        return 0
    per = socket_use(part)
    hpwr = min(per[HPWR], need.adapter_plugs * per[PCIE])  # native cable or the card's adapter
    eps = min(per[EPS], params.EPS_ADAPTER_PLUGS.value * per[PCIE])
    return int(need.pcie * per[PCIE] + need.hpwr * hpwr + need.eps * eps)


def _add_gpu(graph: DiGraph, build: ResolvedBuild, index: int) -> None:
    gpu = build.gpus[index]
    need = gpu_plug_need(gpu)
    node = ("gpu", index)
    total = need.pcie + need.adapter_plugs * need.hpwr + UNITS[EPS] * need.eps
    psus = [gpu.psu] if gpu.psu is not None else range(len(build.psus))
    sockets = min(_fewest_sockets(build, p, need) for p in psus) if total else 0
    graph.add_edge(node, SINK, watts=gpu.power_limit, plugs=total, sockets=sockets)
    if total == 0:  # no power inputs: it draws from its slot, on the board's PSU
        graph.add_edge(BOARD, node)
        return
    for p in psus:
        takes = {PCIE: total, HPWR: UNITS[HPWR] * need.hpwr, EPS: UNITS[EPS] * need.eps}
        for plug, units in takes.items():
            if units:
                graph.add_edge(("plugs", p, plug), node, plugs=units, kind="connectors",
                               subject=build.psus[p].part.id,
                               name=f"the {PLUG_NAMES[plug]} plugs of PSU {p + 1} ({build.psus[p].part.name})")


def bottleneck(build: ResolvedBuild, budget: DcBudget) -> Bottleneck | None:
    """The saturated edges nearest the wall when the demand cannot flow; None when both flows get through."""
    graph = delivery_graph(build, budget)
    passes = [("watts", "W"), ("plugs", PLUG_UNIT)]
    if any(p.part.shared_sockets is not None for p in build.psus):
        passes.append(("sockets", SOCKET_UNIT))
    for capacity, unit in passes:
        wanted = sum(data[capacity] for _, _, data in graph.in_edges(SINK, data=True))
        deliverable = nx.maximum_flow_value(graph, WALL, SINK, capacity=capacity)
        if deliverable >= wanted - 1e-6:
            continue
        _, (reachable, _) = nx.minimum_cut(graph, WALL, SINK, capacity=capacity)
        cut = [data for u, v, data in graph.edges(data=True)
               if u in reachable and v not in reachable and capacity in data and "kind" in data]
        order = {"circuit": 0, "psu": 1, "connectors": 2}
        cut.sort(key=lambda data: order[data["kind"]])
        names = tuple(dict.fromkeys(data["name"] for data in cut))
        subject = tuple(dict.fromkeys(data["subject"] for data in cut))
        circuits = tuple(data["circuit"] for data in cut if "circuit" in data)
        return Bottleneck(cut[0]["kind"] if cut else "split", names, subject, wanted, deliverable, unit, circuits)
    return None


def describe(b: Bottleneck) -> str:
    """'circuit 'office' (…) ' — the bottleneck's parts in one phrase."""
    if len(b.names) <= 1:
        return b.names[0] if b.names else "the delivery network"
    return ", ".join(b.names[:-1]) + " and " + b.names[-1]


def shortfall(b: Bottleneck) -> str:
    """'1,768 W wanted, 1,282 W deliverable', in the bottleneck's unit."""
    if b.unit == "W":
        return f"{watts(b.wanted)} wanted, {watts(b.deliverable)} deliverable"
    if b.unit == SOCKET_UNIT:
        return (f"{num(b.wanted)} {b.unit} wanted, {num(b.deliverable)} available (a PCIe or EPS cable takes one,"
                " a 12VHPWR cable that ends in two 8-pin plugs two)")
    return (f"{num(b.wanted)} {b.unit} wanted, {num(b.deliverable)} available; an EPS plug counts as 2, a 12VHPWR"
            " plug as 4")
