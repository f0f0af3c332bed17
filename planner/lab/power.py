"""The lab's power tree: nodes PSUs plug into (a wall circuit or a PDU bank), the lines of each feed and PDU,
and the load on each for an assignment of PSUs to nodes.

A three-phase line current is the phasor sum of the loads that draw from it (unity power factor: PSUs with
active PFC): a line-to-line bank draws from both its lines, 30° off each line-to-neutral phasor, so a 208 V
delta feed loaded evenly carries √3 × a bank's current on each line (Raritan, "How to calculate current on a
3-phase 208V rack PDU", 2011). Every line current only grows as a PSU is added (the phasors that meet at a
line are at most 60° apart), which the assignment solver's bound relies on."""

from __future__ import annotations

import cmath
import math
from collections.abc import Sequence
from typing import NamedTuple

_ANGLE = {"L1": 0.0, "L2": -2 * math.pi / 3, "L3": 2 * math.pi / 3}


class Node(NamedTuple):
    """Where a PSU plugs in: a wall circuit or a PDU bank."""

    id: str  # circuit name, or PDU/BANK
    kind: str  # "circuit" | "bank"
    voltage: float
    limit_w: float  # continuous limit, W (circuit: minus its other load)
    breaker_a: float
    c13: int  # outlets that take a C14 inlet's cord (a wall circuit: its receptacles)
    c19: int  # outlets that take a C20 inlet's cord (or a C14 with a C19-to-C14 cord)
    lines: tuple[tuple[int, complex], ...]  # (line index, unit current phasor per A of this node's current)
    pdu: str | None
    wall_outlet: bool  # a wall circuit: any receptacle takes either cord (a plug-to-C13/C19 cord)


class Line(NamedTuple):
    """One line of a feed or of a PDU's input, with its continuous limit."""

    id: str  # FEED:L1, or PDU:L1
    limit_a: float
    feed: str  # the feed (three-phase balance is judged per feed)
    three_phase: bool


def connection(phase: str, voltage_ll: float, three_phase: bool, wye: bool) -> tuple[float, list[tuple[str, complex]]]:
    """A bank's voltage and the unit current phasors it puts on each line it draws from."""
    if not three_phase:
        return voltage_ll, [("L1", 1 + 0j)]
    parts = phase.split("-")
    if len(parts) == 1 or parts[1] == "N":
        if not wye:
            raise ValueError("a delta feed has no neutral: use a line pair (L1-L2, L2-L3 or L3-L1)")
        return voltage_ll / math.sqrt(3), [(parts[0], cmath.exp(1j * _ANGLE[parts[0]]))]
    a, b = parts
    if a == b:
        raise ValueError("a bank draws from two different lines")
    v = cmath.exp(1j * _ANGLE[a]) - cmath.exp(1j * _ANGLE[b])
    unit = v / abs(v)
    return voltage_ll, [(a, unit), (b, -unit)]


class Loads(NamedTuple):
    node_w: tuple[float, ...]
    line_a: tuple[float, ...]


def loads(nodes: Sequence[Node], n_lines: int, walls: Sequence[float], where: Sequence[int]) -> Loads:
    """Each node's wall load and each line's current for PSU wall draws `walls` placed at nodes `where`."""
    node_w = [0.0] * len(nodes)
    for w, n in zip(walls, where, strict=True):
        node_w[n] += w
    phasors = [0j] * n_lines
    for n, node in enumerate(nodes):
        current = node_w[n] / node.voltage
        for line, unit in node.lines:
            phasors[line] += current * unit
    return Loads(tuple(node_w), tuple(abs(p) for p in phasors))


def imbalance(currents: Sequence[float]) -> float:
    """Largest departure from the mean line current, as a fraction of the mean (0 when unloaded)."""
    mean = sum(currents) / len(currents)
    return 0.0 if mean <= 0 else max(abs(c - mean) for c in currents) / mean
