"""Which CPUs a board runs: the socket as makers write it, and the board's sourced CPU support list. Shared by
the `cpu.socket` rule, the slot fixes that pair another board with a CPU, and the solver."""

from __future__ import annotations

from planner.models.parts import Cpu, Motherboard


def same_socket(a: str, b: str) -> bool:
    """Socket names as makers and catalogs write them: case and spaces do not matter (`LGA 1700` = `LGA1700`)."""
    return a.replace(" ", "").casefold() == b.replace(" ", "").casefold()


def supports(board: Motherboard, cpu: Cpu) -> bool | None:
    """Does the board's CPU support list include the CPU? None when either record is missing (unknown)."""
    if not board.cpu_generations or cpu.generation is None:
        return None
    return cpu.generation in board.cpu_generations
