"""The findings panel: errors, warnings and infos of the last check, each with its fixes."""

from __future__ import annotations

from rich.text import Text
from textual.widgets import OptionList
from textual.widgets.option_list import Option

from planner.checks.findings import Finding, Fix
from tui.text import plain

_STYLE = {"error": "bold red", "warning": "yellow", "info": "cyan"}
_MARK = {"error": "✖", "warning": "▲", "info": "i"}


class FindingsPanel(OptionList):
    """One option per finding; the highlighted one is what "apply fix" acts on."""

    DEFAULT_CSS = """
    FindingsPanel { height: 1fr; }
    """

    def __init__(self, **kwargs: object) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self.findings: list[Finding] = []

    def show(self, findings: list[Finding], notes: list[str]) -> None:
        self.findings = list(findings)
        self.clear_options()
        for note in notes:
            self.add_option(Option(plain(note, "bold"), disabled=True))
        for finding in self.findings:
            text = Text.assemble((f"{_MARK[finding.severity]} ", _STYLE[finding.severity]),
                                 plain(finding.code, "bold"), " ", plain(finding.message))
            for fix in finding.fixes:
                mark = " ✓" if fix.verified else ""
                text.append("\n").append_text(plain(f"   → {fix.description}{mark}", "green"))
            self.add_option(Option(text))
        if not findings and not notes:
            self.add_option(Option(Text("No problems found.", style="green"), disabled=True))

    @property
    def selected_fix(self) -> tuple[Finding, Fix] | None:
        """The first fix of the highlighted finding (or of the first finding that has one)."""
        index = self.highlighted
        offset = self.option_count - len(self.findings)
        candidates = []
        if index is not None and index >= offset:
            candidates.append(self.findings[index - offset])
        candidates += self.findings
        for finding in candidates:
            if finding.fixes and finding.fixes[0].changes:
                return finding, finding.fixes[0]
        return None
