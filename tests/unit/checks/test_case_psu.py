"""PSUs in the case (case.psu-bays, case.psu), several PSUs in one machine (psu.multi, second-circuit fixes) and
room for a 12VHPWR plug above a card (case.gpu-height), on the frozen test catalog."""

from __future__ import annotations

from planner.checks.rules.case import assign
from planner.models.parts import Psu, PsuMount

from helpers import BASE, findings, gpus

ENTHOO = BASE.replace("fractal-meshify-2-xl", "phanteks-enthoo-pro-2")  # two PSU mounts, 180 mm side clearance
SECOND_PSU = '[[psu]]\npart = "corsair-hx1000"\n'
TWO_CIRCUITS = BASE.replace('[[circuit]]\nname = "wall"\noutlet = "nema-5-20"\n',
                            '[[circuit]]\nname = "wall"\noutlet = "nema-5-20"\n'
                            '[[circuit]]\nname = "hall"\noutlet = "nema-5-20"\n')


def _case(fields: str) -> str:
    return BASE.replace('case = "fractal-meshify-2-xl"', f'case = {{ base = "fractal-meshify-2-xl", {fields} }}')


def _problems(text: str, code: str) -> list:
    return [f for f in findings(text, code) if f.severity in ("error", "warning")]


# -- case.psu-bays ------------------------------------------------------------------------------------------
def test_two_atx_psus_in_a_one_bay_case_fail_with_a_verified_case_that_holds_both() -> None:
    [finding] = findings(BASE + SECOND_PSU + gpus("nvidia-rtx-3090-fe", 2), "case.psu-bays")
    assert finding.severity == "error"
    assert "2 PSUs" in finding.message and "holds 1" in finding.message
    assert (finding.value, finding.limit) == (2, 1)
    [case] = [f for f in finding.fixes if f.changes[0].path == "case"]
    assert case.verified and case.changes[0].value == "phanteks-enthoo-pro-2"


def test_a_case_with_a_second_psu_mount_takes_two_psus() -> None:
    assert _problems(ENTHOO + SECOND_PSU + gpus("nvidia-rtx-3090-fe", 2), "case.psu-bays") == []


def test_three_psus_in_a_two_mount_case_fail() -> None:
    [finding] = findings(ENTHOO + SECOND_PSU * 2 + gpus("nvidia-rtx-3090-fe", 2), "case.psu-bays")
    assert finding.severity == "error"
    assert "3 PSUs" in finding.message and "holds 2" in finding.message
    assert any(f.verified and f.description.startswith("drop PSU 3") for f in finding.fixes)


def test_an_atx_psu_does_not_fit_an_sfx_mount() -> None:
    text = _case('psu_mounts = [{ form_factor = "sfx" }]') + gpus("nvidia-rtx-3090-fe")
    [finding] = findings(text, "case.psu-bays")
    assert finding.severity == "error"
    assert "ATX" in finding.message and "1 SFX mount" in finding.message


def test_an_sfx_psu_fits_an_atx_mount_but_not_a_crps_bay() -> None:
    sfx = Psu.model_validate({"id": "x", "name": "x", "maker": "x", "source": "x y", "wattage": 750,
                              "efficiency": "80plus-gold", "atx_version": "3.0", "connectors": {},
                              "form_factor": "sfx", "ac_inlet": "c14"})
    assert assign([sfx], [PsuMount(form_factor="atx")], lengths=True) == [0]
    assert assign([sfx], [PsuMount(form_factor="crps")], lengths=True) is None


def test_psu_mounts_the_catalog_only_estimates_give_a_warning() -> None:
    text = _case('estimated = ["psu_bays"]') + SECOND_PSU + gpus("nvidia-rtx-3090-fe", 2)
    [finding] = findings(text, "case.psu-bays")
    assert finding.severity == "warning"
    assert "only estimates" in finding.message


def test_a_mount_that_needs_a_bracket_says_so() -> None:
    text = _case('psu_bays = 2, psu_mounts = [{ form_factor = "atx" }, { form_factor = "atx", needs = "the second-PSU'
                 ' bracket" }]') + SECOND_PSU + gpus("nvidia-rtx-3090-fe", 2)
    [finding] = findings(text, "case.psu-bays")
    assert finding.severity == "info"
    assert "needs the second-PSU bracket" in finding.message


# -- case.psu -----------------------------------------------------------------------------------------------
def test_a_psu_longer_than_the_case_takes_fails_with_a_shorter_psu() -> None:
    [finding] = findings(_case('max_psu_length = "190 mm"') + gpus("nvidia-rtx-3090-fe"), "case.psu")
    assert finding.severity == "error"
    assert "200 mm long" in finding.message and "10 mm too long" in finding.message
    assert any(f.verified and f.changes[0].value == "corsair-hx1000" for f in finding.fixes)  # 180 mm


def test_a_psu_within_the_case_length_passes() -> None:
    assert findings(BASE + gpus("nvidia-rtx-3090-fe"), "case.psu") == []  # 200 mm in 250 mm


# -- psu.multi and circuits that already exist --------------------------------------------------------------
def test_two_psus_warn_with_what_running_them_together_needs() -> None:
    [finding] = findings(ENTHOO + SECOND_PSU + gpus("nvidia-rtx-3090-fe", 2), "psu.multi")
    assert finding.severity == "warning"
    for needed in ("add2psu", "GPU2 takes its cables from PSU 2", "75 W through the slot from PSU 1",
                   "never run a card with one of its supplies on and the other off"):
        assert needed in finding.message


def test_one_psu_needs_no_multi_psu_advice() -> None:
    assert findings(BASE + gpus("nvidia-rtx-3090-fe", 2), "psu.multi") == []


def test_an_overloaded_circuit_is_fixed_with_a_circuit_the_build_already_has() -> None:
    text = TWO_CIRCUITS.replace("fractal-meshify-2-xl", "phanteks-enthoo-pro-2").replace(
        '[[psu]]\npart = "corsair-ax1600i"\n', '[[psu]]\npart = "corsair-ax1600i"\ncircuit = "wall"\n') + \
        gpus("nvidia-rtx-3090-fe", 4)
    [finding] = [f for f in findings(text, "outlet.continuous") if f.severity in ("error", "warning")]
    described = [f.description for f in finding.fixes]
    assert any("into circuit 'hall' (already in the build)" in d for d in described), described
    assert not any("a second NEMA 5-20 circuit" in d for d in described), described


# -- case.gpu-height: a 12VHPWR plug on the card's top edge -------------------------------------------------
def test_a_12vhpwr_card_with_no_room_for_the_straight_cable_run_fails() -> None:
    text = ENTHOO + '[[gpu]]\npart = { base = "nvidia-rtx-4090-fe", height = "150 mm" }\n'
    [finding] = findings(text, "case.gpu-height")
    assert finding.severity == "error"  # 150 + 35 mm straight run > 180 mm, even without the plug
    assert "35 mm of straight cable" in finding.message and "205 mm in all" in finding.message
    assert finding.fixes == []  # no catalog case publishes a clearance of 205 mm: none is offered blind


def test_a_12vhpwr_card_tipped_over_only_by_the_assumed_plug_height_warns() -> None:
    [finding] = findings(ENTHOO + gpus("nvidia-rtx-4090-fe"), "case.gpu-height")
    assert finding.severity == "warning"  # 137 + 35 = 172 mm fits 180 mm; with the ~20 mm plug, 192 mm does not
    assert "only the assumed 20 mm plug height" in finding.message


def test_an_8_pin_card_of_the_same_height_needs_no_cable_room() -> None:
    text = ENTHOO + '[[gpu]]\npart = { base = "nvidia-rtx-3090-fe", height = "150 mm" }\n'
    assert findings(text, "case.gpu-height") == []


def test_unknown_clearance_says_what_to_check_for_a_12vhpwr_card() -> None:
    [finding] = findings(BASE + gpus("nvidia-rtx-4090-fe"), "case.gpu-height")
    assert finding.severity == "info"
    assert "35 mm of straight cable" in finding.message and "check for 192 mm" in finding.message
