"""Wrong results without a crash (issue 13, item 5), each from the smallest build that showed it: a loaded
circuit with no PSU, a duplicate id in a bulk-imported file, `fans = 0`, a build with no prices, and a
user catalog's bad chip reference."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from planner.api import check_file
from planner.catalog import Catalog, builtin_dir
from planner.cli.render_text import render_reports
from planner.util.errors import CatalogError

from conftest import run_cli

BASE = """
name = "Two RTX 3090 FE"
case = "{case}"
motherboard = "asus-pro-ws-wrx80e-sage-se"
cpu = "amd-threadripper-pro-5975wx"

[[psu]]
part = "{psu}"

[[gpu]]
part = "{gpu}"
count = 2
slot = ["PCIEX16_1", "PCIEX16_5"]
"""

LAB_PSU = ('lab-psu = {{ name = "Lab PSU", maker = "Corsair", wattage = {watts}, efficiency = "80plus-titanium", '
           'atx_version = "2.x", connectors = {{ "pcie-8pin" = 10, "eps-8pin" = 2 }}, form_factor = "atx", '
           'length = "200 mm", ac_inlet = "c20", source = "test entry" }}\n')


def _build(tmp_path: Path, extra: str = "", *, case: str = "fractal-meshify-2-xl", psu: str = "corsair-ax1600i",
           gpu: str = "nvidia-rtx-3090-fe") -> Path:
    path = tmp_path / "build.toml"
    path.write_text(BASE.format(case=case, psu=psu, gpu=gpu) + extra)
    return path


def test_a_circuit_with_20_kw_of_other_load_and_no_psu_fails(tmp_path: Path) -> None:
    build = _build(tmp_path, '[[circuit]]\nname = "kitchen"\noutlet = "nema-5-15"\nother_load = "20 kW"\n')
    report = check_file(build, Catalog())
    kitchen = [f for f in report.findings if f.code == "outlet.continuous" and "'kitchen'" in f.message]
    assert kitchen and kitchen[0].severity == "error"


def test_a_duplicate_id_in_an_imported_file_is_the_files_error_not_a_silent_pick(tmp_path: Path) -> None:
    imported = tmp_path / "mine" / "imported"
    imported.mkdir(parents=True)
    (imported / "psus.toml").write_text(LAB_PSU.format(watts=1600) + LAB_PSU.format(watts=1000))
    with pytest.raises(CatalogError, match=r"imported/psus\.toml(:\d+)?: not valid TOML"):
        Catalog([builtin_dir(), tmp_path / "mine"]).get("psu", "lab-psu")


def test_check_and_catalog_validate_agree_on_a_duplicate_imported_id(tmp_path: Path) -> None:
    imported = tmp_path / "mine" / "imported"
    imported.mkdir(parents=True)
    (imported / "psus.toml").write_text(LAB_PSU.format(watts=1600) + LAB_PSU.format(watts=1000))
    checked = run_cli("check", "--catalog", tmp_path / "mine", _build(tmp_path, psu="lab-psu"))
    validated = run_cli("catalog", "validate", tmp_path / "mine")
    assert checked.code == 2 and validated.code != 0
    assert "not valid TOML" in checked.err and "not valid TOML" in validated.out + validated.err


def test_an_id_defined_once_in_an_imported_file_still_takes_the_fast_path(tmp_path: Path) -> None:
    imported = tmp_path / "mine" / "imported"
    imported.mkdir(parents=True)
    (imported / "psus.toml").write_text(LAB_PSU.format(watts=1600) + LAB_PSU.replace("lab-psu", "lab-psu-2")
                                        .format(watts=1000))
    assert Catalog([builtin_dir(), tmp_path / "mine"]).get("psu", "lab-psu").wattage == 1600  # type: ignore[attr-defined]


def test_fans_0_in_a_case_sold_without_fans_assumes_no_intake_fan(tmp_path: Path) -> None:
    # the Lian Li O11 Dynamic XL ships without fans (its maker's specification, not an estimate)
    build = _build(tmp_path, "[extras]\nfans = 0\n", case="lian-li-o11-dynamic-xl")
    report = check_file(build, Catalog())
    case = [f for f in report.findings if f.code == "thermal.case"]
    assert case and case[0].severity == "error" and "No fan moves air through the case" in case[0].message
    assert "60 CFM" not in case[0].message
    assert all(g.temperature_c is None for g in report.summary.gpus)  # no temperature invented on 0 CFM


def test_fans_0_in_a_case_whose_fanlessness_is_an_estimate_only_warns(tmp_path: Path) -> None:
    # the Phanteks Enthoo Pro 2's 0 CFM of stock intake airflow is marked as an estimate in the catalog
    build = _build(tmp_path, "[extras]\nfans = 0\n", case="phanteks-enthoo-pro-2")
    case = [f for f in check_file(build, Catalog()).findings if f.code == "thermal.case"]
    assert case and case[0].severity == "warning" and "an estimate" in case[0].message


def test_the_price_is_unknown_not_0_when_no_part_has_one(tmp_path: Path) -> None:
    import shutil

    catalogs = tmp_path / "catalogs"  # the built-in catalogs without the base system's priced parts
    shutil.copytree(builtin_dir(), catalogs, ignore=shutil.ignore_patterns("base-parts.toml"))
    path = tmp_path / "unpriced.toml"
    path.write_text('name = "No part priced"\ncase = "abyss-tr-a-rgb"\nmotherboard = "asrock-fatal1ty-x99x-killer"\n'
                    'cpu = "intel-core-i7-5960x"\n[[psu]]\npart = "abs-majesty-1100w"\n'
                    '[[gpu]]\npart = "asrock-rx-7900-xt"\n')
    report = check_file(path, Catalog([catalogs]))
    assert report.summary.price_unknown
    text = render_reports([report], {})
    assert "Price: unknown" in text and "$0" not in text


def test_the_price_is_a_total_when_some_parts_have_one(tmp_path: Path) -> None:
    report = check_file(_build(tmp_path), Catalog())
    assert not report.summary.price_unknown
    assert "Price: $" in render_reports([report], {})


GPU_WITH_BAD_CHIP = """
[lab-gpu]
name = "Lab GPU"
maker = "NVIDIA"
chip = "rtx-3090x"
tdp = 350
power_limit_min = 100
power_limit_max = 400
power_connectors = ["pcie-8pin", "pcie-8pin"]
slot_width = 3
length = 313
height = 138
cooler = "flow-through"
pcie_gen = 4
source = "test entry"
"""


def test_a_user_catalogs_bad_chip_reference_is_reported_against_the_catalog_file(tmp_path: Path) -> None:
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "gpus.toml").write_text(GPU_WITH_BAD_CHIP)
    run = run_cli("check", "--catalog", mine, _build(tmp_path, gpu="lab-gpu"))
    assert run.code == 2
    assert f"{mine / 'gpus.toml'}: [lab-gpu] chip: unknown chip 'rtx-3090x'" in run.err
    assert not re.search(r"build\.toml:\d", run.err)  # the build file is named as the file checked, not as the place


def test_a_bad_chip_the_build_file_names_is_reported_against_its_line(tmp_path: Path) -> None:
    build = _build(tmp_path)
    build.write_text(build.read_text().replace('part = "nvidia-rtx-3090-fe"',
                                               'part = { base = "nvidia-rtx-3090-fe", chip = "rtx-3090x" }'))
    run = run_cli("check", build)
    assert run.code == 2
    assert f"{build}:11: gpu[0].part.chip: unknown gpu-chip id 'rtx-3090x'" in run.err
