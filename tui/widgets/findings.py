"""The findings panel: errors, warnings and infos of the last check, each with its fixes."""

from __future__ import annotations

from typing import Literal

from rich.text import Text
from textual.widgets import OptionList
from textual.widgets.option_list import Option

from planner.api import Finding, Fix
from tui.text import plain

_STYLE = {"error": "bold red", "warning": "yellow", "info": "cyan"}
_MARK = {"error": "✖", "warning": "▲", "info": "i"}


class FindingsPanel(OptionList):
    """One option per finding; the highlighted one is what "apply fix" acts on."""

    DEFAULT_CSS = """
    FindingsPanel { height: 1fr; }
    /* the highlighted finding is what `x` fixes: plainly marked even while another panel has the focus */
    FindingsPanel > .option-list--option-highlighted { background: $accent 45%; text-style: bold; }
    FindingsPanel:focus > .option-list--option-highlighted { background: $accent; text-style: bold; }
    """

    def __init__(self, **kwargs: object) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self.findings: list[Finding] = []
        self.notes: list[str] = []
        self._auto: Finding | None = None  # the finding highlighted for the user, until they move
        self._scrolled_to: int | None = None

    def show(self, findings: list[Finding], notes: list[str]) -> None:
        """Refill the list, keeping the highlight on the same finding (by code and subject) when it is
        still there, else on the first finding with a fix: the highlight is always what `x` would fix."""
        if (list(findings), list(notes)) == (self.findings, self.notes):
            return  # nothing changed: no re-render
        before = self.highlighted_finding
        self.findings, self.notes = list(findings), list(notes)
        options = [Option(plain(note, "bold"), disabled=True) for note in notes]
        for finding in self.findings:
            if finding.code == "plan":  # the report's plan (planner.api.plan_finding): first, and marked so
                text = Text.assemble(("★ PLAN ", "bold green"), plain(finding.message))
            else:
                text = Text.assemble((f"{_MARK[finding.severity]} ", _STYLE[finding.severity]),
                                     plain(finding.code, "bold"), " ", plain(finding.message))
            for n, fix in enumerate(finding.fixes):
                mark = " ✓" if fix.verified else ""
                key = "x: " if n == 0 and fix.changes else ""
                text.append("\n").append_text(plain(f"   → {key}{fix.description}{mark}", "green"))
            options.append(Option(text))
        if not findings and not notes:
            options.append(Option(Text("No problems found.", style="green"), disabled=True))
        self.set_options(options)  # one re-layout, not one per option
        if self.findings:
            # the finding the user moved to stays highlighted; otherwise the first one with a fix (errors
            # come first), so `x` never acts on something the user did not see highlighted
            moved = before is not None and (self._auto is None or not _same(before, self._auto))
            same = [i for i, f in enumerate(self.findings) if moved and before is not None and _same(f, before)]
            fixable = [i for i, f in enumerate(self.findings) if f.fixes and f.fixes[0].changes]
            index = (same or fixable or [0])[0]
            self._auto = None if same else self.findings[index]
            moved_to = len(notes) + index
            self.highlighted = moved_to
            if moved_to != self._scrolled_to:  # the highlight moved: bring it to the top once laid out
                self._scrolled_to = moved_to
                self.call_after_refresh(self.scroll_to_highlight, top=True)

    def _move_page(self, direction: Literal[-1, 1]) -> None:
        """Page up or down: nothing when the panel has no room on screen (a terminal a few rows tall), where
        Textual's OptionList has no line to page from and raised KeyError."""
        if self.scrollable_content_region:
            super()._move_page(direction)

    @property
    def highlighted_finding(self) -> Finding | None:
        index = self.highlighted
        offset = self.option_count - len(self.findings)
        if index is None or index < offset or index - offset >= len(self.findings):
            return None
        return self.findings[index - offset]

    @property
    def selected_fix(self) -> tuple[Finding, Fix] | None:
        """The first fix of the highlighted finding, None when it has none (never another finding's)."""
        finding = self.highlighted_finding
        if finding is not None and finding.fixes and finding.fixes[0].changes:
            return finding, finding.fixes[0]
        return None


def _same(a: Finding, b: Finding) -> bool:
    return (a.code, a.subject) == (b.code, b.subject)
