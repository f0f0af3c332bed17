"""A per-user cache of catalog files, so a cold `planner check` neither re-parses TOML nor re-validates
entries it validated before.

tomllib is pure Python (~25 ms for a 50 kB catalog) and building pydantic validators for the part
models costs ~20 ms per run. The cache holds, per catalog file, the validated (canonical) data of every
valid entry and, in a second file read only when needed, the parsed TOML, as JSON — no pickle — keyed
by the file's path, size and mtime and by the planner's model code. A validated entry is rebuilt with
`model_construct`, which skips validation it already passed; invalid entries are validated again so
they report their error.
"""

from __future__ import annotations

import hashlib
import json
import os
from functools import cache
from pathlib import Path
from typing import Any, get_args

from pydantic import BaseModel

from planner import __version__

ENV = "PLANNER_CACHE_DIR"  # "" switches caching off


@cache
def _models_stamp() -> str:
    """Changes whenever the code that validates entries changes."""
    here = Path(__file__).resolve().parent
    parts = [__version__]
    for name in ("models/parts.py", "models/workloads.py", "units.py", "units.txt"):
        stat = (here / name).stat()
        parts.append(f"{stat.st_mtime_ns}:{stat.st_size}")
    return ";".join(parts)


def cache_path(path: Path) -> Path | None:
    root = os.environ.get(ENV)
    if root == "":
        return None
    if root is None:
        import platformdirs

        root = platformdirs.user_cache_dir("gpu-rig-planner")
    stat = path.stat()
    key = f"{path.absolute()}\0{stat.st_mtime_ns}\0{stat.st_size}\0{_models_stamp()}"
    return Path(root) / "catalogs" / f"{hashlib.sha256(key.encode()).hexdigest()[:32]}.json"


def read(cached: Path) -> dict[str, Any] | None:
    """A cached file: its ids in order, the validated data of its valid entries and the raw tables of the
    others; None when missing or damaged (it is then rebuilt)."""
    data = _read_json(cached)
    shapes = ((data.get("ids"), list), (data.get("valid"), dict), (data.get("invalid"), dict))
    return data if all(isinstance(value, kind) for value, kind in shapes) else None


def read_raw(cached: Path) -> dict[str, Any] | None:
    """Every raw table of a cached file (its second file), or None when missing or damaged."""
    return _read_json(_raw_path(cached)) or None


def write(cached: Path, raw: dict[str, Any], valid: dict[str, Any]) -> None:
    """Best effort: a read-only or full disk only means the next run parses the TOML again. The raw tables
    go to a second file, written first, since most runs never read them."""
    from planner.errors import InputError
    from planner.fileio import atomic_write

    invalid = {part_id: data for part_id, data in raw.items() if part_id not in valid}
    try:
        cached.parent.mkdir(parents=True, exist_ok=True)
        for path, data in ((_raw_path(cached), raw), (cached, {"ids": list(raw), "valid": valid, "invalid": invalid})):
            atomic_write(path, json.dumps(data, ensure_ascii=False, default=str), force=True)
    except (OSError, InputError):
        pass


def _raw_path(cached: Path) -> Path:
    return cached.with_suffix(".raw.json")


def _read_json(path: Path) -> dict[str, Any]:
    """A JSON object from a cache file; empty when the file is missing, damaged or not an object."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def construct(model: type[BaseModel], data: dict[str, Any]) -> BaseModel:
    """Rebuild a model from data that an earlier run validated and dumped (nested models included)."""
    values = dict(data)
    for name, nested in _nested_fields(model):
        value = values.get(name)
        if isinstance(value, list):
            values[name] = [construct(nested, v) for v in value]
        elif isinstance(value, dict):
            values[name] = construct(nested, value)
    return model.model_construct(**values)


@cache
def _nested_fields(model: type[BaseModel]) -> tuple[tuple[str, type[BaseModel]], ...]:
    """The fields of a model that hold models (or lists of them), worked out once per model."""
    found = []
    for name, field in model.model_fields.items():
        nested = _nested_model(field.annotation)  # type: ignore[arg-type]  # annotations are hashable
        if nested is not None:
            found.append((name, nested))
    return tuple(found)


@cache
def _nested_model(annotation: Any) -> type[BaseModel] | None:
    """The model inside `Model`, `list[Model]` or `Model | None`, if any."""
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    for arg in get_args(annotation):
        found = _nested_model(arg)
        if found is not None:
            return found
    return None
