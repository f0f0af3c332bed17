"""Writing: each kind's entries as one `id = {…}` TOML line each, sorted by id, written atomically."""

from __future__ import annotations

import json
import math
import re
import sys
from pathlib import Path
from typing import Any

from planner.models.parts import KIND_FILES
from planner.util.errors import InputError
from planner.util.fileio import atomic_write

from .ids import whole
from .snapshot import SNAPSHOT_COMMIT

BARE_ID = re.compile(r"[a-z0-9]+(-[a-z0-9]+)*")


def toml_string(text: str) -> str:
    out = json.dumps(text, ensure_ascii=False)
    return out.replace("\x7f", "\\u007f")


def toml_key(key: str) -> str:
    return key if re.fullmatch(r"[A-Za-z0-9_-]+", key) else toml_string(key)


def toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ValueError("non-finite number")
        return str(whole(value)) if value.is_integer() else repr(value)
    if isinstance(value, str):
        return toml_string(value)
    if isinstance(value, list):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{toml_key(k)} = {toml_value(v)}" for k, v in value.items()) + "}"
    raise TypeError(f"cannot write {type(value).__name__} to TOML")


def render(kind: str, entries: dict[str, dict[str, Any]]) -> str:
    header = (f"# {KIND_FILES[kind]}: parts imported by tools/import_buildcores.py from BuildCores OpenDB "
              f"(commit {SNAPSHOT_COMMIT[:12]}), ODC-By 1.0: see catalogs/ATTRIBUTION.md.\n"
              "# Generated file: do not edit; a curated entry with the same id overrides an imported one.\n")
    if any(not BARE_ID.fullmatch(part_id) for part_id in entries):
        raise ValueError("imported ids must be bare TOML keys (the loader finds entries by their line)")
    lines = [f"{part_id} = {toml_value(entries[part_id])}" for part_id in sorted(entries)]
    return header + "\n".join(lines) + "\n"


def write(path: Path, text: str) -> None:
    """Write one catalog file atomically (readers see the old file or the new one), replacing the last import."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write(path, text, force=True)
    except InputError as error:
        sys.exit(f"error: {error}")
    except OSError as error:
        sys.exit(f"error: {path.parent}: cannot create the folder ({error.strerror})")
