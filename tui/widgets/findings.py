"""The findings panel: the plan, then the errors, warnings and infos of the last check, one line each; the
highlighted one is shown whole, with its fixes (what `x` applies)."""

from __future__ import annotations

from typing import Any, Literal

from rich.console import Console
from rich.text import Text
from textual.widgets import OptionList
from textual.widgets.option_list import Option

from planner.api import Finding, Fix
from tui.state import Checked
from tui.text import plain

_STYLE = {"error": "bold red", "warning": "yellow", "info": "cyan"}
_MARK = {"error": "✖", "warning": "▲", "info": "i"}
_PADDING = 2  # an option's padding, one cell each side (Textual's OptionList)
_CONSOLE = Console(width=200, color_system=None)  # wraps text as the list will, to count its lines


class FindingsPanel(OptionList):
    """One option per finding; the highlighted one is what "apply fix" acts on, and the only one shown whole."""

    DEFAULT_CSS = """
    FindingsPanel { height: 1fr; scrollbar-gutter: stable; }
    /* the highlighted finding is what `x` fixes: plainly marked even while another panel has the focus */
    FindingsPanel > .option-list--option-highlighted { background: $accent 45%; }
    FindingsPanel:focus > .option-list--option-highlighted { background: $accent 80%; }
    """

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.findings: list[Finding] = []
        self.notes: list[str] = []
        self._auto: Finding | None = None  # the finding highlighted for the user, until they move
        self._scrolled_to: int | None = None
        self._expanded: int | None = None  # the option shown whole
        self._width = 0  # the width the one-line options were cut to
        self.border_title = "Findings"

    def on_mount(self) -> None:
        # the findings of the last check that landed; while a newer one runs, the header says "checking…" (a
        # mark here would repaint the whole list on every key)
        self.watch(self.app, "checked", self._checked)

    def _checked(self, checked: Checked | None) -> None:
        if checked is not None:
            self.show(list(checked.findings), list(checked.notes))

    def _title(self) -> None:
        counts = [f"{n} {_MARK[severity]}" for severity in ("error", "warning")
                  if (n := sum(f.severity == severity and f.code != "plan" for f in self.findings))]
        self.border_title = "Findings" + (f" {' '.join(counts)}" if counts else "")

    def show(self, findings: list[Finding], notes: list[str]) -> None:
        """Refill the list, keeping the highlight on the same finding (by code and subject) when it is
        still there, else on the first finding with a fix: the highlight is always what `x` would fix."""
        width = self._line_width()
        if (list(findings), list(notes), width) == (self.findings, self.notes, self._width):
            return  # nothing changed: no re-render
        before = self.highlighted_finding
        self.findings, self.notes, self._width = list(findings), list(notes), width
        self._title()
        options = [Option(plain(note, "bold"), disabled=True) for note in notes]
        options += [Option(self._prompt(finding, expanded=False)) for finding in self.findings]
        if not findings and not notes:
            options.append(Option(Text("No problems found.", style="green"), disabled=True))
        self._expanded = None
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
            self._expand(moved_to)
            if moved_to != self._scrolled_to:  # the highlight moved: bring it to the top once laid out
                self._scrolled_to = moved_to
                self.call_after_refresh(self.scroll_to_highlight, top=True)

    def on_resize(self) -> None:
        if self._line_width() != self._width:
            findings, notes = self.findings, self.notes
            self.findings, self.notes = [], []
            self.show(findings, notes)

    def watch_highlighted(self, highlighted: int | None) -> None:
        super().watch_highlighted(highlighted)
        self._expand(highlighted)

    def _expand(self, index: int | None) -> None:
        """Show the option at `index` whole and the one shown whole before on one line again."""
        if index == self._expanded:
            return
        offset = self.option_count - len(self.findings)
        if self._expanded is not None and offset <= self._expanded < self.option_count:
            self.replace_option_prompt_at_index(self._expanded,
                                                self._prompt(self.findings[self._expanded - offset], False))
        self._expanded = None
        if index is not None and offset <= index < self.option_count:
            self.replace_option_prompt_at_index(index, self._prompt(self.findings[index - offset], True))
            self._expanded = index

    def _line_width(self) -> int:
        return max(10, self.scrollable_content_region.width - _PADDING)

    def _prompt(self, finding: Finding, expanded: bool) -> Text:
        if finding.code == "plan":  # the report's plan (planner.api.plan_finding): first, and marked so
            text = Text.assemble(("★ PLAN ", "bold green"), plain(finding.message))
        else:
            text = Text.assemble((f"{_MARK[finding.severity]} ", _STYLE[finding.severity]),
                                 plain(finding.code, "bold"), " ", plain(finding.message))
        width = self._width or self._line_width()
        if not expanded:  # one line, cut: the highlighted finding is read whole
            text.truncate(width, overflow="ellipsis")
            return text
        text.stylize("bold")
        lines = [plain(f"   → {'x: ' if n == 0 and fix.changes else ''}{fix.description}{' ✓' if fix.verified else ''}",
                       "green") for n, fix in enumerate(finding.fixes)]
        if not self.has_focus:  # while another panel has the focus, the finding leaves room for the others
            room = self.scrollable_content_region.height - min(4, len(self.findings)) - len(self.notes)
            text = _cut(text, width, max(2, room - min(2, len(lines))))
            lines = [_cut(line, width, 1) for line in lines[:2]]
        for line in lines:
            text.append("\n").append_text(line)
        return text

    def on_focus(self) -> None:
        self._reexpand()

    def on_blur(self) -> None:
        self._reexpand()

    def _reexpand(self) -> None:
        """Show the highlighted finding whole (focused) or cut to leave room for the others (not focused)."""
        index, self._expanded = self._expanded, None
        offset = self.option_count - len(self.findings)
        if index is not None and offset <= index < self.option_count:
            self._expanded = index
            self.replace_option_prompt_at_index(index, self._prompt(self.findings[index - offset], True))

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


def _cut(text: Text, width: int, lines: int) -> Text:
    """`text` in at most `lines` lines of `width` cells, the last one ending in "…" when cut (Tab to the panel
    shows it whole)."""
    wrapped = text.wrap(_CONSOLE, width)
    if len(wrapped) <= lines:
        return text
    kept = Text("\n").join(wrapped[:lines])
    kept.right_crop(1)
    kept.rstrip()
    return kept.append("…")


def _same(a: Finding, b: Finding) -> bool:
    return (a.code, a.subject) == (b.code, b.subject)
