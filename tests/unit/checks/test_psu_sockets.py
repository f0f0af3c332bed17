"""PSU modular sockets as the connector budget: where a unit's PCIe, EPS (and 12VHPWR) cables share its sockets,
`psu.connectors`, the multi-PSU split and its min-cut count sockets, not only plugs (issue 12)."""

from __future__ import annotations

import pytest

from planner.api import check_build
from planner.catalog import Catalog
from planner.checks.engine.findings import Finding
from planner.models.parts import Psu
from planner.physics.delivery import power_split
from planner.physics.delivery_graph import SOCKET_UNIT, bottleneck
from planner.physics.power import dc_budget

from helpers import build, gpus

# A Threadripper PRO 7975WX draws 350 W: two EPS plugs (one per started 300 W); the 5975WX (280 W) takes one.
SIX_FIFTY_CPU = """
case = "fractal-meshify-2-xl"
motherboard = "asus-pro-ws-wrx90e-sage-se"
cpu = "amd-threadripper-pro-7975wx"
"""
TWO_EIGHTY_CPU = """
case = "fractal-meshify-2-xl"
motherboard = "asus-pro-ws-wrx80e-sage-se"
cpu = "amd-threadripper-pro-5975wx"
"""
CIRCUITS = """
[[circuit]]
name = "a"
outlet = "nema-6-20"
[[circuit]]
name = "b"
outlet = "nema-6-20"
"""


def psus(*parts: str) -> str:
    """[[psu]] tables, the first on circuit "a", the second on "b"."""
    pairs = zip(parts, ("a", "b"), strict=False)
    return "".join(f'[[psu]]\npart = "{part}"\ncircuit = "{circuit}"\n' for part, circuit in pairs)


def connectors(text: str, catalog: Catalog) -> list[Finding]:
    return [f for f in check_build(build(text, catalog), catalog).findings if f.code == "psu.connectors"]


def test_ax1600i_with_four_3_input_cards_and_a_2_eps_cpu_fails_on_its_10_shared_sockets(catalog: Catalog) -> None:
    text = SIX_FIFTY_CPU + CIRCUITS + psus("corsair-ax1600i") + gpus("msi-rtx-3080-gaming-x-trio", 4)
    [finding] = connectors(text, catalog)
    assert finding.severity == "error"
    assert (finding.value, finding.limit, finding.unit) == (14, 10, "sockets")  # 12 PCIe + 2 EPS cables
    assert "GPU1–4 and the CPU need 14 of its 10 shared sockets" in finding.message


def test_shared_sockets_fail_a_build_whose_plug_counts_fit(catalog: Catalog) -> None:
    # five 2-input cards: 10 PCIe plugs of the AX1600i's 10, 1 EPS of 2 — but 11 cables for 10 sockets
    text = TWO_EIGHTY_CPU + CIRCUITS + psus("corsair-ax1600i") + gpus("gigabyte-rtx-3090-turbo", 5)
    [finding] = connectors(text, catalog)
    assert finding.severity == "error"
    assert (finding.value, finding.limit) == (11, 10)
    assert "11 of its 10 shared sockets" in finding.message and "PCIe 8-pin plugs, but" not in finding.message


def test_a_unit_without_shared_sockets_keeps_counting_plugs(catalog: Catalog) -> None:
    # the EVGA 1600 P2 has separate VGA and CPU sockets: 8 PCIe + 2 EPS cables are fine on its 9 + 2
    fits = SIX_FIFTY_CPU + CIRCUITS + psus("evga-supernova-1600-p2") + gpus("gigabyte-rtx-3090-turbo", 4)
    assert connectors(fits, catalog) == []
    short = SIX_FIFTY_CPU + CIRCUITS + psus("evga-supernova-1600-p2") + gpus("msi-rtx-3080-gaming-x-trio", 4)
    [finding] = connectors(short, catalog)
    assert (finding.value, finding.limit, finding.unit) == (12, 9, "plugs")
    assert "socket" not in finding.message


def test_a_12vhpwr_cable_on_two_8_pin_sockets_takes_two_shared_sockets(catalog: Catalog) -> None:
    # PRIME TX-1600 (2022): plugs fit (2 of 2 12VHPWR, 6 of 8 PCIe, 2 of 3 EPS); sockets 2 × 2 + 6 + 2 = 12 of 11
    text = (SIX_FIFTY_CPU + CIRCUITS + psus("seasonic-prime-tx-1600") + gpus("nvidia-rtx-4090-fe", 2)
            + gpus("msi-rtx-3080-gaming-x-trio", 2))
    [finding] = connectors(text, catalog)
    assert (finding.value, finding.limit, finding.unit) == (12, 11, "sockets")
    assert "2 12VHPWR/12V-2x6 cables at 2 sockets each" in finding.message


def test_a_shortfall_of_estimated_sockets_is_a_warning_that_names_the_estimate(catalog: Catalog) -> None:
    text = (SIX_FIFTY_CPU + CIRCUITS + psus("seasonic-prime-tx-1600") + gpus("nvidia-rtx-4090-fe", 2)
            + gpus("msi-rtx-3080-gaming-x-trio", 2))
    [finding] = connectors(text, catalog)
    assert finding.severity == "warning"
    assert "its 11 shared sockets are an estimate" in finding.message


def test_the_split_keeps_a_card_off_a_psu_whose_shared_sockets_are_full(catalog: Catalog) -> None:
    # four 200 W cards pinned to the AX1600i take 8 sockets and the CPU's EPS cable a 9th; the free card would
    # load the AX1600i less than the busy HX1000, but its two cables need two sockets and only one is left
    text = (TWO_EIGHTY_CPU + CIRCUITS + psus("corsair-ax1600i", "corsair-hx1000")
            + gpus("gigabyte-rtx-3090-turbo", 4, 'power_limit = "200 W"\npsu = 1')
            + gpus("gigabyte-rtx-3090-turbo", 2, "psu = 2")
            + gpus("gigabyte-rtx-3090-turbo", 1, 'power_limit = "200 W"'))
    resolved = build(text, catalog)
    split = power_split(resolved, dc_budget(resolved))
    assert split.gpu_psu[6] == 1 and split.feasible
    assert split.psus[0].plugs.sockets_used == 9
    assert connectors(text, catalog) == []


def test_the_min_cut_names_shared_sockets_when_they_are_the_bottleneck(catalog: Catalog) -> None:
    # two AX1600i: 20 PCIe plugs feed 19 inputs, but 19 PCIe + 2 EPS cables want 21 of their 20 sockets
    text = (SIX_FIFTY_CPU + CIRCUITS + psus("corsair-ax1600i", "corsair-ax1600i")
            + gpus("msi-rtx-3080-gaming-x-trio", 6) + gpus("msi-rtx-3060-ventus-2x-12g", 1))
    resolved = build(text, catalog)
    found = bottleneck(resolved, dc_budget(resolved))
    assert found is not None and found.unit == SOCKET_UNIT
    assert (found.wanted, found.deliverable) == (21, 20)
    assert any("shared sockets of PSU 1" in name for name in found.names)
    [split] = [f for f in check_build(resolved, catalog).findings if f.code == "psu.split"]
    assert "21 shared sockets wanted, 20 available" in split.message


def test_the_catalog_records_the_ax1600i_s_ten_shared_sockets_with_their_source(catalog: Catalog) -> None:
    ax = catalog.typed("psu", "corsair-ax1600i", Psu)
    assert ax.shared_sockets == 10 and "shared_sockets" not in ax.estimated
    assert "ten modular sockets shared by the PCIe and EPS cables" in ax.source


def test_socket_use_without_a_socket_count_is_rejected(catalog: Catalog) -> None:
    entry = catalog.typed("psu", "evga-supernova-1600-p2", Psu).model_dump(by_alias=True)
    with pytest.raises(ValueError, match="socket_use without shared_sockets"):
        Psu.model_validate({**entry, "socket_use": {"12vhpwr": 2}})
