"""The mount model: what the board, the case and each card offer and need, in plain numbers.

A `Layout` holds the motherboard's slots (position, physical size, electrical lanes, generation, CPU or
chipset, lane-sharing rules, the PCIe switch they sit behind), its switches (upstream link), the case's last
expansion-slot position and its vertical/remote mounts.
A `CardNeed` holds what one GPU needs: how many positions its cooler covers, its lanes, and whether it
sits in a slot (directly or on an extender) or on a riser cable to a mount. The solver, the checks and
the diagram all read these, so the placement rules (README: Placement) live in one place.
"""


import math
from collections.abc import Iterable
from typing import NamedTuple

from planner.build.resolve import GpuInstance, ResolvedBuild
from planner.models.parts import ShareRule

#: Coolers that breathe through fans on their face: they want free space below them (README: Thermals).
OPEN_AIR_COOLERS = frozenset({"open-air", "flow-through"})
#: A GPU's edge connector is x16: it needs a full-length slot of its own.
CARD_SLOT_SIZE = 16


class SlotSite(NamedTuple):
    """One motherboard slot as the solver sees it."""

    name: str
    position: int
    size: int  # physical (16 = full length)
    lanes: int  # electrical, when nothing shares it
    gen: int
    source: str  # "cpu" | "chipset" (behind a switch: where the switch's upstream link goes)
    shares: tuple[ShareRule, ...]
    switch: str | None = None  # name of the PCIe switch the slot sits behind


class SwitchSite(NamedTuple):
    """A PCIe switch: its slots link to it at their own width; it links to the CPU (or chipset) once."""

    name: str
    model: str
    lanes: int  # upstream link
    gen: int
    source: str  # "cpu" | "chipset": where the upstream link goes
    slots: tuple[str, ...]
    estimated: bool  # which slots sit behind it is not read off the board's block diagram


class CardNeed(NamedTuple):
    """What one GPU needs from the layout."""

    gpu: int  # index into ResolvedBuild.gpus
    width: int  # positions its cooler covers (⌈slot_width⌉); a card on a riser cable covers none
    lanes: int  # the card's own link width
    gen: int  # the card's own PCIe generation
    open_air: bool
    on_mount: bool  # a riser cable: the card sits on a vertical/remote mount, the riser in a slot
    riser: str | None  # riser id
    riser_lanes: int | None
    slot: str | None  # the slot the build file names (for the card, or for its riser)

    @property
    def kind(self) -> tuple[int, int, int, bool, bool, str | None]:
        """Cards with the same kind are interchangeable for the solver."""
        return (self.width, self.lanes, self.gen, self.open_air, self.on_mount, self.riser)

    @property
    def link_cap(self) -> int:
        """Lanes the card (and its riser) can use in any slot."""
        return min(self.lanes, self.riser_lanes) if self.riser_lanes else self.lanes

    @property
    def plug_size(self) -> int:
        """Physical slot size the card or its riser's plug needs."""
        return self.riser_lanes if self.on_mount and self.riser_lanes else CARD_SLOT_SIZE


class Layout(NamedTuple):
    """The board's slots (top to bottom) and the case's positions and mounts."""

    slots: tuple[SlotSite, ...]
    case_end: int | None  # last position a cooler may cover; None for an open frame (nothing below the board)
    case_slots: int  # the case's expansion-slot count (shown in messages)
    mounts: int  # vertical/remote mounts for cards on riser cables
    cpu_gen: int
    estimated: bool  # the board's slot positions are not read off its manual
    switches: tuple[SwitchSite, ...] = ()

    def slot(self, name: str) -> SlotSite:
        return next(s for s in self.slots if s.name == name)

    def switch(self, name: str) -> SwitchSite:
        return next(w for w in self.switches if w.name == name)


#: Layouts by the identity of the parts they come from (catalog parts are shared objects, so every
#: re-check of a build hits this); the parts are kept with the layout so an id is never reused meanwhile.
_LAYOUTS: dict[tuple[int, int, int], tuple[Layout, object, object, object]] = {}


def layout_of(build: ResolvedBuild) -> Layout:
    """The build's layout from its motherboard, case and CPU."""
    key = (id(build.motherboard), id(build.case), id(build.cpu))
    hit = _LAYOUTS.get(key)
    if hit is not None and hit[1] is build.motherboard and hit[2] is build.case and hit[3] is build.cpu:
        return hit[0]
    if len(_LAYOUTS) > 512:
        _LAYOUTS.clear()
    layout = _layout(build)
    _LAYOUTS[key] = (layout, build.motherboard, build.case, build.cpu)
    return layout


def _layout(build: ResolvedBuild) -> Layout:
    board, case = build.motherboard, build.case
    behind = {slot: w.name for w in board.switches for slot in w.slots}
    slots = tuple(sorted((SlotSite(s.name, s.position, s.size, s.lanes, s.gen, s.source, tuple(s.shares),
                                   behind.get(s.name)) for s in board.slots), key=lambda s: s.position))
    sources = {s.name: s.source for s in board.slots}
    switches = tuple(SwitchSite(w.name, w.model, w.upstream_lanes, w.upstream_gen, sources[w.slots[0]],
                                tuple(w.slots), "switches" in board.estimated) for w in board.switches)
    return Layout(slots=slots, case_end=None if case.open_frame else case.expansion_slots,
                  case_slots=case.expansion_slots, mounts=case.vertical_gpu_mounts, cpu_gen=build.cpu.pcie_gen,
                  estimated="slots" in board.estimated, switches=switches)


def need_of(gpu: GpuInstance) -> CardNeed:
    """What one GPU of the build needs."""
    riser = gpu.riser
    on_mount = riser is not None and riser.kind == "cable"
    return CardNeed(gpu=gpu.index, width=0 if on_mount else math.ceil(gpu.board.slot_width),
                    lanes=gpu.board.pcie_lanes, gen=gpu.board.pcie_gen, open_air=gpu.board.cooler in OPEN_AIR_COOLERS,
                    on_mount=on_mount, riser=riser.id if riser else None,
                    riser_lanes=riser.lanes if riser else None, slot=gpu.slot)


def needs_of(build: ResolvedBuild) -> tuple[CardNeed, ...]:
    return tuple(need_of(g) for g in build.gpus)


def covered(position: int, width: int) -> range:
    """Positions a card at `position` covers (a riser plug covers just its own slot)."""
    return range(position, position + max(width, 1))


def slot_lanes(slot: SlotSite, used: Iterable[str]) -> int:
    """A slot's electrical lanes once the sharing rules of the used slots apply (0 = disabled)."""
    used = set(used)
    lanes = slot.lanes
    for rule in slot.shares:
        if rule.when_used in used:
            lanes = min(lanes, rule.lanes)
    return lanes


def link_gen(slot: SlotSite, need: CardNeed, cpu_gen: int) -> int:
    """The link generation: the lowest of the slot's, the card's and (for CPU lanes) the CPU's. Behind a
    switch the card's link ends at the switch: the CPU's generation limits only the switch's uplink."""
    gen = min(slot.gen, need.gen)
    return min(gen, cpu_gen) if slot.source == "cpu" and slot.switch is None else gen


def uplink_gen(switch: SwitchSite, cpu_gen: int) -> int:
    """The generation a switch's upstream link trains at (on CPU lanes, no faster than the CPU's)."""
    return min(switch.gen, cpu_gen) if switch.source == "cpu" else switch.gen
