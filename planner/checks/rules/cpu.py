"""CPU ↔ motherboard: the socket and the platform behind it (docs/verdicts.md `cpu.socket`); the memory the board takes
is memory.py.

A socket is a physical fact, so a mismatch is an error. Boards of one socket can still differ in the CPUs they run
(sTR5: WRX90 boards take only Threadripper PRO; LGA2066: X299 boards take Core X, C422 boards Xeon W): where a
board records its CPU support list (`cpu_generations`, with `platform_source`) and the CPU its `generation`, a CPU
missing from the list is a platform caveat (a warning naming the list), and a generation the board runs only from a
newer BIOS is said (info). Without those records there is no finding: a guess is never a verdict.
"""

from __future__ import annotations

import math
from collections.abc import Iterator

from planner.checks.case_fit import takes_board
from planner.checks.engine.context import Context
from planner.checks.engine.findings import Change, Finding, Fix
from planner.checks.engine.registry import check
from planner.checks.platform import same_socket, supports
from planner.models.parts import Cpu, Motherboard
from planner.util.fmt import names, price_text


def _platform(board: Motherboard) -> str:
    return f"{board.chipset} " if board.chipset else ""


@check("cpu.socket", reads={"cpu", "motherboard"}, order=60, section="Fit",
       error="the CPU's socket differs from the board's",
       warning=("same socket, but the CPU's generation is not on the board's sourced support list (platform "
                "caveat); info: a generation that needs a BIOS update"),
       evidence=("socket is a physical fact; support lists from board spec pages (`platform_source`); nothing when"
                 " unrecorded"))
def cpu_socket(ctx: Context) -> list[Finding]:
    """The CPU's socket, and its generation against the board's CPU support list."""
    cpu, board = ctx.build.cpu, ctx.build.motherboard
    if not same_socket(cpu.socket, board.socket):
        return [cpu_socket.finding(
            severity="error",
            message=f"The {cpu.name} is a socket {cpu.socket} CPU, but the {board.name} has socket {board.socket}: "
                    "it does not fit.",
            subject=[cpu.id, board.id], fixes=_socket_fixes(ctx))]
    if supports(board, cpu) is False:
        return [cpu_socket.finding(
            severity="warning",
            message=f"Platform caveat: the {cpu.name} ({cpu.generation}) fits the {board.name}'s {board.socket} "
                    f"socket, but the board's {_platform(board)}platform supports only {names(board.cpu_generations)}"
                    f" (its CPU support list; `planner catalog show {board.id}` gives the source): expect it not to "
                    "boot there.",
            subject=[cpu.id, board.id], fixes=_platform_fixes(ctx))]
    if cpu.generation is not None and cpu.generation in board.bios_update_for:
        return [cpu_socket.finding(
            severity="info",
            message=f"The {board.name} runs {cpu.generation} CPUs such as the {cpu.name} only from a BIOS newer than "
                    f"early boards shipped with (`planner catalog show {board.id}` gives the source): check the "
                    "board's BIOS version before fitting the CPU, or update it first (BIOS FlashBack needs no CPU "
                    "where the board has it).",
            subject=[cpu.id, board.id])]
    return []


def _closeness(cpu: Cpu, other: Cpu) -> float:
    """How far another CPU is from the build's in cores and lanes (ratios, so 16 → 24 cores is as close as
    32 → 48)."""
    return abs(math.log(other.cores / cpu.cores)) + abs(math.log(other.pcie_lanes / cpu.pcie_lanes))


def _cpus_for(ctx: Context, board: Motherboard) -> Iterator[tuple[str, list[Change]]]:
    """Catalog CPUs the board takes, as fixes: curated before imported, then those needing no BIOS update, then
    the closest to the build's CPU in cores and lanes, then the cheapest. Where the board records its CPU support
    list, only CPUs known to be on it."""
    cpu = ctx.build.cpu
    curated = {c.id for c in ctx.catalog.all("cpu", curated=True)}
    candidates = [c for c in ctx.catalog.all("cpu") if isinstance(c, Cpu) and c.id != cpu.id
                  and same_socket(c.socket, board.socket) and (supports(board, c) or not board.cpu_generations)]
    candidates.sort(key=lambda c: (c.id not in curated, c.generation in board.bios_update_for,
                                   round(_closeness(cpu, c), 3), c.price is None, c.price or 0.0, c.id))
    for c in candidates:
        yield (f"use the {c.name} ({c.id}{price_text(c)}, socket {c.socket}, {c.cores} cores, {c.pcie_lanes} lanes)"
               f" instead: the {board.name} takes it", [Change(path="cpu", value=c.id)])


def _boards_for(ctx: Context) -> Iterator[tuple[str, list[Change]]]:
    """Curated boards that take the build's CPU (its socket and, where recorded, its generation) and its RAM, fit
    its case, cheapest first."""
    build = ctx.build
    cpu, ram = build.cpu, build.extras.ram_type
    boards = [b for b in ctx.catalog.all("motherboard", curated=True) if isinstance(b, Motherboard)
              and b.id != build.motherboard.id and same_socket(b.socket, cpu.socket)
              and (supports(b, cpu) or not b.cpu_generations)
              and not (ram and b.memory_types and ram not in b.memory_types)
              and takes_board(build.case, b.form_factor)]
    boards.sort(key=lambda b: (cpu.generation in b.bios_update_for, b.price is None, b.price or 0.0, b.id))
    # slot names are the board's own: cards pinned to slots of this board are left to the planner on another
    pinned = [dict(table) for table in build.raw.get("gpu", [])]
    unpin = [Change(path="gpu", value=[{k: v for k, v in t.items() if k != "slot"} for t in pinned])] \
        if any("slot" in t for t in pinned) else []
    for b in boards:
        yield (f"keep the {cpu.name} and use the {b.name} ({b.id}{price_text(b)}, socket {b.socket}"
               f"{', ' + b.chipset if b.chipset else ''}) instead"
               + ("; the planner places the cards in its slots" if unpin else ""),
               [Change(path="motherboard", value=b.id), *unpin])


def _socket_fixes(ctx: Context) -> list[Fix]:
    if not ctx.propose_fixes:
        return []
    board = ctx.build.motherboard
    return [*ctx.first_verified(_cpus_for(ctx, board), "cpu.socket", wanted=2, most=6),
            *ctx.first_verified(_boards_for(ctx), "cpu.socket", wanted=1, most=4)]


_platform_fixes = _socket_fixes  # the same remedies: a CPU the board supports, or a board that supports the CPU
