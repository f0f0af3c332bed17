"""The parts list of a build: one row per distinct part, with quantity, unit price and line total, and where
each price comes from, its market and when it was seen (and whether that is so long ago it is stale)."""


from decimal import ROUND_HALF_UP, Decimal
from typing import Literal, NamedTuple

from planner.build.resolve import ResolvedBuild
from planner.catalog.prices import is_stale
from planner.models.parts import Part

PriceMarket = Literal["new", "used", "yours"]


class Row(NamedTuple):
    kind: str
    part_id: str
    name: str
    quantity: int
    unit_price: float | None  # in dollars and whole cents, as every list shows it (the catalog's figure rounded once)
    price_date: str | None = None  # when the price was seen (YYYY-MM[-DD])
    price_from: str | None = None  # "catalog", "price file prices.toml:3 (used, eBay)" or "build file"
    market: PriceMarket | None = None  # the market of the price: new, used (sold listings) or yours (None: no price)
    stale: bool = False  # the price was seen more than 12 months before today (planner/catalog/prices.py)
    used_range: tuple[float, float] | None = None  # a used price: the low and high of the sold listings, when known

    @property
    def line_cents(self) -> int | None:
        """The line total in cents: the shown unit price times the quantity, so a list adds up as shown."""
        return None if self.unit_price is None else cents(self.unit_price) * self.quantity

    @property
    def line_total(self) -> float | None:
        return None if (line := self.line_cents) is None else line / 100

    @property
    def user_price(self) -> bool:
        """The price is the user's (a price file or the build file), not the catalog's."""
        return self.price_from is not None and self.price_from != "catalog"


def cents(dollars: float) -> int:
    """A price in whole cents, rounded once, half up (333.333 → 33333, 0.125 → 13), from its decimal text."""
    return int((Decimal(repr(dollars)) * 100).quantize(Decimal(1), ROUND_HALF_UP))


def total_cents(rows: list[Row]) -> int:
    """The sum of the lines' totals as they are shown, in cents (rows without a price add nothing)."""
    return sum(r.line_cents or 0 for r in rows)


def parts_list(build: ResolvedBuild) -> list[Row]:
    """Rows in build order: case, motherboard, CPU, GPUs, risers, PSUs, the accessories (planner/kinds.py), then
    the base system (RAM, SSD, CPU cooler: planner/build/base_system.py)."""
    counted: dict[tuple[str, str], tuple[Part, int]] = {}

    def add(kind: str, part: Part, quantity: int = 1) -> None:
        key = (kind, part.id)
        _, before = counted.get(key, (part, 0))
        counted[key] = (part, before + quantity)

    add("case", build.case)
    add("motherboard", build.motherboard)
    add("cpu", build.cpu)
    for gpu in build.gpus:
        add("gpu", gpu.board)
    for gpu in build.gpus:
        if gpu.riser is not None:
            add("riser", gpu.riser)
    for psu in build.psus:
        add("psu", psu.part)
    for kind, part in build.accessories:
        add(kind, part)
    for item in build.base:  # the base-system model's RAM, SSD and cooler
        add(item.role, item.part, item.quantity)
    return [_row(build, kind, part, quantity) for (kind, _), (part, quantity) in counted.items()]


def _row(build: ResolvedBuild, kind: str, part: Part, quantity: int) -> Row:
    if part.price is None:
        return Row(kind, part.id, part.name, quantity, None)
    price_from = _price_from(build, part)
    market: PriceMarket = part.price_market or ("yours" if price_from != "catalog" else "new")
    low, high = part.used_price_low, part.used_price_high
    used_range = (low, high) if market == "used" and low is not None and high is not None else None
    return Row(kind, part.id, part.name, quantity, cents(part.price) / 100, part.price_date, price_from, market,
               is_stale(part.price_date), used_range)


def _price_from(build: ResolvedBuild, part: Part) -> str | None:
    if part.price is None:
        return None
    origin = build.price_origins.get(part.id)
    if origin is None:
        return "catalog"
    return f"price file {origin.detail}" if origin.origin == "price-file" else "build file"


def owned_quantities(build: ResolvedBuild) -> dict[tuple[str, str], int]:
    """How many of each row's parts (by kind and part id, as `parts_list` keys them) the build file marks
    `owned = true` (`[[gpu]]`/`[[psu]]` tables, or an inline part): bought already, not on the shopping list.
    The base-system parts (the planner's choice) are never owned."""
    from planner.build.resolve import is_owned
    from planner.kinds import KINDS

    owned: dict[tuple[str, str], int] = {}

    def add(kind: str, part: Part) -> None:
        owned[kind, part.id] = owned.get((kind, part.id), 0) + 1

    for kind in ("case", "motherboard", "cpu"):
        if is_owned(build.raw.get(kind)):
            add(kind, getattr(build, kind))
    for kind, part in build.accessories:
        if is_owned(build.raw.get(KINDS[kind].build_key or kind)):
            add(kind, part)
    for gpu in build.gpus:
        spec = build.spec.gpu[gpu.spec_index]
        if spec.owned or is_owned(spec.part):
            add("gpu", gpu.board)
        if gpu.riser is not None and is_owned(spec.riser):
            add("riser", gpu.riser)
    for psu in build.psus:
        spec_psu = build.spec.psu[psu.index]
        if spec_psu.owned or is_owned(spec_psu.part):
            add("psu", psu.part)
    return owned
