"""Malformed and extreme catalog entries never crash a run: every problem is a CatalogError naming
file, entry and field."""

from __future__ import annotations

import contextlib
import string
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from planner.catalog import Catalog
from planner.util.errors import CatalogError, PlannerError

from helpers import TEST_CATALOG_DIR

ENTRY = (TEST_CATALOG_DIR / "gpus.toml").read_text().split("\n\n[")[1]
ENTRY = "[" + ENTRY.split("[[")[0]  # the first board, without its perf curve
LINES = ENTRY.strip().splitlines()

VALUES = st.one_of(
    st.integers(min_value=-(10**15), max_value=10**15).map(str),
    st.floats(allow_nan=False, allow_infinity=False).map(repr),
    st.sampled_from(['"350 W"', '"-1 mm"', '"12 zorks"', '"1e308 W"', "[]", "{}", "true", '["12vhpwr"]',
                     '["pcie-8pin", "pcie-8pin", "pcie-8pin", "pcie-8pin"]', '"blower"', '"rtx-9999"', '""']),
    st.text(alphabet=string.ascii_letters + string.digits + " -_.", max_size=15).map(lambda s: f'"{s}"'),
)


@st.composite
def mutated_entries(draw: st.DrawFn) -> str:
    lines = list(LINES)
    for _ in range(draw(st.integers(1, 3))):
        index = draw(st.integers(1, len(lines) - 1))
        action = draw(st.sampled_from(["set", "drop", "garble"]))
        if action == "set":
            lines[index] = lines[index].split("=", 1)[0] + "= " + draw(VALUES)
        elif action == "drop":
            lines.pop(index)
        else:
            lines[index] = draw(st.text(alphabet=string.printable, max_size=25))
    return "\n".join(lines) + "\n"


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=mutated_entries())
def test_mutated_catalog_entries_give_catalog_errors_never_crashes(text: str, tmp_path: Path) -> None:
    (tmp_path / "gpus.toml").write_text(text)
    catalog = Catalog([TEST_CATALOG_DIR, tmp_path])
    try:
        problems = catalog.validate(only=tmp_path)
    except CatalogError as error:  # a file that is not TOML at all
        assert "gpus.toml" in str(error)
        return
    for problem in problems:
        text = str(problem)
        assert text.startswith(problem.file or "") and "gpus.toml" in text
        assert "not valid TOML" in text or (problem.entry and f"[{problem.entry}]" in text)
    with contextlib.suppress(PlannerError):
        catalog.get("gpu", "nvidia-rtx-3090-fe")
