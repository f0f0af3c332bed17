"""`planner catalog list|show|search|validate`"""

from __future__ import annotations

import argparse
import contextlib
import json
import sys

from planner.catalog import Catalog, builtin_dir, default_dirs, suggest
from planner.cli.common import catalog_from, console, rich_stdout, write_json
from planner.errors import CatalogError, ExitCode, InputError, UnknownPartError
from planner.models.parts import KIND_MODELS, GpuBoard, GpuChip, Part


def run_catalog(args: argparse.Namespace) -> int:
    command = args.catalog_command
    if command == "validate":
        return _validate(args)
    catalog = catalog_from(args)
    if command == "show":
        return _show(catalog, args.id, args.format)
    from planner.cli.main import KIND_ALIASES

    kind = KIND_ALIASES.get(args.kind, args.kind) if command == "list" else None
    kinds = [kind] if kind else list(KIND_MODELS)
    text = " ".join(args.text) if command == "search" else (args.search or "")
    found = list(catalog.search(text, kinds))
    if args.format == "json":
        write_json([{"kind": kind, **part.model_dump(mode="json", exclude_defaults=True)} for kind, part in found])
    else:
        _print_list(found)
    if not found:
        print("no parts match", file=sys.stderr)
    return ExitCode.OK


def _print_list(found: list[tuple[str, Part]]) -> None:
    from planner.describe import summary

    if rich_stdout():
        from rich.table import Table

        table = Table(box=None, header_style="bold")
        for column in ("kind", "id", "name", "figures", "price"):
            table.add_column(column, overflow="fold")
        for kind, part in found:
            table.add_row(kind, part.id, part.name, summary(part), f"${part.price:,.0f}" if part.price else "")
        console().print(table)
        return
    for kind, part in found:
        price = f"${part.price:,.0f}" if part.price else "-"
        print(f"{kind}\t{part.id}\t{part.name}\t{summary(part)}\t{price}")


def _show(catalog: Catalog, part_id: str, fmt: str) -> int:
    hits = catalog.find(part_id)
    if not hits:
        every = [i for kind in KIND_MODELS for i in catalog.ids(kind)]
        raise UnknownPartError("part", part_id, suggest(part_id, every))
    for kind, entry in hits:
        part = catalog.get(kind, part_id)
        data = part.model_dump(mode="json", exclude_defaults=False)
        if fmt == "json":
            resolved = {"kind": kind, "file": entry.file, "overrides": entry.overrides, **data}
            if isinstance(part, GpuBoard):
                resolved = _with_chip(catalog, part, resolved)
            write_json(resolved)
            continue
        print(f"{part.name}  [{kind} {part_id}]")
        print(f"  from {entry.file}" + (f" (overrides {', '.join(entry.overrides)})" if entry.overrides else ""))
        for key, value in data.items():
            if key in ("id", "name") or value in (None, [], {}):
                continue
            print(f"  {key}: {_value(value)}")
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
    for error in errors:
        print(error, file=sys.stderr)
    count = 0
    for kind in KIND_MODELS:
        with contextlib.suppress(CatalogError):  # a file that cannot be read is among the problems above
            count += len(catalog.entries(kind))
    print(f"{count} entries checked in {scope}: {len(errors)} problem(s)")
    return ExitCode.FAIL if errors else ExitCode.OK
