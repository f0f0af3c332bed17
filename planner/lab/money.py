"""The lab's money and time: what to buy and what it costs by market, what running it costs a year, and when
buying it beats renting.

* The parts list: each machine's parts as `planner export` lists them (planner/build/parts_list.py: its parts and
  its base system), times its count; then the room's — each PDU, UPS and switch the lab names by catalog part, each
  machine's NIC, and the cables: a cord per PSU plugged into a PDU (a PSU on a wall circuit uses the cord in its
  box) and a network cable per machine with a NIC when the lab has a switch. Each row's price says its market, its
  date, its source and whether it is an estimate.
* Totals by market: every part at its new price, then at its used price where the catalog has one (the markets
  of planner/catalog/prices.py). The machines are resolved once per market: the base system takes the cheapest
  RAM, SSD and cooler of the market.
* Energy: `planner tco`'s model (planner/recommend/tco.py, `cloud_vs_buy`): wall draw × hours a day × 365 × the
  price of a kWh; cooling is the electricity that pumps the same heat out, heat ÷ COP (params.COOLING_COP).
* Cloud vs buy: the same `cloud_vs_buy`, with the lab's price to buy and its wall draw plus its cooling's.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, NamedTuple

from planner.build.parts_list import Row, owned_quantities, parts_list
from planner.catalog.prices import Market, is_stale
from planner.lab import load, params
from planner.models.parts import Cable, Part
from planner.recommend import params as tco_params
from planner.recommend.tco import Tco, cloud_vs_buy, hours_from
from planner.util.errors import InputError

if TYPE_CHECKING:
    from planner.build.resolve import ResolvedBuild
    from planner.catalog import Catalog
    from planner.lab.lab import Room, State

#: The markets every lab is totalled in (planner/catalog/prices.py): new prices, and used where a part has one.
TOTAL_MARKETS: tuple[Market, ...] = ("new", "used")


class Usage(NamedTuple):
    """How the lab is used and what power and the cloud cost (`planner tco`'s inputs and defaults)."""

    hours_per_day: float
    electricity_usd_per_kwh: float
    cloud_usd_per_hour: float | None

    @classmethod
    def of(cls, hours_per_day: float | None = None, utilization: float | None = None,
           electricity: float | None = None, cloud_price: float | None = None) -> Usage:
        """From the command's options, with `planner tco`'s defaults (Dettmers' 15 % of the day, the US average
        price of a kWh)."""
        if electricity is not None and not 0 <= electricity <= 10:
            raise InputError(f"--electricity must be between 0 and 10 USD per kWh, got {electricity:g}")
        if cloud_price is not None and not 0 <= cloud_price <= 10_000:
            raise InputError(f"--cloud-price must be between 0 and 10,000 USD per hour, got {cloud_price:g}")
        hours = hours_from(hours_per_day, utilization)
        if not 0 <= hours <= 24:
            raise InputError(f"--hours-per-day must be between 0 and 24, got {hours:g}")
        return cls(hours, tco_params.DEFAULT_ELECTRICITY_PRICE.value if electricity is None else electricity,
                   cloud_price)


class Line(NamedTuple):
    """One row of the lab's parts list."""

    group: str  # the machine kind's name, or "room"
    kind: str  # gpu, psu, … (a machine's parts), pdu, ups, switch, nic, cable
    part_id: str | None
    name: str
    quantity: int  # in the whole lab
    owned: int  # of them, marked owned = true in the machine's build file
    unit_price: float | None
    market: str | None  # new, used, yours (None: no price)
    price_date: str | None
    price_source: str | None
    estimated: bool  # the price is an estimate (the part lists it in `estimated`)
    stale: bool  # seen more than 12 months ago

    @property
    def to_buy(self) -> int:
        return self.quantity - self.owned

    @property
    def line_total(self) -> float | None:
        return None if self.unit_price is None else round(self.unit_price * self.quantity, 2)


class MarketTotal(NamedTuple):
    """What the lab costs with every part priced for one market."""

    market: str
    to_buy_usd: float
    owned_usd: float
    all_usd: float
    unpriced: list[str]  # rows with no price in this market (their names)
    estimated: int  # rows whose price is an estimate
    oldest_price: str | None  # the oldest price date of its rows

    def as_json(self) -> dict[str, Any]:
        return self._asdict()


class Energy(NamedTuple):
    """Electricity and cooling a year at the lab's full-load wall draw for `hours_per_day`."""

    hours_per_day: float
    utilization: float
    electricity_usd_per_kwh: float
    wall_w: float  # the machines' wall draw under load
    kwh_per_year: float
    electricity_usd_per_year: float
    cooling_cop: float
    cooling_cop_source: str
    cooling_w: float  # electricity the cooling draws to remove the wall draw's heat
    cooling_kwh_per_year: float
    cooling_usd_per_year: float
    total_usd_per_year: float


class Money(NamedTuple):
    market: str  # the market the parts list is priced in (the command's --market)
    lines: list[Line]
    totals: dict[str, MarketTotal]  # by market: new, used, and the parts list's own
    energy: Energy
    cloud: Tco | None  # cloud vs buy for the whole lab (None: its inputs are out of the model's range)
    cloud_problem: str | None
    notes: list[str]

    @property
    def chosen(self) -> MarketTotal:
        return self.totals[self.market]


@contextmanager
def priced_for(catalog: Catalog, market: Market) -> Iterator[None]:
    """The catalog prices its parts for `market` inside the block, as it did before after it."""
    before = catalog.market
    catalog.market = market
    try:
        yield
    finally:
        catalog.market = before


def lab_money(room: Room, state: State, walls: tuple[float, ...], usage: Usage) -> Money:
    """The lab's parts list, its totals by market, its energy a year and cloud vs buy (see the module docstring)."""
    catalog = room.catalog
    market: str = catalog.market or "any"
    lines, notes = _lines(room, state)
    totals: dict[str, MarketTotal] = {market: _total(market, lines)}
    for other in TOTAL_MARKETS:
        if other not in totals:
            with priced_for(catalog, other):
                totals[other] = _total(other, _lines(room, state)[0])
    energy = _energy(sum(walls), usage)
    cloud, problem = None, None
    chosen = totals[market]
    try:
        cloud = cloud_vs_buy(chosen.to_buy_usd, max(energy.wall_w + energy.cooling_w, 1.0), usage.hours_per_day,
                             usage.electricity_usd_per_kwh, usage.cloud_usd_per_hour)
    except InputError as error:
        problem = f"cloud vs buy left out: {error.message}"
    if chosen.unpriced:
        notes.append(f"{len(chosen.unpriced)} part{'s' if len(chosen.unpriced) != 1 else ''} with no price: the "
                     "totals and the break-even are a floor")
    return Money(market, lines, totals, energy, cloud, problem, notes)


# -- the parts list ---------------------------------------------------------------------------------------------

def _lines(room: Room, state: State) -> tuple[list[Line], list[str]]:
    lines: list[Line] = []
    notes: list[str] = []
    spec = room.spec
    for k, machine in enumerate(spec.machine):
        build = _resolved(room, state, k)
        owned = owned_quantities(build)
        parts = _parts_of(build)
        for row in parts_list(build):
            part = parts.get((row.kind, row.part_id))
            lines.append(_machine_line(machine.name, row, part, machine.count,
                                       owned.get((row.kind, row.part_id), 0) * machine.count))
    counted: dict[tuple[str, str], int] = {}
    unpriced: list[Line] = []
    for p in spec.pdu:
        if p.part is not None:
            counted[("pdu", p.part)] = counted.get(("pdu", p.part), 0) + 1
        else:
            unpriced.append(_unpriced("pdu", f"PDU {p.name} ({p.model or 'banks given in the lab file'})"))
    for u in spec.ups:
        if u.part is not None:
            counted[("ups", u.part)] = counted.get(("ups", u.part), 0) + 1
        else:
            unpriced.append(_unpriced("ups", f"UPS {u.name} ({u.model or 'ratings given in the lab file'})"))
    network = spec.network
    if network.switch is not None:
        counted[("switch", network.switch)] = 1
    elif network.switch_gbps is not None:
        unpriced.append(_unpriced("switch", f"a {network.switch_gbps:g} Gbit/s switch (no switches.toml part named)"))
    for machine in spec.machine:
        if machine.nic is not None:
            counted[("nic", machine.nic)] = counted.get(("nic", machine.nic), 0) + machine.count
        elif machine.nic_gbps is not None:
            notes.append(f"{machine.name}: a {machine.nic_gbps:g} Gbit/s NIC without a nics.toml part is taken as "
                         "the machine's own (on its board, or bought already): not priced")
    for (kind, part_id), quantity in counted.items():
        lines.append(_catalog_line(room.catalog.get(kind, part_id), kind, quantity))
    lines += unpriced
    lines += _cables(room, state)
    return lines, notes


def _resolved(room: Room, state: State, kind: int) -> ResolvedBuild:
    raw, text, label = room.raw[kind]
    return load.lab_build(raw, text, label, room.catalog, room.reference_voltage(kind), room.spec.region,
                          state.power_limits[kind])


def _parts_of(build: ResolvedBuild) -> dict[tuple[str, str], Part]:
    """Each part of the build by the parts list's (kind, id) key: where its price's source is."""
    parts: dict[tuple[str, str], Part] = {("case", build.case.id): build.case,
                                          ("motherboard", build.motherboard.id): build.motherboard,
                                          ("cpu", build.cpu.id): build.cpu}
    for gpu in build.gpus:
        parts[("gpu", gpu.board.id)] = gpu.board
        if gpu.riser is not None:
            parts[("riser", gpu.riser.id)] = gpu.riser
    for psu in build.psus:
        parts[("psu", psu.part.id)] = psu.part
    for item in build.base:
        parts[(item.role, item.part.id)] = item.part
    return parts


def _machine_line(group: str, row: Row, part: Part | None, count: int, owned: int) -> Line:
    source = part.price_source if part is not None and row.unit_price is not None else None
    if row.price_from is not None and row.price_from != "catalog":
        source = row.price_from  # the user's price file or the build file
    estimated = part is not None and row.unit_price is not None and "price" in part.estimated
    return Line(group, row.kind, row.part_id, row.name, row.quantity * count, owned, row.unit_price, row.market,
                row.price_date, source, estimated, row.stale)


def _catalog_line(part: Part, kind: str, quantity: int, group: str = "room") -> Line:
    if part.price is None:
        return Line(group, kind, part.id, part.name, quantity, 0, None, None, None, None, False, False)
    return Line(group, kind, part.id, part.name, quantity, 0, round(part.price, 2), part.price_market or "new",
                part.price_date, part.price_source, "price" in part.estimated, is_stale(part.price_date))


def _unpriced(kind: str, name: str) -> Line:
    return Line("room", kind, None, name, 1, 0, None, None, None, None, False, False)


def _cables(room: Room, state: State) -> list[Line]:
    """A cord per PSU on a PDU bank (by the outlet it takes and its inlet) and a network cable per machine with a
    NIC when the lab has a switch; each the cheapest priced catalog cable that fits."""
    cords: dict[tuple[str, str], int] = {}
    for n, node in enumerate(room.nodes):
        if node.wall_outlet:
            continue  # a wall circuit: the PSU's own cord
        on = [i for i in range(len(room.psus)) if state.where[i] == n]
        c20 = sum(1 for i in on if _c20(room, state, i))
        c14 = len(on) - c20
        on_c19 = max(0, c14 - node.c13)  # C14 inlets beyond the C13 outlets take C19 outlets
        for key, count in ((("c19", "c20"), c20), (("c13", "c14"), c14 - on_c19), (("c19", "c14"), on_c19)):
            if count:
                cords[key] = cords.get(key, 0) + count
    out = []
    cables = [c for c in room.catalog.all("cable", curated=False) if isinstance(c, Cable)]
    for (outlet, inlet), count in cords.items():
        fits = [c for c in cables if c.use == "power" and c.pdu_outlet == outlet and c.psu_inlet == inlet]
        out.append(_cable_line(fits, count, f"power cord, PDU {outlet.upper()} outlet to PSU {inlet.upper()} inlet"))
    switch = room.spec.network.switch_gbps
    if switch is not None:
        speeds: dict[float, int] = {}
        for machine in room.spec.machine:
            if machine.nic_gbps is not None:
                speed = min(machine.nic_gbps, switch)
                speeds[speed] = speeds.get(speed, 0) + machine.count
        for speed, count in sorted(speeds.items()):
            fits = [c for c in cables if c.use == "network" and c.speed_gbps is not None
                    and math.isclose(c.speed_gbps, speed)]
            out.append(_cable_line(fits, count, f"network cable, {speed:g} Gbit/s NIC to switch"))
    return out


def _c20(room: Room, state: State, psu: int) -> bool:
    p = room.psus[psu]
    return room.kind_check(p.kind, state.power_limits[p.kind]).psus[p.number].c20


def _cable_line(fits: list[Cable], count: int, what: str) -> Line:
    priced = sorted((c for c in fits if c.price is not None), key=lambda c: (c.price or 0.0, c.id))
    if priced:
        return _catalog_line(priced[0], "cable", count)
    if fits:
        return _catalog_line(fits[0], "cable", count)
    return Line("room", "cable", None, f"{what} (no cables.toml part)", count, 0, None, None, None, None, False,
                False)


def _total(market: str, lines: list[Line]) -> MarketTotal:
    to_buy = owned = 0.0
    unpriced, estimated, dates = [], 0, []
    for line in lines:
        if line.unit_price is None:
            if line.name not in unpriced:  # one part in several machines is named once
                unpriced.append(line.name)
            continue
        to_buy += line.unit_price * line.to_buy
        owned += line.unit_price * line.owned
        estimated += line.estimated
        if line.price_date:
            dates.append(line.price_date)
    return MarketTotal(market, round(to_buy, 2), round(owned, 2), round(to_buy + owned, 2), unpriced, estimated,
                       min(dates) if dates else None)


# -- energy -----------------------------------------------------------------------------------------------------

def _energy(wall_w: float, usage: Usage) -> Energy:
    """Electricity and cooling a year through `planner tco`'s model (cloud_vs_buy's kWh and cost)."""
    cop = params.COOLING_COP.value
    cooling_w = wall_w / cop
    it = _yearly(wall_w, usage)
    cool = _yearly(cooling_w, usage)
    return Energy(round(usage.hours_per_day, 3), round(usage.hours_per_day / 24, 4), usage.electricity_usd_per_kwh,
                  round(wall_w, 1), it[0], it[1], cop, params.COOLING_COP.source, round(cooling_w, 1), cool[0],
                  cool[1], round(it[1] + cool[1], 2))


def _yearly(power_w: float, usage: Usage) -> tuple[float, float]:
    """kWh and USD a year at `power_w`: the model's figures for one kW, times the kW (it is linear in the power,
    and a lab may draw more than the 100 kW `planner tco` takes for one machine)."""
    per_kw = cloud_vs_buy(0.0, 1000.0, usage.hours_per_day, usage.electricity_usd_per_kwh, None)
    kwh = per_kw.kwh_per_year * power_w / 1000
    return round(kwh, 1), round(kwh * usage.electricity_usd_per_kwh, 2)


def money_json(money: Money) -> dict[str, Any]:
    """The `money` object of `planner lab --format json` (README, the lab's JSON contract)."""
    return {
        "market": money.market,
        "parts": [{"group": line.group, "kind": line.kind, "part": line.part_id, "name": line.name,
                   "quantity": line.quantity, "owned": line.owned, "unit_usd": line.unit_price,
                   "line_usd": line.line_total, "market": line.market, "price_date": line.price_date,
                   "price_source": line.price_source, "estimated": line.estimated, "stale": line.stale}
                  for line in money.lines],
        "totals": {market: total.as_json() for market, total in money.totals.items()},
        "energy": money.energy._asdict(),
        "cloud_vs_buy": None if money.cloud is None else money.cloud._asdict(),
        "cloud_vs_buy_problem": money.cloud_problem,
        "notes": money.notes,
    }
