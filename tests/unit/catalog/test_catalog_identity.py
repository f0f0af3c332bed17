"""One entry per real part (issue 12): ids that resolve through aliases, "did you mean" by words and short
forms, curated and imported entries marked, imported listings of curated parts left out, and a figure the
source does not publish left unknown rather than 0.

The importer records below are copies, trimmed to the fields the importer reads, of records from BuildCores
OpenDB (https://github.com/buildcores/buildcores-open-db, commit 136a77aec16a30ba81a7cc6b448a8bace9a25359),
available under the Open Data Commons Attribution License (ODC-By) v1.0; see catalogs/ATTRIBUTION.md.
"""

from __future__ import annotations

import importlib.util
import json
import re
import sys
import tomllib
from pathlib import Path
from typing import Any

import pytest

from planner.catalog import Catalog
from planner.models.parts import GpuBoard, Motherboard
from planner.util.errors import CatalogError, UnknownPartError

from conftest import ROOT, run_cli
from helpers import BASE, TEST_CATALOG_DIR, build, gpus
from helpers import findings as findings_in

TOOL = ROOT / "tools" / "import_buildcores.py"
_spec = importlib.util.spec_from_file_location("import_buildcores_identity", TOOL)
assert _spec and _spec.loader
ib = importlib.util.module_from_spec(_spec)
sys.modules["import_buildcores_identity"] = ib
_spec.loader.exec_module(ib)

CATALOG = Catalog()

PROMISED = [("motherboard", "asus-proart-x670e-creator", "asus-proart-x670e-creator-wifi"),
            ("outlet", "cee-7-schuko", "schuko-16a"), ("outlet", "bs-1363", "bs-1363-13a"),
            ("outlet", "jis-c-8303", "jis-c-8303-15a")]


# -- aliases ---------------------------------------------------------------------------------------------

@pytest.mark.parametrize(("kind", "alias", "target"), PROMISED, ids=[p[1] for p in PROMISED])
def test_the_promised_ids_resolve_to_their_entries(kind: str, alias: str, target: str) -> None:
    assert CATALOG.get(kind, alias).id == target


def test_catalog_show_prints_the_entry_and_its_aliases() -> None:
    result = run_cli("catalog", "show", "bs-1363")
    assert result.code == 0
    assert "[outlet bs-1363-13a] (alias bs-1363)" in result.out
    assert '  aliases: ["bs-1363"]' in result.out


def test_a_build_file_may_name_an_outlet_and_a_board_by_their_aliases() -> None:
    text = BASE.replace('"nema-5-20"', '"cee-7-schuko"').replace(
        '"asus-pro-ws-wrx80e-sage-se"', '{ base = "asus-proart-x670e-creator", name = "my board" }')
    text = text.replace('"amd-threadripper-pro-5975wx"', '"amd-ryzen-9-7950x"') + gpus("nvidia-rtx-4090-fe")
    resolved = build(text, CATALOG)
    assert resolved.circuits[0].outlet.id == "schuko-16a"
    assert resolved.motherboard.name == "my board" and resolved.motherboard.aliases == []  # not the entry's


def _catalog_with(tmp_path: Path, outlets: str) -> Catalog:
    (tmp_path / "outlets.toml").write_text(outlets)
    return Catalog([TEST_CATALOG_DIR, tmp_path])


OUTLET = """
[{id}]
name = "{id}"
maker = "test"
aliases = {aliases}
region = "eu"
standard = "test"
voltage = 230
breaker_current = 16
continuous_factor = 0.8
continuous_source = "test"
source = "test"
"""


def test_an_alias_that_is_another_entrys_id_is_a_catalog_error(tmp_path: Path) -> None:
    catalog = _catalog_with(tmp_path, OUTLET.format(id="my-outlet", aliases='["nema-5-15"]'))
    problems = [str(e) for e in catalog.validate(tmp_path)]
    assert any("[my-outlet] aliases: the alias 'nema-5-15' is the id of another outlet entry" in p
               for p in problems)
    assert catalog.get("outlet", "nema-5-15").id == "nema-5-15"  # an id always wins over an alias


def test_an_alias_two_entries_claim_is_a_catalog_error(tmp_path: Path) -> None:
    text = OUTLET.format(id="outlet-a", aliases='["shared"]') + OUTLET.format(id="outlet-b", aliases='["shared"]')
    catalog = _catalog_with(tmp_path, text)
    assert any("the alias 'shared' is already an alias of 'outlet-a'" in str(e) for e in catalog.validate(tmp_path))
    with pytest.raises(CatalogError, match="claimed by 'outlet-a' and 'outlet-b'"):
        catalog.get("outlet", "shared")


def test_catalog_validate_passes_with_the_aliases() -> None:
    result = run_cli("catalog", "validate")
    assert result.code == 0, result.err


# -- did you mean ----------------------------------------------------------------------------------------

def test_asus_wrx80e_suggests_the_wrx80e_board() -> None:
    with pytest.raises(UnknownPartError) as unknown:
        CATALOG.get("motherboard", "asus-wrx80e")
    assert unknown.value.suggestions[0] == "asus-pro-ws-wrx80e-sage-se"
    board = CATALOG.get("motherboard", unknown.value.suggestions[0])
    assert isinstance(board, Motherboard) and "WRX80E" in board.name


@pytest.mark.parametrize("word", ["RTX 4090", "rtx4090"])
def test_rtx_4090_suggests_rtx_4090_boards_curated_first(word: str) -> None:
    suggestions = CATALOG.suggest("gpu", word)
    assert len(suggestions) == 3
    assert all(CATALOG.typed("gpu", s, GpuBoard).chip == "rtx-4090" for s in suggestions)
    assert all(CATALOG.origin("gpu", s) == "curated" for s in suggestions)


def test_a_typo_still_gets_its_close_spelling() -> None:
    assert CATALOG.suggest("gpu", "nvidia-rtx-3090-fee")[0] == "nvidia-rtx-3090-fe"


def test_an_imported_id_left_out_for_its_curated_part_suggests_the_curated_part() -> None:
    assert CATALOG.suggest("case", "fractal-design-meshify-2-xl")[0] == "fractal-meshify-2-xl"
    assert CATALOG.suggest("psu", "seasonic-prime-tx-1600w")[0] == "seasonic-prime-tx-1600"


# -- curated and imported marks --------------------------------------------------------------------------

def test_catalog_search_meshify_2_xl_lists_one_meshify_2_xl_marked_curated() -> None:
    result = run_cli("catalog", "search", "meshify", "2", "xl")
    rows = result.out.strip().splitlines()
    assert len(rows) == 1
    assert rows[0].split("\t")[1] == "fractal-meshify-2-xl" and rows[0].endswith("\tcurated")


def test_catalog_list_marks_imported_entries() -> None:
    rows = run_cli("catalog", "list", "case", "--search", "meshify 2").out.strip().splitlines()
    origins = {row.split("\t")[1]: row.split("\t")[-1] for row in rows}
    assert origins["fractal-meshify-2-xl"] == "curated"
    assert {o for i, o in origins.items() if i != "fractal-meshify-2-xl"} == {"imported"}


def test_catalog_list_json_and_show_json_carry_the_origin() -> None:
    listed = json.loads(run_cli("catalog", "list", "case", "--search", "meshify 2 xl", "--format", "json").out)
    assert [(p["id"], p["origin"]) for p in listed] == [("fractal-meshify-2-xl", "curated")]
    shown = json.loads(run_cli("catalog", "show", "cee-7-schuko", "--format", "json").out)
    assert (shown["id"], shown["origin"], shown["aliases"]) == ("schuko-16a", "curated", ["cee-7-schuko"])


# -- the importer: one entry per real part ---------------------------------------------------------------

RECORDS: dict[str, tuple[str, dict[str, Any]]] = {
    "meshify-2-xl": ("case", {"opendb_id": "d6dc22f4-2bc3-4a2d-bdc4-e716d55789d2", "metadata": {"name": "Fractal Design Meshify 2 XL ATX Full Tower Black with Tinted Tempered Glass Side Panel and USB 3.2 Gen 2 Type-C, USB 2.0 Type-A", "manufacturer": "Fractal Design", "part_numbers": ["FD-C-MES2X-01", "FD-C-MES2X-02"], "variant": ""}, "supported_motherboard_form_factors": ["ATX", "Micro ATX", "Mini-ITX", "EATX"], "form_factor": "ATX Full Tower", "color": ["BLACK"], "max_video_card_length": 549, "expansion_slots": 9}),  # noqa: E501
    "lancool-216": ("case", {"opendb_id": "c039163b-f5f6-4802-91f7-a01aed59d7de", "metadata": {"name": "Lian Li LANCOOL 216 RGB EATX Mid Tower White Tempered Glass USB 3.2 Gen 2 Type-C USB 3.2 Gen 1 Type-A", "manufacturer": "Lian Li", "variant": "216 White", "part_numbers": ["LANCOOL 216RW", "G99.LAN216RW.00", "PC-LAN216RW", "LANCOOL 216R-W", "LANCOOL216RW"]}, "form_factor": "EATX Mid Tower", "supported_motherboard_form_factors": ["EATX", "ATX", "Micro ATX", "Mini-ITX"], "expansion_slots": 7, "max_video_card_length": 392, "riser_expansion_slots": 7, "color": ["WHITE"]}),  # noqa: E501
    "prime-tx-1600": ("psu", {"opendb_id": "100fe6a2-85b2-40ee-a180-27a1b824a152", "connectors": {"atx_24_pin": 1, "eps_8_pin": 3, "pcie_12vhpwr": 2, "pcie_6_plus_2_pin": 8, "sata": 16, "molex_4_pin": 3, "floppy_4_pin": 0}, "metadata": {"name": "SeaSonic PRIME TX 1600W Fully Modular 80+ Titanium Certified ATX", "manufacturer": "SeaSonic", "part_numbers": ["PRIME TX-1600"], "variant": "1600W Titanium"}, "wattage": 1600, "form_factor": "ATX", "efficiency_rating": "80+ Titanium", "color": ["BLACK", "GREY"], "length": 210}),  # noqa: E501
    "hx1200i": ("psu", {"opendb_id": "656ab78c-42e0-456a-8a09-76eda7711297", "metadata": {"name": "Corsair HX1200i 1200W 80+ Platinum Certified Fully Modular", "manufacturer": "Corsair", "part_numbers": ["CP-9020070-NA", "CP-9020070-UK", "HX1200i", "CP-9020070-EU", "CP-9020070"], "variant": "1200W Platinum"}, "wattage": 1200, "form_factor": "ATX", "efficiency_rating": "80+ Platinum", "connectors": {"atx_24_pin": 1, "eps_8_pin": 2, "pcie_12vhpwr": 0, "pcie_6_plus_2_pin": 6, "sata": 12, "molex_4_pin": 12, "floppy_4_pin": 0}, "length": 200}),  # noqa: E501
    "hx1000-2009": ("psu", {"opendb_id": "539c7a2b-2cfe-42fb-b7ed-6db97473a1ba", "metadata": {"name": "Corsair HX1000 1000W 80+ Certified Semi-Modular", "manufacturer": "Corsair", "part_numbers": ["CMPSU-1000HX"], "variant": "1000W 80+"}, "wattage": 1000, "form_factor": "ATX", "efficiency_rating": "80+", "connectors": {"atx_24_pin": 1, "eps_8_pin": 2, "pcie_12vhpwr": 0, "pcie_6_plus_2_pin": 6, "sata": 12, "molex_4_pin": 12, "floppy_4_pin": 0}, "length": 200}),  # noqa: E501
}


def _import(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> tuple[dict[str, dict[str, Any]], str]:
    """Run the importer on RECORDS against the real curated catalogs; the cases and PSUs it writes, and its
    summary."""
    source = tmp_path / "src"
    (source / "open-db").mkdir(parents=True, exist_ok=True)
    (source / "SOURCE.md").write_text(f"snapshot commit {ib.SNAPSHOT_COMMIT}\n")
    (source / "LICENSE.txt").write_text("ODC-By\n")
    for kind, record in RECORDS.values():
        folder = source / "open-db" / ib.SOURCE_DIRS[kind]
        folder.mkdir(exist_ok=True)
        (folder / f"{record['opendb_id']}.json").write_text(json.dumps(record))
    for folder in ib.SOURCE_DIRS.values():
        (source / "open-db" / folder).mkdir(exist_ok=True)
    out = tmp_path / "out"
    assert ib.main(["--source", str(source), "--out", str(out), "--curated", str(ROOT / "catalogs")]) == 0
    written = {name: tomllib.loads((out / name).read_text()) for name in ("cases.toml", "psus.toml")}
    return {**written["cases.toml"], **written["psus.toml"]}, capsys.readouterr().out


def test_the_importer_leaves_out_listings_of_curated_parts_and_counts_them(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    entries, summary = _import(tmp_path, capsys)
    # the Meshify 2 XL by maker and model, the PRIME TX 1600W by model ("TX-1600" = "TX 1600W"), the HX1200i
    # by its part number CP-9020070 (the curated name gives it)
    assert set(entries) == {"lian-li-lancool-216-rgb", "corsair-hx1000"}
    assert re.search(r"^case +1 imported +0 skipped +1 of curated parts +of +2 records", summary, re.M)
    assert re.search(r"^psu +1 imported +0 skipped +2 of curated parts +of +3 records", summary, re.M)
    assert "2  listings matched to 2 curated parts" in summary


def test_a_listing_whose_figures_differ_is_another_part(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    entries, _ = _import(tmp_path, capsys)
    # the 2009 HX1000 (80 PLUS, semi-modular) shares its name with the curated 2017 HX1000 (Platinum)
    assert entries["corsair-hx1000"]["efficiency"] == "80plus-white"


def test_rerunning_the_importer_with_matching_gives_the_same_bytes(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _import(tmp_path, capsys)
    first = {p.name: p.read_bytes() for p in (tmp_path / "out").glob("*.toml")}
    _import(tmp_path, capsys)
    assert first == {p.name: p.read_bytes() for p in (tmp_path / "out").glob("*.toml")}


# -- unknown, not 0 ---------------------------------------------------------------------------------------

def test_an_imported_case_leaves_its_unpublished_intake_airflow_unknown(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    entries, _ = _import(tmp_path, capsys)
    case = entries["lian-li-lancool-216-rgb"]
    assert "intake_airflow" not in case and "intake_airflow" not in case["estimated"]
    assert all("intake_airflow" not in line for line in (ROOT / "catalogs" / "imported" / "cases.toml")
               .read_text().splitlines()[2:])


CASE = """
[{id}]
name = "Test case {id}"
maker = "test"
form_factors = ["e-atx", "atx"]
expansion_slots = 9
max_gpu_length = 524
{intake}
source = "test"
"""
# three 350 W cards that keep all their heat in the case: 1,050 W + the 368 W rest
HOT = BASE + '[[gpu]]\npart = { base = "gigabyte-rtx-3090-turbo", cooler = "open-air" }\ncount = 3\n'


def _case_findings(tmp_path: Path, intake: str) -> list[Any]:
    from planner.api import check_build

    (tmp_path / "cases.toml").write_text(CASE.format(id="test-case", intake=intake))
    catalog = Catalog([TEST_CATALOG_DIR, tmp_path])
    text = HOT.replace('"fractal-meshify-2-xl"', '"test-case"')
    return [f for f in check_build(build(text, catalog), catalog).findings if f.code == "thermal.case"]


def test_an_unknown_intake_is_not_computed_as_0_its_assumed_fans_warn_and_say_so(tmp_path: Path) -> None:
    [finding] = _case_findings(tmp_path, "")
    assert finding.value is not None and finding.value > 15  # over the error line, on assumed fans
    assert finding.severity == "warning"
    assert "the catalog does not know the Test case test-case's stock intake fans, so 3 fans of 60 CFM" in (
        finding.message)
    assert "a warning, not an error, because it rests on the assumed fans" in finding.message


def test_a_case_known_to_ship_without_intake_fans_still_fails(tmp_path: Path) -> None:
    [finding] = _case_findings(tmp_path, "intake_airflow = 0")
    assert finding.severity == "error" and "ships without intake fans" in finding.message


def test_a_zero_intake_the_catalog_marks_as_an_estimate_is_unknown(tmp_path: Path) -> None:
    [finding] = _case_findings(tmp_path, 'intake_airflow = 0\nestimated = ["intake_airflow"]')
    assert finding.severity == "warning" and "does not know" in finding.message


def test_a_case_with_a_known_intake_still_fails_a_hot_build() -> None:
    # the Meshify 2 XL publishes its fans (205 CFM): 1,418 W inside still fails
    assert findings_in(HOT, "thermal.case")[0].severity == "error"


def test_a_card_past_its_maximum_on_assumed_intake_fans_warns_and_names_them(tmp_path: Path) -> None:
    from planner.api import check_build

    def hottest(intake: str) -> Any:
        (tmp_path / "cases.toml").write_text(CASE.format(id="test-case", intake=intake))
        catalog = Catalog([TEST_CATALOG_DIR, tmp_path])
        text = HOT.replace('"fractal-meshify-2-xl"', '"test-case"').replace("count = 3", "count = 4")
        temps = [f for f in check_build(build(text, catalog), catalog).findings if f.code == "thermal.gpu-temp"]
        return max(temps, key=lambda f: f.value)

    unknown, known = hottest(""), hottest("intake_airflow = 0")
    assert unknown.value == known.value and unknown.value >= 93  # the same model: fans assumed in both
    assert known.severity == "error"
    assert unknown.severity == "warning"
    assert "rests on assumed intake fans (the catalog does not know the Test case test-case's)" in unknown.message
