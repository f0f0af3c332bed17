"""The build screen's state: the parts as edited (shown at once) and the last check that landed (shown when its
worker ends). The app holds both as reactives; each panel watches the one it draws.
"""

from __future__ import annotations

from typing import NamedTuple

from planner.api import Finding, plan_finding
from planner.session import CheckResult, PartRow, PendingCheck, slot_diagram


class Parts(NamedTuple):
    """The parts list as the build is now: read from the session after every edit, before any check."""

    rows: tuple[PartRow, ...]
    missing: tuple[str, ...]  # required parts not chosen yet


class Checked(NamedTuple):
    """One check of the build, and what the panels draw from it."""

    result: CheckResult
    findings: tuple[Finding, ...]  # the report's plan first (planner.api.plan_finding), then its findings
    diagram: str | None  # the slot diagram (None: the build could not be placed or checked)
    edit: int  # the app's edit count when the check began: it is current while no edit has come since
    notes: tuple[str, ...] = ()  # what stops the check (a file error, the parts still missing), added on landing

    @property
    def verdict(self) -> str:
        report = self.result.report
        return report.verdict.upper() if report is not None else "ERROR" if self.result.problem else "INCOMPLETE"


def check(pending: PendingCheck, edit: int) -> Checked:
    """Check the build, lay out its plan and draw its slot diagram: what the worker runs, off the event loop."""
    result = pending.run()
    findings: list[Finding] = list(result.report.findings) if result.report else []
    if result.report and (plan := plan_finding(result.report)):
        findings.insert(0, plan)  # the one change that clears everything comes first
    diagram = None
    if result.build is not None:
        try:
            # drawn from the placement the checks used (placed again only when the check kept no models)
            placement = result.checked.placement if result.checked is not None else None
            diagram = slot_diagram(result.build, placement)
        except Exception as error:  # a bug in the diagram must not end the session: the check stands
            diagram = f"(no slot diagram: internal error {type(error).__name__})"
    return Checked(result, tuple(findings), diagram, edit)
