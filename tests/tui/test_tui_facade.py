"""The TUI reaches the core through one façade: `planner.session` (the editable build and what the faces do
with it) and `planner.api` (the public types, errors and formatting). Every import of `planner…` under
`tui/` — at the top, inside a function or under TYPE_CHECKING — names one of the two."""

from __future__ import annotations

import ast

from conftest import ROOT

FACADE = {"planner.session", "planner.api"}


def _planner_imports(source: str) -> list[tuple[int, str]]:
    """(line, module) of every import of the planner package in a module's source, wherever it stands."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            # `from planner import session` imports planner.session: the names count as modules too
            found += [(node.lineno, f"{node.module}.{alias.name}" if node.module == "planner" else node.module)
                      for alias in node.names]
    return [(line, module) for line, module in sorted(found) if module == "planner" or module.startswith("planner.")]


def test_the_tui_imports_only_the_session_and_api_layer_of_the_core() -> None:
    outside = [f"{path.relative_to(ROOT)}:{line}: {module}"
               for path in sorted((ROOT / "tui").rglob("*.py"))
               for line, module in _planner_imports(path.read_text(encoding="utf-8")) if module not in FACADE]
    assert outside == []


def test_the_import_scan_sees_imports_inside_functions_and_type_checking_blocks() -> None:
    source = ("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from planner.catalog import Catalog\n"
              "def f():\n    import planner.solve\n    from planner import session\n"
              "    from planner.api import Report\n")
    assert [module for _, module in _planner_imports(source)] == [
        "planner.catalog", "planner.solve", "planner.session", "planner.api"]
