"""psu.transient: GPU excursions per time window against what a PSU rides (README: Transients): the ATX 3.x table, a
measured over-power trip point, or the default for unmeasured ATX 2.x units, whichever is largest; an error only
on measured figures."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from planner.models.parts import Excursions, Psu
from planner.physics import params
from planner.physics.transients import capability, excursion

from helpers import BASE, TEST_CATALOG, build, findings, gpus

FIVE_W = 'excursions = { under_1ms = 1.567, ms_1_5 = 1.432, ms_5_10 = 1.284, ms_10_20 = 1.091, source = "test" }'
MEASURED_3090 = f'part = {{ base = "nvidia-rtx-3090-fe", {FIVE_W} }}'
ONE_TO_FIVE, FIVE_TO_TEN, TEN_TO_TWENTY = 1, 2, 3


def _psu(part_id: str, **changes: object) -> Psu:
    psu = TEST_CATALOG.typed("psu", part_id, Psu)
    return Psu.model_validate({**psu.model_dump(by_alias=True), **changes})


def _tx1600(**changes: object) -> Psu:
    """A PRIME TX-1600-like unit: ATX 2.53, ATX 3.0 excursions only up to 1,000 W, two 12VHPWR outputs."""
    return _psu("corsair-ax1600i", excursion_rating=1000,
                connectors={"pcie-8pin": 8, "12vhpwr": 2, "eps-8pin": 3}, **changes)


# -- what a PSU rides ----------------------------------------------------------------------------------------------
def test_an_atx_3_unit_rides_its_excursion_table_in_each_window() -> None:
    able = capability(_psu("be-quiet-dark-power-pro-13-1600w"), 1600)
    assert able.watts == pytest.approx((2880, 2560, 2560, 1920))  # 180 %, 160 % (10 ms), 160 %, 120 % (100 ms)
    assert all(able.evidence)


def test_a_small_atx_3_unit_or_one_without_12vhpwr_rides_the_smaller_table() -> None:
    no_hpwr = _psu("be-quiet-dark-power-pro-13-1600w", connectors={"pcie-8pin": 8, "eps-8pin": 2})
    assert capability(no_hpwr, 1600).watts == pytest.approx((2320, 2160, 2160, 1760))


def test_a_partial_atx_3_unit_gets_the_larger_figure_never_less_than_an_unrated_unit() -> None:
    # 160 % × 1,000 W = 1,600 W from its partial rating; the ATX 2.x default 118 % × 1,600 W = 1,888 W is larger
    able = capability(_tx1600(), 1600)
    assert able.watts[ONE_TO_FIVE] == pytest.approx(1888)
    assert able.watts[ONE_TO_FIVE] >= capability(_psu("corsair-ax1600i"), 1600).watts[ONE_TO_FIVE]
    assert not able.evidence[ONE_TO_FIVE]  # the larger figure is the assumption, and says so


def test_a_partial_atx_3_unit_with_a_measured_trip_point_rides_that_trip_point() -> None:
    # Tom's Hardware: the PRIME TX-1600 trips at 2,023.79 W hot
    able = capability(_tx1600(opp_trip=2024, opp_source="Tom's Hardware"), 1600)
    assert able.watts[ONE_TO_FIVE] == 2024 and able.evidence[ONE_TO_FIVE]
    assert "measured over-power trip point" in able.basis[ONE_TO_FIVE]


def test_a_measured_trip_point_replaces_the_atx_2_default() -> None:
    able = capability(_psu("corsair-ax1600i", opp_trip=1907, opp_source="Tom's Hardware 2018"), 1600)
    assert able.watts == (1907, 1907, 1907, 1907) and all(able.evidence)


def test_an_unmeasured_atx_2_unit_rides_the_documented_default_marked_as_an_assumption() -> None:
    able = capability(_psu("corsair-ax1600i"), 1600)
    assert able.watts[ONE_TO_FIVE] == pytest.approx(params.ATX2_OPP_DEFAULT.value * 1600)
    assert not any(able.evidence) and "assumed" in able.basis[ONE_TO_FIVE]


def test_a_trip_point_needs_its_source() -> None:
    with pytest.raises(ValidationError, match="opp_source"):
        _psu("corsair-ax1600i", opp_trip=1907)


# -- a card's excursions -------------------------------------------------------------------------------------------
def test_a_card_without_a_measurement_of_its_chip_gets_the_default_marked_as_assumed() -> None:
    shape = excursion(build(BASE + gpus("nvidia-rtx-3090-fe")).gpus[0])
    assert not shape.measured and "assumed" in shape.basis
    assert shape.ratios == params.DEFAULT_EXCURSIONS.values["default"]


def test_a_measurement_on_the_card_is_used_and_counts_as_measured() -> None:
    shape = excursion(build(BASE + f"[[gpu]]\n{MEASURED_3090}\n").gpus[0])
    assert shape.measured and shape.ratios[ONE_TO_FIVE] == 1.432


def test_a_chip_measurement_applies_to_every_board_on_that_chip() -> None:
    gpu = build(BASE + gpus("gigabyte-rtx-3090-turbo")).gpus[0]
    chip = gpu.chip.model_copy(update={"excursions": Excursions(
        under_1ms=1.6, ms_1_5=1.4, ms_5_10=1.2, ms_10_20=1.1, source="a review")})
    shape = excursion(gpu._replace(chip=chip))
    assert shape.measured and shape.ratios == (1.6, 1.4, 1.2, 1.1) and "a review" in shape.basis


def test_a_longer_window_cannot_peak_higher_than_a_shorter_one() -> None:
    with pytest.raises(ValidationError, match="longer window"):
        Excursions(under_1ms=1.2, ms_1_5=1.4, ms_5_10=1.2, ms_10_20=1.1, source="a review")


# -- the check -------------------------------------------------------------------------------------------------
def _one_psu(psu_table: str) -> str:
    return BASE.replace('part = "corsair-ax1600i"', f"part = {psu_table}")


MEASURED_AX1600I = '{ base = "corsair-ax1600i", opp_trip = 1907, opp_source = "Tom\'s Hardware 2018" }'


def test_over_a_measured_trip_point_with_measured_cards_is_an_error() -> None:
    # 4 × 300 W × 1.432 + 368 W = 2,086.4 W over 1–5 ms, over the AX1600i's measured 1,907 W
    text = _one_psu(MEASURED_AX1600I) + f"[[gpu]]\n{MEASURED_3090}\ncount = 4\npower_limit = \"300 W\"\n"
    [finding] = findings(text, "psu.transient")
    assert finding.severity == "error"
    assert finding.value == pytest.approx(4 * 300 * 1.432 + 368, abs=0.1) and finding.limit == 1907
    assert "1–5 ms" in finding.message and "will shut the machine down" in finding.message


def test_over_the_default_of_an_unmeasured_psu_is_a_warning_that_names_the_assumption() -> None:
    text = BASE + f"[[gpu]]\n{MEASURED_3090}\ncount = 4\npower_limit = \"300 W\"\n"
    [finding] = findings(text, "psu.transient")
    assert finding.severity == "warning" and finding.limit == pytest.approx(1888)
    assert "the PSU's figures are assumed, so this is a warning" in finding.message


def test_over_a_measured_trip_point_with_unmeasured_cards_is_a_warning() -> None:
    text = _one_psu(MEASURED_AX1600I) + gpus("gigabyte-rtx-3090-turbo", 4, 'power_limit = "300 W"')
    [finding] = findings(text, "psu.transient")
    assert finding.severity == "warning" and "the cards' figures are assumed" in finding.message


def test_spikes_shorter_than_a_millisecond_are_left_to_the_bulk_capacitors() -> None:
    # one card: 350 × 1.567 + 368 = 916 W under 1 ms; 1–20 ms peaks ≤ 869 W: all far under 1,600 W ATX 3 × 1.2
    text = _one_psu('"be-quiet-dark-power-pro-13-1600w"') + f"[[gpu]]\n{MEASURED_3090}\n"
    assert findings(text, "psu.transient") == []


def test_the_power_limit_fix_brings_every_window_within_the_margin() -> None:
    text = _one_psu(MEASURED_AX1600I) + f"[[gpu]]\n{MEASURED_3090}\ncount = 4\npower_limit = \"300 W\"\n"
    [finding] = findings(text, "psu.transient")
    limit = next(f for f in finding.fixes if f.changes[0].path.endswith("power_limit"))
    value = float(limit.changes[0].value.split()[0])
    # the largest 5 W step with 4 × P × 1.432 + 368 ≤ 0.9 × 1,907: P ≤ 235.4 → 235 W
    assert value == 235 and limit.verified
