"""Reading the snapshot: the attributed BuildCores OpenDB commit, its folders and one JSON record per part."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

SNAPSHOT_COMMIT = "136a77aec16a30ba81a7cc6b448a8bace9a25359"
SOURCE_LABEL = "BuildCores OpenDB (ODC-By)"

#: kind -> source folder
SOURCE_DIRS = {"gpu": "GPU", "psu": "PSU", "case": "PCCase", "motherboard": "Motherboard", "cpu": "CPU"}


def source_of(uuid: str) -> str:
    return f"{SOURCE_LABEL}, {uuid}"


def check_snapshot(source: Path) -> None:
    """Refuse a source folder that is not the attributed snapshot (a later upstream licence differs)."""
    notice = source / "SOURCE.md"
    text = notice.read_text(encoding="utf-8") if notice.is_file() else ""
    if SNAPSHOT_COMMIT not in text or not (source / "LICENSE.txt").is_file():
        sys.exit(f"error: {source} is not the BuildCores OpenDB snapshot {SNAPSHOT_COMMIT} (SOURCE.md and "
                 "LICENSE.txt); re-check the licence and update catalogs/ATTRIBUTION.md before importing another.")


def load_records(source: Path, kind: str) -> list[dict[str, Any]]:
    folder = source / "open-db" / SOURCE_DIRS[kind]
    if not folder.is_dir():
        sys.exit(f"error: {folder} not found")
    records = []
    for path in sorted(folder.glob("*.json")):
        try:
            record = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            record = None
        if isinstance(record, dict):
            record.setdefault("opendb_id", path.stem)
            records.append(record)
        else:
            records.append({"opendb_id": path.stem, "_unreadable": True})
    return records
