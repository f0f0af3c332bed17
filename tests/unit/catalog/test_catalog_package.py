"""The catalog package keeps its layers: each module imports only the modules below it, nothing in it imports a
later stage of the pipeline, no import cycle runs through it, and its light modules load without pydantic."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

import pytest

from planner.catalog import Catalog

from helpers import ROOT

PLANNER = ROOT / "planner"

#: The catalog's modules, lowest layer first (planner/catalog/__init__.py says what each does).
LAYERS = ["words", "sources", "cache", "read", "validate", "prices", "lookup"]

#: Stages after the catalog in the pipeline, and the faces: the catalog must never import them.
LATER = ("planner.build", "planner.checks", "planner.report",
         "planner.session", "planner.api", "planner.cli", "planner.solve", "planner.recommend",
         "planner.placement", "planner.export", "planner.describe", "planner.util.recovery", "tui", "textual")


def _module_names() -> dict[str, Path]:
    names = {}
    for path in PLANNER.rglob("*.py"):
        parts = list(path.relative_to(PLANNER.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        names[".".join(parts)] = path
    return names


MODULES = _module_names()


def _imports(module: str) -> set[str]:
    """Every module a module imports anywhere in it (top level, in functions, under TYPE_CHECKING): a name
    imported from a package is the submodule when there is one of that name."""
    path = MODULES[module]
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, *([node.module] if node.module else [])])
            for alias in node.names:
                found.add(f"{base}.{alias.name}" if f"{base}.{alias.name}" in MODULES else base)
    return found


def _loaded_after(code: str) -> set[str]:
    probe = f"{code}\nimport json, sys\nprint(json.dumps(sorted(sys.modules)))"
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout
    return set(json.loads(out.strip().splitlines()[-1]))


def test_the_layers_name_every_catalog_module() -> None:
    assert {m for m in MODULES if m.startswith("planner.catalog.")} == {f"planner.catalog.{m}" for m in LAYERS}


@pytest.mark.parametrize("layer", LAYERS)
def test_a_catalog_module_imports_only_the_catalog_modules_below_it(layer: str) -> None:
    below = {f"planner.catalog.{m}" for m in LAYERS[: LAYERS.index(layer)]}
    inside = {m for m in _imports(f"planner.catalog.{layer}") if m.startswith("planner.catalog")}
    assert inside <= below, f"{layer} imports {sorted(inside - below)}"


def test_no_catalog_module_imports_a_later_stage_or_a_face() -> None:
    later = {(m, i) for m in MODULES if m.startswith("planner.catalog")
             for i in _imports(m) if i.startswith(LATER)}
    assert not later


def test_no_import_cycle_runs_through_the_catalog() -> None:
    # Everything the catalog imports, however indirectly (lazy imports included): none of it imports the catalog.
    seen: set[str] = set()
    todo = [m for m in MODULES if m.startswith("planner.catalog")]
    while todo:
        module = todo.pop()
        if module not in seen:
            seen.add(module)
            todo.extend(i for i in _imports(module) if i in MODULES)
    back = {(m, i) for m in seen if not m.startswith("planner.catalog")
            for i in _imports(m) if i.startswith("planner.catalog")}
    assert not back


def test_the_prices_and_did_you_mean_load_without_pydantic_or_the_catalog_reader() -> None:
    loaded = _loaded_after("import planner.catalog.prices, planner.catalog.words, planner.catalog.sources")
    assert "pydantic" not in loaded
    assert not loaded & {"planner.catalog.read", "planner.catalog.lookup", "planner.catalog.cache"}


def test_the_public_names_are_still_imported_from_planner_catalog() -> None:
    import planner.catalog

    code = f"from planner.catalog import {', '.join(planner.catalog.__all__)}"
    assert "planner.catalog.lookup" in _loaded_after(code)
    assert planner.catalog.Catalog is Catalog
    with pytest.raises(AttributeError):
        planner.catalog.no_such_name  # noqa: B018


def _alias_claimed_by_a_curated_and_an_imported_psu(directory: Path) -> Path:
    (directory / "imported").mkdir(parents=True)
    (directory / "psus.toml").write_text('[my-psu]\naliases = ["shared"]\n', encoding="utf-8")
    (directory / "imported" / "psus.toml").write_text('other-psu = { aliases = ["shared"] }\n', encoding="utf-8")
    return directory


def test_a_curated_alias_wins_over_an_imported_one_before_the_imported_file_is_read(tmp_path: Path) -> None:
    catalog = Catalog([_alias_claimed_by_a_curated_and_an_imported_psu(tmp_path / "mine")])
    assert catalog.alias_target("psu", "shared") == "my-psu"


def test_a_curated_alias_still_wins_once_the_imported_file_was_read(tmp_path: Path) -> None:
    catalog = Catalog([_alias_claimed_by_a_curated_and_an_imported_psu(tmp_path / "mine")])
    assert set(catalog.entries("psu")) == {"my-psu", "other-psu"}  # reads every file of the kind
    assert catalog.alias_target("psu", "shared") == "my-psu"
    assert catalog.curated_ids("psu") == ["my-psu"]


def test_the_curated_parts_come_in_the_same_order_whether_or_not_the_kind_was_read_whole() -> None:
    # Fixes rank curated parts and keep the first of equals: their order must not depend on whether a search
    # (or `catalog list`) read the kind's imported files before. The PSUs: curated entries override imported ones.
    for kind in ("psu", "gpu", "case", "motherboard", "cpu"):
        catalog = Catalog()
        before = [part.id for part in catalog.all(kind, curated=True)]
        catalog.entries(kind)
        assert [part.id for part in catalog.all(kind, curated=True)] == before, kind
