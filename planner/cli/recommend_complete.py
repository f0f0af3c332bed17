"""`planner recommend --add` and `--complete`: options added to a build's cards, and options completed into
machines by the solver (planner/recommend/complete.py). `planner recommend` hands over to `run_extended` when
either flag is given; the JSON keeps every key of the plain command and adds `additions` and `complete`."""

from __future__ import annotations

import argparse
import sys
from dataclasses import asdict
from typing import TYPE_CHECKING, Any

from planner.recommend.plot import label
from planner.util.errors import ExitCode, InputError
from planner.util.fmt import num, printable, usd

if TYPE_CHECKING:
    from planner.catalog import Catalog
    from planner.recommend.complete import Additions, Completed, Machines
    from planner.recommend.fit import BuildFit
    from planner.recommend.rank import Candidate, Recommendation, Request
    from planner.solve.partial import Partial


def build_fit(args: argparse.Namespace, catalog: Catalog) -> tuple[BuildFit | None, Partial | None]:
    """The --build file as a build to fit options in, or (with --complete or --add) a partial build — the solver
    completes it around each option with --complete; --add alone rates options by memory and price only: (fit,
    None) for a complete build, (None, partial) for a partial one."""
    from planner.recommend.fit import BuildFit

    if args.build is None:
        if args.add:
            raise InputError("--add needs --build FILE: the build whose cards are kept")
        return None, None
    if args.complete or args.add:
        from planner.solve import read_partial

        partial = read_partial(args.build, catalog, args.region)
        if not all(partial.given.values()):
            return None, partial
    return BuildFit(args.build, catalog, args.region), None


def run_extended(args: argparse.Namespace, catalog: Catalog, request: Request, rec: Recommendation,
                 fit: BuildFit | None, partial: Partial | None, counts: list[int], hint: str | None) -> int:
    from planner.cli.common import write_json
    from planner.recommend.complete import AddingFit, additions, complete_options, kept_in, kept_in_partial

    adds = None
    if args.add:
        if fit is not None:
            adds = additions(request, rec, catalog, kept_in(fit), AddingFit(args.build, catalog, args.region))
        else:
            assert partial is not None
            adds = additions(request, rec, catalog, kept_in_partial(partial))
    machines = None
    if args.complete:
        machines = complete_options(rec, catalog, workload=args.workload, top=args.top, base=args.build, adds=adds,
                                    region=args.region, cheapest_first=args.sort == "machine-price")
    if args.into is not None and args.into.exists() and args.complete and not args.force \
            and args.into.resolve() != (args.build.resolve() if args.build else None):
        raise InputError("exists and is not the --build file; use --force to replace it with the completed build",
                         file=str(args.into))
    chosen, mode, machine = _pick(args, rec, adds, machines)
    into = _into(args, catalog, chosen, mode, machine) if args.into is not None else None
    tco = cost = None
    if machine is not None and machine.result.build_toml is not None:  # cloud vs buy of the machine itself
        from planner.recommend import params
        from planner.recommend.tco import cloud_vs_buy, hours_from, machine_cost

        cost = machine_cost(machine.result.build_toml, machine.result.file, catalog, machine.price_usd, args.region)
        electricity = args.electricity if args.electricity is not None else params.DEFAULT_ELECTRICITY_PRICE.value
        tco = cloud_vs_buy(cost.price_usd, cost.power_w, hours_from(args.hours_per_day, args.utilization),
                           electricity, args.cloud_price)
    if args.format == "json":
        from planner.cli.render_recommend import to_json

        data = to_json(rec, args.precision, counts, tco, chosen if mode == "replace" else None, into and into[0])
        if chosen is not None:
            data["recommended"] = {**asdict(chosen), "mode": mode}
        data["precision_hint"] = hint
        data["additions"] = _additions_json(adds) if adds is not None else None
        data["complete"] = _machines_json(machines) if machines is not None else None
        write_json(data)
        return ExitCode.OK
    text = render_extended(args, rec, counts, adds, machines, hint)
    if tco is not None and machine is not None:
        from planner.cli.render_recommend import tco_lines

        title = f"Cloud vs buy for the completed {label(machine.option)}"
        text += "\n" + "".join(printable(line) + "\n" for line in tco_lines(tco, cost, title))
    sys.stdout.write(printable(text, newlines=True))
    if into is not None:
        sys.stdout.write("\n" + printable(into[1], newlines=True))
    return ExitCode.OK


def _pick(args: argparse.Namespace, rec: Recommendation, adds: Additions | None,
          machines: Machines | None) -> tuple[Candidate | None, str, Completed | None]:
    if args.pick < 1:
        raise InputError(f"--pick counts from 1, got {args.pick}")
    if machines is not None:
        ranking = {"value": machines.by_value, "speed": machines.by_speed,
                   "machine-price": machines.by_price}[args.sort]
        if not ranking:
            return None, "replace", None
        if args.pick > len(ranking):
            raise InputError(f"--pick {args.pick}: only {len(ranking)} options were completed")
        machine = ranking[args.pick - 1]
        return machine.option, machine.mode, machine
    options = _merged(rec, adds, args.sort)
    if not options:
        return None, "replace", None
    if args.pick > len(options):
        raise InputError(f"--pick {args.pick}: only {len(options)} options fit")
    option, mode = options[args.pick - 1]
    return option, mode, None


def _merged(rec: Recommendation, adds: Additions | None, sort: str) -> list[tuple[Candidate, str]]:
    """The ranking with the options that add cards among those that replace them."""
    if sort == "value":
        options = [(c, "replace") for c in rec.by_value] + [(c, "add") for c in (adds.by_value if adds else [])]
        options.sort(key=lambda o: (o[0].perf_per_dollar is None, -(o[0].perf_per_dollar or 0), -o[0].performance))
    else:
        options = [(c, "replace") for c in rec.by_speed] + [(c, "add") for c in (adds.by_speed if adds else [])]
        options.sort(key=lambda o: (-o[0].performance, o[0].price_usd or float("inf")))
    return options


def _into(args: argparse.Namespace, catalog: Catalog, chosen: Candidate | None, mode: str,
          machine: Completed | None) -> tuple[dict[str, Any], str]:
    """Write the chosen option (the completed build with --complete) into --into and check it."""
    from planner.api import check_file
    from planner.build.buildfile import read_text
    from planner.checks.engine.context import Settings
    from planner.cli.render_text import render_report
    from planner.recommend.complete import option_text
    from planner.report import to_json
    from planner.util.fileio import atomic_write

    if chosen is None or chosen.board is None:
        raise InputError("no option " + ("could be completed" if args.complete else "fits")
                         + ", so there is nothing to put into the build", file=str(args.into))
    if machine is not None:
        assert machine.result.build_toml is not None
        text, what = machine.result.build_toml, f"wrote the completed build to {args.into}"
    else:  # --add without --complete: the build's cards stay, the chosen ones are added
        base = args.into if args.into.exists() else args.build
        text = option_text(chosen, mode, args.workload, read_text(base))
        what = f"wrote {args.into} from {base}"
    atomic_write(args.into, text, force=True)
    report = check_file(args.into, catalog, Settings(region=args.region))
    added = "added to the build's cards" if mode == "add" else ""
    head = f"{what} with {chosen.count} × {chosen.board} {added}".rstrip()
    data = {"file": str(args.into), "board": chosen.board, "count": chosen.count, "mode": mode,
            "created_from": str(args.build) if args.build else None, "replaced": [], "report": to_json(report)}
    return data, f"{head}; planner check says {report.verdict.upper()}:\n" + render_report(report)


# -- text ------------------------------------------------------------------------------------------------------
def render_extended(args: argparse.Namespace, rec: Recommendation, counts: list[int], adds: Additions | None,
                    machines: Machines | None, hint: str | None) -> str:
    from planner.cli.render_recommend import exclusions, headline, memory_lines

    decode = rec.workload == "llm-inference"
    lines = [headline(rec, args.precision), *memory_lines(rec.need, counts)]
    if args.build is not None and rec.build is None:
        lines.append(f"Completing each option around the parts {args.build} gives (a partial build)")
    if adds is not None:
        lines.append(f"Adding: options marked + add cards to the build's {', '.join(adds.kept)} (kept, owned; the"
                     " memory need split evenly over every card)")
    lines.extend(f"Build problem (not caused by the GPUs): {p}" for p in rec.build_problems)
    if machines is not None:
        lines.append(f"Performance: {rec.basis}, relative to one H100 SXM (= 1.00); per $1,000 of the whole machine"
                     " (the cards and every part planner solve chose for it to pass planner check; owned parts"
                     " free)")
        lines.append("")
        lines.extend(_machine_lines(machines, args.top, decode, args.sort == "machine-price"))
        solver_left = machines_left_out_lines(machines)
        lines.extend([*solver_left, ""] if solver_left else [])
    else:
        lines.append(f"Performance: {rec.basis}, relative to one H100 SXM (= 1.00); per $1,000 of the cards plus"
                     " the other parts of the build")
        lines.append("")
        for title, sort in (("Best performance per dollar", "value"), ("Fastest", "speed")):
            options = _merged(rec, adds, sort)[: args.top if sort == "value" else max(3, args.top // 2)]
            lines.append(title)
            lines.extend(_option_table(options, decode))
            lines.append("")
    if hint:
        lines.append(hint)
        lines.append("")
    lines.extend(exclusions(rec.candidates))
    if adds is not None:
        left = [c for c in adds.candidates if not c.fits]
        if left:
            lines.append(f"Left out when adding: {len(left)} options, e.g. +{label(left[0])}:"
                         f" {left[0].excluded_reason}")
    # each line one line: a newline in a chip's or board's name (a user catalog's) cannot forge one
    return "\n".join(printable(line) for line in lines).rstrip("\n") + "\n"


def _option_table(options: list[tuple[Candidate, str]], decode: bool) -> list[str]:
    names = [("+" if mode == "add" else "") + label(c) for c, mode in options]
    width = max([len("option"), *(len(n) for n in names)])
    boards = [c.board or "-" for c, _ in options]
    board_width = max([len("board"), *(len(b) for b in boards)])
    lines = [f"  {'#':>2}  {'option':<{width}}  {'board':<{board_width}} {'memory':>8} {'price':>8} {'perf':>6}"
             f" {'per $1k':>8}" + ("  decode" if decode else "")]
    for i, ((c, _), name, board) in enumerate(zip(options, names, boards, strict=True), start=1):
        price = usd(c.price_usd) if c.price_usd is not None else "-"
        value = f"{c.perf_per_dollar:.3f}" if c.perf_per_dollar is not None else "-"
        line = (f"  {i:>2}  {name:<{width}}  {board:<{board_width}} {num(c.memory_gib):>4} GiB {price:>8}"
                f" {c.performance:>6.3f} {value:>8}")
        if decode and c.tokens_per_s is not None:
            line += f"  {c.tokens_per_s:,.1f} tok/s"
        lines.append(line)
        lines.extend(f"        {note}" for note in c.notes)
    return lines


def _machine_lines(machines: Machines, top: int, decode: bool, by_price: bool = False) -> list[str]:
    if not machines.by_value:
        return ["No option could be completed into a machine that passes planner check: see why below.", ""]
    lines = []
    tables = [("Completed builds, best performance per dollar", machines.by_value[:top]),
              ("Completed builds, fastest", machines.by_speed[: max(3, top // 2)])]
    if by_price:
        tables.insert(0, ("Completed builds, cheapest machine first", list(machines.by_price[:top])))
    for title, ranking in tables:
        names = [("+" if m.mode == "add" else "") + label(m.option) for m in ranking]
        width = max([len("option"), *(len(n) for n in names)])
        boards = [m.option.board or "-" for m in ranking]
        board_width = max([len("board"), *(len(b) for b in boards)])
        lines.append(title)
        lines.append(f"  {'#':>2}  {'option':<{width}}  {'board':<{board_width}} {'machine':>8} {'perf':>6}"
                     f" {'per $1k':>8}" + ("  decode" if decode else ""))
        for i, (m, name, board) in enumerate(zip(ranking, names, boards, strict=True), start=1):
            price = usd(m.price_usd) if m.price_usd is not None else "-"
            value = f"{m.perf_per_dollar:.3f}" if m.perf_per_dollar is not None else "-"
            line = (f"  {i:>2}  {name:<{width}}  {board:<{board_width}} {price:>8} {m.option.performance:>6.3f}"
                    f" {value:>8}")
            if decode and m.option.tokens_per_s is not None:
                line += f"  {m.option.tokens_per_s:,.1f} tok/s"
            lines.append(line)
            lines.append("        " + _machine_summary(m))
        lines.append("")
    return lines


def _machine_summary(machine: Completed) -> str:
    result = machine.result
    parts = ", ".join(a.part for a in result.added if a.kind != "circuit")
    circuits = sum(a.kind == "circuit" for a in result.added)
    added = usd(result.added_usd) if result.added_usd is not None else "price unknown"
    report = result.report
    verdict = report.verdict.upper() if report is not None else "?"
    warnings = sum(f.severity == "warning" for f in report.findings) if report is not None else 0
    extra = f" and {circuits} more circuit{'s' if circuits > 1 else ''}" if circuits else ""
    cards = f"cards {usd(machine.option.price_usd)}, " if machine.option.price_usd is not None else ""
    proved = "proved cheapest" if result.optimal else "not proved cheapest"
    return (f"+ {parts}{extra} ({cards}added {added}; {proved}); planner check: {verdict}"
            + (f", {warnings} warning{'s' if warnings != 1 else ''}" if warnings else ""))


def machines_left_out_lines(machines: Machines) -> list[str]:
    grouped: dict[tuple[str, str | None, str], list[str]] = {}  # the same board left out for the same reason
    for m in machines.left_out:
        grouped.setdefault((m.mode, m.option.board, m.binding), []).append(("+" if m.mode == "add" else "")
                                                                          + label(m.option))
    lines = [f"  {', '.join(names)} ({board}): {binding}" for (_, board, binding), names in grouped.items()]
    if machines.untried:
        lines.append(f"  {machines.untried} more fitting options not tried (--top N tries more)")
    return (["Left out by planner solve (no completion passes planner check):", *lines] if lines else [])


# -- JSON ------------------------------------------------------------------------------------------------------
def _additions_json(adds: Additions) -> dict[str, Any]:
    return {"kept": adds.kept, "candidates": [{**asdict(c), "mode": "add"} for c in adds.candidates]}


def _machines_json(machines: Machines) -> dict[str, Any]:
    from planner.cli.solve_cmd import to_json as solve_json

    return {"options": [{"option": {**asdict(m.option), "mode": m.mode}, "price_usd": m.price_usd,
                         "perf_per_dollar": m.perf_per_dollar, "solve": solve_json(m.result)}
                        for m in machines.by_value],
            "by_machine_price": [{"option": {**asdict(m.option), "mode": m.mode}, "price_usd": m.price_usd}
                                 for m in machines.by_price],
            "left_out": [{"option": {**asdict(m.option), "mode": m.mode}, "binding": m.binding}
                         for m in machines.left_out],
            "untried": machines.untried}
