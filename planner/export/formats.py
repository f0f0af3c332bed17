"""Parts-list exports: Markdown, CSV (formula-injection safe), JSON and plain text; and the routing to the
power-limit scripts (SPEC §7)."""

from __future__ import annotations

import csv
import io
import json

from planner.export.parts import Row, parts_list
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


def safe_cell(value: str) -> str:
    """Neutralise a CSV cell that a spreadsheet would run as a formula (`= + - @`, tab, CR)."""
    if value and value[0] in "=+-@\t\r":
        return "'" + value
    return value


def to_markdown(build: ResolvedBuild) -> str:
    rows = parts_list(build)
    total, unknown = _total(rows)
    lines = [f"# {build.name}", "", "| " + " | ".join(_HEADER) + " |", "|" + "---|" * len(_HEADER)]
    for r in rows:
        cells = [r.name, r.kind, f"`{r.part_id}`", str(r.quantity), _money(r.unit_price), _money(r.line_total),
                 r.price_date or "", r.price_from or ""]
        lines.append("| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |")
    lines.append(f"| **Total** | | | | | **{total:.2f}** | | |")
    lines += ["", *_notes(rows)] if _notes(rows) else []
    if unknown:
        lines += ["", f"{unknown} part(s) have no price in the catalog and are not in the total."]
    return "\n".join(lines) + "\n"


def to_csv(build: ResolvedBuild) -> str:
    rows = parts_list(build)
    total, _ = _total(rows)
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(_HEADER)
    for r in rows:
        writer.writerow([safe_cell(r.name), r.kind, safe_cell(r.part_id), r.quantity, _money(r.unit_price),
                         _money(r.line_total), r.price_date or "", safe_cell(r.price_from or "")])
    span = price_dates(_dates(rows))
    writer.writerow(["Total", "", "", "", "", f"{total:.2f}", f"{span[0]} to {span[1]}" if span else "", ""])
    return out.getvalue()


def to_json(build: ResolvedBuild) -> str:
    rows = parts_list(build)
    total, unknown = _total(rows)
    return json.dumps({
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
    width = max(len(r.name) for r in rows)
    lines = [build.name, ""]
    for r in rows:
        price = f"{r.unit_price:>10,.2f}" if r.unit_price is not None else f"{'?':>10}"
        line_total = f"{r.line_total:>11,.2f}" if r.line_total is not None else f"{'?':>11}"
        mark = " *" if r.user_price else ""
        lines.append(f"{r.quantity:>3} × {r.name:<{width}}  {r.kind:<11} {price} {line_total}  "
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
