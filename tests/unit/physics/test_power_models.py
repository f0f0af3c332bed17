"""The power models pinned to hand-computed values: outlet limits, 80 PLUS efficiency and wall draw,
power plugs and adapters (README: Models and their parameters)."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from planner.catalog import Catalog
from planner.models.parts import GpuBoard, Outlet, Psu
from planner.physics.connectors import allocate_plugs, cpu_eps_plugs, gpu_plug_need
from planner.physics.efficiency import efficiency, wall_draw
from planner.physics.power import rated_watts, runs_on
from planner.physics.wall import cord_for

from helpers import BASE, TEST_CATALOG, build, gpus


def _psu(part_id: str, **changes: object) -> Psu:
    """A test-catalog PSU with some fields changed (validated again, like an inline part)."""
    psu = TEST_CATALOG.typed("psu", part_id, Psu)
    return Psu.model_validate({**psu.model_dump(by_alias=True), **changes})


# -- outlets (README: Outlets and circuits) ----------------------------------------------------------------------------
@pytest.mark.parametrize("outlet_id,watts", [
    ("nema-5-15", 1440.0),   # 120 V × 15 A × 0.8
    ("nema-5-20", 1920.0),   # 120 V × 20 A × 0.8
    ("nema-6-20", 3840.0),   # 240 V × 20 A × 0.8
    ("nema-l6-30", 5760.0),  # 240 V × 30 A × 0.8
])
def test_continuous_limit_is_voltage_times_breaker_times_the_nec_80_percent(catalog: Catalog, outlet_id: str,
                                                                           watts: float) -> None:
    assert catalog.typed("outlet", outlet_id, Outlet).continuous_limit == pytest.approx(watts)


# -- efficiency and wall draw (README: Efficiency and wall draw) -------------------------------------------------------
def test_platinum_at_115_v_interpolates_between_the_50_and_100_percent_points() -> None:
    # 1,000 W on a 1,600 W unit = 62.5 % load: 92 % − (92 − 89) × 12.5/50 = 91.25 %
    assert efficiency("80plus-platinum", 0.625, 120) == pytest.approx(0.9125)
    assert wall_draw(1000, 1600, "80plus-platinum", 120) == pytest.approx(1000 / 0.9125)  # 1,095.9 W


def test_platinum_at_230_v_uses_the_230_v_table() -> None:
    # 94 % − (94 − 90) × 12.5/50 = 93 %
    assert wall_draw(1000, 1600, "80plus-platinum", 230) == pytest.approx(1000 / 0.93)


def test_efficiency_is_flat_below_the_first_point_and_above_full_load() -> None:
    assert efficiency("80plus-platinum", 0.05, 120) == 0.90  # no 10 % point: the 20 % figure
    assert efficiency("80plus-titanium", 0.05, 120) == 0.90  # Titanium's own 10 % point
    assert efficiency("80plus-gold", 1.3, 120) == 0.87


def test_cybenetics_grades_read_the_80_plus_table_of_the_same_name() -> None:
    assert efficiency("cybenetics-platinum", 0.5, 230) == efficiency("80plus-platinum", 0.5, 230)
    assert efficiency("cybenetics-diamond", 0.5, 120) == efficiency("80plus-titanium", 0.5, 120)


def test_no_dc_load_draws_nothing_from_the_wall() -> None:
    assert wall_draw(0, 1600, "80plus-gold", 120) == 0.0


# -- ratings, input voltage, cords -------------------------------------------------------------------------------
def test_a_psu_that_derates_gives_its_115_v_rating_below_200_v() -> None:
    psu = _psu("super-flower-leadex-platinum-2000w")
    assert (rated_watts(psu, 120), rated_watts(psu, 100), rated_watts(psu, 208)) == (1650, 1650, 2000)


def test_a_230_v_only_psu_does_not_run_on_120_v() -> None:
    psu = _psu("fsp-cannon-pro-2000w")
    assert not runs_on(psu, 120) and runs_on(psu, 230)


def test_a_c20_psu_on_a_nema_5_15_outlet_is_limited_by_the_15_a_plug() -> None:
    cord = cord_for(_psu("corsair-ax1600i"), TEST_CATALOG.typed("outlet", "nema-5-15", Outlet))
    assert (cord.current, cord.coupler, cord.plug_limited) == (15, "C19", True)


def test_a_c14_psu_outside_north_america_gets_the_iec_10_a_cord() -> None:
    eu = TEST_CATALOG.typed("outlet", "nema-5-20", Outlet).model_copy(
        update={"region": "eu", "voltage": 230, "plug_current": 16})
    cord = cord_for(_psu("corsair-hx1000"), eu)
    assert (cord.current, cord.coupler, cord.plug_limited) == (10, "C13", False)


# -- plugs and adapters (docs/verdicts.md psu.connectors) --------------------------------------------------------------
@pytest.mark.parametrize("limit,plugs", [(450, 3), (600, 4), (285, 3), (None, 3)])
def test_a_12vhpwr_adapter_takes_one_8_pin_plug_per_150_w_of_the_cards_highest_power(limit: int | None,
                                                                                     plugs: int) -> None:
    extra = f'power_limit = "{limit} W"' if limit else ""
    gpu = build(BASE + gpus("nvidia-rtx-4090-fe", extra=extra)).gpus[0]
    # the 4090 FE's default power is 450 W: a lower limit does not change what its sense pins ask for
    assert gpu_plug_need(gpu).adapter_plugs == plugs


def test_two_4090s_on_an_8_pin_only_psu_take_three_8_pin_plugs_each_through_adapters() -> None:
    resolved = build(BASE + gpus("nvidia-rtx-4090-fe", 2))
    use = allocate_plugs(_psu("corsair-ax1600i"), resolved.gpus, [gpu_plug_need(g) for g in resolved.gpus], 1)
    assert use.used == {"pcie-8pin": 6, "12vhpwr": 0, "eps-8pin": 1}
    assert [(a.gpu, a.plugs) for a in use.adapters] == [(0, 3), (1, 3)]
    assert not use.short


def test_native_12vhpwr_plugs_are_used_before_adapters() -> None:
    resolved = build(BASE + gpus("nvidia-rtx-4090-fe", 2))
    psu = _psu("corsair-hx1000", connectors={"pcie-8pin": 2, "12vhpwr": 1, "eps-8pin": 2})
    use = allocate_plugs(psu, resolved.gpus, [gpu_plug_need(g) for g in resolved.gpus], 1)
    assert use.used["12vhpwr"] == 1 and len(use.adapters) == 1
    assert use.short == {"pcie-8pin": 1}  # the adapter wants 3 plugs, the unit has 2


def test_a_6_pin_input_takes_one_of_the_psus_6_plus_2_plugs() -> None:
    card = ('[[gpu]]\ncount = 2\npart = { base = "nvidia-rtx-3090-fe", tdp = "200 W", '
            'power_connectors = ["pcie-8pin", "pcie-6pin"] }\n')
    resolved = build(BASE + card)
    needs = [gpu_plug_need(g) for g in resolved.gpus]
    assert needs[0].pcie == 2
    use = allocate_plugs(_psu("corsair-ax1600i"), resolved.gpus, needs, 1)
    assert use.used["pcie-8pin"] == 4 and not use.adapters


def test_a_6_pin_input_delivers_75_w_by_the_pcie_specification() -> None:
    board = TEST_CATALOG.typed("gpu", "nvidia-rtx-3090-fe", GpuBoard).model_dump()
    one_6_pin = {**board, "power_connectors": ["pcie-6pin"], "power_limit_min": 100}
    assert GpuBoard.model_validate({**one_6_pin, "tdp": 150}).tdp == 150  # slot 75 W + 6-pin 75 W
    with pytest.raises(ValidationError, match="75 W per 6-pin"):
        GpuBoard.model_validate({**one_6_pin, "tdp": 200})


def test_the_cpu_needs_one_eps_plug_per_started_300_w() -> None:
    assert (cpu_eps_plugs(125), cpu_eps_plugs(280), cpu_eps_plugs(350)) == (1, 1, 2)
