"""Read a lab file: TOML → a validated LabFile, or one InputError naming file, line and key; then each
machine's build (a file relative to the lab file, or inline)."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

from pydantic_core import ValidationError

from planner.build import buildfile
from planner.build.resolve import ResolvedBuild, resolve
from planner.catalog import Catalog
from planner.lab.spec import (
    BankSpec,
    CircuitSpec,
    CoolingSpec,
    FeedSpec,
    LabFile,
    MachineSpec,
    NetworkSpec,
    PduSpec,
    PlugSpec,
    TrainingSpec,
    UpsSpec,
)
from planner.util import tomlfile
from planner.util.errors import InputError
from planner.util.record import Record
from planner.util.tomlpos import line_of
from planner.util.validation import location, message

MAX_BYTES = 1_000_000

_TABLES: dict[str, type[Record]] = {"machine": MachineSpec, "circuit": CircuitSpec, "feed": FeedSpec,
                                    "pdu": PduSpec, "bank": BankSpec, "ups": UpsSpec, "cooling": CoolingSpec,
                                    "network": NetworkSpec, "training": TrainingSpec, "plug": PlugSpec}


def read(path: Path) -> tuple[LabFile, str, str]:
    """The validated lab file, its text and its label."""
    label = str(path)
    try:
        if path.is_dir():
            raise InputError("is a directory, expected a lab file (.toml)", file=label)
        if path.stat().st_size > MAX_BYTES:
            raise InputError(f"is larger than {MAX_BYTES // 1000} kB; not a lab file", file=label)
    except FileNotFoundError:
        raise InputError("no such file", file=label) from None
    except OSError as error:
        raise InputError(f"cannot read: {error.strerror}", file=label) from None
    text = tomlfile.read_text(path, what="a TOML lab file")
    return loads(text, label), text, label


def loads(text: str, label: str) -> LabFile:
    text = text.removeprefix("\ufeff")
    data = tomlfile.loads(text, label)
    try:
        return LabFile.model_validate(data)
    except ValidationError as error:
        details = error.errors(include_url=False)
        details.sort(key=lambda d: d["type"] != "extra_forbidden")
        detail = details[0]
        loc = tuple(item for item in detail["loc"] if isinstance(item, int) or not buildfile._is_branch(item))
        text_message = message(detail)
        if detail["type"] == "extra_forbidden":
            keys = [k for k in loc[:-1] if isinstance(k, str)]
            model: type[Record] = _TABLES.get(keys[-1], LabFile) if keys else LabFile
            if keys and keys[0] == "machine" and "build" in keys:
                model = MachineSpec
            text_message = buildfile.unknown_key_message(loc, list(model.model_fields))
        raise InputError(text_message, file=label, line=line_of(text, loc), key=location(loc)) from None


def build_path(lab_label: str, machine: MachineSpec, index: int, text: str) -> Path:
    """A machine's build file, resolved relative to the lab file: a relative .toml path to a regular file."""
    assert isinstance(machine.build, str)
    where = ("machine", index, "build")
    given = Path(machine.build)
    if given.is_absolute() or machine.build.startswith("~"):
        raise InputError(f"build path {machine.build!r} must be relative to the lab file", file=lab_label,
                         line=line_of(text, where), key=location(where))
    if given.suffix != ".toml":
        raise InputError(f"build path {machine.build!r} is not a .toml build file", file=lab_label,
                         line=line_of(text, where), key=location(where))
    path = (Path(lab_label).parent / given).resolve()
    if not path.is_file():
        raise InputError(f"build file {machine.build!r} not found next to the lab file ({path})", file=lab_label,
                         line=line_of(text, where), key=location(where))
    return path


def load_machine(lab_label: str, machine: MachineSpec, index: int, text: str) -> tuple[dict[str, Any], str, str]:
    """A machine's build as raw data, with its text and label (for its own messages)."""
    if isinstance(machine.build, str):
        path = build_path(lab_label, machine, index, text)
        build_text = buildfile.read_text(path)
        return buildfile.parse_toml(build_text, str(path)), build_text, str(path)
    return copy.deepcopy(machine.build), text, f"{lab_label} (machine {machine.name})"


def lab_build(raw: dict[str, Any], text: str, label: str, catalog: Catalog, voltage: float, region: str,
              power_limit: float | None) -> ResolvedBuild:
    """The machine's build as the lab runs it: its PSUs on one lab circuit at the voltage of the outlets they
    plug into (the lab judges the circuits, banks and lines; the machine's report judges the machine and its
    cords), and the lab's power limit on every GPU when it sets one."""
    data = copy.deepcopy(raw)
    data["circuit"] = [{"name": "lab", "outlet": {
        "name": f"lab outlet at {voltage:g} V", "maker": "lab", "region": region, "standard": "lab outlet",
        "voltage": round(voltage, 1), "breaker_current": 100, "continuous_factor": 1.0,
        "continuous_source": "the lab's own checks judge the circuit, PDU bank and line"}}]
    psus = data.get("psu")
    if isinstance(psus, list):
        for psu in psus:
            if isinstance(psu, dict):
                psu["circuit"] = "lab"
    if power_limit is not None and isinstance(data.get("gpu"), list):
        for gpu in data["gpu"]:
            if isinstance(gpu, dict):
                gpu["power_limit"] = power_limit
    spec = buildfile.validate(data, text, label)
    return resolve(spec, data, catalog, label=label, text=text)
