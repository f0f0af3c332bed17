"""Power limits within what each card allows (SPEC §3 `power-limit.range`)."""

from __future__ import annotations

from planner.checks.context import Context
from planner.checks.findings import Change, Finding
from planner.checks.registry import check
from planner.fmt import watts


@check("power-limit.range")
def power_limit_range(ctx: Context) -> list[Finding]:
    """A requested power limit lies within the card's min/max (nvidia-smi refuses others)."""
    findings = []
    seen: set[int] = set()
    for gpu in ctx.build.gpus:
        if gpu.spec_index in seen or not gpu.power_limit_set:
            continue
        seen.add(gpu.spec_index)
        board, limit = gpu.board, gpu.power_limit
        if board.power_limit_min <= limit <= board.power_limit_max:
            continue
        bound = board.power_limit_min if limit < board.power_limit_min else board.power_limit_max
        side = "below the minimum" if limit < board.power_limit_min else "above the maximum"
        count = sum(1 for g in ctx.build.gpus if g.spec_index == gpu.spec_index)
        labels = [f"GPU{g.index + 1}" for g in ctx.build.gpus if g.spec_index == gpu.spec_index]
        fix = ctx.fix(f"set power_limit = {watts(bound)}",
                      [Change(path=f"gpu[{gpu.spec_index}].power_limit", value=f"{bound:g} W")],
                      "power-limit.range") if ctx.propose_fixes else None
        findings.append(Finding(
            code="power-limit.range", severity="error",
            message=f"A power limit of {watts(limit)} is {side} of the {board.name} "
                    f"({watts(board.power_limit_min)}–{watts(board.power_limit_max)}); nvidia-smi would refuse it"
                    + (f" on all {count} cards." if count > 1 else "."),
            subject=[*labels, board.id], value=limit, limit=bound, unit="W",
            fixes=[fix] if fix else []))
    return findings
