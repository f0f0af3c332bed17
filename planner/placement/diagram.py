"""The slot diagram: the case's expansion-slot positions top to bottom, the board's slot at each, and what
occupies it — a card (its first position is its slot, the rest its cooler), a riser's plug, or nothing —
then the cards on vertical/remote mounts, the board's PCIe switches (a slot behind one says "via" it) and
the GPUs with no mount. Plain text, every name in it one line (`fmt.printable`), used by
`planner check --diagram`, `planner place` and the TUI's slot panel.

    pos  board slot        card
      1  PCIEX16_1 x16 G4  ┏ GPU1 nvidia-rtx-3090-fe  x16 Gen4
      2  PCIEX16_2 x16 G4  ┃ GPU1's cooler
      3  PCIEX16_3 x16 G4  ┗ GPU1's cooler
      4  PCIEX16_4 x16 G4  · free
"""

from __future__ import annotations

from planner.build.resolve import ResolvedBuild
from planner.placement.layout import Layout, SlotSite, layout_of, slot_lanes, uplink_gen
from planner.placement.mounts import GpuMount, Placement
from planner.util.fmt import printable


def slot_diagram(build: ResolvedBuild, placement: Placement) -> str:
    """The diagram of a placed build (see the module docstring)."""
    layout = layout_of(build)
    mounts = [m for m in placement.mounts if m is not None]
    used = {m.slot for m in mounts if m.slot is not None}
    at: dict[int, list[str]] = {}
    for mount in mounts:
        for line, position in _occupancy(build, layout, mount):
            at.setdefault(position, []).append(line)
    last = max([layout.case_slots, *(s.position for s in layout.slots), *at])
    sites = {s.position: s for s in layout.slots}
    case = build.case
    title = (f"{build.motherboard.name} in the {case.name} "
             f"({case.expansion_slots} expansion slots{', open frame' if case.open_frame else ''}"
             f"{f', {case.vertical_gpu_mounts} vertical mounts' if case.vertical_gpu_mounts else ''})")
    width = max([len("board slot"), *(len(_slot_text(s, used)) for s in layout.slots)]) + 2
    lines = [title, f"pos  {'board slot':<{width}}card"]
    for position in range(1, last + 1):
        site = sites.get(position)
        slot = _slot_text(site, used) if site else "—"
        here = at.get(position, [])
        card = " ✗ ".join(here) if here else "· free"
        if len(here) > 1:
            card += "  ✗ overlap"
        if layout.case_end is not None and position > layout.case_end:
            card += "  ✗ past the case's last slot" if here else "  (below the case's last slot)"
            if not here and not site:
                continue
        lines.append(f"{position:>3}  {slot:<{width}}{card}".rstrip())
    for mount in mounts:
        if not mount.positions:
            gpu = build.gpus[mount.gpu]
            lines.append(f"     {mount.mount:<{width}}GPU{gpu.index + 1} {gpu.board.id}  {_link(mount)}"
                         f"  via {mount.riser} from {mount.slot}")
    for switch in layout.switches:
        where = "CPU" if switch.source == "cpu" else "chipset"
        lines.append(f"     {switch.name} ({switch.model}): x{switch.lanes} Gen{uplink_gen(switch, layout.cpu_gen)} "
                     f"link to the {where}, shared by {', '.join(switch.slots)}")
    unplaced = [g for g in build.gpus if placement.of(g.index) is None]
    if unplaced:
        lines.append(f"     no mount: {', '.join(f'GPU{g.index + 1} {g.board.id}' for g in unplaced)}")
        if placement.reason:
            lines.append(f"     {placement.reason}")
    # each line is one line: a newline or control in a slot, switch or part name is shown as its escape, so it
    # cannot forge a line of the diagram (or act on the terminal)
    return "\n".join(printable(line) for line in lines) + "\n"


def _occupancy(build: ResolvedBuild, layout: Layout, mount: GpuMount) -> list[tuple[str, int]]:
    """(text, position) for each position a mount occupies: a card's slot and cooler, or a riser's plug."""
    gpu = build.gpus[mount.gpu]
    label = f"GPU{gpu.index + 1}"
    if not mount.positions:  # a riser cable: only its plug is on the slot row
        position = layout.slot(str(mount.slot)).position
        return [(f"╍ riser plug of {label} → {mount.mount}", position)]
    first, *rest = mount.positions
    riser = f" on {mount.riser}" if mount.riser else ""
    head = "┏" if rest else "■"
    out = [(f"{head} {label} {gpu.board.id}  {_link(mount)}{riser}", first)]
    for i, position in enumerate(rest):
        out.append((f"{'┗' if i == len(rest) - 1 else '┃'} {label}'s cooler", position))
    return out


def _slot_text(site: SlotSite, used: set[str]) -> str:
    lanes = slot_lanes(site, used)
    wired = f"x{lanes}" if lanes == site.lanes else (f"x{lanes} (x{site.lanes} if alone)" if lanes else "off")
    size = "" if site.size == 16 else f" (x{site.size} slot)"
    source = " chipset" if site.source == "chipset" else ""
    switch = f" via {site.switch}" if site.switch else ""
    return printable(f"{site.name} {wired} G{site.gen}{source}{size}{switch}")


def _link(mount: GpuMount) -> str:
    return f"x{mount.lanes} Gen{mount.gen}" if mount.lanes is not None and mount.gen is not None else ""
