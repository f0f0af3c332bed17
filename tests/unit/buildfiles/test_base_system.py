"""The base system (RAM, system SSD, CPU cooler): one model in every total (planner/build/base_system.py)."""

from __future__ import annotations

import json

import pytest

from planner.build.base_system import MIN_RAM_GB, base_system, channels
from planner.catalog import Catalog
from planner.models.parts import Cpu, Motherboard

from conftest import example, run_cli

CATALOG = Catalog()
BOARDS = [b for b in CATALOG.all("motherboard", curated=True) if isinstance(b, Motherboard)]


def _coolest_cpu(board: Motherboard) -> Cpu:
    socket = board.socket.replace(" ", "").casefold()
    cpus = [c for c in CATALOG.all("cpu", curated=True) if isinstance(c, Cpu)
            and c.socket.replace(" ", "").casefold() == socket]
    assert cpus, f"no curated CPU for {board.id} ({board.socket})"
    return min(cpus, key=lambda c: (c.package_power or c.tdp, c.id))


@pytest.mark.parametrize("board", BOARDS, ids=lambda b: b.id)
def test_every_curated_board_gets_ram_an_ssd_and_a_cooler(board: Motherboard) -> None:
    items = base_system(CATALOG, board, _coolest_cpu(board), 48.0)
    assert {item.role for item in items} == {"ram", "ssd", "cooler"}
    assert all(item.part.price is not None for item in items)


@pytest.mark.parametrize("board", BOARDS, ids=lambda b: b.id)
def test_the_ram_fills_one_module_per_channel_with_at_least_the_gpus_memory(board: Motherboard) -> None:
    cpu = _coolest_cpu(board)
    [ram] = [item for item in base_system(CATALOG, board, cpu, 96.0) if item.role == "ram"]
    assert ram.part.modules is not None and ram.part.module_size is not None
    modules = ram.quantity * ram.part.modules
    assert modules == channels(board, cpu)
    largest = max(p.module_size or 0 for p in CATALOG.all("base-part") if getattr(p, "ram_type", None)
                  == ram.part.ram_type)
    assert modules * ram.part.module_size >= min(96.0, modules * largest)  # enough, where a kit is large enough
    assert modules * ram.part.module_size >= min(MIN_RAM_GB.value, modules * largest)


def test_a_cooler_is_rated_for_the_cpus_sustained_power() -> None:
    board = CATALOG.typed("motherboard", "asus-pro-ws-wrx80e-sage-se", Motherboard)
    cpu = CATALOG.typed("cpu", "amd-threadripper-pro-5975wx", Cpu)
    [cooler] = [item for item in base_system(CATALOG, board, cpu, 48.0) if item.role == "cooler"]
    assert (cooler.part.cooler_tdp or 0) >= (cpu.package_power or cpu.tdp)
    assert "sWRX8" in cooler.part.sockets


def test_the_check_total_includes_the_base_system() -> None:
    data = json.loads(run_cli("export", example("pass-dual-3090-wrx80.toml"), "--format", "json").out)
    kinds = {p["kind"] for p in data["parts"]}
    assert {"ram", "ssd", "cooler"} <= kinds
    assert data["total_usd"] == pytest.approx(sum(p["line_total_usd"] for p in data["parts"]))
