"""The per-user catalog cache serves what the catalog file says now, and nothing it did not write itself
(issue 13, item 4): it is keyed on the file's content, not its size and mtime, and a cache file that is
damaged, of another format or of the wrong shape is rebuilt — never a traceback, never "unknown id"."""

from __future__ import annotations

import json
import os
import zlib
from pathlib import Path
from typing import Any

import pytest

from planner.catalog import Catalog, builtin_dir
from planner.catalog import cache as catalog_cache

PSU = """
[lab-psu]
name = "Lab PSU"
maker = "Corsair"
wattage = 1600
efficiency = "80plus-titanium"
atx_version = "2.x"
connectors = { "pcie-8pin" = 10, "eps-8pin" = 2 }
form_factor = "atx"
length = "200 mm"
ac_inlet = "c20"
source = "test entry"
"""


@pytest.fixture
def mine(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A user catalog directory with one PSU, and a cache of its own, warmed by one run."""
    monkeypatch.setenv("PLANNER_CACHE_DIR", str(tmp_path / "cache"))
    directory = tmp_path / "mine"
    directory.mkdir()
    (directory / "psus.toml").write_text(PSU)
    assert _wattage(directory) == 1600
    return directory


def _wattage(directory: Path) -> float:
    return Catalog([builtin_dir(), directory]).get("psu", "lab-psu").wattage  # type: ignore[attr-defined, no-any-return]


def _cache_file(directory: Path) -> Path:
    cached = catalog_cache.cache_path(directory / "psus.toml")
    assert cached is not None and cached.path.is_file()
    return cached.path


def _rewrite_body(directory: Path, edit: Any) -> None:
    """Change the cached body and give it a matching header: what only a shape check can catch."""
    path = _cache_file(directory)
    header, _, body = path.read_text(encoding="utf-8").partition("\n")
    data = json.loads(body)
    edit(data)
    body = json.dumps(data)
    fields = json.loads(header)
    fields["body"] = zlib.crc32(body.encode())
    path.write_text(f"{json.dumps(fields)}\n{body}", encoding="utf-8")


def test_an_edit_that_keeps_size_and_mtime_is_read(mine: Path) -> None:
    # as `cp -p`, rsync or tar leave it: 1600 W edited to 1000 W, same length, same times
    catalog_file = mine / "psus.toml"
    before = catalog_file.stat()
    catalog_file.write_text(PSU.replace("wattage = 1600", "wattage = 1000"))
    os.utime(catalog_file, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert catalog_file.stat().st_size == before.st_size
    assert _wattage(mine) == 1000


def test_a_cache_of_the_right_shape_but_not_written_by_this_format_is_not_used(mine: Path) -> None:
    # the case: bare JSON of the old shape, whose only entry is a string
    _cache_file(mine).write_text(json.dumps({"ids": ["lab-psu"], "valid": {"lab-psu": "1600"}, "invalid": {}}))
    assert _wattage(mine) == 1600


def test_a_cache_body_edited_without_its_checksum_is_not_used(mine: Path) -> None:
    path = _cache_file(mine)
    path.write_text(path.read_text(encoding="utf-8").replace('"wattage": 1600', '"wattage": 1000'))
    assert _wattage(mine) == 1600


def test_a_truncated_cache_is_rebuilt(mine: Path) -> None:
    path = _cache_file(mine)
    path.write_bytes(path.read_bytes()[: path.stat().st_size // 2])
    assert _wattage(mine) == 1600
    assert catalog_cache.read(catalog_cache.cache_path(mine / "psus.toml")) is not None  # type: ignore[arg-type]


def test_a_string_entry_is_rebuilt_even_under_a_matching_checksum(mine: Path) -> None:
    _rewrite_body(mine, lambda data: data["valid"].update({"lab-psu": "1600 W"}))
    assert _wattage(mine) == 1600


def test_an_entry_missing_a_field_is_rebuilt_even_under_a_matching_checksum(mine: Path) -> None:
    _rewrite_body(mine, lambda data: data["valid"]["lab-psu"].pop("wattage"))
    assert _wattage(mine) == 1600


def test_an_empty_index_is_rebuilt_even_under_a_matching_checksum(mine: Path) -> None:
    _rewrite_body(mine, lambda data: data.update(ids=[], valid={}, invalid={}))
    assert _wattage(mine) == 1600


def test_an_index_that_disagrees_with_its_entries_is_rebuilt(mine: Path) -> None:
    _rewrite_body(mine, lambda data: data.update(ids=["another-psu"]))
    assert _wattage(mine) == 1600


def test_a_cache_written_for_other_bytes_is_rebuilt_and_replaced(mine: Path) -> None:
    (mine / "psus.toml").write_text(PSU.replace("wattage = 1600", "wattage = 1300"))
    assert _wattage(mine) == 1300
    cached = catalog_cache.cache_path(mine / "psus.toml")
    assert cached is not None
    hit = catalog_cache.read(cached)
    assert hit is not None and hit["valid"]["lab-psu"]["wattage"] == 1300
