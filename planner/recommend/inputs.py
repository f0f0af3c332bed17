"""What a user types for a recommendation — the memory need, the budget, the card count — read and range-checked
in one place for every face: `planner recommend`'s options (planner/cli/recommend_cmd.py) and the TUI's wizard
(tui/screens/wizard.py) accept and refuse the same values. Each raises ValueError with the sentence a face puts
after the option's or the field's name."""

from __future__ import annotations

import math
import re

#: The largest memory need taken, GiB: past it a number is a typo (the largest models need a few thousand).
MAX_MEMORY_GIB = 100_000
#: The most cards a recommendation is asked for: the largest frame a build describes.
MAX_GPUS = 16
SHOWN = 40  # characters of the text a message quotes back

_GIB = re.compile(r"\s*([0-9]*\.?[0-9]+(?:e[+-]?[0-9]+)?)\s*(gib|gb|g)?\s*")
_THOUSANDS = re.compile(r"\s*\$?\s*([0-9]*\.?[0-9]+)\s*k\s*")


def memory_gib(text: str) -> float:
    """A memory need: GiB ("40", "40 GiB"), or decimal GB converted ("42.9 GB" → 40 GiB); above 0 and at most
    MAX_MEMORY_GIB."""
    match = _GIB.fullmatch(text.lower())
    if not match:
        raise ValueError(f"expected GiB such as 40 or '40 GiB' (or '42.9 GB'), got {text[:SHOWN]!r}")
    value = float(match.group(1))
    if match.group(2) == "gb":
        value = value * 1e9 / 2**30
    if not 0 < value <= MAX_MEMORY_GIB:
        raise ValueError(f"expected a size between 0 and {MAX_MEMORY_GIB:,} GiB, got {text[:SHOWN]!r}")
    return value


def amount(text: str, kind: str = "price") -> float:
    """A number, or a string with a unit ("$4,000", "40 GB"; "3k" or "$2.5k" for a price: thousands of dollars,
    as people write a budget); finite and not negative."""
    from planner.util.units import to_canonical

    thousands = _THOUSANDS.fullmatch(text.lower()) if kind == "price" else None
    value = float(thousands.group(1)) * 1000 if thousands else to_canonical(text, kind)
    if not math.isfinite(value):
        raise ValueError(f"expected a finite number, got {text[:SHOWN]!r}")
    if value < 0:
        raise ValueError(f"cannot be negative, got {text[:SHOWN]!r}")
    return value


def gpu_count(value: int | str) -> int:
    """A number of cards, 1 to MAX_GPUS (a whole number, or the text of one)."""
    if isinstance(value, str):
        try:
            count = int(value.strip())
        except ValueError:  # a fraction, a word, or more digits than int() reads
            raise ValueError(f"expected a whole number, got {value[:SHOWN]!r}") from None
    else:
        count = value
    if not 1 <= count <= MAX_GPUS:
        shown = str(count)
        raise ValueError(f"must be between 1 and {MAX_GPUS}, got "
                         f"{shown if len(shown) <= SHOWN else shown[:SHOWN - 1] + '…'}")
    return count
