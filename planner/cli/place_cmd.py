"""`planner place FILE`: where every GPU goes, the slot diagram, each link and the PCIe tree."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from planner.build.resolve import ResolvedBuild
from planner.cli.common import catalog_from, write_json
from planner.placement import Placement
from planner.util.errors import ExitCode
from planner.util.fmt import json_printable, printable


def run_place(args: argparse.Namespace) -> int:
    from planner.api import load_build
    from planner.placement import place
    from planner.placement.diagram import slot_diagram
    from planner.placement.tree import pcie_tree, render_tree

    build = load_build(args.file, catalog_from(args), args.region)
    placement = place(build)
    diagram = slot_diagram(build, placement)
    tree = pcie_tree(build, placement)  # networkx: this command is where the tree is shown
    if args.format == "json":
        import networkx as nx

        data = {"file": build.file, "build": build.name, "feasible": placement.feasible, "reason": placement.reason,
                "gpus": _gpus(build, placement), "slots": pinned(build, placement), "diagram": diagram,
                "pcie_tree": nx.node_link_data(tree, edges="edges")}
        write_json(data, default=str)
    else:
        out = [printable(f"{build.file}: {build.name}"), "", diagram, "PCIe tree:", render_tree(tree), ""]
        lines = pinned(build, placement)
        if lines:
            out.append("To keep this placement, put these in the build file's [[gpu]] tables:")
            # TOML the user can paste: every control, C1, bidi and separator character as a \\uXXXX escape
            out.extend(f"  {where}: slot = {json_printable(json.dumps(value, ensure_ascii=False))}"
                       for where, value in lines.items())
        if placement.reason:
            out.append(f"Not placed: {placement.reason}.")
        sys.stdout.write(printable("\n".join(out) + "\n", newlines=True))
    return ExitCode.OK if placement.feasible else ExitCode.FAIL


def _gpus(build: ResolvedBuild, placement: Placement) -> list[dict[str, Any]]:
    rows = []
    for gpu in build.gpus:
        mount = placement.of(gpu.index)
        rows.append({"gpu": gpu.index + 1, "part": gpu.board.id, "mount": mount.mount if mount else None,
                     "slot": mount.slot if mount else None, "positions": list(mount.positions) if mount else None,
                     "lanes": mount.lanes if mount else None, "gen": mount.gen if mount else None,
                     "riser": mount.riser if mount else None})
    return rows


def pinned(build: ResolvedBuild, placement: Placement) -> dict[str, str | list[str]]:
    """`slot = …` for each [[gpu]] table whose cards all have a mount: what pins this placement."""
    tables: dict[int, list[str | None]] = {}
    for gpu in build.gpus:
        mount = placement.of(gpu.index)
        tables.setdefault(gpu.spec_index, []).append(mount.slot if mount else None)
    result: dict[str, str | list[str]] = {}
    for spec, slots in tables.items():
        if all(slots):
            names = [str(s) for s in slots]
            result[f"gpu[{spec}]"] = names[0] if len(names) == 1 else names
    return result
