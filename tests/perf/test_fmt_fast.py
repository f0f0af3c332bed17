"""fmt.num, watts and mm format whole numbers with a constant spec: the same text as the general spec gives."""

from __future__ import annotations

import pytest

from planner.util.fmt import mm, num, watts

VALUES = [0, -0.0, 0.49, 0.5, 1.5, 2.5, -0.4, 12.3456, 999.4999, 999.5, 1000, 1234.5, -1234.5, 1e7, 123456789.987,
          float("inf")]


@pytest.mark.parametrize("value", VALUES)
def test_whole_numbers_read_as_the_general_spec_writes_them(value: float) -> None:
    general = format(value, ",.0f")
    assert num(value) == general
    assert watts(value) == f"{general} W"
    assert mm(value) == f"{general} mm"


@pytest.mark.parametrize("value", VALUES)
def test_other_digits_keep_their_spec(value: float) -> None:
    assert num(value, 2) == format(value, ",.2f")
    assert num(value, 1) == format(value, ",.1f").removesuffix(".0")
