"""Parts-list exports: Markdown, CSV (formula-injection safe), JSON and plain text; and the routing to the
power-limit scripts (SPEC §7)."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Sequence
from typing import Any

from planner.export.parts import Row, parts_list
from planner.fmt import printable
from planner.prices import dates_text, price_dates
from planner.resolve import ResolvedBuild

FORMATS = ("md", "csv", "json", "text")
_HEADER = ["Part", "Kind", "Id", "Quantity", "Unit price (USD)", "Line total (USD)", "Price date", "Price from"]


def _money(value: float | None) -> str:
    return "" if value is None else f"{value:.2f}"


def _total(rows: list[Row]) -> tuple[float, int]:
    return sum(r.line_total or 0.0 for r in rows), sum(1 for r in rows if r.unit_price is None)


def _dates(rows: list[Row]) -> dict[str, str | None]:
    return {r.part_id: r.price_date for r in rows if r.unit_price is not None}


def _notes(rows: list[Row]) -> list[str]:
    """What the total rests on: the dates of its prices, and the prices that are the user's."""
    notes = []
    dates = dates_text(_dates(rows))
    if dates:
        notes.append(f"Prices {dates}.")
    notes.extend(f"Your price for {r.part_id}: {r.price_from}." for r in rows if r.user_price)
    return notes


#: What makes a spreadsheet evaluate a cell (OWASP "CSV Injection"): `=`, `+`, `-`, `@` and their full-width
#: forms, which some spreadsheets read as the ASCII ones.
_FORMULA_START = "=+-@\uff1d\uff0b\uff0d\uff20"
#: What a spreadsheet skips before it looks for one: blanks and the quotes a cell may open with.
_SKIPPED = " \t\"'\u00a0\u3000"


def safe_cell(value: object) -> str:
    """A CSV cell that no spreadsheet evaluates: every line-breaking or control character written as its
    escape (a bare CR or a U+2028 would otherwise start a new row whose first cell is a formula), and a cell
    that starts with a formula character, after any blanks or quotes, prefixed with `'`."""
    text = printable(str(value))
    start = text.lstrip(_SKIPPED)[:1]
    if start and start in _FORMULA_START:
        return "'" + text
    return text


def to_markdown(build: ResolvedBuild) -> str:
    rows = parts_list(build)
    total, unknown = _total(rows)
    lines = [f"# {printable(build.name)}", "", "| " + " | ".join(_HEADER) + " |", "|" + "---|" * len(_HEADER)]
    for r in rows:
        cells = [r.name, r.kind, f"`{r.part_id}`", str(r.quantity), _money(r.unit_price), _money(r.line_total),
                 r.price_date or "", r.price_from or ""]
        lines.append("| " + " | ".join(printable(c).replace("|", "\\|") for c in cells) + " |")
    lines.append(f"| **Total** | | | | | **{total:.2f}** | | |")
    lines += ["", *_notes(rows)] if _notes(rows) else []
    if unknown:
        lines += ["", f"{unknown} part(s) have no price in the catalog and are not in the total."]
    return "\n".join(lines) + "\n"


class _SafeWriter:
    """A CSV writer that passes every cell through `safe_cell`, so no cell of ours or of a user can slip."""

    def __init__(self, writer: Any) -> None:
        self._writer = writer

    def writerow(self, row: Sequence[object]) -> None:
        self._writer.writerow([safe_cell(cell) for cell in row])


def to_csv(build: ResolvedBuild) -> str:
    rows = parts_list(build)
    total, _ = _total(rows)
    out = io.StringIO()
    writer = _SafeWriter(csv.writer(out, lineterminator="\n"))
    writer.writerow(_HEADER)
    for r in rows:
        writer.writerow([r.name, r.kind, r.part_id, r.quantity, _money(r.unit_price), _money(r.line_total),
                         r.price_date or "", r.price_from or ""])
    span = price_dates(_dates(rows))
    writer.writerow(["Total", "", "", "", "", f"{total:.2f}", f"{span[0]} to {span[1]}" if span else "", ""])
    return out.getvalue()


def to_json(build: ResolvedBuild) -> str:
    rows = parts_list(build)
    total, unknown = _total(rows)
    return json.dumps({  # ensure_ascii (the default) escapes every control and bidi character
        "build": build.name,
        "parts": [{"part": r.part_id, "name": r.name, "kind": r.kind, "quantity": r.quantity,
                   "unit_price_usd": r.unit_price, "line_total_usd": r.line_total, "price_date": r.price_date,
                   "price_from": r.price_from} for r in rows],
        "total_usd": total,
        "unpriced_parts": unknown,
        "price_dates": dict(zip(("oldest", "newest"), span, strict=True)) if (span := price_dates(_dates(rows)))
        else None,
        "user_priced_parts": [r.part_id for r in rows if r.user_price],
    }, indent=2) + "\n"


def to_text(build: ResolvedBuild) -> str:
    rows = parts_list(build)
    total, unknown = _total(rows)
    names = [printable(r.name) for r in rows]
    width = max(map(len, names))
    lines = [printable(build.name), ""]
    for r, name in zip(rows, names, strict=True):
        price = f"{r.unit_price:>10,.2f}" if r.unit_price is not None else f"{'?':>10}"
        line_total = f"{r.line_total:>11,.2f}" if r.line_total is not None else f"{'?':>11}"
        mark = " *" if r.user_price else ""
        lines.append(f"{r.quantity:>3} × {name:<{width}}  {r.kind:<11} {price} {line_total}  "
                     f"{r.price_date or '':<7}{mark}".rstrip())
    lines.append(f"{'Total (USD)':>{width + 29}} {total:>11,.2f}")
    lines.extend(note.replace("Your price for", "* Your price for") for note in _notes(rows))
    if unknown:
        lines.append(f"{unknown} part(s) without a price are not in the total.")
    return "\n".join(lines) + "\n"


RENDERERS = {"md": to_markdown, "csv": to_csv, "json": to_json, "text": to_text}


#: Power-limit scripts (planner/export/scripts.py), imported only when asked for: they place the GPUs.
SCRIPT_FORMATS = ("nvidia-smi", "systemd")


def export(build: ResolvedBuild, fmt: str) -> str:
    if fmt in SCRIPT_FORMATS:
        from planner.export.scripts import nvidia_smi_script, systemd_unit

        return (nvidia_smi_script if fmt == "nvidia-smi" else systemd_unit)(build)
    return RENDERERS[fmt](build)
