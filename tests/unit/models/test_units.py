"""Quantities at the edges: bare numbers in the documented unit, strings with units, clear errors."""

from __future__ import annotations

import pytest

from planner.util.units import registry, to_canonical


def test_bare_number_is_in_the_documented_unit() -> None:
    assert to_canonical(350, "power") == 350.0
    assert to_canonical(313.5, "length") == 313.5


def test_cfm_means_cubic_feet_per_minute_not_centi_fermi() -> None:
    assert to_canonical("120 cfm", "airflow") == 120.0
    # 1 m³/h = 0.588578 CFM
    assert to_canonical("100 m**3/h", "airflow") == pytest.approx(58.8578, rel=1e-4)


def test_inches_convert_to_millimetres() -> None:
    assert to_canonical("13.5 in", "length") == pytest.approx(342.9)


def test_kilowatts_convert_to_watts() -> None:
    assert to_canonical("1.6 kW", "power") == pytest.approx(1600.0)


def test_celsius_is_taken_as_is_without_offset_errors() -> None:
    assert to_canonical("25 °C", "temperature") == 25.0
    assert to_canonical("25 degC", "temperature") == 25.0


def test_fahrenheit_converts_to_celsius() -> None:
    assert to_canonical("77 degF", "temperature") == pytest.approx(25.0)


def test_dollar_prices_with_thousands_separators() -> None:
    assert to_canonical("$1,499", "price") == 1499.0


def test_wrong_dimension_says_what_was_expected() -> None:
    with pytest.raises(ValueError, match=r"expected a power such as '350 W'.*'kg' is not a unit of that kind"):
        to_canonical("12 kg", "power")


def test_unknown_unit_is_named() -> None:
    with pytest.raises(ValueError, match="unknown unit 'zorks'"):
        to_canonical("12 zorks", "power")


@pytest.mark.parametrize("bad", ["abc", "nan", "inf", True, None, [350]])
def test_non_quantities_are_rejected(bad: object) -> None:
    with pytest.raises(ValueError, match="expected a power"):
        to_canonical(bad, "power")


def test_the_unit_registry_is_built_once() -> None:
    assert registry() is registry()


@pytest.mark.parametrize("bad", ["0]", "5 (", "3 W**", "2 1/", "7 @", "1 W W W"])
def test_garbled_units_are_reported_not_raised(bad: str) -> None:
    with pytest.raises(ValueError, match="expected a power"):
        to_canonical(bad, "power")
