"""PSU headroom and transients, per PSU on the split of the load (docs/verdicts.md `psu.headroom`, `psu.transient`;
README: DC budget, Transients)."""

from __future__ import annotations

from planner.checks.engine.context import MODEL_READS, Context
from planner.checks.engine.findings import Finding, Fix, Severity
from planner.checks.engine.registry import check
from planner.checks.power_fixes import high_line_psus, limit_cut_fix, replacement_psus, second_psu_fixes
from planner.models.parts import Psu
from planner.physics import params
from planner.physics.delivery import BOARD_PSU, PsuShare
from planner.physics.transients import WINDOWS, Capability, Excursion, capability, excursion
from planner.util.fmt import gpu_labels, num, percent, watts


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


@check("psu.headroom", reads=MODEL_READS["power_split"], order=160, section="Power",
       error="sustained DC load over the PSU's rating on its circuit (derated at 115 V)",
       warning="over the 80 % target (`--psu-target`)",
       evidence="the unit's rating; the target is sizing practice")
def psu_headroom(ctx: Context) -> list[Finding]:
    """Each PSU's sustained DC load against its rating at the circuit's voltage (error > 100 %, warning > target)."""
    findings = []
    target = ctx.settings.psu_target
    for share in ctx.power_split.psus:
        if share.fraction <= target:
            continue
        over = share.fraction > 1.0
        part = ctx.build.psus[share.psu].part
        message = _headroom_message(ctx, share, part, over, target) if ctx.wording else ""
        findings.append(psu_headroom.finding(
            severity="error" if over else "warning", message=message, subject=[part.id],
            value=share.load, limit=share.rating if over else share.rating * target, unit="W",
            fixes=_headroom_fixes(ctx, share, target)))
    return findings


def _headroom_message(ctx: Context, share: PsuShare, part: Psu, over: bool, target: float) -> str:
    voltage = ctx.build.circuit(ctx.build.psus[share.psu].circuit).outlet.voltage
    derated = f" (derated to {watts(share.rating)} at {voltage:g} V)" if share.rating < part.wattage else ""
    return (f"Sustained DC load {watts(share.load)} ({share_contents(ctx, share)}) is {percent(share.fraction)}"
            f" of the {watts(share.rating)} rating of {psu_name(ctx, share.psu)}{derated}; "
            + ("it will shut down under full load." if over else
               f"keep it under {percent(target)} for efficiency, heat and transient margin."))


def _headroom_fixes(ctx: Context, share: PsuShare, target: float) -> list[Fix]:
    if not ctx.propose_fixes:
        return []
    fixes = []
    limit = limit_cut_fix(ctx, share.gpus, lambda cut: share.load - cut * len(share.gpus) <= share.rating * target,
                          "psu.headroom", "")
    if limit:
        fixes.append(limit)
    def big_enough(psu: Psu, rating: float) -> bool:
        return rating >= share.load / target

    def rating_text(psu: Psu, rating: float) -> str:
        return f"{watts(rating)}"

    bigger = replacement_psus(ctx, share.psu, big_enough, "psu.headroom", rating_text)
    fixes.extend(bigger or high_line_psus(ctx, share.psu, big_enough, "psu.headroom", rating_text))
    fixes.extend(second_psu_fixes(ctx, share.psu, "psu.headroom"))
    return fixes


@check("psu.transient", reads=MODEL_READS["power_split"], order=170, section="Power",
       error=("the cards' coincident excursions plus the rest exceed what the PSU rides in a window its protection"
              " acts on (1–5, 5–10, 10–20 ms), **and** both the cards' figures (measured on that card or chip) and"
              " the PSU's (its ATX 3.x excursion table, or its measured over-power trip point) are evidence"),
       warning=("the same comparison over on an assumed figure (cards with no measurement of their chip use the "
                "RTX 5090 FE's; unmeasured ATX 2.x units are given 118 % of their rating, the 10th percentile of "
                "measured units), or within 10 % of the capability"),
       evidence=("Igor's Lab per-window measurements; Intel's ATX 3.x excursion table; reviews' OPP trip points "
                 "(`opp_trip`); spikes under 1 ms are ridden by bulk capacitors and not compared"))
def psu_transient(ctx: Context) -> list[Finding]:
    """Coincident GPU excursions on top of the rest of the load against what each PSU rides, in the windows its
    protection acts on (1–20 ms): error when over on measured figures, warning when over on assumed ones or
    within the margin."""
    findings = []
    margin = params.TRANSIENT_WARNING_MARGIN.value
    for share in ctx.power_split.psus:
        if not share.gpus:
            continue
        part = ctx.build.psus[share.psu].part
        able = capability(part, share.rating)
        gpus = [ctx.build.gpus[i] for i in share.gpus]
        shapes = [excursion(g) for g in gpus]
        steady = share.load - sum(g.power_limit for g in gpus)
        demand = {w: steady + sum(g.power_limit * e.ratios[w] for g, e in zip(gpus, shapes, strict=True))
                  for w in params.PROTECTION_WINDOWS}
        worst = max(demand, key=lambda w: demand[w] / able.watts[w])
        if demand[worst] <= able.watts[worst] * (1 - margin):
            continue
        over = [w for w in demand if demand[w] > able.watts[w]]
        gpus_measured = all(e.measured for e in shapes)
        proven = [w for w in over if able.evidence[w] and gpus_measured]
        window = proven[0] if proven else worst
        severity: Severity = "error" if proven else "warning"
        message = (_transient_message(ctx, share, shapes, window, demand, able, steady, proven, over, gpus_measured)
                   if ctx.wording else "")
        findings.append(psu_transient.finding(
            severity=severity, message=message, subject=[part.id],
            value=round(demand[window], 1), limit=round(able.watts[window], 1), unit="W",
            fixes=_transient_fixes(ctx, share, demand, able)))
    return findings


def _transient_message(ctx: Context, share: PsuShare, shapes: list[Excursion], window: int, demand: dict[int, float],
                       able: Capability, steady: float, proven: list[int], over: list[int], gpus_measured: bool) -> str:
    assumed = [what for what, sure in (("the cards'", gpus_measured), ("the PSU's", able.evidence[window]))
               if not sure]
    ratios = "; ".join(sorted({f"{num(e.ratios[window], 2)} × the power limit, {e.basis}" for e in shapes}))
    rest = f" on top of {watts(steady)} of other load" if steady else ""
    head = (f"With {gpu_labels(share.gpus)} at their {WINDOWS[window]} excursions together ({ratios}){rest},"
            f" {psu_name(ctx, share.psu)} would see {watts(demand[window])}:"
            f" {percent(demand[window] / able.watts[window])} of the {watts(able.watts[window])} it rides"
            f" ({able.basis[window]})")
    if proven:
        tail = ". Its over-power protection will shut the machine down on such load steps."
    elif over:
        tail = (". If those figures hold, its protection may shut the machine down under load; "
                f"{' and '.join(assumed)} figures are assumed, so this is a warning.")
    else:
        tail = f"; less than {percent(params.TRANSIENT_WARNING_MARGIN.value)} margin."
    return head + tail


def _transient_fixes(ctx: Context, share: PsuShare, demand: dict[int, float], able: Capability) -> list[Fix]:
    if not ctx.propose_fixes:
        return []
    keep = 1 - params.TRANSIENT_WARNING_MARGIN.value
    gpus = [ctx.build.gpus[i] for i in share.gpus]
    swing = {w: sum(excursion(g).ratios[w] for g in gpus) for w in demand}
    fixes = []
    limit = limit_cut_fix(ctx, share.gpus, lambda cut: all(demand[w] - cut * swing[w] <= able.watts[w] * keep
                                                           for w in demand), "psu.transient",
                          "; every excursion then within its margin")

    def rides(psu: Psu, rating: float) -> bool:
        other = capability(psu, rating)
        return rating >= share.load and all(demand[w] <= other.watts[w] * keep for w in demand)

    def what(psu: Psu, rating: float) -> str:
        other = capability(psu, rating)
        w = max(demand, key=lambda w: demand[w] / other.watts[w])
        return f"rides {watts(other.watts[w])} over {WINDOWS[w]} ({other.basis[w]})"

    if limit:
        fixes.append(limit)
    fixes.extend(replacement_psus(ctx, share.psu, rides, "psu.transient", what))
    return fixes
