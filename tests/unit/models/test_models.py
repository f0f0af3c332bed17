"""Part and build models: quantities parsed at the boundary, strict keys, cross-field rules."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import ValidationError

from planner.models import BuildFile, GpuBoard, GpuChip, Motherboard, Outlet, Psu

BOARD: dict[str, Any] = {
    "id": "test-board", "name": "Test board", "maker": "T", "chip": "rtx-3090", "tdp": "350 W",
    "power_limit_min": 100, "power_limit_max": 400, "power_connectors": ["pcie-8pin", "pcie-8pin"],
    "slot_width": 3, "length": "12.3 in", "height": 138, "cooler": "open-air", "pcie_gen": 4, "source": "test",
}


def test_board_quantities_accept_units_and_bare_numbers() -> None:
    board = GpuBoard.model_validate(BOARD)
    assert board.tdp == 350.0
    assert board.length == pytest.approx(312.42)
    assert board.height == 138.0


def test_board_rejects_unknown_keys() -> None:
    with pytest.raises(ValidationError, match="slotwidth"):
        GpuBoard.model_validate({**BOARD, "slotwidth": 2})


def test_board_tdp_must_lie_within_its_power_limit_range() -> None:
    with pytest.raises(ValidationError, match="tdp 450 W must lie within"):
        GpuBoard.model_validate({**BOARD, "tdp": 450})


def test_board_connectors_must_deliver_its_tdp() -> None:
    # 75 W slot + one 8-pin = 225 W < 350 W
    with pytest.raises(ValidationError, match="deliver at most 225 W"):
        GpuBoard.model_validate({**BOARD, "power_connectors": ["pcie-8pin"]})


def test_board_temperature_target_is_below_max_operating() -> None:
    with pytest.raises(ValidationError, match="temp_target must be below"):
        GpuBoard.model_validate({**BOARD, "temp_target": 95, "temp_max_operating": 93})


CHIP: dict[str, Any] = {
    "id": "c", "name": "c", "maker": "m", "architecture": "ampere", "year": 2020, "memory": 24,
    "memory_bus_width": 384, "memory_data_rate": 19.5, "memory_bandwidth": 936, "tdp": 350, "source": "test",
}


def test_chip_bandwidth_must_match_bus_width_times_data_rate() -> None:
    assert GpuChip.model_validate(CHIP).memory_bandwidth == 936
    with pytest.raises(ValidationError, match="disagrees with bus width"):
        GpuChip.model_validate({**CHIP, "memory_bandwidth": 1200})


def test_psu_connector_counts_use_the_catalog_names() -> None:
    psu = Psu.model_validate({"id": "p", "name": "p", "maker": "m", "wattage": 1600, "efficiency": "80plus-gold",
                              "atx_version": "3.0", "connectors": {"pcie-8pin": 6, "12vhpwr": 1},
                              "ac_inlet": "c14", "source": "test"})
    assert (psu.connectors.pcie_8pin, psu.connectors.hpwr, psu.connectors.eps_8pin) == (6, 1, 0)


def test_psu_115_v_rating_cannot_exceed_its_230_v_rating() -> None:
    with pytest.raises(ValidationError, match="wattage_115v cannot exceed"):
        Psu.model_validate({"id": "p", "name": "p", "maker": "m", "wattage": 1600, "wattage_115v": 1800,
                            "efficiency": "80plus-gold", "atx_version": "3.0", "connectors": {},
                            "ac_inlet": "c14", "source": "test"})


def test_nema_5_15_continuous_limit_is_1440_w() -> None:
    outlet = Outlet.model_validate({"id": "o", "name": "o", "maker": "NEMA", "region": "us", "standard": "NEMA 5-15",
                                    "voltage": 120, "breaker_current": 15, "continuous_factor": 0.8,
                                    "continuous_source": "NEC", "source": "test"})
    assert outlet.continuous_limit == pytest.approx(1440.0)


def test_motherboard_slot_cannot_have_more_lanes_than_its_size() -> None:
    with pytest.raises(ValidationError, match="8 lanes but is only x4"):
        Motherboard.model_validate({"id": "m", "name": "m", "maker": "m", "form_factor": "atx", "socket": "AM5",
                                    "source": "test", "slots": [{"name": "S1", "position": 1, "size": 4,
                                                                 "lanes": 8, "gen": 4, "source": "cpu"}]})


def test_build_file_temperature_in_fahrenheit_is_stored_in_celsius() -> None:
    spec = BuildFile.model_validate({"ambient": "86 degF", "case": "c", "motherboard": "m", "cpu": "c",
                                     "psu": [{"part": "p"}], "gpu": [{"part": "g"}]})
    assert spec.ambient == pytest.approx(30.0)


def test_build_file_defaults() -> None:
    spec = BuildFile.model_validate({"case": "c", "motherboard": "m", "cpu": "c", "psu": [{"part": "p"}],
                                     "gpu": [{"part": "g"}]})
    assert (spec.ambient, spec.workload, spec.gpu[0].count, spec.gpu[0].power_limit) == (25, "llm-train", 1, None)
