"""psu.headroom per PSU of the split, psu.transient and psu.connectors: the numbers in the findings and
fixes that re-checking confirms (docs/verdicts.md)."""

from __future__ import annotations

from planner.build.edit import apply
from planner.models.parts import Psu

from helpers import BASE, TEST_CATALOG, build, findings, gpus, report

ATX3_PSU = "be-quiet-dark-power-pro-13-1600w"  # ATX 3.0, 1,600 W, two native 12VHPWR plugs
TWO_CIRCUITS = """
case = "fractal-meshify-2-xl"
motherboard = "asus-pro-ws-wrx80e-sage-se"
cpu = "amd-threadripper-pro-5975wx"
[[circuit]]
name = "desk"
outlet = "nema-5-20"
[[circuit]]
name = "hall"
outlet = "nema-5-20"
[[psu]]
part = "corsair-ax1600i"
circuit = "desk"
[[psu]]
part = "corsair-hx1000"
circuit = "hall"
"""
REST = 368  # CPU 280 W, board 50 W, 4 DIMMs, 2 drives, 4 fans


# -- psu.headroom on the split -----------------------------------------------------------------------------------
def test_headroom_is_judged_per_psu_on_the_split() -> None:
    # 6 blower cards at 350 W: PSU 1 takes the board (368 W) + 3 cards = 1,418 W (89 % of 1,600 W),
    # PSU 2 the other 3 = 1,050 W (105 % of 1,000 W) — better than any other split of whole cards
    [warning, error] = sorted(findings(TWO_CIRCUITS + gpus("gigabyte-rtx-3090-turbo", 6), "psu.headroom"),
                              key=lambda f: f.severity == "error")
    assert (warning.severity, warning.value) == ("warning", REST + 3 * 350)
    assert (error.severity, error.value, error.limit) == ("error", 3 * 350, 1000)
    assert "PSU 2 (Corsair HX1000 (2017))" in error.message and "GPU4–6" in error.message


def test_headroom_offers_a_bigger_unit_for_the_overloaded_psu() -> None:
    # two cards pinned to a 600 W second unit: 700 W on it (117 %); a 1,000 W unit takes them at 70 %
    small = TWO_CIRCUITS.replace('part = "corsair-hx1000"', 'part = { base = "corsair-hx1000", wattage = 600 }')
    text = small + gpus("gigabyte-rtx-3090-turbo", 2) + gpus("gigabyte-rtx-3090-turbo", 2, "psu = 2")
    [error] = findings(text, "psu.headroom")
    assert (error.value, error.limit) == (700, 600)
    bigger = [f for f in error.fixes if f.changes[0].path == "psu[1].part"]
    assert bigger and bigger[0].changes[0].value == "corsair-hx1000" and bigger[0].verified


# -- psu.transient -------------------------------------------------------------------------------------------------
def test_peaks_within_10_percent_of_capability_warn() -> None:
    # 4 × 255 W × 1.432 + 368 W = 1,828.6 W over 1–5 ms: 96.9 % of the assumed 118 % × 1,600 W = 1,888 W
    [finding] = findings(BASE + gpus("nvidia-rtx-3090-fe", 4, 'power_limit = "255 W"'), "psu.transient")
    assert finding.severity == "warning" and "less than 10 % margin" in finding.message


def test_transient_fixes_are_a_lower_limit_and_an_atx_3_unit_both_verified() -> None:
    # 3 × 350 W × 1.432 + 368 W = 1,872 W: 99 % of 1,888 W
    [finding] = findings(BASE + gpus("nvidia-rtx-3090-fe", 3), "psu.transient")
    limit, *psus = finding.fixes
    # 3 × P × 1.432 + 368 ≤ 0.9 × 1,888 W → P ≤ 309.8 W → 305 W
    assert [c.value for c in limit.changes] == ["305 W"] and limit.verified
    [atx3] = [f for f in psus if f.changes[0].value == ATX3_PSU]
    assert atx3.verified and "rides 1,920 W over 10–20 ms" in atx3.description


def test_an_atx_3_unit_rides_the_same_peaks() -> None:
    text = BASE.replace("corsair-ax1600i", ATX3_PSU) + gpus("nvidia-rtx-4090-fe", 2)
    assert findings(text, "psu.transient") == []


# -- psu.connectors ------------------------------------------------------------------------------------------------
def test_12vhpwr_cards_on_an_8_pin_only_psu_warn_and_say_how_many_plugs_the_adapters_take() -> None:
    [finding] = findings(BASE + gpus("nvidia-rtx-4090-fe", 2), "psu.connectors")
    assert finding.severity == "warning"
    assert "GPU1, GPU2 (NVIDIA GeForce RTX 4090 Founders Edition) through 12VHPWR/12V-2x6 adapters taking 3" \
           " PCIe 8-pin plugs each" in finding.message


def test_the_adapter_warning_offers_a_psu_with_native_12vhpwr_plugs() -> None:
    [finding] = findings(BASE + gpus("nvidia-rtx-4090-fe", 2), "psu.connectors")
    assert [f.changes[0].value for f in finding.fixes] == [ATX3_PSU]
    assert finding.fixes[0].verified


def test_too_few_8_pin_plugs_fail_with_both_counts() -> None:
    few = BASE.replace('part = "corsair-ax1600i"',
                       'part = { base = "corsair-ax1600i", connectors = { "pcie-8pin" = 3, "eps-8pin" = 2 } }')
    [finding] = findings(few + gpus("nvidia-rtx-3090-fe", 2, 'power_limit = "300 W"'), "psu.connectors")
    assert finding.severity == "error"
    assert (finding.value, finding.limit) == (4, 3)
    assert "has 3 PCIe 8-pin plugs, but GPU1, GPU2 need 4" in finding.message


def test_the_plug_shortage_fix_is_a_catalog_psu_that_passes_a_recheck() -> None:
    few = BASE.replace('part = "corsair-ax1600i"',
                       'part = { base = "corsair-ax1600i", connectors = { "pcie-8pin" = 3, "eps-8pin" = 2 } }')
    text = few + gpus("nvidia-rtx-3090-fe", 2, 'power_limit = "300 W"')
    [finding] = findings(text, "psu.connectors")
    assert finding.fixes and all(f.verified for f in finding.fixes)
    fixed = apply(build(text).raw, finding.fixes[0].changes)
    chosen = TEST_CATALOG.typed("psu", fixed["psu"][0]["part"], Psu)
    assert chosen.connectors.pcie_8pin >= 4


def test_a_cpu_without_an_eps_plug_fails() -> None:
    no_eps = BASE.replace('part = "corsair-ax1600i"',
                          'part = { base = "corsair-ax1600i", connectors = { "pcie-8pin" = 10 } }')
    [finding] = findings(no_eps + gpus("nvidia-rtx-3090-fe"), "psu.connectors")
    assert "0 EPS 8-pin plugs, but the CPU needs 1" in finding.message


def test_native_plugs_for_every_input_give_no_finding() -> None:
    assert findings(BASE + gpus("nvidia-rtx-3090-fe", 2), "psu.connectors") == []


def test_report_carries_the_peak_and_each_psus_share() -> None:
    summary = report(TWO_CIRCUITS + gpus("gigabyte-rtx-3090-turbo", 4)).summary
    assert summary.dc_peak_w == round(4 * 350 * 823.6 / 575 + REST, 1)
    assert [(p.load_w, p.gpus) for p in summary.psus] == [(700 + REST, ["GPU1", "GPU2"]), (700, ["GPU3", "GPU4"])]
