"""The example builds give the verdicts their comments promise.

Each example starts with `# Shows: …` and has a line `# expect: <verdict> [code …]`: the verdict
`planner check` must give and the finding codes that must be among its errors and warnings.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from conftest import EXAMPLES, example, run_cli

FILES = sorted(EXAMPLES.glob("*.toml"))


def _expectation(path: Path) -> tuple[str, set[str]]:
    match = re.search(r"^# expect: (pass|warn|fail)((?: [a-z0-9.-]+)*)\s*$", path.read_text(), re.M)
    assert match, f"{path.name} has no '# expect: <verdict> [codes]' line"
    return match.group(1), set(match.group(2).split())


def test_every_example_has_a_comment_saying_what_it_shows() -> None:
    for path in FILES:
        assert path.read_text().startswith("# Shows:"), path.name


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.stem)
def test_example_build_gives_its_promised_verdict(path: Path) -> None:
    verdict, codes = _expectation(path)
    result = run_cli("check", path, "--format", "json")
    [report] = json.loads(result.out)
    problems = {f["code"] for f in report["findings"] if f["severity"] in ("error", "warning")}
    assert (report["verdict"], codes <= problems) == (verdict, True), (report["verdict"], problems)


def test_the_inline_example_uses_its_custom_parts() -> None:
    result = run_cli("check", example("inline-watercooled-3090s.toml"), "--format", "json")
    [report] = json.loads(result.out)
    assert report["summary"]["gpus"][0]["part"] == "nvidia-rtx-3090-fe-custom"
    assert report["summary"]["assumptions"] == [
        "no [[circuit]] given: assumed one NEMA 5-15 circuit (120 V, 15 A) for region 'us'"]
