"""Inline parts on a base (`{ base = "id", field = value }`): a field the builder changes takes the base's figures
derived from it along (DERIVED_FIELDS), and a rule between fields that still refuses the part names the base's
fields to set as well — the builder never wrote them."""

from __future__ import annotations

import json
from pathlib import Path

from planner.models.parts import DERIVED_FIELDS, KIND_MODELS

from conftest import example, run_cli

FRAME = example("pass-quad-3060-two-on-risers-frame.toml")  # the mining frame lists 2 PSU mounts
DUAL_4090 = example("warn-dual-4090-fe-x670e.toml")


def _with(path: Path, old: str, new: str, tmp_path: Path) -> Path:
    text = path.read_text()
    assert old in text
    changed = tmp_path / path.name
    changed.write_text(text.replace(old, new, 1))
    return changed


def test_more_psu_bays_on_a_base_case_replace_the_mounts_the_base_listed(tmp_path: Path) -> None:
    case = 'case = { base = "generic-8-gpu-aluminium-mining-frame", psu_bays = 4 }'
    path = _with(FRAME, 'case = "generic-8-gpu-aluminium-mining-frame"', case, tmp_path)
    result = run_cli("check", path, "--format", "json")
    assert result.code == 0, result.err  # was: "psu_mounts lists 2 mounts but psu_bays is 4"
    assert json.loads(result.out)[0]["verdict"] == "pass"


def test_a_rule_between_fields_names_the_base_fields_to_set_as_well(tmp_path: Path) -> None:
    inline = 'part = { base = "nvidia-rtx-4090-fe", tdp = 700 }'
    path = _with(DUAL_4090, 'part = "nvidia-rtx-4090-fe"', inline, tmp_path)
    result = run_cli("check", path)
    assert result.code == 2
    assert ("the base nvidia-rtx-4090-fe gives `power_limit_min` and `power_limit_max`: set them in the inline "
            "table too") in result.err


def test_every_derived_field_is_a_field_of_its_kind() -> None:
    for kind, table in DERIVED_FIELDS.items():
        kinds = list(KIND_MODELS) if kind == "*" else [kind]
        for name in kinds:
            fields = KIND_MODELS[name].model_fields
            for field, derived in table.items():
                assert field in fields and all(d in fields for d in derived), (name, field, derived)
