"""Multi-PSU builds: each GPU fed by one PSU, no PSU or circuit over its share; when no split works, the
max-flow/min-cut of the delivery network names the bottleneck (SPEC §3 `psu.split`, §4.1)."""

from __future__ import annotations

from planner.checks.context import Context
from planner.checks.findings import Change, Finding, Fix
from planner.checks.power_fixes import move_psu_fix, outlet_fixes, replacement_psus, second_circuit_fix
from planner.checks.registry import check
from planner.fmt import gpu_labels, percent, watts
from planner.models.parts import Psu
from planner.physics.connectors import PLUG_NAMES
from planner.physics.delivery import PsuShare


@check("psu.split")
def psu_split(ctx: Context) -> list[Finding]:
    """With several PSUs: a split of the GPUs that keeps every PSU within its rating and plugs and every
    circuit within its limit; otherwise the bottleneck, by name."""
    build, split = ctx.build, ctx.power_split
    if len(build.psus) < 2 or split.feasible:
        return []
    from planner.physics.delivery_graph import bottleneck, describe, shortfall  # networkx: only here

    found = bottleneck(build, ctx.budget)
    pinned = [g.index for g in build.gpus if g.psu is not None]
    pins = f" ({gpu_labels(pinned)} stay on the PSU their psu = N names)" if pinned else ""
    if found is not None:
        message = (f"The {len(build.psus)} PSUs cannot feed every GPU{pins}: the bottleneck is {describe(found)};"
                   f" {shortfall(found)}.")
        subject, value, limit, unit = list(found.subject), found.wanted, found.deliverable, found.unit
    else:
        worst = max(split.psus, key=lambda s: s.fraction)
        short = [f"{n} {PLUG_NAMES[k]}" for s in split.psus for k, n in s.plugs.short.items()]
        circuit = max(split.circuits, key=lambda c: c.wall / c.breaker_rating)
        problem = (f"PSU {worst.psu + 1} would carry {watts(worst.load)} of its {watts(worst.rating)}"
                   if worst.fraction > 1 else
                   f"circuit {circuit.name!r} would draw {watts(circuit.wall)} at the wall, "
                   f"{percent(circuit.wall / circuit.breaker_rating)} of its breaker rating"
                   if circuit.wall > circuit.breaker_rating else f"{', '.join(short)} plugs would be missing")
        message = (f"The {len(build.psus)} PSUs have the watts and plugs in total, but whole cards cannot be shared"
                   f" out between them{pins}: in the best split {problem}.")
        subject = [p.part.id for p in build.psus]
        value, limit, unit = worst.load, worst.rating, "W"
    return [Finding(code="psu.split", severity="error", message=message, subject=subject, value=value, limit=limit,
                    unit=unit, fixes=_fixes(ctx, found.kind if found else "split", subject,
                                            found.circuits if found else ()))]


def _fixes(ctx: Context, kind: str, subject: list[str], circuits: tuple[str, ...]) -> list[Fix]:
    if not ctx.propose_fixes:
        return []
    build, split = ctx.build, ctx.power_split
    fixes: list[Fix] = []
    if kind == "circuit":
        # the limiting circuit by name: another circuit with the same outlet (one with no PSU, say) is not it
        for name in circuits[:1]:
            if move := move_psu_fix(ctx, name, "psu.split"):
                fixes.append(move)
            fixes.extend(outlet_fixes(ctx, name, "psu.split"))
            if second := second_circuit_fix(ctx, name, "psu.split"):
                fixes.append(second)
        return fixes
    if unpin := _unpin_fix(ctx):
        fixes.append(unpin)
    needed = (sum(g.power_limit for g in build.gpus) + ctx.budget.rest) / len(build.psus) / ctx.settings.psu_target
    for share in split.psus:
        if build.psus[share.psu].part.id in subject and (better := _better_psu(ctx, share, kind, needed)):
            fixes.append(better)
            break
    return fixes


def _better_psu(ctx: Context, share: PsuShare, kind: str, needed: float) -> Fix | None:
    """A bigger unit, or one with more PCIe plugs, in place of a limiting PSU."""
    current = ctx.build.psus[share.psu].part

    def better(psu: Psu, rating: float) -> bool:
        if kind == "connectors":
            return psu.connectors.pcie_8pin > current.connectors.pcie_8pin
        return rating > share.rating and rating >= needed

    def what(psu: Psu, rating: float) -> str:
        return f"{watts(rating)}, {psu.connectors.pcie_8pin} PCIe 8-pin plugs"

    found = replacement_psus(ctx, share.psu, better, "psu.split", what, wanted=1, tries=3)
    return found[0] if found else None


def _unpin_fix(ctx: Context) -> Fix | None:
    """Drop the build's `psu = N` pins and let the split choose (the whole [[gpu]] list, rewritten without them)."""
    raw = ctx.build.raw.get("gpu", [])
    pinned = [i for i, spec in enumerate(raw) if "psu" in spec]
    if not pinned:
        return None
    gpus = [{k: v for k, v in spec.items() if k != "psu"} for spec in raw]
    labels = gpu_labels(g.index for g in ctx.build.gpus if g.spec_index in pinned)
    return ctx.fix(f"remove psu = N from {labels} and let the planner choose which PSU feeds each card",
                   [Change("gpu", gpus)], "psu.split")
