"""A text plot of a GPU's estimated throughput against its power limit (the slowdown curve)."""

from __future__ import annotations

from collections.abc import Callable

from rich.text import Text

#: Braille dots, 2 × 4 per character cell, give the curve 2× the horizontal and 4× the vertical resolution.
_DOTS = ((0x01, 0x08), (0x02, 0x10), (0x04, 0x20), (0x40, 0x80))


def plot_curve(perf: Callable[[float], float], low: float, high: float, current: float, stock: float,
               width: int = 48, height: int = 10) -> Text:
    """Throughput (relative to stock) from `low` to `high` watts, with the current limit marked."""
    cols, rows = width * 2, height * 4
    values = [perf(low + (high - low) * i / (cols - 1)) for i in range(cols)]
    top = max(1.0, max(values))
    bottom = min(0.0, min(values))
    cells = [[0] * width for _ in range(height)]
    for x, value in enumerate(values):
        y = round((top - value) / (top - bottom) * (rows - 1))
        cells[y // 4][x // 2] |= _DOTS[y % 4][x % 2]
    marker = round((current - low) / (high - low) * (width - 1)) if high > low else 0
    stock_col = round((stock - low) / (high - low) * (width - 1)) if high > low else 0
    text = Text()
    for r, row in enumerate(cells):
        label = f"{top - (top - bottom) * r / (height - 1):4.0%} " if r in (0, height // 2, height - 1) else "      "
        text.append(label, style="dim")
        for c, bits in enumerate(row):
            char = chr(0x2800 + bits) if bits else " "
            if c == marker:
                text.append(char if bits else "│", style="bold yellow")
            elif c == stock_col and not bits:
                text.append("┊", style="dim")
            else:
                text.append(char, style="green")
        text.append("\n")
    axis = f"{low:.0f} W".ljust(width // 2) + f"{high:.0f} W".rjust(width - width // 2)
    text.append("      " + axis, style="dim")
    return text
