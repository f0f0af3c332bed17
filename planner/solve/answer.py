"""What a completion says to a person: the headline, the parts it adds with their prices, what it costs, why each
part, the runners-up and the notes — one explanation that both faces show (`planner solve`'s text, the TUI's
completion screen). Lines are plain text; each face escapes them for its channel."""

from __future__ import annotations

from planner.report import price_tag
from planner.solve import SolveResult
from planner.util.fmt import usd


def headline(result: SolveResult) -> str:
    """`FILE: SOLVED (cheapest, proved optimal; 1,234 candidates judged of 5,678 combinations)`."""
    return f"{result.file}: {result.status.upper()} ({search_line(result)})"


def search_line(result: SolveResult) -> str:
    """`cheapest, proved optimal; 1,234 candidates judged of 5,678 combinations`: what was searched."""
    proved = ", proved optimal" if result.optimal else ", not proved optimal"
    return (f"{result.objective}{proved}; {result.searched:,} candidates judged of {result.space:,} "
            "combinations")


def explanation(result: SolveResult, *, part_width: int = 48, verdict: bool = False) -> list[str]:
    """The completion in lines (after the headline). `part_width`: the part column's width; `verdict`: start with
    what was searched and end the costs with the completed build's verdict (for a face that shows neither the
    headline nor the whole report)."""
    if result.status != "solved":
        return [f"  {result.binding}", *(f"  note: {note}" for note in result.notes)]
    lines = [f"Searched: {search_line(result)}."] if verdict else []
    lines.append("Added:")
    counts: dict[tuple[str, str], int] = {}
    for added in result.added:  # the same part bought several times on one line ("4 × …")
        counts[(added.kind, added.part)] = counts.get((added.kind, added.part), 0) + 1
    shown = set()
    for added in result.added:
        key = (added.kind, added.part)
        if key in shown:
            continue
        shown.add(key)
        n = counts[key]
        if added.kind == "circuit":
            price = "another circuit (its own breaker)"
        else:
            price = "no price" if added.price_usd is None else usd(added.price_usd) + (" each" if n > 1 else "")
            price += price_tag(result.report.summary, added.part) if result.report is not None else ""
        part = f"{n} × {added.part}" if n > 1 else added.part
        lines.append(f"  {added.kind:<12} {part:<{part_width}} {price}")
    total = "unknown (a part has no price)" if result.added_usd is None else usd(result.added_usd)
    lines.append(f"  {'total added':<12} {'':<{part_width}} {total}")
    to_buy = "unknown (a part has no price)" if result.price_usd is None else usd(result.price_usd)
    lines.append(f"  {'to buy':<12} {'(added, and the parts the file gives but does not own)':<{part_width}} {to_buy}")
    if result.owned_usd:
        lines.append(f"  {'owned':<12} {'(the parts the file marks owned = true)':<{part_width}} "
                     f"{usd(result.owned_usd)}")
    if verdict and result.report is not None:
        warnings = sum(f.severity == "warning" for f in result.report.findings)
        lines.append(f"The completed build: {result.report.verdict.upper()}"
                     + (f", {warnings} warning{'s' if warnings != 1 else ''}" if warnings else ""))
    if result.reasons:
        lines.append("Why:")
        lines.extend(f"  {reason}" for reason in result.reasons)
    if result.runners_up:
        lines.append("Runner-up per added part (with the rest as chosen):")
        lines.extend(f"  {runner}" for runner in result.runners_up)
    lines.extend(f"Note: {note}" for note in result.notes)
    return lines
