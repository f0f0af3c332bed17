"""The published JSON Schema and the README stay in step with the code."""

from __future__ import annotations

import json
import re

from conftest import ROOT, run_cli


def test_committed_build_schema_matches_the_models() -> None:
    committed = json.loads((ROOT / "docs" / "build.schema.json").read_text())
    current = json.loads(run_cli("schema").out)
    assert committed == current, "regenerate it: planner schema > docs/build.schema.json"


def test_schema_rejects_unknown_keys_and_documents_quantities() -> None:
    schema = json.loads(run_cli("schema").out)
    assert schema["additionalProperties"] is False
    ambient = schema["properties"]["ambient"]
    assert "°C" in ambient["description"] or "temperature" in json.dumps(ambient)


def test_part_schema_for_a_catalog_kind_omits_the_table_key() -> None:
    schema = json.loads(run_cli("schema", "gpu").out)
    assert "id" not in schema["properties"] and "slot_width" in schema["properties"]


def _readme_commands() -> list[str]:
    readme = (ROOT / "README.md").read_text()
    return re.findall(r"```sh\n(.+?)\n```", readme)


def test_ci_runs_exactly_the_readme_test_command() -> None:
    test_command = _readme_commands()[1]
    ci = (ROOT / ".ci" / "run").read_text()
    assert test_command in ci.splitlines()


def test_readme_first_command_checks_an_example_build_that_exists() -> None:
    first = _readme_commands()[0]
    match = re.search(r"planner check (\S+)", first)
    assert match and (ROOT / match.group(1)).is_file()
