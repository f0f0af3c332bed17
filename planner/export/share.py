"""What a shared build says besides its parts (issue 28): which parts are owned and which to buy, the totals of
each, where each price comes from without the user's local paths, and the estimated power (DC load, each PSU's
load, each circuit's wall draw, the cards' power limits).

Plain text only: the forum exports (formats.py) and the HTML report (html.py) escape it for their own channel."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, NamedTuple

from planner.build.parts_list import Row, owned_quantities, parts_list
from planner.build.resolve import ResolvedBuild
from planner.util.fmt import gpu_labels, percent, watts

if TYPE_CHECKING:
    from planner.report import Summary


class SharedRow(NamedTuple):
    """A parts-list row with how many of it the builder owns already."""

    row: Row
    owned: int

    @property
    def to_buy(self) -> int:
        return self.row.quantity - self.owned

    @property
    def mark(self) -> str:
        """`to buy`, `owned`, or `1 owned, 3 to buy`."""
        if not self.owned:
            return "to buy"
        if not self.to_buy:
            return "owned"
        return f"{self.owned} owned, {self.to_buy} to buy"

    @property
    def price_from(self) -> str | None:
        """Where the price comes from, a price file named by its file name only."""
        return without_path(self.row.price_from)


class Totals(NamedTuple):
    to_buy: float  # known prices of the parts not owned
    owned: float  # known prices of the owned parts
    all: float
    unpriced: int  # rows without a price


def shared_rows(build: ResolvedBuild) -> list[SharedRow]:
    owned = owned_quantities(build)
    return [SharedRow(r, min(r.quantity, owned.get((r.kind, r.part_id), 0))) for r in parts_list(build)]


def totals(rows: list[SharedRow]) -> Totals:
    to_buy = sum((s.row.unit_price or 0.0) * s.to_buy for s in rows)
    owned = sum((s.row.unit_price or 0.0) * s.owned for s in rows)
    return Totals(to_buy, owned, to_buy + owned, sum(1 for s in rows if s.row.unit_price is None))


_PRICE_FILE = re.compile(r"^price file (?P<file>.*?)(?P<rest>:\d+(?: \(.*\))?| \(.*\))?$", re.DOTALL)


def without_path(price_from: str | None) -> str | None:
    """`price file used-prices.toml:2 (eBay)` for `price file /home/me/used-prices.toml:2 (eBay)`: a shared
    list names the user's price file, never where it lives on their disk."""
    if price_from is None:
        return None
    match = _PRICE_FILE.match(price_from)
    if match is None:
        return price_from
    name = re.split(r"[/\\]", match["file"])[-1]
    return f"price file {name}{match['rest'] or ''}"


def without_paths(text: str) -> str:
    """A note with every price file in it named by its file name only."""
    return re.sub(r"price file [^\s:]*[/\\]([^/\\\s:]+)", r"price file \1", text)


class PowerLimit(NamedTuple):
    cards: str  # "GPU1–4"
    name: str  # the board's name
    limit_w: float
    stock_w: float


def power_limits(build: ResolvedBuild) -> list[PowerLimit]:
    """The cards' power limits, cards of one board and limit together."""
    groups: dict[tuple[str, float], list[int]] = {}
    boards = {}
    for g in build.gpus:
        groups.setdefault((g.board.id, g.power_limit), []).append(g.index)
        boards[g.board.id] = g.board
    return [PowerLimit(gpu_labels(indices), boards[board].name, limit, boards[board].tdp)
            for (board, limit), indices in groups.items()]


def power_lines(build: ResolvedBuild, summary: Summary) -> list[str]:
    """The estimated power in a few plain lines: DC load, each PSU's load, each circuit's wall draw, the power
    limits."""
    budget = summary.dc_budget
    rest = budget.board_w + budget.ram_w + budget.drives_w + budget.fans_w + budget.other_w
    peak = f"; {watts(summary.dc_peak_w)} with every card's 1–5 ms spike at once" if summary.dc_peak_w else ""
    lines = [f"Estimated DC load: {watts(summary.dc_load_w)} sustained (GPUs {watts(budget.gpus_w)}, CPU "
             f"{watts(budget.cpu_w)}, board, RAM, drives and fans {watts(rest)}){peak}"]
    for i, (psu, use) in enumerate(zip(summary.psus, build.psus, strict=True)):
        load = (f"{watts(psu.load_w)} of its {watts(psu.rating_w)} rating ({percent(psu.load_fraction)})"
                if psu.load_w is not None and psu.load_fraction is not None else f"rated {watts(psu.rating_w)}")
        feeds = [gpu_labels(int(g.removeprefix("GPU")) - 1 for g in psu.gpus)] if psu.gpus else []
        if i == 0:
            feeds.append("the CPU, board and the rest")
        lines.append(f"PSU{i + 1} {use.part.name} (circuit {psu.circuit}): {load}"
                     + (f"; feeds {' and '.join(feeds)}" if feeds else ""))
    for c in summary.circuits:
        wall = (f"{watts(c.wall_w)} at the wall, {percent(c.wall_w / c.continuous_limit_w)} of its "
                f"{watts(c.continuous_limit_w)} continuous limit" if c.wall_w is not None else "no draw known")
        assumed = ", assumed" if c.assumed else ""
        lines.append(f"Circuit {c.name} ({c.outlet}, {c.voltage_v:g} V{assumed}): {wall}")
    for p in power_limits(build):
        stock = "stock" if p.limit_w == p.stock_w else f"stock {watts(p.stock_w)}"
        lines.append(f"Power limit {p.cards} {p.name}: {watts(p.limit_w)} ({stock})")
    return lines


__all__ = ["PowerLimit", "SharedRow", "Totals", "power_limits", "power_lines", "shared_rows", "totals",
           "without_path", "without_paths"]
