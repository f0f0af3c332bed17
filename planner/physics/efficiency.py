"""PSU efficiency against load from the 80 PLUS tables, and the wall draw it implies (README: Efficiency and wall draw).

Efficiency is interpolated linearly between the table's load points and held flat below the first and
above the last (100 %). The 115 V table applies on 100–127 V circuits, the 230 V table on 200–240 V ones.
"""

from __future__ import annotations

import itertools
from functools import cache

from planner.physics import params


def is_low_line(voltage: float) -> bool:
    """A 100–127 V circuit (the 115 V tables and ratings apply)."""
    return voltage < params.LOW_LINE_VOLTAGE.value


@cache
def efficiency_curve(grade: str, low_line: bool) -> tuple[tuple[float, float], ...]:
    """(load fraction, efficiency) points of a certification grade at 115 V (`low_line`) or 230 V."""
    table = params.EFFICIENCY_115V if low_line else params.EFFICIENCY_230V
    row = table.values[params.CYBENETICS_AS_80PLUS.get(grade, grade)]
    return tuple((load, eff) for load, eff in zip(params.EFFICIENCY_LOAD_POINTS, row, strict=True)
                 if eff is not None)


def efficiency(grade: str, load_fraction: float, voltage: float) -> float:
    """Efficiency (0–1) of a PSU of this grade at this share of its rating, on a circuit of this voltage."""
    points = efficiency_curve(grade, is_low_line(voltage))
    if load_fraction <= points[0][0]:
        return points[0][1]
    for (x0, y0), (x1, y1) in itertools.pairwise(points):
        if load_fraction <= x1:
            return y0 + (y1 - y0) * (load_fraction - x0) / (x1 - x0)
    return points[-1][1]


def lowest_efficiency(grade: str, voltage: float) -> float:
    """The worst point of the grade's curve: what a PSU may fall to anywhere in its range."""
    return min(eff for _, eff in efficiency_curve(grade, is_low_line(voltage)))


def wall_draw(dc_load: float, rating: float, grade: str, voltage: float) -> float:
    """AC watts drawn from the outlet for `dc_load` watts delivered by a PSU of this rating and grade."""
    if dc_load <= 0:
        return 0.0
    return dc_load / efficiency(grade, dc_load / rating, voltage)
