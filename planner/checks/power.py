"""PSU headroom on the DC budget (SPEC §3 `psu.headroom`, §4.1)."""

from __future__ import annotations

import math

from planner.checks.context import Context
from planner.checks.findings import Change, Finding, Fix
from planner.checks.registry import check
from planner.fmt import percent, watts
from planner.models.parts import Psu

STEP_W = 5.0  # power limits are proposed in 5 W steps (SPEC §5.2)


@check("psu.headroom")
def psu_headroom(ctx: Context) -> list[Finding]:
    """Sustained DC load against the PSUs' rating at the circuit's voltage (error > 100 %, warning > target)."""
    build, budget = ctx.build, ctx.budget
    rating = sum(ctx.psu_ratings)
    load = budget.total
    fraction = load / rating
    target = ctx.settings.psu_target
    if fraction <= target:
        return []
    over = fraction > 1.0
    names = " + ".join(p.part.name for p in build.psus)
    derated = [p.part.name for i, p in enumerate(build.psus) if ctx.psu_ratings[i] < p.part.wattage]
    rating_note = f" (derated to {watts(rating)} at {_voltage(ctx):g} V)" if derated else ""
    message = (f"Sustained DC load {watts(load)} (GPUs {watts(budget.gpus)}, CPU {watts(budget.cpu)}, "
               f"rest {watts(budget.rest - budget.cpu)}) is {percent(fraction)} of the {watts(rating)} "
               f"rating of the {names}{rating_note}; "
               + ("it will shut down under full load." if over else
                  f"keep it under {percent(target)} for efficiency, heat and transient margin."))
    return [Finding(
        code="psu.headroom", severity="error" if over else "warning", message=message,
        subject=[p.part.id for p in build.psus], value=load, limit=rating if over else rating * target, unit="W",
        fixes=_fixes(ctx, load, rating, target) if ctx.propose_fixes else [],
    )]


def _voltage(ctx: Context) -> float:
    return ctx.build.circuit(ctx.build.psus[0].circuit).outlet.voltage


def _fixes(ctx: Context, load: float, rating: float, target: float) -> list[Fix]:
    fixes: list[Fix] = []
    if limit_fix := _power_limit_fix(ctx, load, rating, target):
        fixes.append(limit_fix)
    if len(ctx.build.psus) == 1:
        fixes.extend(_bigger_psu(ctx, load / target))
    return fixes


def _power_limit_fix(ctx: Context, load: float, rating: float, target: float) -> Fix | None:
    """The same cut on every GPU, in 5 W steps, that brings the load to the target."""
    gpus = ctx.build.gpus
    excess = load - rating * target
    cut = math.ceil(excess / len(gpus) / STEP_W) * STEP_W
    changes = []
    for spec_index in sorted({g.spec_index for g in gpus}):
        gpu = next(g for g in gpus if g.spec_index == spec_index)
        new = gpu.power_limit - cut
        if new < gpu.board.power_limit_min:
            return None  # the cards cannot go that low: a power limit alone does not fix it
        changes.append(Change(path=f"gpu[{spec_index}].power_limit", value=f"{new:g} W"))
    limits = ", ".join(sorted({c.value for c in changes}))
    return ctx.fix(f"set power_limit = {limits} on the GPUs (−{watts(cut)} each; costs some throughput, "
                   "see power-limit.cost)", changes, "psu.headroom")


def _bigger_psu(ctx: Context, needed: float) -> list[Fix]:
    voltage = _voltage(ctx)
    candidates = []
    for psu in ctx.catalog.all("psu", curated=True):
        if not isinstance(psu, Psu):
            continue
        rating = psu.wattage_115v if voltage < 200 and psu.wattage_115v else psu.wattage
        if rating >= needed:
            candidates.append((psu.price is None, psu.price or 0.0, rating, psu))
    candidates.sort(key=lambda c: c[:3])
    fixes = []
    for *_, psu in candidates[:4]:
        price = f", ${psu.price:,.0f}" if psu.price is not None else ""
        fix = ctx.fix(f"use the {psu.name} ({psu.id}{price}): {watts(psu.wattage)}",
                      [Change(path="psu[0].part", value=psu.id)], "psu.headroom")
        if fix:
            fixes.append(fix)
        if len(fixes) == 2:
            break
    return fixes
