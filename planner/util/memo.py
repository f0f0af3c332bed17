"""Memoising what is computed from a catalog part alone (its transient capability, its PSU mounts…).

Parts are frozen records (planner/util/record/) but not hashable (they hold lists), and a catalog hands out the same
object for an id for as long as it lives, so results are keyed on the part objects themselves: by identity, holding a
reference to each, so an id is never reused while its entry is cached. Inline parts (a new object each time a build
resolves) only fill the cache, which is emptied when it is full."""

from collections.abc import Callable
from functools import wraps
from typing import Any, TypeVar

R = TypeVar("R")

MAX_ENTRIES = 4096  # far more than the parts of a catalog a session touches; emptied when full


#: Arguments keyed by value; any other (a part) by identity. A tuple must hold only values (card indices, plug
#: needs): it is hashed as it is.
_VALUES = (int, float, str, type(None), tuple)


def per_part(fn: Callable[..., R]) -> Callable[..., R]:
    """Memoise `fn(*args)` (positional arguments only) on its parts' identity and its other arguments' values
    (a rating, a window index, a tuple of card indices)."""
    cache: dict[Any, tuple[tuple[Any, ...], R]] = {}

    @wraps(fn)
    def memoised(*args: Any) -> R:
        if len(args) == 1:  # the common call (one part): keyed on its identity alone, an int no tuple equals
            key: Any = id(args[0])
        elif len(args) == 2:  # a part and a rating, a card and its chip: no generator to build
            a, b = args
            key = (a if type(a) in _VALUES else id(a), b if type(b) in _VALUES else id(b))
        else:
            key = tuple(a if type(a) in _VALUES else id(a) for a in args)
        hit = cache.get(key)
        if hit is not None:
            return hit[1]
        value = fn(*args)
        if len(cache) >= MAX_ENTRIES:
            cache.clear()
        cache[key] = (args, value)  # the arguments held: their ids stay theirs while the entry lives
        return value

    memoised.cache_clear = cache.clear  # type: ignore[attr-defined]
    memoised.cache_size = cache.__len__  # type: ignore[attr-defined]
    return memoised
