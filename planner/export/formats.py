"""Parts-list exports: Markdown, CSV (formula-injection safe), JSON and plain text; and the routing to the
power-limit scripts (README: Command-line reference)."""

from __future__ import annotations

import csv
import io
import json
import re
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, NamedTuple

from planner.build.parts_list import Row, parts_list, total_cents
from planner.build.resolve import ResolvedBuild
from planner.catalog.prices import dates_text, price_dates, stale_before, stale_line
from planner.export.share import SharedRow, power_lines, shared_rows, totals, without_path
from planner.kinds import label as kind_label
from planner.util.fmt import printable

if TYPE_CHECKING:
    from planner.placement import Placement
    from planner.report import Report

FORMATS = ("md", "bbcode", "csv", "json", "text")
#: the self-contained HTML report (planner/export/html.py), rendered by the CLI with the build's check
HTML_FORMAT = "html"
_HEADER = ["Part", "Kind", "Id", "Quantity", "Unit price (USD)", "Line total (USD)", "Price date", "Price from",
           "Price market", "Stale price"]


def _money(value: float | None) -> str:
    return "" if value is None else f"{value:.2f}"


def _total(rows: list[Row]) -> tuple[float, int]:
    return total_cents(rows) / 100, sum(1 for r in rows if r.unit_price is None)


def _dates(rows: list[Row]) -> dict[str, str | None]:
    return {r.part_id: r.price_date for r in rows if r.unit_price is not None}


def _notes(rows: list[Row]) -> list[str]:
    """What the total rests on: the dates of its prices, the stale ones, the used ones, and the prices that are
    the user's."""
    notes = []
    dates = dates_text(_dates(rows))
    if dates:
        notes.append(f"Prices {dates}.")
    stale = stale_line([r.part_id for r in rows if r.stale], _dates(rows))
    if stale:
        notes.append(stale + ".")
    if any(r.market == "used" for r in rows):
        notes.append("Used prices are the median of recent sold listings.")
    notes.extend(f"Your price for {r.part_id}: {without_path(r.price_from)}." for r in rows if r.user_price)
    return notes


def _price_tag(r: Row) -> str:
    """`new, 2023-06, stale`: a price's market, date, and whether it is stale; a used one with the range of
    the sold listings it is the median of (`used, 2026-11, sold $600–$900`)."""
    sold = f"sold {_dollars0(r.used_range[0])}–{_dollars0(r.used_range[1])}" if r.used_range else None
    return ", ".join(word for word in (r.market, r.price_date, sold, "stale" if r.stale else None) if word)


def _dollars0(value: float) -> str:
    return f"${value:,.0f}"


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


#: The base system's parts by their role (planner/build/base_system.py); a kind's label is its declaration's.
_ROLE_LABEL = {"ram": "Memory", "ssd": "Storage", "cooler": "CPU Cooler"}


def _dollars(value: float) -> str:
    return f"${value:,.2f}"


class _ForumRow(NamedTuple):
    kind: str
    item: str
    price: str
    status: str  # to buy, owned, "1 owned, 3 to buy"; empty for an [extras] count
    yours: bool  # the price is the user's (marked *)


def _forum_rows(build: ResolvedBuild, shared: list[SharedRow]) -> list[_ForumRow]:
    """A row per part in the order PCPartPicker's lists use, with the memory, storage and cooling the build's
    [extras] name (counts without a part, so without a price)."""
    out = []
    for s in shared:
        r = s.row
        item = printable(r.name) + (f" ×{r.quantity}" if r.quantity > 1 else "")
        if r.unit_price is None:
            price = "no price"
        elif r.quantity > 1:
            price = f"{_dollars(r.line_total or 0.0)} ({_dollars(r.unit_price)} each; {_price_tag(r)})"
        else:
            price = f"{_dollars(r.unit_price)} ({_price_tag(r)})"
        out.append(_ForumRow(_ROLE_LABEL.get(r.kind) or kind_label(r.kind), item, price, s.mark, r.user_price))
    extras = build.extras
    roles = {item.role for item in build.base}  # the base-system model priced these: no unpriced duplicate
    if extras.ram_modules and "ram" not in roles:
        kind = extras.ram_type.upper().replace("-", " ") if extras.ram_type else "DIMM"
        out.append(_ForumRow("Memory", f"{extras.ram_modules} × {kind}", "not priced", "", False))
    if extras.drives and "ssd" not in roles:
        out.append(_ForumRow("Storage", f"{extras.drives} × drive (SSD or HDD)", "not priced", "", False))
    if extras.fans:
        out.append(_ForumRow("Case Fan", f"{extras.fans} × case fan", "not priced", "", False))
    return out


def _total_rows(shared: list[SharedRow]) -> list[tuple[str, str]]:
    """(label, dollars): to buy and owned when the build owns a part, then the total."""
    sums = totals(shared)
    rows = [("To buy", _dollars(sums.to_buy)), ("Owned", _dollars(sums.owned))] if sums.owned else []
    return [*rows, ("Total", _dollars(sums.all))]


def _power(build: ResolvedBuild, report: Report | None) -> list[str]:
    return power_lines(build, report.summary) if report is not None else []


def _verdict_lines(report: Report | None) -> list[str]:
    """The verdict, and each error when the build fails (so nobody orders a parts list that does not work)."""
    if report is None:
        return []
    errors = [f for f in report.findings if f.severity == "error"]
    warnings = [f for f in report.findings if f.severity == "warning"]
    head = f"planner check: {report.verdict.upper()}"
    counts = [f"{len(x)} {word}{'s' if len(x) != 1 else ''}" for x, word in ((errors, "error"), (warnings, "warning"))
              if x]
    lines = [head + (f" ({', '.join(counts)})" if counts else "")]
    if report.verdict == "fail":
        lines += [f"{f.code}: {printable(f.message)}" for f in errors]
    return lines


def _footer(rows: list[Row]) -> list[str]:
    _, unknown = _total(rows)
    notes = _notes(rows)
    if unknown:
        notes.append(f"{unknown} part(s) have no price and are not in the total.")
    if any(r.user_price for r in rows):
        notes.append("* your price, not the catalog's.")
    return notes


#: The characters that open Markdown markup inside a line (CommonMark lets any ASCII punctuation be escaped with
#: a backslash): emphasis, code, links and images (`[`, so `](` and `![` never form), raw HTML and autolinks
#: (`<`), entities (`&`), headings, table cells, strikethrough.
_MD_SPECIAL = re.compile(r"([\\`*_\[\]<>#|~&])")
#: What a forum's Markdown (GFM) turns into a link with no markup at all: `http://…`, `www.…`.
_MD_AUTOLINK = re.compile(r"(?i)(?<=[a-z])(:)(?=//)|(?<=\bwww)(\.)")


def _md(text: str) -> str:
    """A user's or the planner's text as Markdown that shows it and does nothing: each markup character
    backslash-escaped (a link `[x](javascript:…)`, an image `![i](http://…)`, raw HTML `<img onerror=…>`,
    `*emphasis*` and `|` show as typed) and bare URLs broken (`http\\://`), as BBCode's list shows a tag's
    brackets as parentheses."""
    text = _MD_SPECIAL.sub(r"\\\1", printable(text))
    return _MD_AUTOLINK.sub(lambda match: "\\" + match.group(), text)


def to_markdown(build: ResolvedBuild, report: Report | None = None) -> str:
    """A parts list in the Markdown table people paste into forums (PCPartPicker's Reddit list is the model):
    the verdict and its errors first when the build fails, a row per part (price with its market and date,
    owned or to buy), prices as $1,599.00, the totals, the price dates and, with a report, the estimated power.
    Every table row has the header's four cells, with leading and trailing pipes: GitHub, Discourse and Reddit
    render it alike."""
    shared = shared_rows(build)
    rows = [s.row for s in shared]
    lines = [f"**{_md(build.name)}**", ""]
    verdict = _verdict_lines(report)
    if verdict:
        lines += [f"> **{_md(verdict[0])}**", *(f"> - {_md(line)}" for line in verdict[1:]), ""]
    lines += ["| Type | Item | Price | Status |", "| :--- | :--- | :--- | :--- |"]
    star = " \\*"  # an escaped asterisk: the mark of the user's own price, never emphasis
    lines += [f"| **{f.kind}** | {_md(f.item)} | {_md(f.price)}{star if f.yours else ''} | {f.status} |"
              for f in _forum_rows(build, shared)]
    lines += [f"| | **{label}** | **{dollars}** | |" for label, dollars in _total_rows(shared)]
    notes = _footer(rows)
    if notes:
        lines += ["", *("- " + _md(note) for note in notes)]  # _md escapes the footnote's asterisk
    power = _power(build, report)
    if power:
        lines += ["", "**Power (estimated)**", "", *(f"- {_md(line)}" for line in power)]
    return "\n".join(lines) + "\n"


def _bb(text: str) -> str:
    return printable(text).replace("[", "(").replace("]", ")")  # no tag of the user's can open


def to_bbcode(build: ResolvedBuild, report: Report | None = None) -> str:
    """The same list as BBCode (phpBB, vBulletin and most other forums)."""
    shared = shared_rows(build)
    rows = [s.row for s in shared]
    notes = _footer(rows)
    lines = [f"[b]{_bb(build.name)}[/b]", ""]
    verdict = _verdict_lines(report)
    if verdict:
        lines.append(f"[b]{_bb(verdict[0])}[/b]")
        if len(verdict) > 1:
            lines += ["[list]", *(f"[*]{_bb(line)}" for line in verdict[1:]), "[/list]"]
        lines.append("")
    lines += ["[table]", "[tr][th]Type[/th][th]Item[/th][th]Price[/th][th]Status[/th][/tr]"]
    lines += [f"[tr][td][b]{f.kind}[/b][/td][td]{_bb(f.item)}[/td][td]{_bb(f.price)}{' *' if f.yours else ''}[/td]"
              f"[td]{f.status}[/td][/tr]" for f in _forum_rows(build, shared)]
    lines += [f"[tr][td][/td][td][b]{label}[/b][/td][td][b]{dollars}[/b][/td][td][/td][/tr]"
              for label, dollars in _total_rows(shared)]
    lines.append("[/table]")
    lines += [f"[i]{_bb(note)}[/i]" for note in notes]
    power = _power(build, report)
    if power:
        lines += ["", "[b]Power (estimated)[/b]", "[list]", *(f"[*]{_bb(line)}" for line in power), "[/list]"]
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
                         r.price_date or "", r.price_from or "", r.market or "", "stale" if r.stale else ""])
    span = price_dates(_dates(rows))
    writer.writerow(["Total", "", "", "", "", f"{total:.2f}", f"{span[0]} to {span[1]}" if span else "", "", "",
                     f"{sum(r.stale for r in rows)} stale" if any(r.stale for r in rows) else ""])
    return out.getvalue()


def to_json(build: ResolvedBuild) -> str:
    rows = parts_list(build)
    total, unknown = _total(rows)
    return json.dumps({  # ensure_ascii (the default) escapes every control and bidi character
        "build": build.name,
        "parts": [{"part": r.part_id, "name": r.name, "kind": r.kind, "quantity": r.quantity,
                   "unit_price_usd": r.unit_price, "line_total_usd": r.line_total, "price_date": r.price_date,
                   "price_from": r.price_from, "market": r.market, "stale": r.stale,
                   "used_range_usd": list(r.used_range) if r.used_range else None} for r in rows],
        "total_usd": total,
        "unpriced_parts": unknown,
        "price_dates": dict(zip(("oldest", "newest"), span, strict=True)) if (span := price_dates(_dates(rows)))
        else None,
        "user_priced_parts": [r.part_id for r in rows if r.user_price],
        "stale_before": stale_before().isoformat(),
        "stale_parts": [r.part_id for r in rows if r.stale],
    }, indent=2) + "\n"


def to_text(build: ResolvedBuild, report: Report | None = None) -> str:
    """Plain text: a row per part (owned ones marked), the totals, the price notes and, with a report, the
    verdict on top and the estimated power."""
    shared = shared_rows(build)
    rows = [s.row for s in shared]
    _, unknown = _total(rows)
    names = [printable(r.name) for r in rows]
    width = max(map(len, names))
    lines = [printable(build.name), ""]
    verdict = _verdict_lines(report)
    if verdict:
        lines += [verdict[0], *(f"  - {line}" for line in verdict[1:]), ""]
    for s, name in zip(shared, names, strict=True):
        r = s.row
        price = f"{r.unit_price:>10,.2f}" if r.unit_price is not None else f"{'?':>10}"
        line_total = f"{r.line_total:>11,.2f}" if r.line_total is not None else f"{'?':>11}"
        mark = " *" if r.user_price else ""
        owned = f"  [{s.mark}]"
        lines.append(f"{r.quantity:>3} × {name:<{width}}  {r.kind:<11} {price} {line_total}  "
                     f"{r.market or '':<5} {r.price_date or '':<7}{' stale' if r.stale else ''}{mark}{owned}".rstrip())
    sums = totals(shared)
    if sums.owned:
        lines.append(f"{'To buy (USD)':>{width + 29}} {sums.to_buy:>11,.2f}")
        lines.append(f"{'Owned (USD)':>{width + 29}} {sums.owned:>11,.2f}")
    lines.append(f"{'Total (USD)':>{width + 29}} {sums.all:>11,.2f}")
    lines.extend(printable(note.replace("Your price for", "* Your price for")) for note in _notes(rows))
    if unknown:
        lines.append(f"{unknown} part(s) without a price are not in the total.")
    power = _power(build, report)
    if power:
        lines += ["", "Power (estimated)", *(f"  {printable(line)}" for line in power)]
    return "\n".join(lines) + "\n"


RENDERERS: dict[str, Callable[[ResolvedBuild], str]] = {"csv": to_csv, "json": to_json}
#: the lists people paste into forums, with the verdict on top and the estimated power when a check report is given
FORUM = {"md": to_markdown, "bbcode": to_bbcode, "text": to_text}


#: Power-limit scripts (planner/export/scripts.py), imported only when asked for: they place the GPUs.
SCRIPT_FORMATS = ("nvidia-smi", "systemd")


def export(build: ResolvedBuild, fmt: str, report: Report | None = None, placement: Placement | None = None) -> str:
    """`build` in format `fmt`; `report` (its check) puts the verdict at the top of a forum list; `placement`
    (the check's) numbers the cards of a power-limit script."""
    if fmt in SCRIPT_FORMATS:
        from planner.export.scripts import nvidia_smi_script, systemd_unit

        return (nvidia_smi_script if fmt == "nvidia-smi" else systemd_unit)(build, placement)
    if fmt in FORUM:
        return FORUM[fmt](build, report)
    return RENDERERS[fmt](build)
