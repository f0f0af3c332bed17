"""The catalog loader: built-in data valid, overrides by id, errors that name file, entry and field."""

from __future__ import annotations

from pathlib import Path

import pytest

from planner.catalog import Catalog, builtin_dir, default_dirs
from planner.models.parts import KIND_FILES
from planner.util.errors import CatalogError, UnknownPartError

from conftest import ROOT, run_cli


def test_every_built_in_entry_is_valid_and_every_reference_resolves(catalog: Catalog) -> None:
    assert catalog.validate() == []


def test_every_built_in_kind_has_entries_with_a_source(catalog: Catalog) -> None:
    for kind in KIND_FILES:
        parts = list(catalog.all(kind))
        assert parts, kind
        assert all(p.source for p in parts)


def _write(directory: Path, name: str, text: str) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / name
    path.write_text(text)
    return path


OVERRIDE = """
[nvidia-rtx-3090-fe]
name = "RTX 3090 FE as measured in our lab"
maker = "NVIDIA"
chip = "rtx-3090"
tdp = 350
power_limit_min = 100
power_limit_max = 400
power_connectors = ["pcie-8pin", "pcie-8pin"]
slot_width = 3
length = 313
height = 138
cooler = "flow-through"
pcie_gen = 4
source = "our lab"
"""


def test_a_catalog_directory_overrides_built_in_entries_by_id(tmp_path: Path) -> None:
    _write(tmp_path / "mine", "gpus.toml", OVERRIDE)
    catalog = Catalog(default_dirs([tmp_path / "mine"]))
    assert catalog.get("gpu", "nvidia-rtx-3090-fe").name == "RTX 3090 FE as measured in our lab"
    assert catalog.entries("gpu")["nvidia-rtx-3090-fe"].overrides[-1] == "catalogs/gpus.toml"


def test_the_user_directory_is_read_after_catalog_dirs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _write(tmp_path / "mine", "gpus.toml", OVERRIDE)
    _write(tmp_path / "user", "gpus.toml", OVERRIDE.replace("as measured in our lab", "from the user dir"))
    monkeypatch.setenv("PLANNER_USER_CATALOG", str(tmp_path / "user"))
    catalog = Catalog(default_dirs([tmp_path / "mine"]))
    assert catalog.get("gpu", "nvidia-rtx-3090-fe").name == "RTX 3090 FE from the user dir"


def test_curated_entries_win_over_imported_ones(tmp_path: Path) -> None:
    _write(tmp_path / "imported", "gpus.toml", OVERRIDE.replace("as measured in our lab", "imported"))
    _write(tmp_path, "gpus.toml", OVERRIDE)
    assert Catalog([tmp_path]).get("gpu", "nvidia-rtx-3090-fe").name == "RTX 3090 FE as measured in our lab"


def test_an_invalid_entry_names_file_entry_and_field(tmp_path: Path) -> None:
    _write(tmp_path, "gpus.toml", OVERRIDE.replace("slot_width = 3", "slot_width = -1"))
    catalog = Catalog([builtin_dir(), tmp_path])
    with pytest.raises(CatalogError) as caught:
        catalog.get("gpu", "nvidia-rtx-3090-fe")
    assert str(caught.value).endswith("gpus.toml: [nvidia-rtx-3090-fe] slot_width: input should be greater than or "
                                      "equal to 1, got -1")


def test_validate_collects_every_problem_of_every_entry(tmp_path: Path) -> None:
    bad = OVERRIDE.replace("slot_width = 3", "slot_width = -1").replace('cooler = "flow-through"', 'cooler = "fan"')
    _write(tmp_path, "gpus.toml", bad + bad.replace("[nvidia-rtx-3090-fe]", "[other-card]"))
    problems = [str(e) for e in Catalog([builtin_dir(), tmp_path]).validate(only=tmp_path)]
    assert len(problems) == 4
    assert any("[other-card] cooler" in p for p in problems)


def test_a_board_whose_chip_is_unknown_is_reported(tmp_path: Path) -> None:
    _write(tmp_path, "gpus.toml", OVERRIDE.replace('chip = "rtx-3090"', 'chip = "rtx-3909"'))
    problems = [str(e) for e in Catalog([builtin_dir(), tmp_path]).validate(only=tmp_path)]
    assert any("[nvidia-rtx-3090-fe] chip: unknown chip 'rtx-3909'; did you mean 'rtx-3090'" in p for p in problems)


def test_broken_toml_in_a_catalog_is_a_catalog_error_with_the_line(tmp_path: Path) -> None:
    _write(tmp_path, "psus.toml", "[a]\nname = \n")
    with pytest.raises(CatalogError, match=r"psus.toml:2: not valid TOML: "):
        Catalog([tmp_path]).entries("psu")


def test_unknown_ids_come_with_suggestions(catalog: Catalog) -> None:
    with pytest.raises(UnknownPartError) as caught:
        catalog.get("gpu", "nvidia-rtx-3090-fee")
    assert "nvidia-rtx-3090-fe" in caught.value.suggestions


def test_an_id_found_in_curated_data_does_not_read_the_imported_file(tmp_path: Path) -> None:
    _write(tmp_path / "imported", "gpus.toml", "this is not toml = = =\nnvidia-rtx-3090-fe = {broken")
    _write(tmp_path, "gpus.toml", OVERRIDE)
    assert Catalog([tmp_path]).get("gpu", "nvidia-rtx-3090-fe").tdp == 350


def test_catalog_list_filters_by_kind_and_search() -> None:
    result = run_cli("catalog", "list", "gpu", "--search", "3090 fe")
    assert result.code == 0
    rows = result.out.strip().splitlines()
    assert rows and all(r.startswith("gpu\t") and "3090" in r for r in rows)


def test_catalog_show_says_what_a_user_entry_overrides(tmp_path: Path) -> None:
    _write(tmp_path, "gpus.toml", OVERRIDE)
    result = run_cli("catalog", "show", "nvidia-rtx-3090-fe", "--catalog", tmp_path)
    assert result.code == 0
    assert "(overrides " in result.out and "catalogs/gpus.toml)" in result.out


def test_catalog_show_unknown_id_suggests_and_exits_2() -> None:
    result = run_cli("catalog", "show", "corsair-ax1600")
    assert result.code == 2
    assert "did you mean 'corsair-ax1600i'" in result.err


def test_catalog_validate_of_a_directory_reports_only_its_problems(tmp_path: Path) -> None:
    _write(tmp_path, "gpus.toml", OVERRIDE.replace("slot_width = 3", "slot_width = 0"))
    result = run_cli("catalog", "validate", tmp_path)
    assert result.code == 1
    assert result.err.count("\n") == 1 and "[nvidia-rtx-3090-fe] slot_width" in result.err


def test_catalog_validate_of_the_built_in_catalogs_passes() -> None:
    result = run_cli("catalog", "validate")
    assert result.code == 0, result.err
    assert "0 problem(s)" in result.out


def test_catalog_validate_lists_the_files_it_read_per_kind() -> None:
    result = run_cli("catalog", "validate", Path("tests/data/catalog"))
    assert result.code == 0, result.err
    assert "  gpu: tests/data/catalog/gpus.toml\n" in result.out
    assert "  psu: tests/data/catalog/psus.toml\n" in result.out


def test_catalog_validate_warns_that_a_misnamed_file_was_not_read_and_names_its_kind(tmp_path: Path) -> None:
    _write(tmp_path, "gpu.toml", OVERRIDE)
    result = run_cli("catalog", "validate", tmp_path)
    assert "gpu.toml: not a catalog file name, so it was not read; did you mean gpus.toml (kind gpu)?" in result.err
    assert "Files read: none" in result.out and "1 file(s) not read" in result.out


def test_catalog_validate_refuses_a_catalog_name_that_is_a_directory(tmp_path: Path) -> None:
    (tmp_path / "psus.toml").mkdir()
    result = run_cli("catalog", "validate", tmp_path)
    assert result.code == 1
    assert "psus.toml: is a directory, not read: the psu catalog must be a TOML file" in result.err


@pytest.mark.parametrize(("file", "old", "new", "problem"), [
    ("gpu-chips.toml", "memory = 24", "memory = 1e-9", "[rtx-3090] memory: input should be greater than or equal to 1"),
    ("gpus.toml", "tdp = 350", "tdp = 1", "[nvidia-rtx-3090-fe] tdp: input should be greater than or equal to 10"),
    ("gpus.toml", "slot_width = 3", "slot_width = 0.5",
     "[nvidia-rtx-3090-fe] slot_width: input should be greater than or equal to 1"),
], ids=["a-chip-with-1e-9-gb", "a-1-w-card", "a-half-slot-card"])
def test_catalog_validate_refuses_physically_implausible_figures(tmp_path: Path, file: str, old: str, new: str,
                                                                 problem: str) -> None:
    text = (ROOT / "tests" / "data" / "catalog" / file).read_text() if file != "gpus.toml" else OVERRIDE
    assert old in text
    _write(tmp_path, file, text.replace(old, new, 1))
    result = run_cli("catalog", "validate", tmp_path)
    assert result.code == 1 and problem in result.err, result.err


def test_one_imported_entry_is_read_without_parsing_its_whole_file(tmp_path: Path) -> None:
    line = 'x-card = {name = "X", maker = "X", chip = "rtx-3090", tdp = 350, power_limit_min = 100, ' \
           'power_limit_max = 350, power_connectors = ["pcie-8pin", "pcie-8pin"], slot_width = 2, length = 267, ' \
           'height = 111, cooler = "blower", pcie_gen = 4, source = "test"}'
    _write(tmp_path / "imported", "gpus.toml", "garbage = = =\n" + line + "\n")
    catalog = Catalog([builtin_dir(), tmp_path])
    assert catalog.get("gpu", "x-card").name == "X"
    assert catalog.entry("gpu", "x-card").imported


def test_a_cached_part_equals_the_freshly_validated_one(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PLANNER_CACHE_DIR", str(tmp_path / "cache"))
    Catalog([builtin_dir()]).get("gpu", "nvidia-rtx-3090-fe")  # fills the cache
    cached = Catalog([builtin_dir()], market=None)  # the parts as written, not priced for a market
    for kind in KIND_FILES:
        for part_id, entry in cached.entries(kind).items():
            if entry.imported:
                continue
            assert entry.validated is not None, (kind, part_id)
            fresh = type(cached.get(kind, part_id)).model_validate({**entry.data, "id": part_id})
            assert cached.get(kind, part_id) == fresh, (kind, part_id)


def test_an_edited_catalog_file_is_validated_again(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PLANNER_CACHE_DIR", str(tmp_path / "cache"))
    path = _write(tmp_path / "mine", "gpus.toml", OVERRIDE)
    assert Catalog([builtin_dir(), tmp_path / "mine"]).get("gpu", "nvidia-rtx-3090-fe").slot_width == 3
    path.write_text(OVERRIDE.replace("slot_width = 3", "slot_width = -3 "))  # a different size: a new cache key
    with pytest.raises(CatalogError, match="slot_width"):
        Catalog([builtin_dir(), tmp_path / "mine"]).get("gpu", "nvidia-rtx-3090-fe")


def test_a_damaged_cache_file_is_ignored(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PLANNER_CACHE_DIR", str(tmp_path / "cache"))
    Catalog([builtin_dir()]).get("psu", "corsair-ax1600i")
    for cached in (tmp_path / "cache" / "catalogs").glob("*.json"):
        cached.write_text("{not json")
    assert Catalog([builtin_dir()]).get("psu", "corsair-ax1600i").wattage == 1600


def test_an_invalid_entry_is_reported_again_from_a_warm_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PLANNER_CACHE_DIR", str(tmp_path / "cache"))
    _write(tmp_path / "mine", "gpus.toml", OVERRIDE.replace("slot_width = 3", "slot_width = -3"))
    for _ in range(2):  # the first run writes the cache, the second reads it
        with pytest.raises(CatalogError, match="slot_width"):
            Catalog([builtin_dir(), tmp_path / "mine"]).get("gpu", "nvidia-rtx-3090-fe")


def test_a_warm_cache_builds_parts_without_reading_the_raw_tables(tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    from planner.catalog import cache as catalog_cache

    monkeypatch.setenv("PLANNER_CACHE_DIR", str(tmp_path / "cache"))
    Catalog([builtin_dir()]).get("gpu", "nvidia-rtx-3090-fe")

    def unexpected(cached: Path) -> None:
        raise AssertionError(f"read the raw tables of {cached}")

    monkeypatch.setattr(catalog_cache, "read_raw", unexpected)
    warm = Catalog([builtin_dir()])
    assert warm.get("gpu", "nvidia-rtx-3090-fe").slot_width == 3
    assert len(list(warm.all("gpu", curated=True))) > 40


def test_raw_tables_missing_from_the_cache_are_read_from_the_catalog_file(tmp_path: Path,
                                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PLANNER_CACHE_DIR", str(tmp_path / "cache"))
    Catalog([builtin_dir()]).get("psu", "corsair-ax1600i")
    for raw in (tmp_path / "cache" / "catalogs").glob("*.raw.json"):
        raw.unlink()
    entry = Catalog([builtin_dir()]).entry("psu", "corsair-ax1600i")
    assert entry.validated is not None  # from the cache
    assert entry.data["wattage"] == 1600  # the raw table, from psus.toml
