"""The core's shape: no import cycle between modules, and the layers of pyproject.toml's import-linter
contracts (faces → façade → … → utilities) hold. `lint-imports` runs in the README's test command too; this
test says which modules form a cycle when one appears."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import grimp
import networkx as nx

from helpers import ROOT


def _import_graph() -> nx.DiGraph:
    # every import statement, at module level or inside a function (a function-level import that only
    # dodges a cycle is still a cycle); imports under `if TYPE_CHECKING:` never run, so they are left out
    graph = grimp.build_graph("planner", "tui", exclude_type_checking_imports=True, cache_dir=None)
    edges = nx.DiGraph()
    for module in graph.modules:
        edges.add_node(module)
        for imported in graph.find_modules_directly_imported_by(module):
            edges.add_edge(module, imported)
    return edges


def test_no_two_modules_import_each_other_even_through_others() -> None:
    cycles = [sorted(component) for component in nx.strongly_connected_components(_import_graph())
              if len(component) > 1]
    assert cycles == []


def test_no_two_packages_of_the_core_import_each_other() -> None:
    # planner.checks and planner.catalog, say, as wholes: a package's modules may import another package's
    # only when none of that package's modules imports back
    packages = nx.DiGraph()
    for module, imported in _import_graph().edges:
        a, b = ".".join(module.split(".")[:2]), ".".join(imported.split(".")[:2])
        if a != b:
            packages.add_edge(a, b)
    assert [sorted(c) for c in nx.strongly_connected_components(packages) if len(c) > 1] == []


def test_the_import_linter_contracts_hold() -> None:
    done = subprocess.run([str(Path(sys.executable).parent / "lint-imports"), "--no-cache"], cwd=ROOT,
                          capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stdout[-3000:]
