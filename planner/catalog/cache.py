"""A per-user cache of catalog files, so a cold `planner check` neither re-parses TOML nor re-validates
entries it validated before.

tomllib is pure Python (~25 ms for a 50 kB catalog) and building the validators for the part
models costs ~20 ms per run. The cache holds, per catalog file, the validated (canonical) data of every
valid entry and, in a second file read only when needed, the parsed TOML, as JSON — no pickle.

What it serves is what the catalog file says now: each cache file is named after the catalog file's path
and the planner's model code, and starts with a header line holding the format, a digest of the catalog
file's bytes (BLAKE2b: ~0.1 ms for a 50 kB catalog; a warm `planner check` hashes ~225 kB, ~1 % of its
instructions) and a CRC-32 of its own body. An edit that keeps the size and the modification time
(`cp -p`, rsync, tar) changes the digest; a damaged, truncated or hand-edited cache file fails its CRC or
its shape check (ids, valid and invalid entries that agree). Any mismatch means the file is parsed and
validated again and the cache rewritten. A validated entry is rebuilt with `model_construct`, which skips
validation it already passed; invalid entries are validated again so they report their error.
"""

from __future__ import annotations

import hashlib
import json
import os
import zlib
from collections.abc import Callable, Iterator, Mapping
from functools import cache
from pathlib import Path
from typing import Any, NamedTuple

from planner import __version__
from planner.util.record import Record, nested_records

ENV = "PLANNER_CACHE_DIR"  # "" switches caching off
FORMAT = 2  # of the cache files: a header line, then the JSON body


class CacheFile(NamedTuple):
    """Where a catalog file's cache lives, and the digest of the catalog file's bytes it must match."""

    path: Path
    source: str
    catalog: Path  # the catalog file


class CachedEntries(Mapping[str, Any]):
    """The raw tables of a cached catalog file by id. Runs mostly need only the validated data the cache
    holds, so the raw tables (kept for inline parts based on an entry, and for `validate`) are read from
    the cache's second file, or failing that the catalog file itself, when one is first asked for."""

    def __init__(self, ids: list[str], invalid: dict[str, Any], load: Callable[[], dict[str, Any]]) -> None:
        self._ids = dict.fromkeys(ids)
        self._invalid = invalid  # entries that did not validate: their raw tables come with the ids
        self._load = load
        self._all: dict[str, Any] | None = None

    def __getitem__(self, part_id: str) -> Any:
        if part_id in self._invalid:
            return self._invalid[part_id]
        if part_id not in self._ids:
            raise KeyError(part_id)
        if self._all is None:
            self._all = self._load()
        return self._all[part_id]

    def __contains__(self, part_id: object) -> bool:
        return part_id in self._ids

    def __iter__(self) -> Iterator[str]:
        return iter(self._ids)

    def __len__(self) -> int:
        return len(self._ids)


def _digest(data: bytes) -> str:
    return hashlib.blake2b(data, digest_size=16).hexdigest()


@cache
def _models_stamp() -> str:
    """Changes whenever the code that validates entries changes (its content, not its file times)."""
    here = Path(__file__).resolve().parent.parent  # planner/
    hasher = hashlib.blake2b(__version__.encode(), digest_size=16)
    for name in ("models/base.py", "models/parts.py", "models/workloads.py", "util/record/core.py", "util/units.py",
                 "util/units.txt"):
        hasher.update((here / name).read_bytes())
    return hasher.hexdigest()


def cache_path(path: Path) -> CacheFile | None:
    """The cache of a catalog file (None when caching is off). OSError when the catalog file is unreadable."""
    root = os.environ.get(ENV)
    if root == "":
        return None
    if root is None:
        import platformdirs

        root = platformdirs.user_cache_dir("gpu-rig-planner")
    source = _digest(_bytes(path))
    key = f"{path.absolute()}\0{_models_stamp()}"
    return CacheFile(Path(root) / "catalogs" / f"{hashlib.sha256(key.encode()).hexdigest()[:32]}.json", source, path)


def read(cached: CacheFile) -> dict[str, Any] | None:
    """A cached file: its ids in order, the validated data of its valid entries and the raw tables of the
    others; None when missing, stale, damaged or not of the shape written (it is then rebuilt)."""
    data = _read(cached.path, cached.source)
    if data is None:
        return None
    ids, valid, invalid = data.get("ids"), data.get("valid"), data.get("invalid")
    if not (isinstance(ids, list) and isinstance(valid, dict) and isinstance(invalid, dict)):
        return None
    if not all(isinstance(part_id, str) for part_id in ids) or len(set(ids)) != len(ids):
        return None
    if valid.keys() & invalid.keys() or set(ids) != valid.keys() | invalid.keys():
        return None
    if not ids:
        return None  # never trusted: an empty catalog file costs nothing to parse, a lost index hides every id
    required = _required_fields(cached.catalog.name)
    if not all(isinstance(entry, dict) and required <= entry.keys() for entry in valid.values()):
        return None
    return data


@cache
def _required_fields(file_name: str) -> frozenset[str]:
    """The fields every validated entry of a catalog file has (empty for a file of no known kind)."""
    from planner.models.parts import KIND_FILES, KIND_MODELS

    kind = next((kind for kind, name in KIND_FILES.items() if name == file_name), None)
    if kind is None:
        return frozenset()
    return frozenset(name for name, field in KIND_MODELS[kind].model_fields.items() if field.is_required())


def read_raw(cached: CacheFile) -> dict[str, Any] | None:
    """Every raw table of a cached file (its second file), or None when missing, stale or damaged."""
    return _read(_raw_path(cached.path), cached.source) or None


def write(cached: CacheFile, raw: dict[str, Any], valid: dict[str, Any]) -> None:
    """Best effort: a read-only or full disk only means the next run parses the TOML again. The raw tables
    go to a second file, written first, since most runs never read them."""
    from planner.util.errors import InputError
    from planner.util.fileio import atomic_write

    invalid = {part_id: data for part_id, data in raw.items() if part_id not in valid}
    try:
        if _digest(_bytes(cached.catalog)) != cached.source:
            return  # the catalog file changed while it was parsed: these tables may be of either version
        cached.path.parent.mkdir(parents=True, exist_ok=True)
        for path, data in ((_raw_path(cached.path), raw),
                           (cached.path, {"ids": list(raw), "valid": valid, "invalid": invalid})):
            body = json.dumps(data, ensure_ascii=False, default=str)
            header = json.dumps({"format": FORMAT, "source": cached.source,
                                 "body": zlib.crc32(body.encode("utf-8"))})
            atomic_write(path, f"{header}\n{body}", force=True)
    except (OSError, InputError, ValueError):
        pass


def _bytes(path: Path) -> bytes:
    """A file's bytes through the planner's one bounded reader; OSError when it is no regular file, is too
    large or cannot be read (the caller then parses the catalog file, which says why, or rebuilds the cache)."""
    from planner.util.errors import InputError
    from planner.util.fileio import read_bytes

    try:
        return read_bytes(path)
    except InputError as problem:
        raise OSError(str(problem)) from None


def _raw_path(cached: Path) -> Path:
    return cached.with_suffix(".raw.json")


def _read(path: Path, source: str) -> dict[str, Any] | None:
    """The JSON object of a cache file written for a catalog file whose bytes digest to `source`; None when
    the file is missing, of another format, written for other bytes, damaged or not an object."""
    try:
        header_line, _, body = _bytes(path).partition(b"\n")
        header = json.loads(header_line)
        if not (isinstance(header, dict) and header.get("format") == FORMAT and header.get("source") == source
                and header.get("body") == zlib.crc32(body)):
            return None
        data = json.loads(body)
    except (OSError, ValueError, RecursionError):
        return None
    return data if isinstance(data, dict) else None


def construct(model: type[Record], data: dict[str, Any]) -> Record:
    """Rebuild a record from data that an earlier run validated and dumped (nested records included)."""
    values = dict(data)
    for name, nested in nested_records(model):
        value = values.get(name)
        if isinstance(value, list):
            values[name] = [construct(nested, v) for v in value]
        elif isinstance(value, dict):
            values[name] = construct(nested, value)
    return model.model_construct(**values)
