"""The command line and the run: read the snapshot, map each kind, leave out curated parts, write."""

from __future__ import annotations

import argparse
import sys
import time
import tomllib
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic_core import ValidationError

from planner.models.parts import KIND_FILES, KIND_MODELS

from .cases import map_case
from .chips import load_chips
from .context import Context
from .cpus import map_cpu
from .curated import CuratedIndex
from .gpus import chipset_links, map_gpu
from .ids import Candidate, Makers, Skip, assign_ids, dedupe
from .motherboards import map_motherboard
from .psus import map_psu
from .snapshot import SNAPSHOT_COMMIT, check_snapshot, load_records
from .writing import render, write

DESCRIPTION = "Import real parts from the BuildCores OpenDB snapshot into `catalogs/imported/*.toml`."
REPO = Path(__file__).resolve().parents[2]
DEFAULT_SOURCE = REPO.parent / "shared" / "data" / "buildcores-open-db"
DEFAULT_OUT = REPO / "catalogs" / "imported"
DEFAULT_CHIPS = REPO / "catalogs" / "gpu-chips.toml"
DEFAULT_CURATED = REPO / "catalogs"


@dataclass
class KindResult:
    kind: str
    entries: dict[str, dict[str, Any]] = field(default_factory=dict)
    skipped: Counter[str] = field(default_factory=Counter)
    read: int = 0
    matched: dict[str, set[str]] = field(default_factory=dict)  # curated id -> the record uuids it stands for


MAPPERS: dict[str, Callable[[dict[str, Any], Context], Candidate]] = {
    "gpu": map_gpu, "psu": map_psu, "case": map_case, "motherboard": map_motherboard, "cpu": map_cpu,
}


def model_failure(error: ValidationError) -> str:
    """A countable skip reason for an entry the part model rejects."""
    first = error.errors()[0]
    if "deliver at most" in str(first.get("msg", "")):
        return "connectors cannot deliver the stated board power"
    field_name = ".".join(str(part) for part in first.get("loc", ()) if isinstance(part, str))
    return f"fails the part model ({field_name or first.get('type', 'entry')})"


def import_kind(kind: str, records: list[dict[str, Any]], ctx: Context) -> KindResult:
    result = KindResult(kind, read=len(records))
    model = KIND_MODELS[kind]
    candidates = []
    for record in records:
        try:
            if record.get("_unreadable"):
                raise Skip("unreadable record")
            cand = MAPPERS[kind](record, ctx)
            model.model_validate({**cand.data, "id": "x"})
        except Skip as skip:
            result.skipped[skip.reason] += 1
            continue
        except ValidationError as error:
            result.skipped[model_failure(error)] += 1
            continue
        curated = ctx.curated.match(kind, cand) if ctx.curated is not None else None
        if curated is not None:
            result.matched.setdefault(curated, set()).add(cand.uuid)
        candidates.append(cand)
    matched = {uuid for uuids in result.matched.values() for uuid in uuids}
    # ids are assigned with the matched listings still in, so leaving them out renames no other entry
    for part_id, cand in assign_ids(dedupe(candidates, result.skipped, matched)).items():
        if cand.uuid not in matched:
            model.model_validate({**cand.data, "id": part_id})  # ids are valid by construction
            result.entries[part_id] = cand.data
    return result


def report(result: KindResult, path: Path, size: int, parse_seconds: float) -> None:
    skipped = sum(result.skipped.values())
    matched = sum(len(uuids) for uuids in result.matched.values())
    print(f"{result.kind:12} {len(result.entries):5} imported  {skipped:5} skipped  {matched:4} of curated parts"
          f"  of {result.read:5} records  -> {path.name} ({size / 1024:.0f} KiB, "
          f"parses in {parse_seconds * 1000:.0f} ms)")
    if matched:
        print(f"{'':14}{matched:5}  listings matched to {len(result.matched)} curated parts (maker and model or part "
              "number): left out, the curated entry is the one kept")
    for reason, count in result.skipped.most_common(6):
        print(f"{'':14}{count:5}  {reason}")


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=DESCRIPTION)
    parser.add_argument("--source", type=Path, default=DEFAULT_SOURCE, help="BuildCores OpenDB snapshot folder")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="output folder (catalogs/imported)")
    parser.add_argument("--chips", type=Path, default=DEFAULT_CHIPS, help="gpu-chips.toml to map boards to")
    parser.add_argument("--curated", type=Path, default=DEFAULT_CURATED,
                        help="folder of the curated catalogs whose parts are not imported again (catalogs)")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    source, out = args.source.resolve(), args.out.resolve()
    if out.exists() and not out.is_dir():
        sys.exit(f"error: --out {out}: not a folder (the importer writes one catalog file per kind into it)")
    check_snapshot(source)
    records = {kind: load_records(source, kind) for kind in MAPPERS}
    chips = load_chips(args.chips)
    curated = CuratedIndex(args.curated.resolve(), chips)
    ctx = Context(chips, {kind: Makers(recs) for kind, recs in records.items()}, chipset_links(records["gpu"]),
                  curated)
    print(f"source {source} (commit {SNAPSHOT_COMMIT[:12]}); {chips.read} chips in {args.chips.name}, "
          f"{len(chips.chips)} usable (valid PCIe cards)"
          + (f"; invalid, not mapped: {', '.join(sorted(chips.invalid))}" if chips.invalid else "")
          + f"; {curated.read} curated parts in {args.curated.name}/")
    for kind in MAPPERS:
        result = import_kind(kind, records[kind], ctx)
        text = render(kind, result.entries)
        started = time.perf_counter()
        parsed = tomllib.loads(text)
        parse_seconds = time.perf_counter() - started
        if parsed != result.entries:
            sys.exit(f"error: {KIND_FILES[kind]} does not read back as written")
        path = out / KIND_FILES[kind]
        write(path, text)
        report(result, path, len(text.encode()), parse_seconds)
    return 0

