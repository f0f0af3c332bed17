"""The user's own prices: quotes and used cards that override the catalog's price of a part, by id.

`prices.toml` beside the settings file (`~/.config/gpu-rig-planner/prices.toml` on Linux; with
`PLANNER_CONFIG` set, the `prices.toml` in that file's directory), then each `--prices FILE`, later
winning by id:

    [prices]
    nvidia-rtx-3090-fe = { price = 800, date = "2026-11", note = "used, eBay" }
    corsair-ax1600i = { price = "450 USD", date = "2026-10-14" }

`price` is USD (a number or "800 USD"), `date` when it was seen (YYYY-MM or YYYY-MM-DD; a price
without its date cannot be judged), `note` optional. Every id must be a part of the catalogs in use;
each problem is one InputError `prices.toml:3: prices.<id>.price: what was expected` (exit 2).
"""

from __future__ import annotations

import datetime
import re
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, NamedTuple, Protocol, TypeVar

from planner.catalog.sources import display_path
from planner.catalog.words import did_you_mean
from planner.util.errors import InputError

if TYPE_CHECKING:
    from planner.catalog.read import Entry
    from planner.models.parts import Part

    P = TypeVar("P", bound=Part)

FILE_NAME = "prices.toml"
_DATE = re.compile(r"^(19|20)\d\d-(0[1-9]|1[0-2])(-(0[1-9]|[12]\d|3[01]))?$")
_KEYS = ("price", "date", "note")


class PriceOrigin(NamedTuple):
    """Where a build's part got a price that is not the catalog's."""

    origin: Literal["price-file", "build-file"]
    detail: str  # `prices.toml:3 (used, eBay)`, or `the build file`


class UserPrice(NamedTuple):
    """One price from a price file."""

    part_id: str
    price: float  # USD
    date: str  # YYYY-MM or YYYY-MM-DD
    note: str | None
    file: str
    line: int | None

    @property
    def where(self) -> str:
        """`prices.toml:3`: the file and line it was read from."""
        return self.file + (f":{self.line}" if self.line else "")

    @property
    def description(self) -> str:
        """Where the price came from, as the part's `price_source` says it."""
        return f"your price file {self.where}" + (f" ({self.note})" if self.note else "")

    @property
    def origin(self) -> PriceOrigin:
        return PriceOrigin("price-file", self.where + (f" ({self.note})" if self.note else ""))

    def apply(self, part: Part) -> Part:
        """The part with this price in place of the catalog's."""
        return part.model_copy(update={"price": self.price, "price_date": self.date,
                                       "price_source": self.description, "price_market": "yours"})


# -- the market a price comes from ----------------------------------------------------------------------------

#: Which price a part gets (`--market`, `market` in the settings file): `new` its new (street) price; `used` its
#: used price (the median of recent sold listings) where the catalog has one, else the new one; `any` the cheaper.
Market = Literal["new", "used", "any"]
MARKETS: tuple[Market, ...] = ("new", "used", "any")
DEFAULT_MARKET: Market = "any"


def for_market(part: P, market: Market) -> P:
    """The part priced for a market: `price`, `price_date` and `price_source` hold the price chosen (None when
    the part has none in that market) and `price_market` says which ("new" or "used"). A discontinued part with
    no new price is unpriced in the new market; most parts are not sold used, so `used` falls back on the new
    price (and says "new"); `any` takes the cheaper of the two, new when they are equal. Whether the chosen price
    is an estimate follows it: "price" is in the copy's `estimated` exactly when the chosen field is."""
    new = part.price
    used = part.used_price
    if market == "new" or used is None or (market == "any" and new is not None and new <= used):
        return part.model_copy(update={"price_market": "new" if new is not None else None})
    estimated = [name for name in part.estimated if name != "price"]
    if "used_price" in part.estimated:
        estimated.append("price")
    update: dict[str, Any] = {"price": used, "price_date": part.used_price_date,
                              "price_source": part.used_price_source, "price_market": "used",
                              "estimated": estimated}
    return part.model_copy(update=update)


#: A price seen longer ago than this before today is stale: a buyer should look again before acting on it.
STALE_MONTHS = 12


def today() -> datetime.date:
    """Today's date: what stale prices are judged against (the one place tests fix it)."""
    return datetime.date.today()


def stale_before(on: datetime.date | None = None) -> datetime.date:
    """The day STALE_MONTHS months before `on` (default today; the 29th–31st of a shorter month: its last day):
    a price seen before it is stale."""
    on = on or today()
    year, month = divmod(on.year * 12 + on.month - 1 - STALE_MONTHS, 12)
    month += 1
    for day in range(on.day, 0, -1):
        try:
            return datetime.date(year, month, day)
        except ValueError:
            continue
    raise AssertionError("unreachable: every month has a first day")


def is_stale(date: str | None, on: datetime.date | None = None) -> bool:
    """Whether a price seen on `date` (YYYY-MM or YYYY-MM-DD) is stale on `on` (default today): seen before
    `stale_before`; a month-only date is stale when the whole month is. An undated price is not judged here
    (lists count it as undated)."""
    if not date:
        return False
    cutoff = stale_before(on).isoformat()
    return date < cutoff[:7] if len(date) == 7 else date < cutoff


def stale_text(on: datetime.date | None = None) -> str:
    """`seen before 2025-12-02`: what stale means today."""
    return f"seen before {stale_before(on).isoformat()}"


class PricedCatalog(Protocol):
    """What prices need of a catalog (planner/catalog/lookup.py: Catalog, which holds the prices it was given)."""

    user_prices: Mapping[str, UserPrice]

    def holds(self, kind: str, part_id: str) -> bool: ...

    def curated_ids(self, kind: str) -> list[str]: ...

    def entries(self, kind: str) -> Mapping[str, Entry]: ...


def default_path() -> Path:
    """`prices.toml` in the user's config directory (beside the settings file)."""
    from planner.util.config import config_path

    return config_path().with_name(FILE_NAME)


def read_price_file(path: Path, label: str | None = None) -> dict[str, UserPrice]:
    """The prices of one file, by id, validated in shape (not yet against a catalog)."""
    label = label or str(path)
    from planner.util import tomlfile

    if not path.exists() and not path.is_symlink():
        raise InputError("no such price file", file=label)
    text = tomlfile.read_text(path, label=label, what="a TOML price file")
    data = tomlfile.loads(text, label)

    def fail(message: str, *key: str) -> InputError:
        from planner.util.tomlpos import line_of

        return InputError(message, file=label, line=line_of(text, key) if key else None,
                          key=".".join(key) or None)

    unknown = sorted(set(data) - {"prices"})
    if unknown:
        raise fail("unknown key; a price file holds one [prices] table (e.g. [prices] nvidia-rtx-3090-fe = "
                   "{ price = 800, date = \"2026-11\" })", unknown[0])
    table = data.get("prices", {})
    if not isinstance(table, dict):
        raise fail("expected a table of prices by part id", "prices")
    from planner.util.tomlpos import line_of
    from planner.util.units import to_canonical

    found: dict[str, UserPrice] = {}
    for part_id, entry in table.items():
        if not isinstance(entry, dict):
            raise fail(f"expected {{ price = …, date = \"YYYY-MM\" }} for the part, got {entry!r}", "prices", part_id)
        for key in entry:
            if key not in _KEYS:
                raise fail(f"unknown key{did_you_mean(key, _KEYS)} (a price has price, date and note)",
                           "prices", part_id, key)
        for key in ("price", "date"):
            if key not in entry:
                what = "the price in USD" if key == "price" else "when the price was seen, \"YYYY-MM\""
                raise fail(f"required key is missing: {what}", "prices", part_id, key)
        try:
            price = to_canonical(entry["price"], "price")
        except ValueError as error:
            raise fail(str(error), "prices", part_id, "price") from None
        if not 0 <= price <= 500_000:
            raise fail(f"expected a price between 0 and 500,000 USD, got {entry['price']!r}", "prices", part_id,
                       "price")
        date = entry["date"]
        if not isinstance(date, str) or not _DATE.match(date):
            raise fail(f"expected a date \"YYYY-MM\" or \"YYYY-MM-DD\" (a quoted string), got {date!r}",
                       "prices", part_id, "date")
        note = entry.get("note")
        if note is not None and (not isinstance(note, str) or not note.strip()):
            raise fail(f"expected text, got {note!r}", "prices", part_id, "note")
        found[part_id] = UserPrice(part_id, price, date, note, label, line_of(text, ("prices", part_id)))
    return found


def load_prices(catalog: PricedCatalog, files: Iterable[Path] = (), *, user_file: bool = True) -> dict[str, UserPrice]:
    """The user's price file (when it exists) and then each of `files`, later winning by id, checked against
    the catalog; puts them on the catalog (`catalog.user_prices`) so every reader of a price sees them."""
    prices: dict[str, UserPrice] = {}
    if user_file:
        path = default_path()
        if path.exists():  # a FIFO, device or directory there is refused with a sentence, not skipped
            prices.update(read_price_file(path))
    for path in files:
        prices.update(read_price_file(path))
    for price in prices.values():
        _check_id(catalog, price)
    catalog.user_prices = prices
    return prices


#: The kinds of part one buys: a price file may price these.
PRICED_KINDS = ("gpu", "psu", "case", "motherboard", "cpu", "riser", "base-part", "pdu", "ups", "nic", "switch",
                "cable")


def _check_id(catalog: PricedCatalog, price: UserPrice) -> None:
    if any(catalog.holds(kind, price.part_id) for kind in PRICED_KINDS):
        return
    if catalog.holds("gpu-chip", price.part_id):
        problem = (f"{price.part_id!r} is a GPU chip, not a card one buys; price a board of it "
                   f"(planner catalog list gpu --search {price.part_id})")
    else:
        known = [part_id for kind in PRICED_KINDS for part_id in catalog.curated_ids(kind)]
        problem = f"no part with this id in the catalogs{did_you_mean(price.part_id, known)}"
    raise InputError(problem, file=price.file, line=price.line, key=f"prices.{price.part_id}")


def price_dates(prices: Mapping[str, str | None]) -> tuple[str, str] | None:
    """The oldest and newest of some price dates (YYYY-MM[-DD] compare as text), or None."""
    dated = sorted(d for d in prices.values() if d)
    return (dated[0], dated[-1]) if dated else None


def dates_text(prices: Mapping[str, str | None]) -> str:
    """`seen 2020-09 to 2026-11` (`seen 2020-09` when one date), plus how many have no date; empty without
    prices."""
    span = price_dates(prices)
    undated = sum(1 for d in prices.values() if not d)
    text = "" if span is None else f"seen {span[0]}" + (f" to {span[1]}" if span[1] != span[0] else "")
    if undated:
        text += ("; " if text else "") + f"{undated} undated"
    return text


def markets_text(markets: Mapping[str, str]) -> str:
    """The markets of some prices by part id: `all new`, `used` (one part), or `used: nvidia-rtx-3090-fe; new: 4
    parts` (the parts priced used or by the user by id, the new ones counted); empty without prices."""
    by_market: dict[str, list[str]] = {}
    for part_id, market in markets.items():
        by_market.setdefault(market, []).append(part_id)
    if len(by_market) <= 1:
        return "".join(("all " if len(markets) > 1 else "") + market for market in by_market)
    groups = []
    for market in ("used", "yours", "new"):
        ids = by_market.get(market, [])
        if ids and market == "new":
            groups.append(f"new: {len(ids)} part{'s' if len(ids) != 1 else ''}")
        elif ids:
            groups.append(f"{market}: {', '.join(ids)}")
    return "; ".join(groups)


def stale_line(stale: Iterable[str], dates: Mapping[str, str | None]) -> str:
    """`Stale prices (seen before 2025-12-02, more than 12 months ago): corsair-ax1600i 2023-06, …; look again
    before you buy` (`Every price is stale (…)` when each of several is), or empty when no price is stale.
    `dates`: the date of each priced part."""
    listed = [f"{part_id} {dates.get(part_id) or ''}".rstrip() for part_id in stale]
    when = f"{stale_text()}, more than {STALE_MONTHS} months ago"
    if not listed:
        return ""
    if len(listed) > 1 and len(listed) == len(dates):
        return f"Every price is stale ({when}); look again before you buy"
    return f"Stale price{'s' if len(listed) > 1 else ''} ({when}): {', '.join(listed)}; look again before you buy"


#: A part still sold new should have a new price seen this month or later (issue 23: prices a buyer can act on).
CURRENT_SINCE = "2025-01"


class PriceStats(NamedTuple):
    """How the curated parts of a kind are priced, as written in the catalog files."""

    kind: str
    parts: int
    priced: int  # a price in some market: new, or used
    new: int  # a new price (`price`)
    used: int  # a used price (`used_price`)
    dated: int  # priced, and every price it has is dated
    cited: int  # dated, and every price it has cites its source
    estimated: int  # a price (new or used) listed in `estimated`
    oldest: str | None  # the oldest price date (new or used)
    sold_dated_before: int  # still sold (not discontinued), its new price dated before CURRENT_SINCE
    sold_undated: int  # still sold, its new price undated
    sold_without_new: int  # still sold, no new price (a used one at most)
    unpriced: int  # no price in any market


def _entry_stats(kind: str, rows: Sequence[Mapping[str, object]]) -> PriceStats:
    def has(d: Mapping[str, object], key: str) -> bool:
        return d.get(key) is not None

    def markets(d: Mapping[str, object]) -> list[tuple[str, str, str]]:
        """(price, date, source) field names of each price the entry has."""
        return [fields for fields in (("price", "price_date", "price_source"),
                                      ("used_price", "used_price_date", "used_price_source")) if has(d, fields[0])]

    priced = [d for d in rows if markets(d)]
    dated = [d for d in priced if all(d.get(date) for _, date, _ in markets(d))]
    estimated = [d for d in priced if any(price in _listed(d.get("estimated")) for price, _, _ in markets(d))]
    dates = [str(date) for d in rows for _, key, _ in markets(d) if (date := d.get(key))]
    sold = [d for d in rows if not d.get("discontinued")]
    return PriceStats(
        kind, len(rows), len(priced), sum(has(d, "price") for d in rows), sum(has(d, "used_price") for d in rows),
        len(dated), sum(1 for d in dated if all(d.get(source) for _, _, source in markets(d))), len(estimated),
        min(dates) if dates else None,
        sum(1 for d in sold if has(d, "price") and d.get("price_date") and str(d["price_date"]) < CURRENT_SINCE),
        sum(1 for d in sold if has(d, "price") and not d.get("price_date")),
        sum(1 for d in sold if not has(d, "price")),
        len(rows) - len(priced))


def _listed(value: object) -> list[object]:
    return value if isinstance(value, list) else []


def price_stats(catalog: PricedCatalog, only: Path | None = None) -> list[PriceStats]:
    """Prices of the curated (not bulk-imported) entries of each kind one buys, as written in the catalog files
    (the user's price file does not count); with `only`, the entries from that directory."""
    prefix = display_path(only.resolve()).rstrip("/") + "/" if only is not None else None
    stats = []
    for kind in PRICED_KINDS:
        entries = catalog.entries(kind)
        rows = [entries[i].data for i in catalog.curated_ids(kind)
                if prefix is None or entries[i].file.startswith(prefix)]
        stats.append(_entry_stats(kind, rows))
    return stats


def total_stats(stats: Iterable[PriceStats]) -> PriceStats:
    """The stats of every kind together (kind "all")."""
    stats = list(stats)
    dates = [s.oldest for s in stats if s.oldest]
    counts = {field: sum(getattr(s, field) for s in stats) for field in PriceStats._fields
              if field not in ("kind", "oldest")}
    return PriceStats(kind="all", oldest=min(dates) if dates else None, **counts)
