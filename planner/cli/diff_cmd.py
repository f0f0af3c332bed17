"""`planner diff A B`: what changed between two builds (parts, power limits, totals, verdict, findings)."""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from typing import TYPE_CHECKING, Any

from planner.cli.common import catalog_from, write_json
from planner.report import Report
from planner.util.errors import ExitCode
from planner.util.fmt import num, printable

if TYPE_CHECKING:
    from planner.build.resolve import ResolvedBuild


def run_diff(args: argparse.Namespace) -> int:
    from planner.api import check_build, load_build
    from planner.checks.engine.context import Settings

    if str(args.old) == "-" and str(args.new) == "-":
        from planner.util.errors import InputError

        raise InputError("only one of the two builds can come from stdin (-)")
    catalog = catalog_from(args)
    settings = Settings(region=args.region)
    builds = [load_build(path, catalog, args.region) for path in (args.old, args.new)]
    old, new = (check_build(build, catalog, settings) for build in builds)
    changes = diff_reports(old, new, *(_parts(build) for build in builds))
    if args.format == "json":
        write_json(changes)
    else:
        sys.stdout.write(render(changes))
    return ExitCode.OK


def _parts(build: ResolvedBuild) -> Counter[str]:
    """Each part id of the build's parts list and how many of it."""
    from planner.build.parts_list import parts_list

    counts: Counter[str] = Counter()
    for row in parts_list(build):
        counts[row.part_id] += row.quantity
    return counts


def _finding_key(finding: Any) -> str:
    """A finding is the same in both builds when its severity, code and subjects are."""
    return f"{finding.severity} {finding.code} [{', '.join(finding.subject)}]"


def diff_reports(old: Report, new: Report, before: Counter[str], after: Counter[str]) -> dict[str, Any]:
    """The changes from `old` to `new` (whose parts lists count `before` and `after`), as JSON-ready data."""
    parts = [{"part": part, "from": before[part], "to": after[part]}
             for part in sorted(set(before) | set(after)) if before[part] != after[part]]
    limits = []
    for i in range(max(len(old.summary.gpus), len(new.summary.gpus))):
        a = old.summary.gpus[i] if i < len(old.summary.gpus) else None
        b = new.summary.gpus[i] if i < len(new.summary.gpus) else None
        if a is not None and b is not None and a.part == b.part and a.power_limit_w != b.power_limit_w:
            limits.append({"gpu": f"GPU{i + 1}", "part": a.part, "from_w": a.power_limit_w, "to_w": b.power_limit_w})
    totals = []
    for key, unit in (("dc_load_w", "W"), ("dc_peak_w", "W"), ("price_usd", "USD"), ("relative_perf", "")):
        a, b = getattr(old.summary, key), getattr(new.summary, key)
        if a != b:
            totals.append({"total": key, "from": a, "to": b, "unit": unit})
    for name in sorted({c.name for c in old.summary.circuits} | {c.name for c in new.summary.circuits}):
        wall = [next((c.wall_w for c in r.summary.circuits if c.name == name), None) for r in (old, new)]
        if wall[0] != wall[1]:
            totals.append({"total": f"circuit {name} wall_w", "from": wall[0], "to": wall[1], "unit": "W"})
    old_findings = {_finding_key(f): f for f in old.findings if f.severity != "info"}
    new_findings = {_finding_key(f): f for f in new.findings if f.severity != "info"}

    def brief(finding: Any) -> dict[str, Any]:
        return {"code": finding.code, "severity": finding.severity, "subject": finding.subject,
                "message": finding.message}

    return {
        "old": {"file": old.file, "build": old.build, "verdict": old.verdict},
        "new": {"file": new.file, "build": new.build, "verdict": new.verdict},
        "parts": parts, "power_limits": limits, "totals": totals,
        "appeared": [brief(new_findings[k]) for k in new_findings if k not in old_findings],
        "cleared": [brief(old_findings[k]) for k in old_findings if k not in new_findings],
    }


def _value(value: float | None, unit: str) -> str:
    if value is None:
        return "none"
    if unit == "USD":
        return f"${num(value)}"
    if not unit:
        return f"{value * 100:.1f} %"
    return f"{num(value)} {unit}"


def render(changes: dict[str, Any]) -> str:
    old, new = changes["old"], changes["new"]
    lines = [f"{old['file']} → {new['file']}",
             f"  verdict: {old['verdict'].upper()} → {new['verdict'].upper()}"
             if old["verdict"] != new["verdict"] else f"  verdict: {old['verdict'].upper()} (unchanged)"]
    for part in changes["parts"]:
        sign = "+" if part["to"] > part["from"] else "-"
        lines.append(f"  {sign} {part['part']}: {part['from']} → {part['to']}")
    for limit in changes["power_limits"]:
        lines.append(f"  ~ {limit['gpu']} {limit['part']} power limit: {limit['from_w']:g} W → {limit['to_w']:g} W")
    for total in changes["totals"]:
        lines.append(f"  ~ {total['total']}: {_value(total['from'], total['unit'])} → "
                     f"{_value(total['to'], total['unit'])}")
    for finding in changes["appeared"]:
        lines.append(f"  + {finding['severity']} {finding['code']}: {finding['message']}")
    for finding in changes["cleared"]:
        subject = f" [{', '.join(finding['subject'])}]" if finding["subject"] else ""
        lines.append(f"  - {finding['severity']} {finding['code']}{subject} cleared")
    if len(lines) == 2 and old["verdict"] == new["verdict"]:
        lines.append("  no difference in parts, power limits, totals or findings")
    return "".join(printable(line) + "\n" for line in lines)
