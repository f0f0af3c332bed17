"""The plan (issue 25; docs/verdicts.md, "The plan"): for a failing build, the smallest verified change that clears
every error, and for a warning build the one that clears every warning, put before the per-finding fixes.

Every check proposes its own fixes, each verified against its own finding. A builder wants one answer: "set
170 W on all four cards" rather than five power limits, one per finding. The plan is built from those verified
fixes and verified itself, as a whole, by re-checking the build with all of its changes applied:

1. a fix of any finding (the power-limit optimiser's among them) that alone clears every target finding, the
   one that costs least (same GPU chip before another chip, then the fewest dollars, then the least throughput);
2. otherwise, step by step: the first target finding in the order a builder fixes things (ORDER below: the
   case and slots, the CPU and memory, the circuit, the PSU, the heat) gets its best fix, the changed build is
   checked again with fresh fixes, and step 1 is tried on it; at most MAX_STEPS steps.

A plan that does not clear every target finding is still reported, with what it leaves (`remaining`).
"""

from __future__ import annotations

from typing import NamedTuple

from planner.build.parts_list import parts_list
from planner.build.resolve import ResolvedBuild
from planner.checks.engine.context import Context, changed_context
from planner.checks.engine.findings import Change, Finding, Fix
from planner.util.fmt import usd

MAX_STEPS = 4
#: The order a builder fixes things in: what the parts physically allow first, then the wall, then the PSU,
#: then heat and power limits (a power limit chosen before the circuit and PSU are settled is chosen twice).
ORDER = ("case.", "slot.", "riser.", "cpu.", "memory.", "pcie.", "outlet.", "psu.", "power-limit.", "thermal.")
FIXES_TRIED = 16  # verified fixes weighed per step (a re-check each, most of them memoised by the checks)


class PlanStep(NamedTuple):
    description: str  # the fix, as its check words it
    code: str  # the finding it came from
    changes: list[Change]


class Plan(NamedTuple):
    """The change that leads the report."""

    description: str  # one sentence: what to do and what it costs
    steps: list[PlanStep]
    changes: list[Change]  # every build-file edit of the plan, in order
    clears: list[str]  # codes of the target findings (errors, or warnings of a warning build) it clears
    remaining: list[str]  # codes of target findings no verified change cleared
    warnings_left: list[str]  # codes of the warnings the changed build still has
    relative_perf: float | None  # the changed build's throughput ÷ the build's as it is
    cost_usd: float | None  # prices of the parts the plan adds (None: one has no price)
    changes_chip: bool  # a step puts another GPU chip in the build (speed and memory change)
    verified: bool  # re-checking the build with every change applied confirms `clears`


def plan(ctx: Context, findings: list[Finding]) -> Plan | None:
    """The plan for the checked build `ctx` with its `findings` (fixes proposed); None when it has no error or
    warning, or no verified fix clears any of them."""
    target = "error" if any(f.severity == "error" for f in findings) else "warning"
    wanted = {f.code for f in findings if f.severity == target}
    if not wanted:
        return None
    steps: list[PlanStep] = []
    current, current_findings = ctx, findings
    for _ in range(MAX_STEPS):
        step, finishes = _best_step(current, current_findings, target, {repr(s.changes) for s in steps})
        if step is None:
            break
        steps.append(step)
        if finishes:
            break
        checked = _checked(current, step.changes)
        if checked is None:
            break
        current, current_findings = checked
    if not steps:
        return None
    changes = [c for s in steps for c in s.changes]
    final = _checked(ctx, changes, fixes=False)
    if final is None:
        return None
    after, after_findings = final
    still = {f.code for f in after_findings if f.severity in (target, "error")}
    clears = sorted(wanted - still)
    if not clears:
        return None
    remaining = sorted(wanted & still)
    perf = _relative_perf(ctx, after)
    perf = round(perf, 4) if perf is not None else None
    cost = _added_cost(ctx.build, after.build)
    chip = any(_changes_chip(ctx.build, after.build, s) for s in steps)
    warnings_left = sorted({f.code for f in after_findings if f.severity == "warning"})
    return Plan(_describe(ctx, steps, clears, remaining, warnings_left, perf, cost, target), steps, changes, clears,
                remaining, warnings_left, perf, cost, chip, verified=not remaining)


def _order(code: str) -> int:
    return next((i for i, prefix in enumerate(ORDER) if code.startswith(prefix)), len(ORDER))


def _best_step(ctx: Context, findings: list[Finding], target: str, taken: set[str]) -> tuple[PlanStep | None, bool]:
    """The verified fix that leaves no target finding (and no error), the one that costs least (same GPU chip
    before another chip, then the fewest dollars, then the least throughput); else the one that clears the most
    target findings, the first in the order a builder fixes things breaking ties. True with a fix that
    finishes the plan."""
    left = {f.code for f in findings if f.severity in (target, "error")}
    seen: set[str] = set()
    ranked: list[tuple[tuple[float, ...], PlanStep, bool]] = []
    for finding, fix in sorted(_verified_fixes(findings), key=lambda item: _order(item[0].code))[:FIXES_TRIED]:
        key = repr(fix.changes)
        if key in seen or key in taken:
            continue
        seen.add(key)
        checked = _checked(ctx, fix.changes, fixes=False)
        if checked is None:
            continue
        after, after_findings = checked
        still = {f.code for f in after_findings if f.severity in (target, "error")}
        cleared = left - still
        if not cleared or still - left:
            continue  # clears nothing, or brings a problem of its own
        perf = _relative_perf(ctx, after) or 1.0
        cost = _added_cost(ctx.build, after.build)
        step = PlanStep(fix.description, finding.code, fix.changes)
        chip = float(_changes_chip(ctx.build, after.build, step))
        dollars = cost if cost is not None else float("inf")
        # a fix that finishes the plan first; else the one a builder does first (the slots before the wall, the
        # wall before the PSU, the PSU before power limits: a limit chosen on parts about to change is chosen
        # twice), the one that clears most breaking ties
        rank = ((0.0, chip, dollars, -round(perf, 2)) if not still else
                (1.0, min(_order(c) for c in cleared), -len(cleared), chip, dollars, -round(perf, 2)))
        ranked.append((rank, step, not still))
    if not ranked:
        return None, False
    _, step, finishes = min(ranked, key=lambda item: item[0])
    return step, finishes


def _verified_fixes(findings: list[Finding]) -> list[tuple[Finding, Fix]]:
    return [(f, fix) for f in findings for fix in f.fixes if fix.verified and fix.changes]


def _checked(ctx: Context, changes: list[Change], *, fixes: bool = True) -> tuple[Context, list[Finding]] | None:
    """The changed build's context and its findings, with fixes proposed or not (None: it does not resolve)."""
    memo = ctx.memo.setdefault("plan checks", {})
    key = (repr(changes), fixes)
    if key not in memo:
        changed = changed_context(ctx, changes, None)
        if changed is None:
            memo[key] = None
        else:
            from planner.checks.engine.runner import run_checks

            findings = run_checks(changed.build, ctx.catalog, ctx.settings, context=changed, propose_fixes=fixes)
            memo[key] = (changed, findings)
    result: tuple[Context, list[Finding]] | None = memo[key]
    return result


def _relative_perf(before: Context, after: Context) -> float | None:
    """The changed build's throughput ÷ the build's, for the same GPU chips (each relative to its cards at
    their default power); None when the chips differ (the chip-changing fix states its own speed)."""
    if not before.build.gpus or not after.build.gpus:
        return None
    if sorted(g.chip.id for g in before.build.gpus) != sorted(g.chip.id for g in after.build.gpus):
        return None
    was = before.performance.relative_perf
    return after.performance.relative_perf / was if was else None


def _added_cost(before: ResolvedBuild, after: ResolvedBuild) -> float | None:
    """Dollars of the parts (and more of a part) the changed build has that the build has not."""
    had: dict[str, int] = {}
    for row in parts_list(before):
        had[row.part_id] = had.get(row.part_id, 0) + row.quantity
    total = 0.0
    for row in parts_list(after):
        # an inline override of a part the build has (`{ base = "…", intake_airflow = … }`) is that part
        own = row.part_id.removesuffix("-custom") if row.part_id.removesuffix("-custom") in had else row.part_id
        extra = row.quantity - had.get(own, 0)
        if extra > 0:
            if row.unit_price is None:
                return None
            total += row.unit_price * extra
    return total


def _changes_chip(before: ResolvedBuild, after: ResolvedBuild, step: PlanStep) -> bool:
    return any(c.path.startswith("gpu") for c in step.changes) and \
        sorted(g.chip.id for g in before.gpus) != sorted(g.chip.id for g in after.gpus)


def _describe(ctx: Context, steps: list[PlanStep], clears: list[str], remaining: list[str],
              warnings_left: list[str], perf: float | None, cost: float | None, target: str) -> str:
    what = "; then ".join(_step_text(ctx, s) for s in steps)
    costs = []
    if perf is not None and abs(perf - 1) >= 0.005:
        costs.append(f"{(perf - 1) * 100:+.0f} % estimated throughput".replace("-", "−"))
    if cost:
        costs.append(f"{usd(cost)} of parts")
    elif cost is None:
        costs.append("parts without a price")
    cost_text = f" ({', '.join(costs)})" if costs else ""
    kind = "error" if target == "error" else "warning"
    if remaining:
        text = (f"{what}{cost_text}: clears {', '.join(clears)}; no verified change clears "
                f"{', '.join(remaining)}")
    else:
        text = f"{what}{cost_text}: clears every {kind} ({', '.join(clears)})"
    warned = [c for c in warnings_left if target == "error"]
    return text + (f"; {', '.join(warned)} still warn" if warned else "")


def _step_text(ctx: Context, step: PlanStep) -> str:
    """A step in a few words: power limits from the changes themselves (the optimiser's fix words its own
    effects, which the plan states once for the whole), anything else as its check words it."""
    if step.changes and all(c.path.endswith(".power_limit") for c in step.changes):
        from planner.util.fmt import gpu_labels

        specs = {int(c.path.split("[")[1].split("]")[0]): c.value for c in step.changes}
        values = sorted(set(specs.values()))
        cards = gpu_labels(g.index for g in ctx.build.gpus if g.spec_index in specs)
        return f"set power_limit = {', '.join(map(str, values))} on {cards}"
    return step.description


__all__ = ["MAX_STEPS", "Plan", "PlanStep", "plan"]
