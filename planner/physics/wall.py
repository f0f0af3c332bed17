"""Wall draw per circuit and the power cord between each PSU and its outlet (README: Efficiency and wall draw, README:
Outlets and circuits, docs/verdicts.md outlet.*).

A circuit carries the wall draw of its PSUs (DC ÷ efficiency at that load and voltage) plus its
`other_load`; its continuous limit is voltage × breaker current × continuous factor, and the breaker itself
trips at voltage × breaker current. A PSU's cord is limited by its AC inlet's coupler (C13/C14 or C19/C20,
rated higher under UL/CSA in North America) and by the plug that fits the outlet.
"""


from collections.abc import Sequence
from typing import NamedTuple

from planner.models.parts import Outlet, Psu
from planner.physics import params
from planner.physics.efficiency import wall_draw


class CircuitDraw(NamedTuple):
    """What one circuit carries."""

    name: str
    outlet: Outlet
    psus: tuple[int, ...]  # PSU indices plugged into it
    psu_wall: tuple[float, ...]  # sustained wall draw of each of those PSUs, W
    other_load: float
    wall: float  # sustained: its PSUs + other load, W
    peak_wall: float  # with coincident GPU transients, W

    @property
    def continuous_limit(self) -> float:
        return self.outlet.continuous_limit

    @property
    def breaker_rating(self) -> float:
        """Watts at which the breaker (or plug fuse) is rated: voltage × current."""
        return self.outlet.voltage * self.outlet.breaker_current


class PsuOnCircuit(NamedTuple):
    """The inputs wall draw needs about one PSU."""

    circuit: str
    part: Psu
    rating: float  # at the circuit's voltage
    load: float  # sustained DC, W
    peak: float  # DC at coincident transients, W


def circuit_draws(circuits: Sequence[tuple[str, Outlet, float]],
                  psus: Sequence[PsuOnCircuit]) -> tuple[CircuitDraw, ...]:
    """Each circuit's sustained and peak wall draw. `circuits`: (name, outlet, other load) in build order."""
    draws = []
    for name, outlet, other in circuits:
        voltage = outlet.voltage
        on = []
        walls = []
        peaks = []
        for i, p in enumerate(psus):
            if p.circuit == name:
                on.append(i)
                grade = p.part.efficiency
                walls.append(wall_draw(p.load, p.rating, grade, voltage))
                peaks.append(wall_draw(p.peak, p.rating, grade, voltage))
        draws.append(CircuitDraw(name, outlet, tuple(on), tuple(walls), other, sum(walls) + other, sum(peaks) + other))
    return tuple(draws)


class Cord(NamedTuple):
    """The cord from an outlet to a PSU's AC inlet."""

    current: float  # A it is rated for
    inlet: str  # "C14" or "C20"
    coupler: str  # "C13" or "C19": the cord's connector at the PSU
    plug_limited: bool  # the outlet's plug, not the coupler, sets the rating


def cord_for(psu: Psu, outlet: Outlet) -> Cord:
    """The rating of the best cord that joins this PSU's inlet to this outlet."""
    north_america = outlet.region in params.NORTH_AMERICA
    if psu.ac_inlet == "c20":
        coupler, inlet = "C19", "C20"
        rating = (params.C20_INLET_CURRENT_NA if north_america else params.C20_INLET_CURRENT).value
    else:
        coupler, inlet = "C13", "C14"
        rating = (params.C14_INLET_CURRENT_NA if north_america else params.C14_INLET_CURRENT).value
    plug = outlet.plug_current
    if plug is not None and plug < rating:
        return Cord(plug, inlet, coupler, plug_limited=True)
    return Cord(rating, inlet, coupler, plug_limited=False)
