"""The machine around an option's cards when no build is given: what `planner solve` buys for that many cards of a
reference board (board, case, CPU, PSUs, risers and the base system — RAM, SSD, CPU cooler — of the one
base-system model, planner/build/base_system.py), at the catalog's prices for the market in use. The ranking's
performance per dollar and cloud vs buy both add this same number to the cards; `--complete` replaces it with
each option's own machine.

Solved once per card count and region in a process (memoised on the catalog); where the reference cards cannot
be completed (no passing machine for that many), Dettmers' normalisation is used instead and the ranking says
so (params.BASE_DESKTOP_PRICE shared over params.BASE_DESKTOP_GPUS cards).
"""

from __future__ import annotations

import weakref
from typing import TYPE_CHECKING, NamedTuple

from planner.recommend import params

if TYPE_CHECKING:
    from planner.catalog import Catalog

#: The reference cards: a 2-slot, 350 W blower card with two 8-pin inputs, the kind multi-GPU workstations are
#: built around (Puget's and Lambda's documented 4-GPU machines, examples/builds/real-*.toml).
REFERENCE_ID = "gigabyte-rtx-3090-turbo"


class Desktop(NamedTuple):
    """The machine around `count` cards: its price (the cards excluded) and where the figure comes from."""

    usd: float
    solved: bool  # True: planner solve's machine; False: Dettmers' normalisation (no machine passes)
    parts: tuple[str, ...] = ()


_MEMO: weakref.WeakKeyDictionary[Catalog, dict[tuple[int, str | None], Desktop]] = weakref.WeakKeyDictionary()


def desktop(catalog: Catalog, count: int, region: str | None = None) -> Desktop:
    """The machine around `count` cards (module docstring)."""
    memo = _MEMO.setdefault(catalog, {})
    key = (count, region)
    if key not in memo:
        memo[key] = _solve(catalog, count, region)
    return memo[key]


def _solve(catalog: Catalog, count: int, region: str | None) -> Desktop:
    from planner.solve import parse_partial, solve
    from planner.util.errors import PlannerError

    fallback = Desktop(params.BASE_DESKTOP_PRICE.value / params.BASE_DESKTOP_GPUS.value * count, solved=False)
    if not catalog.holds("gpu", REFERENCE_ID):
        return fallback
    text = f'name = "reference"\n[[gpu]]\npart = "{REFERENCE_ID}"\ncount = {count}\n'
    try:
        partial = parse_partial(text, "reference.toml", catalog, region)  # type: ignore[arg-type]
        result = solve(partial, catalog, explain_choices=False)
    except PlannerError:
        return fallback
    if result.status != "solved" or result.added_usd is None:
        return fallback
    return Desktop(result.added_usd, solved=True,
                   parts=tuple(a.part for a in result.added if a.kind != "circuit"))
