"""The PCIe tree of a placed build as a networkx graph: CPU → PCIe switches / root ports / chipset → slots →
risers → GPUs.

Nodes carry what each hop offers (lanes, generation; a riser its length and signal type), so a GPU's link
is the narrowest and slowest hop on its path from the CPU, and what shares a hop is its subtree. Slots
joined by a lane-sharing rule hang off one root port (the rule splits that port's lanes): the ports are the
connected components of the sharing rules. Slots behind a PCIe switch hang off the switch's node, which
holds its upstream link: the card's link ends at the switch, the uplink is shared by everything below it.

Why networkx only here (docs/architecture.md, "Start-up"): the solver and the lane arithmetic that every
check run needs are plain Python (planner/placement/solver.py, layout.py); this tree is built for what
needs the paths — the riser checks (only for builds with risers), `planner place` and its diagram — and a
test holds the two in agreement.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from planner.build.resolve import ResolvedBuild
from planner.placement import params as placement_params
from planner.placement.layout import Layout, layout_of, slot_lanes, uplink_gen
from planner.placement.mounts import Placement
from planner.util.fmt import printable

if TYPE_CHECKING:
    import networkx as nx

CPU = "CPU"
CHIPSET = "chipset"


def gpu_node(gpu: int) -> str:
    return f"GPU{gpu + 1}"


def riser_node(gpu: int) -> str:
    return f"riser of GPU{gpu + 1}"


def pcie_tree(build: ResolvedBuild, placement: Placement) -> nx.DiGraph:
    """The build's PCIe tree with its GPUs where `placement` puts them."""
    import networkx as nx

    layout = layout_of(build)
    used = {m.slot for m in placement.mounts if m is not None and m.slot}
    tree = nx.DiGraph()
    tree.add_node(CPU, kind="cpu", label=build.cpu.name, lanes=build.cpu.pcie_lanes, gen=build.cpu.pcie_gen)
    chipset_slots = [s for s in layout.slots if s.source == "chipset"]
    if chipset_slots:
        tree.add_node(CHIPSET, kind="chipset", label=build.motherboard.chipset or "chipset",
                      lanes=int(placement_params.CHIPSET_UPLINK_LANES.value),
                      gen=min(build.cpu.pcie_gen, max(s.gen for s in chipset_slots)))
        tree.add_edge(CPU, CHIPSET)
    for switch in layout.switches:
        tree.add_node(switch.name, kind="switch", label=switch.model, lanes=switch.lanes,
                      gen=uplink_gen(switch, build.cpu.pcie_gen), upstream="CPU" if switch.source == "cpu" else
                      "chipset", position=min(layout.slot(s).position for s in switch.slots))
        tree.add_edge(CPU if switch.source == "cpu" else CHIPSET, switch.name)
    for group in _ports(layout):
        slots = [layout.slot(name) for name in sorted(group, key=lambda n: layout.slot(n).position)]
        parent = slots[0].switch or (CPU if slots[0].source == "cpu" else CHIPSET)
        port = f"port {'+'.join(s.name for s in slots)}" if len(slots) > 1 else None
        if port:
            tree.add_node(port, kind="port", label=f"shared x{max(s.lanes for s in slots)} port",
                          lanes=max(s.lanes for s in slots), gen=max(s.gen for s in slots), position=slots[0].position)
            tree.add_edge(parent, port)
        for site in slots:
            tree.add_node(site.name, kind="slot", label=site.name, lanes=slot_lanes(site, used), gen=site.gen,
                          position=site.position, nominal_lanes=site.lanes)
            tree.add_edge(port or parent, site.name)
    for mount in placement.mounts:
        if mount is None or mount.slot is None:
            continue
        gpu = build.gpus[mount.gpu]
        parent = mount.slot
        if gpu.riser is not None:
            riser = gpu.riser
            node = riser_node(mount.gpu)
            tree.add_node(node, kind="riser", label=riser.name, lanes=riser.lanes, gen=riser.pcie_gen,
                          length=riser.length, signal=riser.signal, riser=riser.id, riser_kind=riser.kind)
            tree.add_edge(parent, node)
            parent = node
        tree.add_node(gpu_node(mount.gpu), kind="gpu", label=gpu.board.name, lanes=gpu.board.pcie_lanes,
                      gen=gpu.board.pcie_gen, gpu=mount.gpu, mount=mount.mount)
        tree.add_edge(parent, gpu_node(mount.gpu))
    return tree


def _ports(layout: Layout) -> list[set[str]]:
    """Slots joined by sharing rules (one root port split between them); every other slot alone."""
    import networkx as nx

    graph = nx.Graph()
    names = {s.name for s in layout.slots}
    graph.add_nodes_from(names)
    for site in layout.slots:
        for rule in site.shares:
            if rule.when_used in names:
                graph.add_edge(site.name, rule.when_used)
    return [set(c) for c in nx.connected_components(graph)]


def path_to(tree: nx.DiGraph, gpu: int) -> list[str]:
    """The hops from the CPU to a GPU."""
    import networkx as nx

    return list(nx.shortest_path(tree, CPU, gpu_node(gpu)))


def link(tree: nx.DiGraph, gpu: int) -> tuple[int, int]:
    """(lanes, generation) of a GPU's link: the narrowest and slowest hop from its slot to the card, and on
    CPU lanes the CPU's generation.

    Hops above the slot (a shared port, a PCIe switch's or the chipset's uplink) are shared bandwidth, not
    the link's width: `gpus_under` tells what shares them. A riser is passive wiring: its rating limits the
    lanes it carries but not the generation the link trains at (a Gen4 link over a Gen3 riser is what
    riser.signal flags)."""
    hops = path_to(tree, gpu)
    below = hops[next(i for i, node in enumerate(hops) if tree.nodes[node]["kind"] == "slot"):]
    lanes = min(tree.nodes[n]["lanes"] for n in below)
    gen = min(tree.nodes[n]["gen"] for n in below if tree.nodes[n]["kind"] != "riser")
    if CHIPSET not in hops and not any(tree.nodes[n]["kind"] == "switch" for n in hops):
        gen = min(gen, tree.nodes[CPU]["gen"])
    return lanes, gen


def gpus_under(tree: nx.DiGraph, node: str) -> list[int]:
    """The GPUs whose links pass through `node` (e.g. the chipset or a PCIe switch)."""
    import networkx as nx

    return sorted(tree.nodes[n]["gpu"] for n in nx.descendants(tree, node) if tree.nodes[n]["kind"] == "gpu")


def render_tree(tree: nx.DiGraph) -> str:
    """The tree as indented text, CPU first, children by slot position."""
    lines: list[str] = []

    def walk(node: str, depth: int) -> None:
        data = tree.nodes[node]
        # a name's newline or control shown as its escape: it cannot forge a line of the tree
        lines.append(f"{'  ' * depth}{'└ ' if depth else ''}{printable(_describe(node, data))}")
        for child in sorted(tree.successors(node), key=lambda c: (tree.nodes[c].get("position", 0), c)):
            walk(child, depth + 1)

    walk(CPU, 0)
    return "\n".join(lines)


def _describe(node: str, data: dict[str, Any]) -> str:
    kind = data["kind"]
    if kind == "cpu":
        return f"CPU {data['label']}: {data['lanes']} lanes, Gen{data['gen']}"
    if kind == "chipset":
        return f"chipset {data['label']}: x{data['lanes']} Gen{data['gen']} link to the CPU, shared"
    if kind == "switch":
        return (f"{node} {data['label']}: x{data['lanes']} Gen{data['gen']} link to the {data['upstream']}, "
                "shared by the slots below it")
    if kind == "port":
        return data["label"]
    if kind == "slot":
        narrowed = f" (x{data['nominal_lanes']} when alone)" if data["lanes"] != data["nominal_lanes"] else ""
        return f"{node} (position {data['position']}): x{data['lanes']} Gen{data['gen']}{narrowed}"
    if kind == "riser":
        return (f"riser {data['label']}: x{data['lanes']}, rated Gen{data['gen']}, {data['length']:g} mm, "
                f"{data['signal']}")
    return f"{node} {data['label']} on {data['mount']}: x{data['lanes']} Gen{data['gen']} card"
