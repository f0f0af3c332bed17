"""`planner optimize FILE [-o OUT]`: write the build with the power limits the optimiser finds."""

from __future__ import annotations

import argparse
import shlex
import sys
from typing import TYPE_CHECKING

from planner.checks.engine.findings import Change
from planner.cli.common import catalog_from, write_json, write_output
from planner.util.errors import ExitCode, InputError
from planner.util.fmt import printable

if TYPE_CHECKING:
    from planner.build.resolve import ResolvedBuild
    from planner.catalog import Catalog
    from planner.checks.engine.context import Settings


def run_optimize(args: argparse.Namespace) -> int:
    from planner.api import load_build
    from planner.build.buildfile import read_text
    from planner.checks.engine.context import Settings
    from planner.checks.optimize import apply_to_toml, optimize

    if args.psu_target is not None and not 0.3 <= args.psu_target <= 1.0:
        raise InputError(f"--psu-target must be a fraction between 0.3 and 1.0, got {args.psu_target:g}")
    catalog = catalog_from(args)
    settings = Settings(region=args.region, **({"psu_target": args.psu_target} if args.psu_target else {}))
    build = load_build(args.file, catalog, args.region)
    plan = optimize(build, catalog, settings, strict=args.strict)
    what = "errors and warnings" if args.strict else "errors"
    if plan.changes:
        print(f"planner: {printable(plan.description)}", file=sys.stderr)
    else:
        print(f"planner: the power limits are already the highest that clear the power, outlet and thermal "
              f"{what} a power limit can clear; the build is unchanged", file=sys.stderr)
    remaining = still_failing(build, catalog, settings, plan.limits, plan.remaining, strict=args.strict)
    if remaining:
        word = printable(shlex.quote(str(args.file)))
        print(f"planner: no power limit clears {', '.join(remaining)}: the build still fails with these limits; "
              f"see `planner check {word}`", file=sys.stderr)
    changes = [*plan.changes, Change(path="name", value=optimised_name(build.name, plan.limits))] if plan.changes \
        else []
    text = apply_to_toml(read_text(args.file), changes, f"planner optimize: {percent_text(plan.cost)}")
    if args.format == "json":
        if args.output is not None and str(args.output) != "-":
            write_output(args.output, text, force=args.force)
        write_json({"file": build.file, "build": build.name, "changed": bool(plan.changes),
                    "power_limits_w": {f"gpu[{i}]": watts for i, watts in sorted(plan.limits.items())},
                    "changes": [change._asdict() for change in changes],
                    "relative_perf": plan.relative_perf, "throughput_cost": plan.cost,
                    "clears": plan.clears, "remaining": remaining, "description": plan.description,
                    "build_toml": text})
    else:
        write_output(args.output, text, force=args.force)
    return ExitCode.FAIL if remaining else ExitCode.OK


def still_failing(build: ResolvedBuild, catalog: Catalog, settings: Settings, limits: dict[int, float],
                  remaining: list[str], *, strict: bool) -> list[str]:
    """The codes of the errors (with `strict`, warnings too) the build has with the optimiser's limits: the
    power problems no limit clears, and every other check's (a slot or case error is no power limit's to
    clear, and the build still fails with it)."""
    from planner.checks.engine.registry import informing
    from planner.checks.engine.runner import run_checks
    from planner.checks.limits import with_limits

    failing = ("error", "warning") if strict else ("error",)
    findings = run_checks(with_limits(build, limits), catalog, settings, propose_fixes=False, skip=informing())
    return sorted(set(remaining) | {f.code for f in findings if f.severity in failing})


def optimised_name(name: str, limits: dict[int, float]) -> str:
    """The written build's name says its power limits changed: "Quad RTX 3090 (power limits 325 W by planner
    optimize)"; a name that already says so is updated, not extended."""
    import re

    base = re.sub(r" \(power limits [^()]* by planner optimize\)$", "", name)
    shown = " / ".join(f"{watts:g}" for watts in dict.fromkeys(limits[i] for i in sorted(limits)))
    return f"{base} (power limits {shown} W by planner optimize)"


def percent_text(cost: float) -> str:
    """The throughput a plan costs, as the comment next to a new power limit."""
    change = f"{-cost * 100:+.0f} %".replace("-", "−")
    return "no measurable throughput cost" if change in ("+0 %", "−0 %") else f"{change} estimated throughput"
