"""Numbers as users read them in messages: `1,400 W`, `313 mm`, `87 %`."""

from __future__ import annotations

from collections.abc import Iterable


def num(value: float, digits: int = 0) -> str:
    text = f"{value:,.{digits}f}"
    return text.removesuffix(".0") if digits == 1 else text


def watts(value: float) -> str:
    return f"{num(value)} W"


def mm(value: float) -> str:
    return f"{num(value)} mm"


def percent(fraction: float) -> str:
    return f"{fraction * 100:.0f} %"


def usd(value: float) -> str:
    return f"${num(value)}"


def price_text(part: object) -> str:
    """`, $1,499` after a part's id in a fix, or nothing when the catalog has no price."""
    price = getattr(part, "price", None)
    return f", {usd(price)}" if price is not None else ""


def gpu_labels(indices: Iterable[int]) -> str:
    """'GPU1–4', 'GPU1, GPU3', 'GPU1, GPU2': 1-based card numbers as messages show them."""
    numbers = sorted(i + 1 for i in indices)
    if len(numbers) > 2 and numbers == list(range(numbers[0], numbers[-1] + 1)):
        return f"GPU{numbers[0]}–{numbers[-1]}"
    return ", ".join(f"GPU{n}" for n in numbers)


def names(items: Iterable[str]) -> str:
    """'GPU1', 'GPU1 and GPU2', 'GPU1, GPU2 and GPU3'."""
    items = list(items)
    return items[0] if len(items) == 1 else f"{', '.join(items[:-1])} and {items[-1]}"
