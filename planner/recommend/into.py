"""Put the chosen GPUs into a build file (`planner recommend --into build.toml`).

An existing file keeps everything but its [[gpu]] tables (comments and order too: tomlkit); a new file
starts from `--build FILE` when one is given, else from a starter build whose other parts the user is
meant to replace. The write is atomic.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import tomlkit

from planner.build.buildfile import read_text
from planner.models.build import Workload
from planner.util import tomlfile
from planner.util.errors import InputError
from planner.util.fileio import atomic_write

#: A complete build around the chosen cards when the user has none yet: a 7-slot WRX80 workstation
#: board in a full tower, a 1600 W PSU on a US 15 A circuit.
STARTER = """\
# Written by `planner recommend --into`: a starter build around the recommended GPUs.
# Replace the case, motherboard, CPU, PSU and circuit with yours, then run `planner check` on it.
name = "Recommended GPUs in a starter workstation"
workload = "{workload}"

case = "fractal-meshify-2-xl"
motherboard = "asus-pro-ws-wrx80e-sage-se"
cpu = "amd-threadripper-pro-5975wx"

[[circuit]]
name = "wall"
outlet = "nema-5-15"

[[psu]]
part = "corsair-ax1600i"
"""


class Written:
    """What `put_gpus` did."""

    def __init__(self, path: Path, created_from: str | None, replaced: list[str]) -> None:
        self.path = path
        self.created_from = created_from  # None: an existing file was updated
        self.replaced = replaced  # "4 × nvidia-rtx-3090-fe" for each [[gpu]] table it had


def put_gpus(target: Path, board: str, count: int, *, workload: Workload, base: Path | None = None,
             note: str = "") -> Written:
    """Write `count` × `board` as the build's only [[gpu]] table into `target` (atomically)."""
    if target.exists():
        text, created_from = read_text(target), None
    elif base is not None:
        text, created_from = read_text(base), str(base)
    else:
        text, created_from = STARTER.format(workload=workload), "the starter build"
    try:
        doc = tomlkit.parse(text)
    except tomlkit.exceptions.ParseError as error:
        raise InputError(f"not valid TOML: {error}", file=str(target if created_from is None else base)) from None
    replaced = [_describe(table) for table in doc.get("gpu", [])]
    gpus = tomlkit.aot()
    table = tomlkit.table()
    if note:
        table.add(tomlkit.comment(note))
    table["part"] = board
    table["count"] = count
    table.add(tomlkit.nl())
    gpus.append(table)
    doc["gpu"] = gpus
    atomic_write(target, tomlfile.dumps(doc), force=True)
    return Written(target, created_from, replaced)


def _describe(table: Any) -> str:
    part = table.get("part") if hasattr(table, "get") else None
    name = part if isinstance(part, str) else "an inline card"
    return f"{table.get('count', 1) if hasattr(table, 'get') else 1} × {name}"
