"""Tests of the BuildCores importer (tools/import_buildcores.py, the package tools/buildcores/) on a few real
BuildCores OpenDB records.

The RECORDS below are copies, trimmed to the fields the importer reads, of records from BuildCores OpenDB
(https://github.com/buildcores/buildcores-open-db, commit 136a77aec16a30ba81a7cc6b448a8bace9a25359),
available under the Open Data Commons Attribution License (ODC-By) v1.0; see catalogs/ATTRIBUTION.md.
"""

from __future__ import annotations

import json
import os
import re
import sys
import tomllib
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from planner.catalog import Catalog
from planner.models.parts import KIND_FILES, KIND_MODELS, GpuBoard

from helpers import ROOT

TOOLS = ROOT / "tools"
if str(TOOLS) not in sys.path:  # the importer's package, tools/buildcores (tools/import_buildcores.py is its command)
    sys.path.insert(0, str(TOOLS))

from buildcores.chips import ChipIndex, ChipInfo  # noqa: E402
from buildcores.context import Context  # noqa: E402
from buildcores.driver import MAPPERS, main  # noqa: E402
from buildcores.gpus import chipset_links, gpu_link, map_gpu, power_limits  # noqa: E402
from buildcores.ids import Candidate, Makers, Skip, assign_ids, dedupe, make_id, tokens  # noqa: E402
from buildcores.psus import map_psu, psu_atx_version  # noqa: E402
from buildcores.snapshot import SNAPSHOT_COMMIT, SOURCE_DIRS, check_snapshot  # noqa: E402
from buildcores.writing import render  # noqa: E402

RECORDS: dict[str, dict[str, Any]] = {
    "gpu-a6000": {"opendb_id": "19e23608-7d79-4eaa-9dfa-42011c339fec", "metadata": {"name": "PNY NVIDIA RTX A6000 48GB GDDR6", "manufacturer": "PNY", "manufacturer_color": "Black", "part_numbers": ["VCNRTXA6000-PB", "VCNRTXA6000-BLK"]}, "chipset_manufacturer": "NVIDIA", "chipset": "RTX A6000", "memory": 48, "memory_type": "GDDR6", "tdp": 300, "power_connectors": {"pcie_6_pin": 0, "pcie_8_pin": 1, "pcie_12VHPWR": 0, "pcie_12V_2x6": 0}, "total_slot_width": 2, "case_expansion_slot_width": 2, "length": 267, "cooling": "1 Fan", "interface": "PCIe 4.0 x16", "color": ["BLACK", "GOLD"]},  # noqa: E501
    "gpu-2080s": {"opendb_id": "33ce97ff-bc5e-4cfe-b1a7-f27dd7990fda", "metadata": {"name": "EVGA GeForce RTX 2080 SUPER FTW3 GAMING 8GB GDDR6 Black", "manufacturer": "EVGA", "variant": "EVGA", "part_numbers": ["08G-P4-3283-KR"]}, "chipset_manufacturer": "NVIDIA", "chipset": "GeForce RTX 2080 SUPER", "memory": 8, "memory_type": "GDDR6", "tdp": 250, "power_connectors": {"pcie_6_pin": 0, "pcie_8_pin": 2, "pcie_12VHPWR": 0, "pcie_12V_2x6": 0}, "total_slot_width": 3, "length": 302, "cooling": "3 Fans", "interface": "PCIe x16", "color": ["BLACK"]},  # noqa: E501
    "gpu-3090-turbo": {"opendb_id": "65adb256-fc9b-4545-a59c-1913a3f1f6be", "metadata": {"name": "Gigabyte TURBO Black GeForce RTX 3090 24GB GDDR6X", "manufacturer": "Gigabyte", "variant": "Gigabyte", "part_numbers": ["GV-N3090TURBO-24GD"]}, "chipset_manufacturer": "NVIDIA", "chipset": "GeForce RTX 3090", "memory": 24, "memory_type": "GDDR6X", "tdp": 350, "power_connectors": {"pcie_6_pin": 0, "pcie_8_pin": 2, "pcie_12VHPWR": 0, "pcie_12V_2x6": 0}, "total_slot_width": 2, "length": 267, "cooling": "1 Fan", "interface": "PCIe x16", "color": ["BLACK"]},  # noqa: E501
    "gpu-4090-fe": {"opendb_id": "7b22a20f-74d2-4855-85d2-b4674da07de1", "metadata": {"name": "NVIDIA Founders Edition GeForce RTX 4090 24GB GDDR6X", "manufacturer": "NVIDIA", "manufacturer_color": "Black / Silver", "part_numbers": ["900-1G136-2530-000"]}, "chipset_manufacturer": "NVIDIA", "chipset": "GeForce RTX 4090", "memory": 24, "memory_type": "GDDR6X", "tdp": 450, "power_connectors": {"pcie_6_pin": 0, "pcie_8_pin": 0, "pcie_12V_2x6": 0, "pcie_12VHPWR": 1}, "total_slot_width": 3, "case_expansion_slot_width": 3, "length": 304, "cooling": "2 Fans", "interface": "PCIe 4.0 x16", "color": ["BLACK", "GREY"]},  # noqa: E501
    "psu-cx600": {"opendb_id": "1f9d390b-ebdc-4b74-a15f-d996dcfc388a", "metadata": {"name": "Corsair CX600 600W Non-Modular 80+ Bronze", "manufacturer": "Corsair", "variant": "600W Bronze", "part_numbers": ["CX600", "CP-9020048-UK", "CP-9020048-US", "CP-9020048-NA", "CP-9020048-EU"]}, "wattage": 600, "form_factor": "ATX", "efficiency_rating": "80+ Bronze", "connectors": {"atx_24_pin": 1, "eps_8_pin": 0, "pcie_12vhpwr": 0, "pcie_6_plus_2_pin": 0, "sata": 6, "molex_4_pin": 0, "floppy_4_pin": 0}, "length": 139, "color": []},  # noqa: E501
    "psu-gsk": {"opendb_id": "7b77aef0-c485-42d5-9b1a-f64af7dd7b20", "metadata": {"name": "Antec GSK Black ATX3.1 750W Fully Modular ATX 80+ Gold Certified", "manufacturer": "Antec", "variant": "750W Gold", "part_numbers": ["0-761345-20053-0", "0-761345-20054-7", "0-761345-20056-1", "0-761345-20055-4", "0-761345-20057-8"]}, "wattage": 750, "form_factor": "ATX", "efficiency_rating": "80+ Gold", "connectors": {"atx_24_pin": 1, "eps_8_pin": 2, "pcie_12vhpwr": 1, "pcie_6_plus_2_pin": 4, "sata": 8, "molex_4_pin": 4, "floppy_4_pin": 0}, "length": 140, "color": ["BLACK"]},  # noqa: E501
    "psu-ax860i": {"opendb_id": "c17333ed-b8c9-4185-a82a-40035c41144d", "metadata": {"name": "Corsair AX860i 860W 80+ Platinum Fully Modular", "manufacturer": "Corsair", "variant": "860W Platinum", "part_numbers": ["AX860i", "CP-9020037-NA", "CMPSU-AX860i", "CP-9020037-UK", "CP-9020037-AU", "CP-9020037-EU"]}, "wattage": 860, "form_factor": "ATX", "efficiency_rating": "80+ Platinum", "connectors": {"atx_24_pin": 1, "eps_8_pin": 2, "pcie_12vhpwr": 0, "pcie_6_plus_2_pin": 6, "sata": 12, "molex_4_pin": 8, "floppy_4_pin": 0}, "length": 160, "color": []},  # noqa: E501
    "case-a4": {"opendb_id": "2fae513e-d482-492a-909d-e9b639ed027a", "metadata": {"name": "DAN Cases A4 SFX Mini-ITX Desktop Black with USB 3.2 Gen 1 Type-A", "manufacturer": "DAN Cases", "variant": "", "part_numbers": ["A4SFXV1-B"]}, "form_factor": "Mini ITX Tower", "supported_motherboard_form_factors": ["Mini-ITX"], "expansion_slots": 2, "max_video_card_length": 295, "color": ["BLACK"]},  # noqa: E501
    "case-216": {"opendb_id": "c039163b-f5f6-4802-91f7-a01aed59d7de", "metadata": {"name": "Lian Li LANCOOL 216 RGB EATX Mid Tower White Tempered Glass USB 3.2 Gen 2 Type-C USB 3.2 Gen 1 Type-A", "manufacturer": "Lian Li", "variant": "216 White", "part_numbers": ["LANCOOL 216RW", "G99.LAN216RW.00", "PC-LAN216RW", "LANCOOL 216R-W", "LANCOOL216RW"]}, "form_factor": "EATX Mid Tower", "supported_motherboard_form_factors": ["EATX", "ATX", "Micro ATX", "Mini-ITX"], "expansion_slots": 7, "max_video_card_length": 392, "riser_expansion_slots": 7, "color": ["WHITE"]},  # noqa: E501
    "board-trx40": {"opendb_id": "18d66e44-222d-4276-b882-14cdfab87a4f", "metadata": {"name": "Gigabyte TRX40 AORUS MASTER sTRX4 DDR4 EATX", "manufacturer": "Gigabyte", "variant": "", "part_numbers": ["TRX40 AORUS MASTER"]}, "form_factor": "EATX", "socket": "sTRX4", "chipset": "AMD TRX40", "memory": {"ram_type": "DDR4", "slots": 8}, "pcie_slots": [{"gen": "4.0", "quantity": 4, "lanes": 16}, {"gen": "4.0", "quantity": 1, "lanes": 1}]},  # noqa: E501
    "board-x99": {"opendb_id": "2e6d31c0-57c2-4b35-a7e7-6a44eb345631", "metadata": {"name": "ASRock X99 OC Formula/3.1 LGA2011-3 DDR4 EATX", "manufacturer": "ASRock", "variant": "", "part_numbers": ["X99 OC Formula", "3.1"]}, "form_factor": "EATX", "socket": "LGA 2011-3", "chipset": "Intel X99", "memory": {"ram_type": "DDR4", "slots": 8}, "pcie_slots": [{"gen": "4.0", "quantity": 5, "lanes": 16}]},  # noqa: E501
    "board-970": {"opendb_id": "e2e1861d-171b-4de0-869a-15041119c2b7", "metadata": {"name": "Gigabyte AMD 970 GA-970A-UD3 AM3+ DDR3 ATX", "manufacturer": "Gigabyte", "variant": "", "part_numbers": ["GA-970A-UD3"]}, "form_factor": "ATX", "socket": "AM3+", "chipset": "AMD 970", "memory": {"ram_type": "DDR3", "slots": 4}, "pcie_slots": [{"gen": "4.0", "quantity": 2, "lanes": 16}, {"gen": "4.0", "quantity": 3, "lanes": 1}]},  # noqa: E501
    "board-x570": {"opendb_id": "f023d38e-eda9-45aa-8d65-e240ff41933e", "metadata": {"name": "MSI X570 MAG TOMAHAWK WIFI DDR4 ATX", "manufacturer": "MSI", "variant": "", "part_numbers": ["MAG X570 TOMAHAWK WIFI", "911-7C84-001", "X570 TOMAHAWK WIFI", "7C84-001R"]}, "form_factor": "ATX", "socket": "AM4", "chipset": "AMD X570", "memory": {"ram_type": "DDR4", "slots": 4}, "pcie_slots": [{"gen": "4.0", "quantity": 2, "lanes": 16}, {"gen": "4.0", "quantity": 2, "lanes": 1}]},  # noqa: E501
    "cpu-7950x": {"opendb_id": "63f23f26-d52c-4e3c-be6e-0d25163cff59", "metadata": {"name": "AMD Ryzen 9 7950X", "manufacturer": "AMD", "variant": "7950X", "part_numbers": ["100-100000514WOF", "RYZEN 9 7950X"]}, "socket": "AM5", "microarchitecture": "Zen 4", "cores": {"total": 16, "performance": 0, "threads": 32, "efficiency": 0}, "specifications": {"tdp": 170, "ppt": 230}},  # noqa: E501
    "cpu-7800x": {"opendb_id": "9ba01056-5190-4d7b-ade4-e930eeddd24c", "metadata": {"name": "Intel Core i7 7800X", "manufacturer": "Intel", "variant": "7800X", "part_numbers": ["BX80673I77800X"]}, "socket": "LGA 2066", "microarchitecture": "Skylake", "cores": {"total": 6, "performance": 0, "threads": 12, "efficiency": 0}, "specifications": {"tdp": 140, "ppt": 0}},  # noqa: E501
    "cpu-7800x-again": {"opendb_id": "ebff2be8-3870-47b5-ac0e-a09f3bece51a", "metadata": {"name": "Intel Core i7 7800X", "manufacturer": "Intel", "variant": "7800X", "part_numbers": ["BXC80673I77800X"]}, "socket": "LGA 2066", "microarchitecture": "Skylake", "cores": {"total": 6, "performance": 0, "threads": 12, "efficiency": 0}, "specifications": {"tdp": 140, "ppt": 0}},  # noqa: E501
    "cpu-3970x": {"opendb_id": "e155f7cf-5720-4f15-bf3c-96a1dfca8ac0", "metadata": {"name": "AMD Ryzen Threadripper 3970X", "manufacturer": "AMD", "variant": "3970X", "part_numbers": ["100-100000011WOF", "AMD Ryzen Threadripper 3970X"]}, "socket": "sTRX4", "microarchitecture": "Zen 2", "cores": {"total": 32, "performance": 0, "threads": 64, "efficiency": 0}, "specifications": {"tdp": 280, "ppt": 0}},  # noqa: E501
    "cpu-8700g": {"opendb_id": "fe3d12e9-87eb-4701-8579-5c29d61437c6", "metadata": {"name": "AMD Ryzen 7 8700G", "manufacturer": "AMD", "variant": "8700G", "part_numbers": ["100-100001236BOX", "AMD Ryzen™ 7 8700G", "Ryzen 7 8700G"]}, "socket": "AM5", "microarchitecture": "Zen 4", "cores": {"total": 8, "performance": 0, "threads": 16, "efficiency": 0}, "specifications": {"tdp": 65, "ppt": 88}},  # noqa: E501
}

KIND_OF = {"gpu": "gpu", "psu": "psu", "case": "case", "board": "motherboard", "cpu": "cpu"}


def _chip(name: str, architecture: str, memory: int, memory_type: str, tdp: int) -> dict[str, Any]:
    return {"name": name, "maker": "NVIDIA", "architecture": architecture, "year": 2020, "memory": memory,
            "memory_type": memory_type, "memory_bandwidth": 500, "tdp": tdp, "source": "test fixture"}


CHIPS = {
    "rtx-3090": _chip("NVIDIA GeForce RTX 3090", "ampere", 24, "GDDR6X", 350),
    "rtx-4090": _chip("NVIDIA GeForce RTX 4090", "ada", 24, "GDDR6X", 450),
    "rtx-a6000": _chip("NVIDIA RTX A6000", "ampere", 48, "GDDR6", 300),
    "rtx-2080-super": _chip("NVIDIA GeForce RTX 2080 SUPER", "turing", 8, "GDDR6", 250),
    "rtx-4060-ti-8gb": _chip("NVIDIA GeForce RTX 4060 Ti 8 GB", "ada", 8, "GDDR6", 160),
    "rtx-4060-ti-16gb": _chip("NVIDIA GeForce RTX 4060 Ti 16 GB", "ada", 16, "GDDR6", 165),
    "rtx-3080": _chip("NVIDIA GeForce RTX 3080", "ampere", 10, "GDDR6X", 320),
    "rtx-3080-12gb": _chip("NVIDIA GeForce RTX 3080 12 GB", "ampere", 12, "GDDR6X", 350),
    "rtx-6000-ada": _chip("NVIDIA RTX 6000 Ada Generation", "ada", 48, "GDDR6", 300),
    "broken": {"name": "missing most fields"},
}


def records_of(kind: str) -> list[dict[str, Any]]:
    return [r for key, r in RECORDS.items() if KIND_OF[key.split("-")[0]] == kind]


@pytest.fixture
def ctx() -> Any:
    makers = {kind: Makers(records_of(kind)) for kind in MAPPERS}
    return Context(ChipIndex(CHIPS), makers, chipset_links(records_of("gpu")))


def mapped(key: str, ctx: Any) -> Any:
    kind = KIND_OF[key.split("-")[0]]
    cand = MAPPERS[kind](RECORDS[key], ctx)
    KIND_MODELS[kind].model_validate({**cand.data, "id": cand.base_id})
    assert cand.data["source"] == f"BuildCores OpenDB (ODC-By), {RECORDS[key]['opendb_id']}"
    return cand


def skip_reason(key: str, ctx: Any) -> str:
    with pytest.raises(Skip) as caught:
        MAPPERS[KIND_OF[key.split("-")[0]]](RECORDS[key], ctx)
    return caught.value.reason


# -- GPU boards -----------------------------------------------------------------------------------------

def test_blower_3090_maps_chip_cooler_and_power_limits(ctx: Any) -> None:
    cand = mapped("gpu-3090-turbo", ctx)
    data = cand.data
    assert cand.base_id == "gigabyte-rtx-3090-turbo"
    assert data["chip"] == "rtx-3090"
    assert data["cooler"] == "blower"  # the name says TURBO; the source says "1 Fan"
    assert data["power_connectors"] == ["pcie-8pin", "pcie-8pin"]
    assert (data["tdp"], data["power_limit_min"], data["power_limit_max"]) == (350, 100, 350)
    assert (data["slot_width"], data["length"], data["height"]) == (2, 267, 111.15)
    assert {"power_limit_min", "power_limit_max", "temp_target", "temp_max_operating", "height"} <= set(
        data["estimated"])
    assert "cooler" not in data["estimated"]


def test_founders_edition_is_flow_through_with_fe_id(ctx: Any) -> None:
    cand = mapped("gpu-4090-fe", ctx)
    assert cand.base_id == "nvidia-rtx-4090-fe"
    assert cand.data["cooler"] == "flow-through"
    assert cand.data["power_connectors"] == ["12vhpwr"]
    assert cand.data["power_limit_min"] == 150  # ada: 0.33 × 450 W
    assert (cand.data["pcie_gen"], "pcie_lanes" in cand.data) == (4, False)  # x16 is the model default


def test_professional_single_fan_card_is_a_blower_with_an_eps_input(ctx: Any) -> None:
    data = mapped("gpu-a6000", ctx).data
    assert data["chip"] == "rtx-a6000"  # not rtx-6000-ada: the exact name wins over the loose one
    assert data["power_connectors"] == ["eps-8pin"]
    assert data["cooler"] == "blower"
    assert {"power_connectors", "cooler"} <= set(data["estimated"])
    assert "EPS" in data["notes"]


def test_generation_comes_from_other_records_of_the_chipset(ctx: Any) -> None:
    data = mapped("gpu-2080s", ctx).data  # interface "PCIe x16": no generation
    assert data["pcie_gen"] == 3  # turing, from the architecture table (no other 2080 SUPER record)
    assert "pcie_gen" in data["estimated"]
    assert data["power_limit_min"] == 125  # turing: max(125 W, 0.40 × 250 W)
    links = chipset_links([{"chipset": "GeForce RTX 2080 SUPER", "interface": "PCIe 3.0 x8"}])
    assert gpu_link(RECORDS["gpu-2080s"], links, ctx.chips.chips["rtx-2080-super"]) == (
        3, 8, ["pcie_gen", "pcie_lanes"])


def test_power_limit_rule_by_architecture() -> None:
    def chip(arch: str, tdp: float) -> Any:
        return ChipInfo("c", 16, "GDDR7", tdp, arch)
    assert power_limits(chip("blackwell", 575), 575, False) == (400, 575)  # nvidia-smi: 400–600 W
    assert power_limits(chip("blackwell", 140), 140, True) == (70, 140)  # RTX PRO 4000: 70 W
    assert power_limits(chip("ampere", 450), 480, False) == (100, 480)  # board above the chip's tdp
    assert power_limits(chip("ada", 115), 115, False) == (115, 115)  # the floor is capped at tdp
    assert power_limits(chip("rdna3", 355), 355, False) == (320, 355)


def test_gpu_skips(ctx: Any) -> None:
    small = {**RECORDS["gpu-3090-turbo"], "memory": 6}
    no_plugs = {**RECORDS["gpu-4090-fe"], "power_connectors": {"pcie_8_pin": 0}}
    unknown = {**RECORDS["gpu-4090-fe"], "chipset": "Radeon RX 7900 XTX"}
    cases = [(small, "under 8 GB"), (no_plugs, "connectors missing"), (unknown, "not in gpu-chips")]
    for record, reason in cases:
        with pytest.raises(Skip, match=reason):
            map_gpu(record, ctx)


def test_a_6_pin_input_is_imported_as_pcie_6pin(ctx: Any) -> None:
    six_pin = {**RECORDS["gpu-2080s"], "power_connectors": {"pcie_6_pin": 1, "pcie_8_pin": 1}}
    assert map_gpu(six_pin, ctx).data["power_connectors"] == ["pcie-8pin", "pcie-6pin"]


def test_chip_match_uses_memory_and_ignores_invalid_chips() -> None:
    chips = ChipIndex(CHIPS)
    assert "broken" in chips.invalid
    assert chips.match("GeForce RTX 4060 Ti", 16, "GDDR6").id == "rtx-4060-ti-16gb"
    assert chips.match("GeForce RTX 4060 Ti 8 GB", 8, "GDDR6").id == "rtx-4060-ti-8gb"
    assert chips.match("GeForce RTX 3080 12 GB", 12, "GDDR6X").id == "rtx-3080-12gb"
    with pytest.raises(Skip, match="memory type"):
        chips.match("GeForce RTX 3090", 24, "GDDR6")
    with pytest.raises(Skip, match="memory size"):
        chips.match("GeForce RTX 3090", 12, "GDDR6X")


# -- PSUs -----------------------------------------------------------------------------------------------

def test_psu_maps_connectors_and_marks_assumptions(ctx: Any) -> None:
    cand = mapped("psu-ax860i", ctx)
    assert cand.base_id == "corsair-ax860i"  # "860w" dropped: the model name holds it
    data = cand.data
    assert data["connectors"] == {"pcie-8pin": 6, "eps-8pin": 2}
    assert (data["efficiency"], data["atx_version"], data["ac_inlet"]) == ("80plus-platinum", "2.x", "c14")
    big = map_psu({**RECORDS["psu-ax860i"], "wattage": 1600}, ctx).data
    assert big["ac_inlet"] == "c20" and "ac_inlet" in big["estimated"]
    assert data["estimated"] == ["atx_version", "ac_inlet"]
    assert "form_factor" not in data  # atx is the model default


def test_psu_atx_version_from_the_name(ctx: Any) -> None:
    data = mapped("psu-gsk", ctx).data
    assert data["atx_version"] == "3.1" and data["estimated"] == ["ac_inlet"]
    assert data["connectors"] == {"pcie-8pin": 4, "12vhpwr": 1, "eps-8pin": 2}
    assert psu_atx_version("FSP Group FSP300-60LG-5K Silver Flex ATX 300W") == ("2.x", True)
    assert psu_atx_version("MSI MAG A750GL PCIE5 Black 750W") == ("3.0", True)


def test_psu_without_connector_counts_is_skipped(ctx: Any) -> None:
    assert skip_reason("psu-cx600", ctx) == "connector counts missing"
    with pytest.raises(Skip, match="under 500 W"):
        map_psu({**RECORDS["psu-ax860i"], "wattage": 450}, ctx)


# -- cases ----------------------------------------------------------------------------------------------

def test_case_maps_form_factors_and_leaves_the_unpublished_airflow_unknown(ctx: Any) -> None:
    cand = mapped("case-216", ctx)
    assert cand.base_id == "lian-li-lancool-216-rgb"
    data = cand.data
    assert data["form_factors"] == ["mini-itx", "micro-atx", "atx", "e-atx"]
    assert (data["expansion_slots"], data["max_gpu_length"]) == (7, 392)
    assert "intake_airflow" not in data  # not in the source: unknown, not 0
    assert data["vertical_gpu_mounts"] == 1  # the source lists riser slots
    assert set(data["estimated"]) == {"psu_bays", "vertical_gpu_mounts"}
    assert "intake airflow unknown" in data["notes"]


def test_mini_itx_only_case_is_skipped(ctx: Any) -> None:
    assert skip_reason("case-a4", ctx) == "takes no ATX-family board"


# -- motherboards ---------------------------------------------------------------------------------------

def test_hedt_board_slots_by_rule(ctx: Any) -> None:
    cand = mapped("board-trx40", ctx)
    assert cand.base_id == "gigabyte-trx40-aorus-master"
    data = cand.data
    assert (data["socket"], data["chipset"], data["form_factor"], data["memory_slots"]) == (
        "sTRX4", "TRX40", "e-atx", 8)
    assert [(s["name"], s["position"], s["lanes"], s["gen"], s["source"]) for s in data["slots"]] == [
        ("PCIE1", 1, 16, 4, "cpu"), ("PCIE2", 3, 8, 4, "cpu"), ("PCIE3", 5, 16, 4, "cpu"),
        ("PCIE4", 7, 8, 4, "cpu")]
    assert data["estimated"] == ["slots"] and "rule" in data["notes"]


def test_placeholder_generation_is_capped_at_the_platform(ctx: Any) -> None:
    slots = mapped("board-x99", ctx).data["slots"]  # the source says PCIe 4.0 on X99
    assert {s["gen"] for s in slots} == {3}
    assert [s["position"] for s in slots] == [1, 2, 3, 4, 5]  # five x16 slots do not fit every other one


def test_desktop_board_second_slot_from_the_chipset(ctx: Any) -> None:
    cand = mapped("board-x570", ctx)
    assert cand.base_id == "msi-x570-mag-tomahawk-wifi"
    assert [(s["position"], s["lanes"], s["source"]) for s in cand.data["slots"]] == [
        (1, 16, "cpu"), (3, 4, "chipset")]


def test_old_platform_is_skipped(ctx: Any) -> None:
    assert "older than PCIe 3.0" in skip_reason("board-970", ctx)


# -- CPUs -----------------------------------------------------------------------------------------------

def test_cpu_lanes_from_the_family_rule(ctx: Any) -> None:
    ryzen = mapped("cpu-7950x", ctx).data
    assert (ryzen["socket"], ryzen["cores"], ryzen["tdp"], ryzen["package_power"]) == ("AM5", 16, 170, 230)
    assert (ryzen["pcie_lanes"], ryzen["pcie_gen"]) == (24, 5)
    assert ryzen["estimated"] == ["pcie_lanes", "pcie_gen"]
    assert mapped("cpu-3970x", ctx).data["pcie_lanes"] == 72
    intel = mapped("cpu-7800x", ctx)
    assert intel.base_id == "intel-core-i7-7800x"
    assert (intel.data["socket"], intel.data["pcie_lanes"], "package_power" in intel.data) == ("LGA2066", 28, False)


def test_apu_is_skipped(ctx: Any) -> None:
    assert skip_reason("cpu-8700g", ctx).startswith("APU")


# -- ids and output -------------------------------------------------------------------------------------

def test_duplicates_are_dropped_and_collisions_get_distinguishing_parts(ctx: Any) -> None:
    skipped: Counter[str] = Counter()
    cands = [mapped("cpu-7800x", ctx), mapped("cpu-7800x-again", ctx)]
    assert len(dedupe(cands, skipped)) == 1 and sum(skipped.values()) == 1
    a = Candidate("maker-model", {"name": "A"}, "aaaa1111-x", ("16gb", "black"))
    b = Candidate("maker-model", {"name": "B"}, "bbbb2222-x", ("16gb", "white"))
    c = Candidate("maker-model", {"name": "C"}, "cccc3333-x", ("8gb", "black"))
    d = Candidate("other", {"name": "D"}, "dddd4444-x", ("8gb",))
    ids = assign_ids([c, b, a, d])
    assert sorted(ids) == ["maker-model-16gb-black", "maker-model-16gb-white", "maker-model-8gb", "other"]
    assert ids == assign_ids([a, b, c, d])  # independent of input order
    twins = assign_ids([Candidate("x-y", {}, "12345678-a", ()), Candidate("x-y", {}, "87654321-b", ())])
    assert sorted(twins) == ["x-y-12345678", "x-y-87654321"]


def test_make_id_is_a_valid_kebab_id() -> None:
    assert make_id("be quiet!", [], tokens("Dark Power 12 (rev. 1.0)™")) == "be-quiet-dark-power-12-rev-1-0"
    assert make_id("Sapphire", [], tokens("Nitro+ Vapor-X")) == "sapphire-nitro-plus-vapor-x"
    assert make_id("X", [], tokens("a b c d e f g h")) == "x-a-b-c-d-e-f"  # six tokens after the maker
    assert make_id("ASUS", ["rtx", "4090"], ["rog", "strix", "rog", "oc"]) == "asus-rtx-4090-rog-strix-oc"


def test_render_round_trips_through_tomllib() -> None:
    entries = {"b-part": {"name": 'He said "hi"\\ \t\x7f é', "n": 2, "f": 111.15, "w": 3.0, "ok": True,
                          "list": ["pcie-8pin"], "table": {"12vhpwr": 1, "pcie-8pin": 2}},
               "a-part": {"name": "A"}}
    text = render("psu", entries)
    assert tomllib.loads(text) == entries
    with pytest.raises(ValueError, match="bare"):
        render("psu", {"a.b": {}})
    body = [line for line in text.splitlines() if not line.startswith("#")]
    assert body[0].startswith("a-part = {") and len(body) == 2


def test_main_writes_valid_deterministic_files(tmp_path: Path) -> None:
    source = tmp_path / "src"
    (source / "open-db").mkdir(parents=True)
    (source / "SOURCE.md").write_text(f"snapshot commit {SNAPSHOT_COMMIT}\n")
    (source / "LICENSE.txt").write_text("ODC-By\n")
    for key, record in RECORDS.items():
        folder = source / "open-db" / SOURCE_DIRS[KIND_OF[key.split("-")[0]]]
        folder.mkdir(exist_ok=True)
        (folder / f"{record['opendb_id']}.json").write_text(json.dumps(record))
    chips = tmp_path / "gpu-chips.toml"
    chips.write_text(render("gpu-chip", {k: v for k, v in CHIPS.items() if k != "broken"}))
    out = tmp_path / "out"
    no_curated = tmp_path / "no-curated-parts"  # every record stands alone here (test_catalog_identity.py
    no_curated.mkdir()                           # checks the matching to curated parts)
    args = ["--source", str(source), "--out", str(out), "--chips", str(chips), "--curated", str(no_curated)]
    assert main(args) == 0
    first = {p.name: p.read_bytes() for p in out.glob("*.toml")}
    assert sorted(first) == ["cases.toml", "cpus.toml", "gpus.toml", "motherboards.toml", "psus.toml"]
    assert main(args) == 0
    assert first == {p.name: p.read_bytes() for p in out.glob("*.toml")}
    assert not list(out.glob(".*.tmp"))
    umask = os.umask(0)
    os.umask(umask)
    assert all((p.stat().st_mode & 0o777) == 0o666 & ~umask for p in out.glob("*.toml"))  # as a plain write makes
    for kind, name in KIND_FILES.items():
        if kind in MAPPERS:
            for part_id, data in tomllib.loads(first[name].decode()).items():
                KIND_MODELS[kind].model_validate({**data, "id": part_id})
    gpus = tomllib.loads(first["gpus.toml"].decode())
    assert set(gpus) == {"pny-rtx-a6000", "evga-rtx-2080-super-ftw3-gaming", "gigabyte-rtx-3090-turbo",
                         "nvidia-rtx-4090-fe"}
    for text in first.values():  # one `id = {…}` line per entry, as the catalog loader expects
        body = [line for line in text.decode().splitlines() if not line.startswith("#")]
        assert all(re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)* = \{.*\}", line) for line in body)
    catalog_dir = tmp_path / "catalog"
    (catalog_dir / "imported").mkdir(parents=True)
    (catalog_dir / "imported" / "gpus.toml").write_bytes(first["gpus.toml"])
    (catalog_dir / "gpu-chips.toml").write_text(chips.read_text())
    board = Catalog([catalog_dir]).get("gpu", "nvidia-rtx-4090-fe")
    assert isinstance(board, GpuBoard) and board.chip == "rtx-4090"


def test_an_output_path_that_is_a_file_is_refused_in_one_sentence(tmp_path: Path) -> None:
    out = tmp_path / "imported"
    out.write_text("not a folder")
    with pytest.raises(SystemExit, match="not a folder"):
        main(["--out", str(out)])
    assert out.read_text() == "not a folder"


def test_refuses_another_snapshot(tmp_path: Path) -> None:
    (tmp_path / "SOURCE.md").write_text("snapshot commit 0000\n")
    with pytest.raises(SystemExit):
        check_snapshot(tmp_path)
