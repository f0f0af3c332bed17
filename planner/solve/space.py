"""The solver's choices and what they cost: candidates per kind in price order, objectives, lower bounds.

A choice's cost is a pair (parts without a price, total of the known prices). Parts without a price are used
only where no priced part works: their price is unknown, so a total that includes one is not a proved minimum.
Candidates of a kind are sorted by that pair, so along each list the cost never falls and the search can stop a
list at the first candidate whose lower bound reaches the best build found.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Literal, NamedTuple

from planner.catalog import Catalog
from planner.models.parts import Part

ObjectiveName = Literal["cheapest", "perf-per-dollar", "fastest"]
OBJECTIVES: tuple[ObjectiveName, ...] = ("cheapest", "perf-per-dollar", "fastest")


class Price(NamedTuple):
    """What added parts cost: how many have no price, and the total of the known prices (USD)."""

    unpriced: int
    usd: float

    def __add__(self, other: object) -> Price:
        assert isinstance(other, Price)
        return Price(self.unpriced + other.unpriced, self.usd + other.usd)

    def times(self, n: int) -> Price:
        return Price(self.unpriced * n, self.usd * n)


FREE = Price(0, 0.0)


def price_of(part: Part) -> Price:
    return Price(1, 0.0) if part.price is None else Price(0, float(part.price))


class Candidate(NamedTuple):
    part: Part
    cost: Price  # per unit; FREE for a part the build gives
    given: bool = False


def candidates(catalog: Catalog, kind: str, *, priced_only: bool) -> list[Candidate]:
    """Every valid catalog part of a kind, cheapest first (priced before unpriced, curated before imported)."""
    entries = catalog.entries(kind)
    found = []
    for part in catalog.all(kind):
        if priced_only and part.price is None:
            continue
        entry = entries.get(part.id)
        imported = entry is not None and entry.imported
        found.append((price_of(part), imported, part.id, part))
    found.sort(key=lambda item: (item[0], item[1], item[2]))
    return [Candidate(part, cost) for cost, _, _, part in found]


Score = tuple[float, ...]  # smaller is better, compared element by element



class Objective(NamedTuple):
    """What the search minimises, as a tuple; `bound` is admissible: no completion of a branch whose added parts
    cost at least `price` scores better than it."""

    name: ObjectiveName
    fixed_usd: float  # known prices of the parts the build gives and does not own (the perf-per-dollar denominator)
    budget: float | None

    def score(self, price: Price, perf: float, warnings: int) -> Score:
        # warnings break ties only between totals that are known (an unknown price ties with nothing)
        w = float(warnings) if price.unpriced == 0 else 0.0
        if self.name == "cheapest":  # at one price, the fewest warnings, then the most throughput (power limits)
            return (price.unpriced, price.usd, w, -perf)
        if self.name == "perf-per-dollar":
            return (price.unpriced, -perf / self._spend(price), w)
        return (-perf, price.unpriced, price.usd, w)

    def bound(self, price: Price) -> Score:
        """The best score any build whose added parts cost at least `price` can have (relative speed ≤ 1:
        power limits and throttling only slow a card down)."""
        if self.name == "cheapest":
            return (price.unpriced, price.usd, 0.0, -1.0)
        if self.name == "perf-per-dollar":
            return (price.unpriced, -1.0 / self._spend(price), 0.0)
        return (-1.0, price.unpriced, price.usd, 0.0)

    def over_budget(self, price: Price) -> bool:
        return self.budget is not None and self.fixed_usd + price.usd > self.budget + 1e-9

    def _spend(self, price: Price) -> float:
        return max(self.fixed_usd + price.usd, 0.01)


def multisets(n: int, k: int) -> int:
    """How many ways to pick k of n kinds with repetition."""
    return math.comb(n + k - 1, k) if n > 0 else 0


def space_size(counts: Sequence[int], psu_options: int, max_psus: int, riser_options: int) -> int:
    """The size of the full product: boards × cases × CPUs × riser plans × PSU multisets of 1…max_psus units."""
    size = 1
    for count in counts:
        size *= max(count, 1)
    psu_sets = sum(multisets(psu_options, k) for k in range(1, max_psus + 1)) if psu_options else 1
    return size * max(psu_sets, 1) * max(riser_options, 1)
