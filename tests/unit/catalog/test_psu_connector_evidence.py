"""psu.connectors rests its errors on published plug counts: too few plugs on a unit whose cable counts are
estimated is a warning that says so (docs/verdicts.md)."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import run_cli

BUILD = """
case = "fractal-define-7-xl"
motherboard = "asus-pro-ws-wrx80e-sage-se"
cpu = "amd-threadripper-pro-3975wx"
[[circuit]]
name = "lab"
outlet = "nema-6-20"
[[psu]]
part = "{psu}"
[[gpu]]
part = "gigabyte-rtx-3090-turbo"  # two PCIe 8-pin inputs each
count = {count}
power_limit = "200 W"
"""


def _connectors(tmp_path: Path, psu: str, count: int) -> dict[str, object]:
    path = tmp_path / "build.toml"
    path.write_text(BUILD.format(psu=psu, count=count))
    [report] = json.loads(run_cli("check", path, "--format", "json").out)
    [finding] = [f for f in report["findings"] if f["code"] == "psu.connectors"]
    return finding  # type: ignore[no-any-return]


def test_too_few_published_plugs_is_an_error(tmp_path: Path) -> None:
    # the Corsair HX1000's six PCIe 8-pin cables are on its product page; four 2-input cards need eight
    finding = _connectors(tmp_path, "corsair-hx1000", 4)
    assert finding["severity"] == "error" and "estimate" not in str(finding["message"])


def test_too_few_estimated_plugs_is_a_warning_that_says_the_counts_are_estimated(tmp_path: Path) -> None:
    # the RM850x's four PCIe 8-pin plugs are an estimate in the catalog; three 2-input cards need six
    finding = _connectors(tmp_path, "corsair-rm850x", 3)
    assert finding["severity"] == "warning"
    assert "its plug counts are an estimate" in str(finding["message"])
