"""JSON Schemas generated from the pydantic models (for editors and `planner schema`)."""

from __future__ import annotations

from typing import Any

from planner.models.build import BuildFile
from planner.models.parts import KIND_MODELS

SCHEMA_ID = "https://gpu-rig-planner.dev/schema/build.json"


def build_schema() -> dict[str, Any]:
    schema = BuildFile.model_json_schema()
    return {"$schema": "https://json-schema.org/draft/2020-12/schema", "$id": SCHEMA_ID, **schema}


def part_schema(kind: str) -> dict[str, Any]:
    schema = KIND_MODELS[kind].model_json_schema()
    schema["properties"].pop("id", None)  # the TOML table key
    if "id" in schema.get("required", []):
        schema["required"].remove("id")
    return {"$schema": "https://json-schema.org/draft/2020-12/schema", **schema}
