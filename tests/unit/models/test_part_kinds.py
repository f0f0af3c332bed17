"""Part kinds are declared once (planner/kinds.py): the catalog files, the CLI's names, the build file's keys,
the resolver, the parts lists and exports, the TUI's picker and the schema follow the declarations. A UPS is an
accessory: a build names it, it is resolved, listed and priced, and the picker offers it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from planner.catalog import Catalog
from planner.kinds import ACCESSORIES, ALIASES, KIND_FILES, KINDS, PICKABLE, SINGLE_PARTS
from planner.models.build import BuildFile
from planner.models.parts import KIND_MODELS
from planner.session import BuildSession

from conftest import ROOT, run_cli

UPS = "apc-srt5kxlt"


def _with_ups(tmp_path: Path, ref: str = f'"{UPS}"') -> Path:
    text = (ROOT / "examples" / "builds" / "pass-dual-3090-wrx80.toml").read_text(encoding="utf-8")
    path = tmp_path / "with-ups.toml"
    path.write_text(text.replace('\ncpu = ', f'\nups = {ref}\ncpu = ', 1), encoding="utf-8")
    return path


def test_every_declared_kind_has_a_model_and_a_catalog_file() -> None:
    assert set(KIND_FILES) == set(KIND_MODELS)
    for kind in KINDS.values():
        assert (ROOT / "catalogs" / kind.file).is_file(), kind.name


def test_no_alias_names_two_kinds_or_hides_a_kind() -> None:
    assert not set(ALIASES) & set(KINDS)
    assert all(target in KINDS for target in ALIASES.values())


def test_every_accessory_is_an_optional_key_of_a_build_file() -> None:
    for kind in ACCESSORIES:
        field = BuildFile.model_fields[kind.build_key or kind.name]
        assert not field.is_required(), kind.name


def test_a_build_that_names_a_ups_checks_as_before_and_lists_it_with_its_label(tmp_path: Path) -> None:
    plain = run_cli("check", ROOT / "examples" / "builds" / "pass-dual-3090-wrx80.toml", "--format", "json")
    with_ups = run_cli("check", _with_ups(tmp_path), "--format", "json")
    assert with_ups.code == plain.code == 0
    assert json.loads(with_ups.out)[0]["findings"] == json.loads(plain.out)[0]["findings"]  # no check reads it
    listing = run_cli("export", _with_ups(tmp_path), "--format", "md")
    assert "| **UPS** | APC Smart-UPS SRT 5000 VA 208 V |" in listing.out


def test_an_owned_ups_is_not_on_the_shopping_list(tmp_path: Path) -> None:
    listing = run_cli("export", _with_ups(tmp_path, f'{{ base = "{UPS}", owned = true }}'), "--format", "md")
    row = next(line for line in listing.out.splitlines() if "**UPS**" in line)
    assert row.rstrip(" |").endswith("owned"), row


def test_an_unknown_ups_id_is_one_sentence_with_its_line(tmp_path: Path) -> None:
    path = _with_ups(tmp_path, '"apc-smt9999"')
    line = path.read_text(encoding="utf-8").splitlines().index('ups = "apc-smt9999"') + 1
    result = run_cli("check", path)
    assert result.code == 2
    assert f"{path}:{line}: ups: unknown ups id 'apc-smt9999'" in result.err, result.err


def test_the_cli_takes_a_kinds_plural(catalog: Catalog) -> None:
    assert UPS in run_cli("catalog", "list", "upses").out


def test_the_tui_picker_offers_a_ups_and_the_session_sets_it_as_one_part(catalog: Catalog) -> None:
    assert "ups" in PICKABLE and "ups" in SINGLE_PARTS
    session = BuildSession.open(ROOT / "examples" / "builds" / "pass-dual-3090-wrx80.toml", catalog)
    session.set_part("ups", UPS)
    assert ("ups", UPS) in {(row.kind, row.part) for row in session.rows()}
    result = session.check()
    assert result.build is not None and result.build.accessories[0][1].id == UPS


@pytest.mark.parametrize("kind", [k.name for k in ACCESSORIES])
def test_the_build_schema_describes_every_accessory(kind: str) -> None:
    schema = json.loads(run_cli("schema").out)
    assert kind in schema["properties"]
