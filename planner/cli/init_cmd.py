"""`planner init [FILE]`: write a commented starter build (asks nothing)."""

from __future__ import annotations

import argparse
import shlex
import sys

from planner.cli.common import catalog_from, to_stdout, write_output
from planner.util.errors import ExitCode, InputError
from planner.util.fmt import printable

#: The starter: the parts of the repository's passing examples (pass-dual-3090-wrx80.toml,
#: pass-quad-3090-turbo-wrx80.toml), with 2-slot blower cards so that up to four fit the 7-slot board.
STARTER = """\
# A starter build written by `planner init`. Replace any part with yours (ids: `planner catalog list KIND`,
# `planner catalog search WORDS`), then run `planner check {file}`.
name = "My deep-learning workstation"
workload = "llm-train"          # llm-inference, llm-finetune, llm-train, image-generation, vision-train, general
ambient = 25                    # room temperature, °C

case = "fractal-meshify-2-xl"               # full tower, 9 expansion-slot positions
motherboard = "asus-pro-ws-wrx80e-sage-se"  # 7 x16 slots at positions 1–7
cpu = "amd-threadripper-pro-5975wx"

# The wall circuit the PSUs plug into: its outlet sets the volts and the breaker's amps.
[[circuit]]
name = "wall"
outlet = "{outlet}"
# other_load = "60 W"           # monitors and anything else on the same breaker

[[psu]]
part = "corsair-ax1600i"
circuit = "wall"

[[gpu]]
part = "gigabyte-rtx-3090-turbo"            # 2-slot blower: exhausts through the bracket, stacks well
count = {gpus}
# power_limit = "280 W"         # lower it to fit the PSU or the circuit (`planner optimize` finds the highest)
# slot = ["PCIEX16_1", "PCIEX16_3"]  # pin the slots; left out, `planner place` chooses them

[extras]
ram_modules = 8
drives = 2
fans = 3
"""

MAX_GPUS = 4  # four 2-slot cards fill the starter board's usable x16 slots (positions 1–8)


def starter(gpus: int, outlet: str, file: str) -> str:
    # the file name goes into a comment as a shell word: quoted, and one printable line
    return STARTER.format(gpus=gpus, outlet=outlet, file=starter_word(file))


def starter_word(file: str) -> str:
    return printable(shlex.quote(file))


def run_init(args: argparse.Namespace) -> int:
    from planner.api import check_build
    from planner.build.buildfile import loads
    from planner.build.resolve import resolve
    from planner.checks.engine.context import Settings

    if not 1 <= args.gpus <= MAX_GPUS:
        raise InputError(f"--gpus must be 1 to {MAX_GPUS} for the starter board (7 slots, 2-slot cards), "
                         f"got {args.gpus}")
    catalog = catalog_from(args)
    catalog.get("outlet", args.outlet)  # an unknown id: UnknownPartError, with the ids it may mean
    name = "build.toml" if to_stdout(args.file) else str(args.file)
    text = starter(args.gpus, args.outlet, name)
    spec, raw = loads(text, name)
    report = check_build(resolve(spec, raw, catalog, label=name, text=text), catalog, Settings())
    write_output(args.file, text, force=args.force)
    word = starter_word(name) if args.file is not None else "FILE"
    print(f"planner: the starter build checks {report.verdict.upper()}"
          + ("" if report.verdict == "pass" else f"; `planner check {word}` says why"), file=sys.stderr)
    return ExitCode.OK
