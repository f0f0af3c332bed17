"""Performance per dollar against memory for the fitting options: a text chart for the terminal and an
SVG file, both drawn here (no plotting library)."""

from __future__ import annotations

import math
from collections.abc import Sequence

from planner.recommend.rank import Candidate
from planner.util.fmt import printable

MARKS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"


def label(candidate: Candidate) -> str:
    """"2× GeForce RTX 4090" — the option in a few words."""
    name = candidate.name.removeprefix("NVIDIA ").removeprefix("AMD ").removeprefix("GeForce ")
    name = name.removesuffix(" Workstation Edition")
    return f"{candidate.count}× {name}"


def _points(candidates: Sequence[Candidate], limit: int) -> list[Candidate]:
    return [c for c in candidates if c.fits and c.perf_per_dollar is not None][:limit]


def text_chart(candidates: Sequence[Candidate], width: int = 56, height: int = 12, limit: int = 12) -> str:
    """A scatter of the best `limit` options (by the order given): letters on a character grid, and a
    legend. Empty when no option has a price."""
    points = _points(candidates, limit)
    if not points:
        return ""
    xs = [p.memory_gb for p in points]
    ys = [p.perf_per_dollar or 0.0 for p in points]
    x_low, x_high = _span(min(xs), max(xs))
    y_low, y_high = _span(min(ys), max(ys))
    grid = [[" "] * width for _ in range(height)]
    moved = False
    for mark, point in zip(MARKS, points, strict=False):
        column = round((point.memory_gb - x_low) / (x_high - x_low) * (width - 1))
        line = height - 1 - round(((point.perf_per_dollar or 0.0) - y_low) / (y_high - y_low) * (height - 1))
        # every option in the legend is drawn: the better-ranked one keeps a shared cell, the other takes the
        # nearest free cell of the same row (same performance per dollar, memory a little off)
        for offset in sorted(range(-width, width), key=lambda o: (abs(o), -o)):
            if 0 <= column + offset < width and grid[line][column + offset] == " ":
                grid[line][column + offset] = mark
                moved = moved or offset != 0
                break
    top, bottom = f"{y_high:.3g}", f"{y_low:.3g}"
    pad = max(len(top), len(bottom))
    lines = ["performance per $1,000 (H100 SXM = 1.00) vs GPU memory"]
    for i, row in enumerate(grid):
        tick = top if i == 0 else bottom if i == height - 1 else ""
        lines.append(f"{tick:>{pad}} |{''.join(row)}")
    lines.append(f"{'':>{pad}} +{'-' * width}")
    left, right = f"{x_low:g} GiB", f"{x_high:g} GiB"
    lines.append(f"{'':>{pad}}  {left}{right:>{width - len(left)}}")
    if moved:
        lines.append(f"{'':>{pad}}  (options that share a cell are drawn side by side)")
    for mark, point in zip(MARKS, points, strict=False):
        lines.append(f"  {mark} {printable(label(point))}: {point.memory_gb:g} GiB, "
                     f"{point.perf_per_dollar:.3f} per $1,000")
    return "\n".join(lines) + "\n"


def svg_chart(candidates: Sequence[Candidate], title: str, limit: int = 20) -> str:
    """The same scatter as an SVG document (up to `limit` options, the first one highlighted)."""
    points = _points(candidates, limit)
    width, height, left, right, top, bottom = 720, 440, 70, 200, 50, 55
    plot_w, plot_h = width - left - right, height - top - bottom
    xs = [p.memory_gb for p in points] or [0.0, 1.0]
    ys = [p.perf_per_dollar or 0.0 for p in points] or [0.0, 1.0]
    x_low, x_high = _span(min(xs), max(xs))
    y_low, y_high = _span(min(ys), max(ys))

    def x_of(value: float) -> float:
        return left + (value - x_low) / (x_high - x_low) * plot_w

    def y_of(value: float) -> float:
        return top + plot_h - (value - y_low) / (y_high - y_low) * plot_h

    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
           f'viewBox="0 0 {width} {height}" font-family="sans-serif" font-size="12">',
           f'<rect width="{width}" height="{height}" fill="white"/>',
           f'<text x="{width / 2:.0f}" y="24" text-anchor="middle" font-size="15">{escape(title)}</text>',
           f'<line x1="{left}" y1="{top + plot_h}" x2="{left + plot_w}" y2="{top + plot_h}" stroke="black"/>',
           f'<line x1="{left}" y1="{top}" x2="{left}" y2="{top + plot_h}" stroke="black"/>']
    for value in _ticks(x_low, x_high):
        x = x_of(value)
        out.append(f'<line x1="{x:.1f}" y1="{top + plot_h}" x2="{x:.1f}" y2="{top + plot_h + 5}" stroke="black"/>')
        out.append(f'<text x="{x:.1f}" y="{top + plot_h + 18}" text-anchor="middle">{value:g}</text>')
    for value in _ticks(y_low, y_high):
        y = y_of(value)
        out.append(f'<line x1="{left - 5}" y1="{y:.1f}" x2="{left + plot_w}" y2="{y:.1f}" stroke="#ddd"/>')
        out.append(f'<text x="{left - 8}" y="{y + 4:.1f}" text-anchor="end">{value:g}</text>')
    out.append(f'<text x="{left + plot_w / 2:.0f}" y="{height - 12}" text-anchor="middle">GPU memory, GiB'
               ' (all cards)</text>')
    out.append(f'<text transform="translate(16 {top + plot_h / 2:.0f}) rotate(-90)" text-anchor="middle">'
               'performance per $1,000 (H100 SXM = 1.00)</text>')
    placed: list[tuple[float, float]] = []  # the point labels drawn so far (their x, y)
    for i, point in enumerate(points):
        x, y = x_of(point.memory_gb), y_of(point.perf_per_dollar or 0.0)
        colour = "#d62728" if i == 0 else "#1f77b4"
        text = escape(label(point))
        out.append(f'<circle cx="{x:.1f}" cy="{y:.1f}" r="5" fill="{colour}"><title>{text}: '
                   f'{point.memory_gb:g} GiB, {point.perf_per_dollar:.3f} per $1,000</title></circle>')
        label_x, label_y = label_spot(x + 8, y + 4, placed)
        out.append(f'<text x="{label_x:.1f}" y="{label_y:.1f}" font-size="11">{MARKS[i % len(MARKS)]}</text>')
        out.append(f'<text x="{left + plot_w + 16}" y="{top + 14 * i + 4}" font-size="11">'
                   f'{MARKS[i % len(MARKS)]}  {text}</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"


LABEL_W, LABEL_H = 10.0, 12.0  # the box a one-letter label at font size 11 needs, px


def label_spot(x: float, y: float, placed: list[tuple[float, float]]) -> tuple[float, float]:
    """Where a point's letter goes: beside the point, or the nearest spot below, above or further right
    where it overlaps no letter already drawn (recorded in `placed`)."""
    for dx, dy in [(0, 0), (0, LABEL_H), (0, -LABEL_H), (LABEL_W, 0), (LABEL_W, LABEL_H), (LABEL_W, -LABEL_H),
                   *((LABEL_W * k, 0) for k in range(2, 20))]:
        spot = (x + dx, y + dy)
        if all(abs(spot[0] - px) >= LABEL_W or abs(spot[1] - py) >= LABEL_H for px, py in placed):
            placed.append(spot)
            return spot
    placed.append((x, y))
    return x, y


def escape(text: str) -> str:
    """Text safe inside SVG elements and attributes (xml.sax.saxutils would pull in urllib: ~20 ms). XML 1.0
    forbids most C0 controls even as character references, so every control, C1, bidi and separator
    character is first shown as its escape (`\\x1b`, `fmt.printable`): the file stays well-formed XML and
    nothing in it acts on a viewer."""
    text = printable(text)
    return (text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;")
            .replace("'", "&apos;"))


def _span(low: float, high: float) -> tuple[float, float]:
    """An axis range around the data with a little room, never empty."""
    if high - low < 1e-9:
        low, high = low * 0.9, high * 1.1 + 1e-9
    pad = (high - low) * 0.05
    return max(0.0, low - pad), high + pad


def _ticks(low: float, high: float, count: int = 5) -> list[float]:
    """Round tick values inside [low, high]."""
    raw = (high - low) / count
    step = 10 ** math.floor(math.log10(raw))
    for factor in (1, 2, 5, 10):
        if raw <= factor * step:
            step *= factor
            break
    first = math.ceil(low / step) * step
    return [round(first + i * step, 10) for i in range(int((high - first) / step) + 1)]
