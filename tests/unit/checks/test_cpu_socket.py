"""cpu.socket and memory.type: a CPU of another socket fails with verified fixes, a CPU of the right socket but not on
the board's recorded CPU support list warns (platform caveat), a generation the board runs only from a newer BIOS is
said, and RAM of a kind the board does not take fails — on the passing WRX80 example and the built-in catalog."""

from __future__ import annotations

import pytest

from planner.catalog import Catalog, builtin_dir, parse_part
from planner.checks.engine.findings import Finding
from planner.checks.engine.runner import run_checks
from planner.checks.platform import same_socket
from planner.util.errors import CatalogError

from conftest import example
from helpers import build

CATALOG = Catalog([builtin_dir()])
EXAMPLE = example("pass-dual-3090-wrx80.toml")  # two RTX 3090 on an ASUS WRX80E-SAGE SE with a TR PRO 5975WX
WRX80_BOARD, WRX80_CPU = "asus-pro-ws-wrx80e-sage-se", "amd-threadripper-pro-5975wx"


def _with(cpu: str = f'"{WRX80_CPU}"', board: str = WRX80_BOARD, ram: str | None = None) -> str:
    """The example with another CPU (a quoted id or an inline table), board and [extras] ram_type."""
    text = EXAMPLE.read_text()
    assert f'cpu = "{WRX80_CPU}"' in text and f'motherboard = "{WRX80_BOARD}"' in text and "[extras]" in text
    text = text.replace(f'cpu = "{WRX80_CPU}"', f"cpu = {cpu}")
    if board != WRX80_BOARD:  # the example pins the cards to this board's slot names
        text = text.replace(WRX80_BOARD, board).replace('slot = ["PCIEX16_1", "PCIEX16_5"]', "")
    return text.replace("[extras]", f'[extras]\nram_type = "{ram}"') if ram else text


def _found(text: str, code: str) -> list[Finding]:
    return [f for f in run_checks(build(text, CATALOG), CATALOG) if f.code == code]


def test_a_ryzen_9_7950x_on_an_swrx8_board_fails_with_a_verified_fix_naming_an_swrx8_cpu() -> None:
    [finding] = _found(_with('"amd-ryzen-9-7950x"'), "cpu.socket")
    assert finding.severity == "error" and "socket AM5" in finding.message and "socket sWRX8" in finding.message
    cpu_fixes = [f for f in finding.fixes if f.changes[0].path == "cpu"]
    assert cpu_fixes and all(f.verified for f in cpu_fixes)
    assert CATALOG.get("cpu", cpu_fixes[0].changes[0].value).socket == "sWRX8"  # type: ignore[attr-defined]


def test_the_cpu_fix_closest_in_cores_and_lanes_comes_first() -> None:
    [finding] = _found(_with('"amd-ryzen-9-7950x"'), "cpu.socket")
    # 16 cores: the 24-core TR PRO 5965WX is closer than the 32- and 64-core parts
    assert finding.fixes[0].changes[0].value == "amd-threadripper-pro-5965wx"


def test_a_wrong_socket_cpu_is_also_offered_a_board_of_its_own_socket_that_fits_the_build() -> None:
    [finding] = _found(_with('"amd-ryzen-9-7950x"'), "cpu.socket")
    [board_fix] = [f for f in finding.fixes if f.changes[0].path == "motherboard"]
    assert board_fix.verified and CATALOG.get("motherboard", board_fix.changes[0].value).socket == "AM5"  # type: ignore[attr-defined]
    # the example pins its cards to the WRX80 board's slot names: the fix leaves them to the planner
    assert board_fix.changes[1].path == "gpu" and "slot" not in board_fix.changes[1].value[0]


def test_a_cpu_of_the_boards_socket_on_its_support_list_passes() -> None:
    assert _found(_with(), "cpu.socket") == []
    assert _found(_with('"amd-threadripper-pro-3975wx"'), "cpu.socket") == []


def test_a_threadripper_7000_on_a_wrx90_board_warns_as_a_platform_caveat_with_fixes() -> None:
    [finding] = _found(_with('"amd-threadripper-7960x"', "asus-pro-ws-wrx90e-sage-se", "ddr5-rdimm"), "cpu.socket")
    assert finding.severity == "warning" and finding.message.startswith("Platform caveat")
    assert "threadripper-pro-7000wx" in finding.message and "catalog show asus-pro-ws-wrx90e-sage-se" in finding.message
    changes = {(f.changes[0].path, f.changes[0].value) for f in finding.fixes if f.verified}
    assert ("cpu", "amd-threadripper-pro-7965wx") in changes  # a PRO part the WRX90 board takes
    assert any(path == "motherboard" and "trx50" in value for path, value in changes)  # or a TRX50 board for the 7960X


def test_a_xeon_w_on_an_x299_board_warns_but_on_the_c422_board_of_pugets_build_does_not() -> None:
    xeon = '{ base = "intel-core-i9-10980xe", name = "Intel Xeon W-2255", generation = "xeon-w-2200", cores = 10 }'
    [finding] = _found(_with(xeon, "asus-ws-x299-sage"), "cpu.socket")
    assert finding.severity == "warning" and "X299" in finding.message
    assert _found(example("real-puget-quad-3090-turbo-300w-1x1600p2.toml").read_text(), "cpu.socket") == []


def test_a_core_x_cpu_on_a_c422_board_warns() -> None:
    [finding] = _found(_with('"intel-core-i9-10980xe"', "asus-ws-c422-sage-10g"), "cpu.socket")
    assert finding.severity == "warning" and "xeon-w-2200" in finding.message


def test_a_cpu_whose_generation_is_not_recorded_gets_no_platform_finding() -> None:
    unknown = ('{ name = "Some LGA2066 CPU", maker = "Intel", socket = "LGA2066", cores = 10, tdp = 165,'
               ' pcie_lanes = 48, pcie_gen = 3, source = "test" }')
    assert _found(_with(unknown, "asus-ws-x299-sage"), "cpu.socket") == []


def test_a_ryzen_9000_on_an_x670e_board_says_a_bios_update_may_be_needed() -> None:
    text = example("warn-dual-4090-fe-x670e.toml").read_text().replace("amd-ryzen-9-7950x", "amd-ryzen-9-9950x")
    [finding] = _found(text, "cpu.socket")
    assert finding.severity == "info" and "BIOS" in finding.message


def test_a_ryzen_7000_on_an_x670e_board_needs_no_bios_note() -> None:
    assert _found(example("warn-dual-4090-fe-x670e.toml").read_text(), "cpu.socket") == []


def test_registered_ddr5_on_a_consumer_am5_board_fails() -> None:
    text = example("warn-dual-4090-fe-x670e.toml").read_text().replace("[extras]", '[extras]\nram_type = "ddr5-rdimm"')
    [finding] = _found(text, "memory.type")
    assert finding.severity == "error" and "registered DIMMs do not run" in finding.message
    assert [f.changes for f in finding.fixes if f.verified] == [[("extras.ram_type", "ddr5")]]


def test_unbuffered_ddr4_on_a_wrx80_board_fails_and_registered_ddr4_passes() -> None:
    [finding] = _found(_with(ram="ddr4"), "memory.type")
    assert finding.severity == "error" and "unbuffered DIMMs do not run" in finding.message
    assert _found(_with(ram="ddr4-rdimm"), "memory.type") == []


def test_ddr5_on_a_ddr4_board_fails_for_the_wrong_generation() -> None:
    [finding] = _found(_with(ram="ddr5-rdimm"), "memory.type")
    assert "DDR5 modules do not fit" in finding.message


def test_no_ram_type_or_no_recorded_board_memory_means_no_memory_finding() -> None:
    assert _found(_with(), "memory.type") == []
    assert _found(_with('"intel-core-i9-10980xe"', "asus-ws-c422-sage-10g", "ddr5"), "memory.type") == []


def test_socket_names_compare_without_case_or_spaces() -> None:
    assert same_socket("LGA 2066", "lga2066") and not same_socket("sTRX4", "sWRX8")


def test_a_board_cannot_need_a_bios_update_for_a_generation_it_does_not_support() -> None:
    data = dict(CATALOG.entry("motherboard", "asus-rog-zenith-ii-extreme").data,
                bios_update_for=["threadripper-pro-5000wx"], id="asus-rog-zenith-ii-extreme")
    with pytest.raises(CatalogError, match="bios_update_for"):
        parse_part("motherboard", data, file="motherboards.toml", entry="asus-rog-zenith-ii-extreme")
