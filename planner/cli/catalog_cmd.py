"""`planner catalog list|show|search|validate`"""

from __future__ import annotations

import argparse
import contextlib
import json
import sys
from pathlib import Path

from planner.catalog import Catalog, builtin_dir, default_dirs
from planner.cli.common import catalog_from, console, rich_stdout, write_json
from planner.models.parts import KIND_MODELS, GpuBoard, GpuChip, Part
from planner.util.errors import CatalogError, ExitCode, InputError, UnknownPartError
from planner.util.fmt import printable


def run_catalog(args: argparse.Namespace) -> int:
    command = args.catalog_command
    if command == "validate":
        return _validate(args)
    catalog = catalog_from(args)
    catalog.market = None  # the entries as written: the new price in `price`, the used one in `used_price`
    if command == "show":
        return _show(catalog, args.id, args.format)
    from planner.cli.main import KIND_ALIASES

    kind = KIND_ALIASES.get(args.kind, args.kind) if command == "list" else None
    kinds = [kind] if kind else list(KIND_MODELS)
    text = " ".join(args.text) if command == "search" else (args.search or "")
    found = [(kind, part, catalog.origin(kind, part.id)) for kind, part in catalog.search(text, kinds)]
    if args.format == "json":
        write_json([{"kind": kind, "origin": origin, **part.model_dump(mode="json", exclude_defaults=True)}
                    for kind, part, origin in found])
    else:
        _print_list(found)
    if not found:
        print("no parts match", file=sys.stderr)
    return ExitCode.OK


def _print_list(found: list[tuple[str, Part, str]]) -> None:
    """One row per part; `from` marks curated entries (every figure sourced), bulk-imported ones (figures
    completed by rule, see catalogs/ATTRIBUTION.md) and the user's own. Plain text keeps the columns scripts
    read and adds it last."""
    from planner.describe import summary

    if rich_stdout():
        from rich.table import Table
        from rich.text import Text

        table = Table(box=None, header_style="bold")
        for column in ("kind", "id", "from", "name", "figures", "price"):
            table.add_column(column, overflow="fold")
        for kind, part, origin in found:
            table.add_row(*(Text(printable(cell)) for cell in (  # as text, never as rich markup
                kind, part.id, origin, part.name, summary(part), _price_cell(part) or "")))
        console().print(table)
        return
    for kind, part, origin in found:
        price = _price_cell(part) or "-"
        print("\t".join(printable(cell) for cell in (kind, part.id, part.name, summary(part), price, origin)))


def _price_cell(part: Part) -> str | None:
    """`$1,499` (the new price), `$1,499 / $750 used` with a used price too, `$750 used` with only that."""
    new = f"${part.price:,.0f}" if part.price else None
    used = f"${part.used_price:,.0f} used" if part.used_price else None
    return " / ".join(p for p in (new, used) if p) or None


def _show(catalog: Catalog, part_id: str, fmt: str) -> int:
    hits = catalog.find(part_id)
    if not hits:
        raise UnknownPartError("part", part_id, catalog.suggest_any(part_id, KIND_MODELS))
    for kind, entry in hits:
        part = catalog.get(kind, entry.id)
        data = part.model_dump(mode="json", exclude_defaults=False)
        if fmt == "json":
            resolved = {"kind": kind, "file": entry.file, "origin": catalog.origin_of(entry),
                        "overrides": entry.overrides, **data}
            if isinstance(part, GpuBoard):
                resolved = _with_chip(catalog, part, resolved)
            write_json(resolved)
            continue
        alias = f" (alias {part_id})" if entry.id != part_id else ""
        print(printable(f"{part.name}  [{kind} {entry.id}]{alias}"))
        print(printable(f"  from {entry.file} ({catalog.origin_of(entry)})"
                        + (f" (overrides {', '.join(entry.overrides)})" if entry.overrides else "")))
        for key, value in data.items():
            if key in ("id", "name") or value in (None, [], {}):
                continue
            print(printable(f"  {key}: {_value(value)}"))
    return ExitCode.OK


def _with_chip(catalog: Catalog, board: GpuBoard, data: dict[str, object]) -> dict[str, object]:
    """A board merged with its chip: the chip's figures (memory, bandwidth, tensor throughput…) where the
    board has no field of that name, plus where they come from."""
    chip = catalog.typed("gpu-chip", board.chip, GpuChip).model_dump(mode="json")
    merged = dict(data)
    for key, value in chip.items():
        merged.setdefault(key, value)
    merged["chip_source"] = chip["source"]
    merged["chip_estimated"] = chip["estimated"]
    return merged


def _value(value: object) -> str:
    if isinstance(value, float):
        return f"{value:g}"
    if isinstance(value, list) and value and isinstance(value[0], dict):
        return "\n" + "\n".join(f"    - {json.dumps(v, ensure_ascii=False)}" for v in value)
    return json.dumps(value, ensure_ascii=False) if not isinstance(value, str) else value


def _print_price_stats(catalog: Catalog, only: Path | None) -> None:
    """How the curated catalog is priced, per kind and per market (planner/catalog/prices.py: price_stats)."""
    from planner.catalog.prices import CURRENT_SINCE, price_stats, total_stats

    stats = price_stats(catalog, only)
    print("Prices of the curated parts (priced: in some market; new, used: with a new price, with a used price;"
          " dated, cited: every price it has with its date, and its source; estimated: a price listed in"
          " `estimated`; oldest: the oldest price date):")
    print(f"  {'kind':<12} {'parts':>5} {'priced':>12} {'new':>12} {'used':>12} {'dated':>12} {'cited':>6}"
          f" {'estimated':>9}  oldest")
    everything = total_stats(stats)
    for s in [*stats, everything]:
        print(f"  {s.kind:<12} {s.parts:>5} {_count(s.priced, s.parts)} {_count(s.new, s.parts)}"
              f" {_count(s.used, s.parts)} {_count(s.dated, s.parts)} {s.cited:>6} {s.estimated:>9}"
              f"  {s.oldest or '-'}")
    print(f"{everything.dated} of {everything.parts} curated parts ({_share(everything.dated, everything.parts)})"
          " have a dated price.")
    print(f"Parts still sold (not discontinued) whose new price is dated before {CURRENT_SINCE}:"
          f" {everything.sold_dated_before} (and {everything.sold_undated} with an undated new price,"
          f" {everything.sold_without_new} with no new price).")
    print(f"Parts with no price in any market: {everything.unpriced}.")


def _count(part: int, whole: int) -> str:
    """`38 (95%)`, right-aligned in 12 columns."""
    return f"{part:>5} ({_share(part, whole):>4})"


def _share(part: int, whole: int) -> str:
    return f"{part / whole:.0%}" if whole else "-"


def _validate(args: argparse.Namespace) -> int:
    if args.dir is not None:
        if not args.dir.is_dir():
            raise InputError("is not a directory", file=str(args.dir))
        catalog = Catalog([builtin_dir(), args.dir])
        errors = catalog.validate(only=args.dir)
        scope = str(args.dir)
    else:
        catalog = Catalog(default_dirs(args.catalog))
        errors = catalog.validate()
        scope = ", ".join(str(d) for d in catalog.dirs if d.is_dir())
    from planner.catalog.validate import survey

    surveys = [survey(d) for d in ([args.dir] if args.dir is not None else [d for d in catalog.dirs if d.is_dir()])]
    errors = [*(e for s in surveys for e in s.refused), *errors]
    unread = [line for s in surveys for line in s.unread]
    for error in errors:
        print(printable(str(error)), file=sys.stderr)  # an id or file name is one line: `[id]` forges none
    for line in unread:
        print(f"warning: {printable(line)}", file=sys.stderr)
    read = {kind: [label for s in surveys for label in s.read.get(kind, [])] for kind in KIND_MODELS}
    count = 0
    for kind in KIND_MODELS:
        with contextlib.suppress(CatalogError):  # a file that cannot be read is among the problems above
            count += sum(1 for entry in catalog.entries(kind).values() if entry.file in read[kind])
    print("Files read:" if any(read.values()) else "Files read: none (no file has a catalog file's name)")
    for kind, files in read.items():
        if files:
            print(f"  {kind}: {printable(', '.join(files))}")
    warned = f", {len(unread)} file(s) not read (see the warnings)" if unread else ""
    print(f"{count} entries checked in {printable(scope)}: {len(errors)} problem(s){warned}")
    if args.stats:
        _print_price_stats(catalog, args.dir)
    return ExitCode.FAIL if errors else ExitCode.OK
