"""riser.signal on the risers' construction: a PCIe 4.0 link over a passive ribbon riser warns at any length
(documented builds failed on them), shielded twinax and redriver/retimer kits do not, a PCIe 3.0 link over a
ribbon does not, and the warning says what to do — on the real example build with two cards on risers and the
built-in catalog."""

from __future__ import annotations

from pathlib import Path

import pytest

from planner.catalog import Catalog, builtin_dir
from planner.checks.engine.findings import Finding
from planner.checks.engine.runner import run_checks

from conftest import ROOT, example
from helpers import build

CATALOG = Catalog([builtin_dir()])
EXAMPLE = example("pass-quad-3060-two-on-risers-frame.toml")  # 4 × RTX 3060 (PCIe 4.0) on a Gen4 EPYC board
KIT = 'riser = "c-payne-slimsas-pcie4-redriver-kit"'


def _on(riser: str, card: str = "msi-rtx-3060-ventus-2x-12g") -> str:
    """The example with its riser-fed [[gpu]] table on `riser` (a catalog id or an inline table) and `card`."""
    board_table, riser_table = EXAMPLE.read_text().rsplit("[[gpu]]", 1)
    assert KIT in riser_table
    riser_table = riser_table.replace(KIT, f"riser = {riser}").replace("msi-rtx-3060-ventus-2x-12g", card)
    return f"{board_table}[[gpu]]{riser_table}"


def _signal(text: str) -> list[Finding]:
    return [f for f in run_checks(build(text, CATALOG), CATALOG) if f.code == "riser.signal"]


@pytest.mark.parametrize("riser", ['"linkup-pcie4-riser-200mm"', '"linkup-pcie4-riser-300mm"'])
def test_a_pcie_4_link_over_a_passive_ribbon_riser_warns_at_200_and_300_mm(riser: str) -> None:
    findings = _signal(_on(riser))
    assert [(f.severity, f.subject[0]) for f in findings] == [("warning", "GPU3"), ("warning", "GPU4")]
    assert "passive ribbon riser" in findings[0].message and "documented builds" in findings[0].message


@pytest.mark.parametrize("length", ["200 mm", "300 mm"])
def test_a_shielded_twinax_riser_at_the_same_length_does_not_warn(length: str) -> None:
    assert _signal(_on(f'{{ base = "c-payne-mcio-pcie5-passive-kit", length = "{length}" }}')) == []


@pytest.mark.parametrize("length", ["200 mm", "300 mm"])
def test_a_redriver_kit_at_the_same_length_does_not_warn(length: str) -> None:
    assert _signal(_on(f'{{ base = "c-payne-slimsas-pcie4-redriver-kit", length = "{length}" }}')) == []


def test_a_pcie_3_link_over_a_passive_ribbon_riser_does_not_warn() -> None:
    text = _on('"linkup-pcie4-riser-200mm"', card="asus-rtx-2080-ti-turbo")  # a PCIe 3.0 card
    assert 'part = "asus-rtx-2080-ti-turbo"' in text
    assert _signal(text) == []


def test_the_warning_names_the_gen3_workaround_and_what_it_costs() -> None:
    [first, _] = _signal(_on('"linkup-pcie4-riser-200mm"'))
    slot = first.subject[2]
    assert f"unless {slot} is set to PCIe 3.0 in the BIOS (the x16 link drops from 31.5 to 15.8 GB/s each way)" \
        in first.message
    assert first.fixes[-1].description.startswith(f"set {slot} to PCIe 3.0 in the BIOS")
    assert first.fixes[-1].verified is not True


def test_the_fixes_name_catalog_risers_that_carry_pcie_4_and_are_verified() -> None:
    [first, _] = _signal(_on('"linkup-pcie4-riser-200mm"'))
    riser_fixes = [f for f in first.fixes if f.changes]
    assert riser_fixes and all(f.verified for f in riser_fixes)
    assert riser_fixes[0].changes[0].path == "gpu[1].riser"
    from planner.catalog import Catalog
    from planner.models.parts import Riser

    catalog = Catalog()
    for fix in riser_fixes:  # each a catalog riser rated for PCIe 4.0 or newer, on twinax or with a redriver/retimer
        riser = catalog.typed("riser", str(fix.changes[0].value), Riser)
        assert riser.pcie_gen >= 4 and (riser.construction == "twinax" or riser.signal != "passive")


def test_a_ribbon_riser_its_maker_validated_with_this_case_does_not_warn() -> None:
    riser = '{ base = "linkup-pcie4-riser-200mm", validated_with = ["generic-8-gpu-aluminium-mining-frame"] }'
    assert _signal(_on(riser)) == []


def test_a_ribbon_riser_validated_with_another_case_still_warns() -> None:
    riser = '{ base = "linkup-pcie4-riser-200mm", validated_with = ["fractal-meshify-2-xl"] }'
    assert len(_signal(_on(riser))) == 2


def test_the_example_on_redriver_kits_has_no_signal_warning() -> None:
    assert _signal(EXAMPLE.read_text()) == []


def test_a_riser_validated_with_a_case_the_catalogs_lack_is_reported(tmp_path: Path) -> None:
    text = (ROOT / "catalogs" / "risers.toml").read_text()
    first = "[" + text.split("\n[", 1)[1].split("\n[", 1)[0]
    (tmp_path / "risers.toml").write_text(first + '\nvalidated_with = ["fractal-meshify-2-xxl"]\n')
    problems = [str(p) for p in Catalog([ROOT / "catalogs", tmp_path]).validate(only=tmp_path)]
    assert len(problems) == 1 and "validated_with: no case or motherboard 'fractal-meshify-2-xxl'" in problems[0]


def _gen5(riser: str) -> str:
    """The dual-4090 X670E example (Ryzen 9 7950X, PCIe 5.0 slots) with one RTX 5090 FE on `riser` instead."""
    text = example("warn-dual-4090-fe-x670e.toml").read_text()
    text = text.replace('case = "fractal-torrent"', 'case = { base = "fractal-torrent", vertical_gpu_mounts = 1 }')
    text = text.replace('part = "nvidia-rtx-4090-fe"\ncount = 2', f'part = "nvidia-rtx-5090-fe"\nriser = {riser}')
    assert "nvidia-rtx-5090-fe" in text
    return text


def test_a_pcie_5_link_over_a_passive_twinax_kit_warns_and_names_the_retimer() -> None:
    [finding] = _signal(_gen5('"c-payne-mcio-pcie5-passive-kit"'))
    assert "PCIe 5.0 through a passive riser has almost no signal margin" in finding.message
    assert "set to PCIe 4.0 in the BIOS (the x16 link drops from 63.0 to 31.5 GB/s each way)" in finding.message
    named = [str(f.changes[0].value) for f in finding.fixes if f.changes]
    assert named and all("retimer" in value for value in named)


def test_a_pcie_5_link_over_a_retimer_kit_does_not_warn() -> None:
    assert _signal(_gen5('"c-payne-mcio-pcie5-retimer-kit"')) == []


def test_a_pcie_5_ribbon_riser_is_trusted_only_at_pcie_3() -> None:
    [finding] = _signal(_gen5('"linkup-ava5-pcie5-riser-200mm"'))
    assert ("set to PCIe 3.0 in the BIOS (the fastest a passive ribbon riser is trusted at; the x16 link drops from "
            "63.0 to 15.8 GB/s each way)") in finding.message
