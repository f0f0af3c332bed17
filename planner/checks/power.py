"""PSU headroom and transients, per PSU on the split of the load (SPEC §3 `psu.headroom`, `psu.transient`;
§4.1, §4.4)."""

from __future__ import annotations

from planner.checks.context import Context
from planner.checks.findings import Finding, Fix
from planner.checks.power_fixes import limit_cut_fix, replacement_psus
from planner.checks.registry import check
from planner.fmt import gpu_labels, num, percent, watts
from planner.models.parts import Psu
from planner.physics import params
from planner.physics.delivery import BOARD_PSU, PsuShare
from planner.physics.transients import excursion_capability, transient_ratio


def psu_name(ctx: Context, index: int) -> str:
    """'the Corsair AX1600i' in a one-PSU build, 'PSU 2 (Corsair HX1000)' in a multi-PSU one."""
    part = ctx.build.psus[index].part
    return f"the {part.name}" if len(ctx.build.psus) == 1 else f"PSU {index + 1} ({part.name})"


def share_contents(ctx: Context, share: PsuShare) -> str:
    """What a PSU feeds: 'GPUs 1,400 W, CPU 280 W, rest 100 W' or 'GPU3–4 700 W'."""
    budget = ctx.budget
    gpu_load = sum(ctx.build.gpus[i].power_limit for i in share.gpus)
    if share.psu != BOARD_PSU:
        return gpu_labels(share.gpus) if share.gpus else "nothing"
    gpus = "GPUs" if len(ctx.build.psus) == 1 else (gpu_labels(share.gpus) if share.gpus else "no GPUs")
    return f"{gpus} {watts(gpu_load)}, CPU {watts(budget.cpu)}, rest {watts(budget.rest - budget.cpu)}"


@check("psu.headroom")
def psu_headroom(ctx: Context) -> list[Finding]:
    """Each PSU's sustained DC load against its rating at the circuit's voltage (error > 100 %, warning > target)."""
    findings = []
    target = ctx.settings.psu_target
    for share in ctx.power_split.psus:
        if share.fraction <= target:
            continue
        over = share.fraction > 1.0
        part = ctx.build.psus[share.psu].part
        voltage = ctx.build.circuit(ctx.build.psus[share.psu].circuit).outlet.voltage
        derated = f" (derated to {watts(share.rating)} at {voltage:g} V)" if share.rating < part.wattage else ""
        message = (f"Sustained DC load {watts(share.load)} ({share_contents(ctx, share)}) is {percent(share.fraction)}"
                   f" of the {watts(share.rating)} rating of {psu_name(ctx, share.psu)}{derated}; "
                   + ("it will shut down under full load." if over else
                      f"keep it under {percent(target)} for efficiency, heat and transient margin."))
        findings.append(Finding(
            code="psu.headroom", severity="error" if over else "warning", message=message, subject=[part.id],
            value=share.load, limit=share.rating if over else share.rating * target, unit="W",
            fixes=_headroom_fixes(ctx, share, target)))
    return findings


def _headroom_fixes(ctx: Context, share: PsuShare, target: float) -> list[Fix]:
    if not ctx.propose_fixes:
        return []
    fixes = []
    limit = limit_cut_fix(ctx, share.gpus, lambda cut: share.load - cut * len(share.gpus) <= share.rating * target,
                          "psu.headroom", "")
    if limit:
        fixes.append(limit)
    fixes.extend(replacement_psus(ctx, share.psu, lambda psu, rating: rating >= share.load / target,
                                  "psu.headroom", lambda psu, rating: f"{watts(rating)}"))
    return fixes


@check("psu.transient")
def psu_transient(ctx: Context) -> list[Finding]:
    """Coincident GPU transient peaks on top of the rest of the load against each PSU's ~1 ms excursion capability."""
    findings = []
    margin = params.TRANSIENT_WARNING_MARGIN.value
    for share in ctx.power_split.psus:
        part = ctx.build.psus[share.psu].part
        capability = excursion_capability(part, share.rating)
        if not share.gpus or share.peak <= capability.peak * (1 - margin):
            continue
        over = share.peak > capability.peak
        gpus = [ctx.build.gpus[i] for i in share.gpus]
        ratios = sorted({(transient_ratio(g).value, transient_ratio(g).basis) for g in gpus})
        ratio_text = "; ".join(f"{num(r, 2)} × the power limit, {basis}" for r, basis in ratios)
        steady = share.load - sum(g.power_limit for g in gpus)
        rest = f" on top of {watts(steady)} of other load" if steady else ""
        message = (f"With {gpu_labels(share.gpus)} at their ~1 ms transient peaks together ({ratio_text}){rest},"
                   f" {psu_name(ctx, share.psu)} would see {watts(share.peak)}:"
                   f" {percent(share.peak / capability.peak)} of the {watts(capability.peak)} it can ride"
                   f" ({capability.basis}); "
                   + ("its over-current protection may shut the machine down under load." if over else
                      f"less than {percent(margin)} margin."))
        findings.append(Finding(
            code="psu.transient", severity="error" if over else "warning", message=message, subject=[part.id],
            value=share.peak, limit=capability.peak, unit="W", fixes=_transient_fixes(ctx, share, capability.peak)))
    return findings


def _transient_fixes(ctx: Context, share: PsuShare, capability: float) -> list[Fix]:
    if not ctx.propose_fixes:
        return []
    allowed = capability * (1 - params.TRANSIENT_WARNING_MARGIN.value)
    swing = sum(transient_ratio(ctx.build.gpus[i]).value for i in share.gpus)
    fixes = []
    limit = limit_cut_fix(ctx, share.gpus, lambda cut: share.peak - cut * swing <= allowed, "psu.transient",
                          f"; peak {watts(allowed)} or less")

    def rides(psu: Psu, rating: float) -> bool:
        return (rating >= share.load
                and excursion_capability(psu, rating).peak * (1 - params.TRANSIENT_WARNING_MARGIN.value) >= share.peak)

    if limit:
        fixes.append(limit)
    fixes.extend(replacement_psus(ctx, share.psu, rides, "psu.transient",
                                  lambda psu, rating: f"rides {watts(excursion_capability(psu, rating).peak)} for"
                                  f" 1 ms ({excursion_capability(psu, rating).basis})"))
    return fixes
