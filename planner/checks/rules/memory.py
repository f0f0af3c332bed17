"""Memory ↔ motherboard: the DIMM kind the build names against the kinds the board takes (docs/verdicts.md
`memory.type`).

A DDR generation is keyed differently in the slot, and registered and unbuffered DIMMs do not mix on one platform:
a mismatch is a physical fact, so an error.
"""

from __future__ import annotations

from planner.checks.engine.context import Context
from planner.checks.engine.findings import Change, Finding, Fix
from planner.checks.engine.registry import check
from planner.util.fmt import names

#: How findings name a DIMM kind (`extras.ram_type`, a board's `memory_types`).
RAM_NAMES = {"ddr4": "unbuffered DDR4", "ddr5": "unbuffered DDR5", "ddr4-rdimm": "registered DDR4 (RDIMM)",
             "ddr5-rdimm": "registered DDR5 (RDIMM)"}


@check("memory.type", reads={"ram", "motherboard"}, order=70, section="Fit",
       error=("`[extras] ram_type` not among the board's sourced `memory_types` (DDR generation, UDIMM vs RDIMM)"),
       warning="—",
       evidence="board spec pages; nothing when either is unknown")
def memory_type(ctx: Context) -> list[Finding]:
    """The RAM named in `[extras] ram_type` against the DIMM kinds the board takes."""
    ram, board = ctx.build.extras.ram_type, ctx.build.motherboard
    if ram is None or not board.memory_types or ram in board.memory_types:
        return []
    taken = names([RAM_NAMES[t] for t in board.memory_types])
    generation, registered = ram.split("-")[0], ram.endswith("-rdimm")
    if all(not t.startswith(generation) for t in board.memory_types):
        why = f"{generation.upper()} modules do not fit its slots (each DDR generation is keyed differently)"
    elif registered:
        why = "registered DIMMs do not run on this platform"
    else:
        why = "unbuffered DIMMs do not run on this registered-memory platform"
    return [memory_type.finding(
        severity="error",
        message=f"The build's RAM is {RAM_NAMES[ram]} (extras.ram_type), but the {board.name} takes only {taken}: "
                f"{why}.",
        subject=[board.id], fixes=_memory_fixes(ctx, generation, registered))]


def _memory_fixes(ctx: Context, generation: str, registered: bool) -> list[Fix]:
    """RAM of a kind the board takes, the closest first (same DDR generation, then same buffering)."""
    if not ctx.propose_fixes:
        return []
    board = ctx.build.motherboard
    kinds = sorted(board.memory_types, key=lambda t: (not t.startswith(generation), t.endswith("-rdimm") != registered))
    return ctx.first_verified(((f"use {RAM_NAMES[t]} modules: the kind the {board.name} takes",
                                [Change(path="extras.ram_type", value=t)]) for t in kinds),
                              "memory.type", wanted=1, most=2)
