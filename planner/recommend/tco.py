"""Cloud vs buy (docs/performance-model.md): when does owning the hardware cost less than renting it?

    hours per day      h = 24 × utilisation (or as given)
    kWh per year       E = wall draw [kW] × h × 365
    electricity/year   E × price per kWh
    break-even days    hardware cost ÷ (h × (cloud price per hour − wall draw [kW] × price per kWh))

counted in calendar days of that usage; never, when an hour in the cloud costs no more than the electricity
of an hour at home. Dettmers' worked example (reference README): a $2,200 desktop drawing 450 W at 15 %
utilisation and $0.12/kWh uses 591 kWh ($71) a year; against a $2.14/h cloud V100 it pays for itself in
about 293 days. Resale value, cooling and the price of the owner's time are left out.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from planner.catalog import Catalog
from planner.models.parts import GpuBoard, GpuChip
from planner.physics.params import WALL_EFFICIENCY
from planner.recommend import params
from planner.util.errors import InputError

if TYPE_CHECKING:
    from planner.build.resolve import ResolvedBuild
    from planner.recommend.fit import BuildFit
    from planner.recommend.rank import Candidate

DAYS_PER_YEAR = 365.0
DAYS_PER_MONTH = 365.25 / 12


class Tco(NamedTuple):
    """Cloud vs buy: the inputs and what follows from them (the JSON of `planner tco`)."""

    hardware_cost_usd: float
    power_w: float  # wall draw while working
    hours_per_day: float
    utilization: float
    electricity_usd_per_kwh: float
    cloud_usd_per_hour: float | None
    kwh_per_year: float
    electricity_usd_per_year: float
    cloud_usd_per_year: float | None
    break_even_days: float | None  # None: never (or no cloud price given)
    break_even_months: float | None
    verdict: str


def cloud_vs_buy(hardware_cost: float, power_w: float, hours_per_day: float, electricity: float,
                 cloud_price: float | None) -> Tco:
    """The figures of docs/performance-model.md; InputError for inputs out of range."""
    _check(hardware_cost, "hardware cost", 0, 10_000_000)
    _check(power_w, "power", 1, 100_000)
    _check(hours_per_day, "hours per day", 0, 24)
    _check(electricity, "electricity price", 0, 10)
    if cloud_price is not None:
        _check(cloud_price, "cloud price", 0, 10_000)
    kwh_year = power_w / 1000 * hours_per_day * DAYS_PER_YEAR
    electricity_year = kwh_year * electricity
    days: float | None = None
    cloud_year = None
    if cloud_price is not None:
        cloud_year = cloud_price * hours_per_day * DAYS_PER_YEAR
        saving_per_day = hours_per_day * (cloud_price - power_w / 1000 * electricity)
        if saving_per_day > 0:
            days = hardware_cost / saving_per_day
    return Tco(
        hardware_cost_usd=round(hardware_cost, 2), power_w=round(power_w, 1), hours_per_day=round(hours_per_day, 3),
        utilization=round(hours_per_day / 24, 4), electricity_usd_per_kwh=electricity, cloud_usd_per_hour=cloud_price,
        kwh_per_year=round(kwh_year, 1), electricity_usd_per_year=round(electricity_year, 2),
        cloud_usd_per_year=round(cloud_year, 2) if cloud_year is not None else None,
        break_even_days=round(days, 1) if days is not None else None,
        break_even_months=round(days / DAYS_PER_MONTH, 1) if days is not None else None,
        verdict=_verdict(days, cloud_price, hours_per_day))


def _verdict(days: float | None, cloud_price: float | None, hours: float) -> str:
    if cloud_price is None:
        return "give a cloud price (--cloud-price USD per hour) to compare with renting"
    if days is None:
        return "renting is cheaper: an hour in the cloud costs no more than the electricity of an hour at home"
    usage = f"at {hours:g} h a day"
    if days <= DAYS_PER_YEAR:
        return f"buying pays off within a year {usage} ({days / DAYS_PER_MONTH:.1f} months)"
    if days <= 3 * DAYS_PER_YEAR:
        return (f"buying pays off after {days / DAYS_PER_YEAR:.1f} years {usage}: worth it if you will use the"
                " hardware that long")
    return f"renting is cheaper unless you use it more: buying pays off only after {days / DAYS_PER_YEAR:.1f} years"


def _check(value: float, what: str, low: float, high: float) -> None:
    if not low <= value <= high or value != value:
        raise InputError(f"{what} must be between {low:g} and {high:,g}, got {value:g}")


def hours_from(hours_per_day: float | None, utilization: float | None) -> float:
    """Usage in hours per day from --hours-per-day or --utilization (Dettmers' 15 % by default)."""
    if hours_per_day is not None and utilization is not None:
        raise InputError("give --hours-per-day or --utilization, not both")
    if utilization is not None:
        if not 0 <= utilization <= 1:
            raise InputError(f"--utilization is a fraction between 0 and 1, got {utilization:g}")
        return 24 * utilization
    if hours_per_day is not None:
        return hours_per_day
    return 24 * params.DEFAULT_UTILIZATION.value


class BuildCost(NamedTuple):
    """A build's price and the wall draw it pulls at full load."""

    price_usd: float
    power_w: float
    price_missing: list[str]
    how: str  # where the wall draw comes from


def build_cost(path: Path, catalog: Catalog) -> BuildCost:
    """A build file's total price and its wall draw at full load."""
    from planner.api import load_build

    return _cost_of(load_build(path, catalog), catalog)


def option_cost(candidate: Candidate, catalog: Catalog, fit: BuildFit | None = None) -> BuildCost:
    """What an option costs to buy and draws at the wall: in the given build, or as cards in a base desktop
    (BASE_DESKTOP_PRICE, BASE_SYSTEM_POWER, WALL_EFFICIENCY)."""
    if fit is not None and candidate.board is not None:
        board = catalog.typed("gpu", candidate.board, GpuBoard)
        return _cost_of(fit.resolve_with(board, candidate.count), catalog)
    if candidate.board is not None:
        tdp = catalog.typed("gpu", candidate.board, GpuBoard).tdp
    else:
        tdp = catalog.typed("gpu-chip", candidate.chip, GpuChip).tdp
    dc = candidate.count * tdp + params.BASE_SYSTEM_POWER.value
    efficiency = WALL_EFFICIENCY.value
    cards = candidate.price_usd or 0.0
    price = candidate.cost_basis_usd if candidate.cost_basis_usd is not None else cards  # as the ranking prices it
    missing = [] if candidate.price_usd is not None else [candidate.board or candidate.chip]
    return BuildCost(price, dc / efficiency, missing,
                     f"{candidate.count} × {tdp:,.0f} W + {params.BASE_SYSTEM_POWER.value:,.0f} W for the rest"
                     f" ÷ {efficiency:.0%} efficiency; price with the machine around the cards, "
                     f"${price - cards:,.0f} (planner solve's, as the ranking adds it)")


def machine_cost(text: str, label: str, catalog: Catalog, price_usd: float | None,
                 region: str | None = None) -> BuildCost:
    """A completed machine (`recommend --complete`): its wall draw from its own check, priced at what the solver
    says buying it costs (the same total the completed ranking shows)."""
    from planner.build import buildfile
    from planner.build.resolve import resolve

    spec, raw = buildfile.loads(text, label)
    build = resolve(spec, raw, catalog, label=label, text=text, region=region)  # type: ignore[arg-type]
    cost = _cost_of(build, catalog)
    if price_usd is None:
        return cost
    return cost._replace(price_usd=price_usd, price_missing=[])


def _cost_of(build: ResolvedBuild, catalog: Catalog) -> BuildCost:
    """The parts' price and the wall draw at full load: the circuits' wall draw less their other loads
    where the report gives it, else the DC load at a typical PSU efficiency."""
    from planner.api import check_build

    summary = check_build(build, catalog).summary
    other = {c.name: c.other_load for c in build.circuits}
    walls = [c.wall_w - other.get(c.name, 0.0) for c in summary.circuits if c.wall_w is not None]
    if walls and len(walls) == len(summary.circuits):
        power, how = sum(walls), "the build's wall draw at full load"
    else:
        efficiency = WALL_EFFICIENCY.value
        power, how = summary.dc_load_w / efficiency, f"DC load {summary.dc_load_w:,.0f} W ÷ {efficiency:.0%} efficiency"
    return BuildCost(summary.price_usd, power, summary.price_missing, how)
