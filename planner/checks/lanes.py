"""PCIe lanes (SPEC §3 `slot.lanes`, `slot.sharing`, `pcie.cpu-lanes`).

Each cause is reported once: a slot wired narrower than the card, or a riser that carries fewer lanes, is
`slot.lanes`; a slot that a lane-sharing rule narrows or switches off because another slot is used is
`slot.sharing`. A card behind a PCIe switch links to the switch at its slot's width; the CPU gives the switch
its upstream lanes once, however many cards sit behind it (`pcie.cpu-lanes` counts those and states the
shared uplink). The expected cost of a narrower link is stated as bandwidth plus what it means for deep
learning: Dettmers finds that lanes barely matter for 2–4 GPU builds (x8 is fine), Puget Systems measured
little difference between x16 and x8 on 4 GPUs in TensorFlow training; it matters more where GPUs swap
gradients over PCIe without NVLink and when weights are loaded.
"""

from __future__ import annotations

from collections import defaultdict

from planner.checks import slot_fixes
from planner.checks.context import Context
from planner.checks.findings import Change, Finding, Fix
from planner.checks.registry import check
from planner.checks.slots import estimated_note
from planner.fmt import names
from planner.models.parts import Cpu
from planner.placement import params as placement_params
from planner.placement.layout import Layout, SwitchSite, layout_of, need_of, slot_lanes, uplink_gen
from planner.placement.mounts import GpuMount

USABLE_LANES = 4  # below x4 a GPU is starved: an error, not a warning (SPEC §3 slot.lanes)


def lane_bandwidth(gen: int) -> float:
    """GB/s per lane and direction: Gen1 0.25, Gen2 0.5, then 0.985 (Gen3) doubling each generation."""
    if gen <= 2:
        return 0.25 * gen
    return placement_params.PCIE_GEN3_LANE_BANDWIDTH.value * 2 ** (gen - 3)


def cost(lanes: int, full: int, gen: int) -> str:
    """What a link of `lanes` instead of `full` lanes costs, in bandwidth and in practice."""
    bandwidth = f"PCIe {gen}.0 x{lanes} moves {lanes * lane_bandwidth(gen):.1f} GB/s each way instead of " \
                f"{full * lane_bandwidth(gen):.1f} GB/s at x{full}"
    if lanes < USABLE_LANES:
        return f"{bandwidth}: too narrow for a GPU (loading a model and every batch crawl)"
    if lanes * 2 >= full:
        return (f"{bandwidth}; expected cost: small for training and inference that keep their data on the GPU "
                "(Dettmers: x8 is fine for 2–4 GPUs), more where GPUs exchange gradients over PCIe without NVLink")
    return (f"{bandwidth}; expected cost: weights load {full // lanes}× slower and multi-GPU training without "
            "NVLink slows noticeably; single-GPU inference barely notices once the model is loaded")


def _mounts(ctx: Context) -> list[GpuMount]:
    return [m for m in ctx.placement.mounts if m is not None and m.slot is not None and m.lanes is not None]


@check("slot.lanes")
def lanes(ctx: Context) -> list[Finding]:
    """A GPU runs at fewer lanes than it has (error below x4; warning at x8 or x4 with the expected cost)."""
    build = ctx.build
    layout = layout_of(build)
    groups: dict[tuple[str, int, int, int], list[tuple[str, str]]] = defaultdict(list)
    for mount in _mounts(ctx):
        gpu = build.gpus[mount.gpu]
        need, site = need_of(gpu), layout.slot(str(mount.slot))
        actual = int(mount.lanes or 0)
        wired = min(site.lanes, need.link_cap)
        if actual >= need.lanes or actual == 0:
            continue  # full width, or switched off (slot.sharing)
        if wired >= need.lanes and actual >= USABLE_LANES:
            continue  # only a sharing rule narrows it: slot.sharing says so
        if need.riser_lanes and need.riser_lanes < min(site.lanes, need.lanes):
            cause = f"its riser carries x{need.riser_lanes}"
        elif site.source == "chipset":
            cause = f"{site.name} is a chipset slot wired x{site.lanes}"
        else:
            cause = f"{site.name} is wired x{site.lanes}" if site.lanes < need.lanes else \
                f"{site.name} is shared down to x{actual}"
        severity = "error" if actual < USABLE_LANES else "warning"
        groups[(severity, actual, need.lanes, int(mount.gen or site.gen))].append((f"GPU{gpu.index + 1}", cause))
    findings = []
    for (severity, actual, full, gen), members in groups.items():
        labels = [label for label, _ in members]
        causes = sorted({cause for _, cause in members})
        one = len(labels) == 1
        findings.append(Finding(
            code="slot.lanes", severity="error" if severity == "error" else "warning",
            message=f"{names(labels)} run{'s' if one else ''} at x{actual} of {'its' if one else 'their'} "
                    f"x{full} lanes ({'; '.join(causes)}): {cost(actual, full, gen)}{estimated_note(layout)}.",
            subject=labels, value=actual, limit=full, unit="lanes"))
    return findings


@check("slot.sharing")
def sharing(ctx: Context) -> list[Finding]:
    """A lane-sharing rule narrows (warning) or switches off (error) a slot a GPU uses."""
    build = ctx.build
    layout = layout_of(build)
    mounts = _mounts(ctx)
    used = {str(m.slot) for m in mounts}
    slot_names = {s.name for s in layout.slots}
    by_slot = {str(m.slot): m for m in mounts}
    findings = []
    for mount in mounts:
        site = layout.slot(str(mount.slot))
        gpu = build.gpus[mount.gpu]
        actual = slot_lanes(site, used)
        label = f"GPU{gpu.index + 1}"
        if actual < site.lanes:
            triggers = [r.when_used for r in site.shares if r.when_used in used and r.lanes < site.lanes]
            others = [build.gpus[by_slot[t].gpu] for t in triggers]
            by = names(f"{t} (GPU{other.index + 1})" for t, other in zip(triggers, others, strict=True))
            specs = {gpu.spec_index, *(other.spec_index for other in others)}
            explicit = gpu.slot or any(other.slot for other in others)  # the solver's own choice is already best
            fixes = slot_fixes.solver_slots(ctx, specs, "slot.sharing") if ctx.propose_fixes and explicit else []
            if actual == 0:
                findings.append(Finding(
                    code="slot.sharing", severity="error",
                    message=f"{site.name} is switched off when {by} is used, so {label} gets no lanes"
                            f"{estimated_note(layout)}.",
                    subject=[label, site.name, *triggers], value=0, limit=site.lanes, unit="lanes", fixes=fixes))
            else:
                link = min(actual, need_of(gpu).link_cap)
                full = min(site.lanes, gpu.board.pcie_lanes)
                findings.append(Finding(
                    code="slot.sharing", severity="warning",
                    message=f"{site.name} drops from x{site.lanes} to x{actual} because {by} is used, so {label} "
                            f"runs at x{link}: {cost(link, full, int(mount.gen or site.gen))}"
                            f"{estimated_note(layout)}.",
                    subject=[label, site.name, *triggers], value=link, limit=site.lanes, unit="lanes", fixes=fixes))
        for rule in site.shares:
            if rule.when_used not in slot_names and rule.lanes < actual:
                findings.append(Finding(
                    code="slot.sharing", severity="info",
                    message=f"{site.name} ({label}) drops to x{rule.lanes} if {rule.when_used} is used; the build file "
                            f"cannot say whether it is: leave {rule.when_used} empty to keep x{actual}.",
                    subject=[label, site.name, rule.when_used], value=rule.lanes, limit=actual, unit="lanes"))
    return findings


@check("pcie.cpu-lanes")
def cpu_lanes(ctx: Context) -> list[Finding]:
    """Lanes the GPUs want from the CPU against the lanes it has (warning when over-subscribed); a PCIe switch
    takes its upstream lanes once for all the cards behind it, and what those cards share is stated (info)."""
    build = ctx.build
    layout = layout_of(build)
    mounts = _mounts(ctx)
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
        findings.append(Finding(
            code="pcie.cpu-lanes", severity="warning",
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
        findings.append(Finding(
            code="pcie.cpu-lanes", severity="info",
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
                   "peer-to-peer transfers between them, where the driver allows them, stay inside the switch at full "
                   f"link speed{estimated}.")
    return Finding(code="pcie.cpu-lanes", severity="info", message=message, subject=[*labels, switch.name],
                   value=sum(int(m.lanes or 0) for m in members), limit=switch.lanes, unit="lanes")


def _more_lanes(ctx: Context, wanted: int) -> list[Fix]:
    build = ctx.build
    cpus = sorted((c for c in ctx.catalog.all("cpu", curated=True)
                   if isinstance(c, Cpu) and c.socket == build.cpu.socket and c.pcie_lanes >= wanted),
                  key=lambda c: (c.price is None, c.price or 0.0, c.id))
    return slot_fixes.verified(ctx, [(f"use the {c.name} ({c.id}{slot_fixes.price_text(c)}, {c.pcie_lanes} lanes)",
                                      [Change(path="cpu", value=c.id)]) for c in cpus], "pcie.cpu-lanes")
