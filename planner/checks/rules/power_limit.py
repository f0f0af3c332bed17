"""Power limits: within what each card allows (docs/verdicts.md `power-limit.range`), and what they cost in speed
(`power-limit.cost`, README: Power-limit slowdown)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from planner.checks.engine.context import MODEL_READS, Context
from planner.checks.engine.findings import Change, Finding, Fix, Severity
from planner.checks.engine.registry import check
from planner.util.fmt import gpu_labels, names, percent, watts

if TYPE_CHECKING:
    from planner.checks.optimize import Plan


@check("power-limit.range", reads={"gpus", "gpus.power_limit"}, order=240, section="Power",
       error="a limit outside the card's published min/max",
       warning=("outside an estimated min/max (the message names `nvidia-smi -q -d POWER`, or `amd-smi`/`rocm-smi`"
                " on AMD)"),
       evidence="nvidia-smi / amdgpu driver ranges")
def power_limit_range(ctx: Context) -> list[Finding]:
    """A requested power limit lies within the card's min/max, which the driver enforces. Outside a
    published bound: error. Outside a bound the catalog estimates: warning that says so and names the tool
    that shows the card's real range."""
    findings = []
    seen: set[int] = set()
    for gpu in ctx.build.gpus:
        if gpu.spec_index in seen or not gpu.power_limit_set:
            continue
        seen.add(gpu.spec_index)
        board, limit = gpu.board, gpu.power_limit
        if board.power_limit_min <= limit <= board.power_limit_max:
            continue
        below = limit < board.power_limit_min
        bound = board.power_limit_min if below else board.power_limit_max
        field = "power_limit_min" if below else "power_limit_max"
        side = "below the minimum" if below else "above the maximum"
        from planner.checks.limits import range_tool  # shared with the optimiser's wording; rarely needed

        tool = range_tool(gpu.chip.maker, below)
        count = sum(1 for g in ctx.build.gpus if g.spec_index == gpu.spec_index)
        on_all = " on both cards" if count == 2 else f" on all {count} cards" if count > 2 else ""
        labels = [f"GPU{g.index + 1}" for g in ctx.build.gpus if g.spec_index == gpu.spec_index]
        fix = ctx.fix(f"set power_limit = {watts(bound)}",
                      [Change(path=f"gpu[{gpu.spec_index}].power_limit", value=f"{bound:g} W")],
                      "power-limit.range") if ctx.propose_fixes else None
        span = f"{watts(board.power_limit_min)}–{watts(board.power_limit_max)}"
        severity: Severity
        if field in board.estimated:
            severity = "warning"
            message = (f"A power limit of {watts(limit)}{on_all} is {side} of the {board.name} ({span}), but "
                       f"that {'minimum' if below else 'maximum'} is an estimate, not a published figure: "
                       f"check the card's real one with {tool} before relying on this limit.")
        else:
            severity = "error"
            message = (f"A power limit of {watts(limit)} is {side} of the {board.name} ({span}, as {tool} "
                       f"reports it); the driver would refuse it{on_all}.")
        findings.append(power_limit_range.finding(
            severity=severity, message=message,
            subject=[*labels, board.id], value=limit, limit=bound, unit="W", fixes=[fix] if fix else []))
    return findings


@check("power-limit.cost", reads=MODEL_READS["performance"], informs=True, order=250, section="Power",
       error="—",
       warning="— (always info: the estimated slowdown and the curve it comes from)",
       evidence="the chip's measured curve, else the DVFS model")
def power_limit_cost(ctx: Context) -> list[Finding]:
    """The estimated speed at the build's power limits (and thermal throttling), always reported; carries
    the optimiser's limits when they clear power, outlet or thermal errors."""
    build = ctx.build
    if not build.gpus:  # the base system: no card, no speed to report
        return []
    perf = ctx.performance
    groups: dict[tuple[str, float, float], list[int]] = {}
    for card in perf.gpus:
        key = (build.gpus[card.gpu].board.id, card.power_limit_w, round(card.power_w))
        groups.setdefault(key, []).append(card.gpu)
    curves = {card.curve for card in perf.gpus}
    several_boards = len({g.board.id for g in build.gpus}) > 1
    parts = []
    for (_, limit, drawn), indices in groups.items():
        card = perf.gpus[indices[0]]
        board = build.gpus[card.gpu].board
        name = f" ({board.name})" if several_boards else ""
        heat = f", throttled by heat to ~{watts(drawn)}" if card.power_w < limit else ""
        curve = f" ({card.curve})" if len(curves) > 1 else ""
        parts.append(f"{gpu_labels(indices)}{name} at {watts(limit)}{heat}: {percent(card.relative_perf)}{curve}")
    basis = next(iter(curves)) if len(curves) == 1 else perf.kind
    message = (f"Estimated throughput {percent(perf.relative_perf)} of what these cards do at their default "
               f"power, for {build.workload} ({basis}): " + "; ".join(parts) + ".")
    return [power_limit_cost.finding(severity="info", message=message,
                    subject=[f"GPU{g.index + 1}" for g in build.gpus], value=round(perf.relative_perf, 4),
                    unit="fraction", fixes=_optimiser_fix(ctx))]


def _optimiser_fix(ctx: Context) -> list[Fix]:
    """The optimiser's limits when they clear errors a power limit can change (verified by re-checking)."""
    plan = power_limit_plan(ctx)
    fix = power_limit_fix(ctx, plan.clears[0]) if plan is not None and plan.clears else None
    return [fix] if fix else []


def power_limit_plan(ctx: Context) -> Plan | None:
    """The optimiser's power limits (README: Power-limit optimiser), computed once per run that proposes fixes (kept in
    `ctx.memo`)."""
    if not ctx.propose_fixes or ctx.recheck is None:
        return None
    if "power_limit_plan" not in ctx.memo:
        from planner.checks.optimize import optimize, power_limit_codes

        codes = ctx.errors_before & power_limit_codes()
        # nothing a power limit could clear: skip the search
        ctx.memo["power_limit_plan"] = optimize(ctx.build, ctx.catalog, ctx.settings,
                                                now=(codes, ctx.performance.relative_perf)) if codes else None
    plan: Plan | None = ctx.memo["power_limit_plan"]
    return plan


def power_limit_fix(ctx: Context, code: str) -> Fix | None:
    """The optimiser's limits as a fix for the error `code`, verified by re-checking: every error it
    names is gone (a warning may stay: it clears errors) and nothing else breaks. None when no power
    limit clears `code`. Any check whose errors a lower power limit can clear may offer it."""
    plan = power_limit_plan(ctx)
    if plan is None or code not in plan.clears or not plan.changes:
        return None
    after = ctx.rechecked(plan.changes)
    if after is None:
        return None
    errors = {f.code for f in after if f.severity == "error"}
    if errors & set(plan.clears) or errors - ctx.errors_before:
        return None
    # the optimiser clears errors at the least cost; say which of its problems still warn, so its limits
    # and a check's own (which clears the warning too) do not read as two answers to one question
    warned = sorted({f.code for f in after if f.severity == "warning" and f.code in plan.clears})
    note = f" (errors cleared; {names(warned)} still warn{'s' if len(warned) == 1 else ''})" if warned else ""
    return Fix(description=plan.description + note, changes=plan.changes, verified=True)
