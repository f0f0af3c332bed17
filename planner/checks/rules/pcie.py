"""The CPU's PCIe lanes (docs/verdicts.md `pcie.cpu-lanes`): the lanes the GPUs want from the CPU against the lanes it
has.

A card behind a PCIe switch links to the switch at its slot's width; the CPU gives the switch its upstream lanes
once, however many cards sit behind it (`pcie.cpu-lanes` counts those and states the shared uplink). Each slot's
own width and sharing rules are `slot.lanes` and `slot.sharing` (slot.py).
"""

from __future__ import annotations

from collections import defaultdict

from planner.checks import slot_fixes
from planner.checks.engine.context import MODEL_READS, Context
from planner.checks.engine.findings import Change, Finding, Fix
from planner.checks.engine.registry import check
from planner.checks.links import lane_bandwidth, linked_mounts
from planner.models.parts import Cpu
from planner.physics.interconnect import peer_to_peer
from planner.placement import params as placement_params
from planner.placement.layout import Layout, SwitchSite, layout_of, uplink_gen
from planner.placement.mounts import GpuMount
from planner.util.fmt import names


@check("pcie.cpu-lanes", reads=MODEL_READS["placement"] | {"cpu"}, order=130, section="Fit",
       error="—",
       warning=("the lanes the GPU slots take from the CPU exceed its published lanes (a switch's uplink counted "
                "once)"),
       evidence=("CPU spec, board layout; info: what cards behind one PCIe switch share, and where their traffic "
                 "goes by chip (inside the switch, or through host memory on GeForce RTX 20–50, whose current "
                 "drivers disable peer-to-peer: `physics/interconnect.py`, sources in `physics/params.py` "
                 "`NO_P2P_GEFORCE`)"))
def cpu_lanes(ctx: Context) -> list[Finding]:
    """Lanes the GPUs want from the CPU against the lanes it has (warning when over-subscribed); a PCIe switch
    takes its upstream lanes once for all the cards behind it, and what those cards share is stated (info)."""
    build = ctx.build
    layout = layout_of(build)
    mounts = linked_mounts(ctx)
    sites = {m.gpu: layout.slot(str(m.slot)) for m in mounts}
    direct = [m for m in mounts if sites[m.gpu].source == "cpu" and sites[m.gpu].switch is None]
    behind = _behind_switches(layout, mounts)
    uplinks = [switch for switch in behind if switch.source == "cpu"]
    wanted = sum(int(m.lanes or 0) for m in direct) + sum(switch.lanes for switch in uplinks)
    cpu = build.cpu
    findings = []
    if wanted > cpu.pcie_lanes:
        widths: dict[int, int] = defaultdict(int)
        for m in direct:
            widths[int(m.lanes or 0)] += 1
        uplink_widths: dict[int, int] = defaultdict(int)
        for switch in uplinks:
            uplink_widths[switch.lanes] += 1
        breakdown = " + ".join([*(f"{n} × x{w}" for w, n in sorted(widths.items(), reverse=True)),
                                *(f"{n} × x{w} switch uplink{'s' if n > 1 else ''}"
                                  for w, n in sorted(uplink_widths.items(), reverse=True))])
        findings.append(cpu_lanes.finding(
            severity="warning",
            message=f"The GPUs in CPU slots want {wanted} lanes ({breakdown}) but the {cpu.name} has {cpu.pcie_lanes}: "
                    f"with this CPU the board runs some slots{' or switch uplinks' if uplinks else ''} narrower or "
                    "turns slots off (see its manual's lane table).",
            subject=[cpu.id, build.motherboard.id], value=wanted, limit=cpu.pcie_lanes, unit="lanes",
            fixes=_more_lanes(ctx, wanted) if ctx.propose_fixes else []))
    for switch, members in behind.items():
        finding = _shared_uplink(ctx, switch, members, short=wanted > cpu.pcie_lanes and switch in uplinks)
        if finding:
            findings.append(finding)
    chipset_fed = [m for m in mounts if sites[m.gpu].source == "chipset"]
    if len(chipset_fed) > 1:
        uplink = int(placement_params.CHIPSET_UPLINK_LANES.value)
        gen = min(int(m.gen or 3) for m in chipset_fed)
        findings.append(cpu_lanes.finding(
            severity="info",
            message=f"{names(f'GPU{m.gpu + 1}' for m in chipset_fed)} sit in chipset slots and share its x{uplink} "
                    f"link to the CPU ({uplink * lane_bandwidth(gen):.1f} GB/s each way at PCIe {gen}.0, for all of "
                    "them and the drives and USB behind the chipset).",
            subject=[f"GPU{m.gpu + 1}" for m in chipset_fed], value=len(chipset_fed) * 4, limit=uplink, unit="lanes"))
    return findings


def _behind_switches(layout: Layout, mounts: list[GpuMount]) -> dict[SwitchSite, list[GpuMount]]:
    """The GPUs behind each PCIe switch that has any, in board order."""
    behind: dict[SwitchSite, list[GpuMount]] = {}
    for switch in layout.switches:
        members = [m for m in mounts if layout.slot(str(m.slot)).switch == switch.name]
        if members:
            behind[switch] = members
    return behind


def _shared_uplink(ctx: Context, switch: SwitchSite, members: list[GpuMount], short: bool) -> Finding | None:
    """What the GPUs behind one switch share: its uplink (info), when two or more share it or it is narrower than
    a card's own link. `short`: the CPU cannot give every used switch its whole uplink (the warning says so)."""
    cpu = ctx.build.cpu
    gen = uplink_gen(switch, cpu.pcie_gen)
    uplink = switch.lanes * lane_bandwidth(gen)
    links = [int(m.lanes or 0) * lane_bandwidth(int(m.gen or gen)) for m in members]
    if len(members) < 2 and max(links) <= uplink:
        return None
    labels = [f"GPU{m.gpu + 1}" for m in members]
    where = "CPU" if switch.source == "cpu" else "chipset"
    estimated = " (which slots sit behind which switch is estimated; check the board's block diagram)" \
        if switch.estimated else ""
    # A CPU short of lanes may narrow this uplink (the warning says so): its bandwidth is then an upper bound.
    at_most = f" at most (the {cpu.name}'s {cpu.pcie_lanes} lanes cannot give every switch its uplink)" if short else ""
    chip, link = f"{switch.name} ({switch.model})", f"x{switch.lanes} Gen{gen} link to the {where}"
    if len(members) == 1:
        message = (f"{labels[0]} sits behind {chip}, whose {link} moves {uplink:.1f} GB/s each way{at_most}, less "
                   f"than the card's own link ({links[0]:.1f} GB/s){estimated}.")
    else:
        message = (f"{names(labels)} sit behind {chip} and share its {link}: {uplink:.1f} GB/s each way{at_most} "
                   f"between them and the {where} (each card's own link moves up to {max(links):.1f} GB/s); "
                   f"{_between_them(ctx, members, where)}{estimated}.")
    return cpu_lanes.finding(severity="info", message=message, subject=[*labels, switch.name],
                   value=sum(int(m.lanes or 0) for m in members), limit=switch.lanes, unit="lanes")


def _between_them(ctx: Context, members: list[GpuMount], where: str) -> str:
    """Where traffic between the cards behind one switch goes, by their chips (physics/interconnect.py): inside
    the switch where the driver allows peer-to-peer, else through host memory."""
    chips = {(gpu := ctx.build.gpus[m.gpu]).chip.id: gpu.chip for m in members}
    off = [chip.name for chip in chips.values() if not peer_to_peer(chip)]
    if not off:
        return ("peer-to-peer transfers between them, where the driver allows them, stay inside the switch at full "
                "link speed")
    by_rule = all(chip.p2p is None for chip in chips.values() if chip.name in off)
    source = ("NVIDIA's current drivers disable it on GeForce RTX 20 to 50 cards" if by_rule
              else "gpu-chips.toml: p2p = false")
    why = f"the {names(off)} {'has' if len(off) == 1 else 'have'} no peer-to-peer ({source})"
    return (f"{why}, so traffic between them goes through host memory: up this uplink to the {where} and back, "
            "not across the switch")


def _more_lanes(ctx: Context, wanted: int) -> list[Fix]:
    build = ctx.build
    cpus = sorted((c for c in ctx.catalog.all("cpu", curated=True)
                   if isinstance(c, Cpu) and c.socket == build.cpu.socket and c.pcie_lanes >= wanted),
                  key=lambda c: (c.price is None, c.price or 0.0, c.id))
    return slot_fixes.verified(ctx, [(f"use the {c.name} ({c.id}{slot_fixes.price_text(c)}, {c.pcie_lanes} lanes)",
                                      [Change(path="cpu", value=c.id)]) for c in cpus], "pcie.cpu-lanes")
