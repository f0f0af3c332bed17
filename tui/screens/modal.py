"""The base of every modal screen of the app (dismissed once, however many keys and button presses arrive
before it is gone) and the command palette the app opens."""

from __future__ import annotations

from typing import TypeVar

from textual import work
from textual.actions import SkipAction
from textual.await_complete import AwaitComplete
from textual.binding import Binding
from textual.command import CommandList, CommandPalette
from textual.css.query import NoMatches
from textual.screen import ModalScreen
from textual.widget import Widget

ResultType = TypeVar("ResultType")


class Modal(ModalScreen[ResultType]):
    """A modal screen whose `dismiss` acts once. Two enters on a button, or a key and a button press, queue two
    dismissals: a second would hand a result to a callback that has already had one and pop the screen under
    this one (Textual raises InvalidStateError)."""

    _dismissed = False
    #: page up/down go to the focused widget or its nearest ancestor that pages, guarded: Textual's own dropdown
    #: list (a Select's overlay) raised KeyError paging before its lines were laid out (the TUI fuzz harness,
    #: seed 2614, sessions 763 and 849)
    BINDINGS = [Binding("pageup", "guarded_page('up')", show=False, priority=True),
                Binding("pagedown", "guarded_page('down')", show=False, priority=True)]

    def dismiss(self, result: ResultType | None = None) -> AwaitComplete:
        if self._dismissed:
            return AwaitComplete()
        self._dismissed = True
        return super().dismiss(result)

    def action_guarded_page(self, direction: str) -> None:
        """The key is handled here, whoever pages: a widget that cannot scroll (it skips the action) passes it to
        its parent, never back to the unguarded bindings: a dropdown opened by typing, its list not focused yet,
        had the key go on to that list, which raised KeyError (the TUI fuzz harness, seed 2700, session 61; seed
        2615, session 412)."""
        widget = self.focused
        while widget is not None:
            action = getattr(widget, f"action_page_{direction}", None)
            if action is not None:
                try:
                    action()
                except (KeyError, IndexError):  # nothing laid out to page through yet
                    return
                except SkipAction:  # nothing to scroll here: the parent may
                    pass
                else:
                    return
            widget = widget.parent if isinstance(widget.parent, Widget) else None


class Palette(CommandPalette):
    """Textual's command palette (ctrl+p), whose search survives the palette closing under it. Each key typed
    starts a search in a worker; one that starts or goes on after the palette's list is gone (escape, a
    command chosen, a resize to a few cells, while the keys still arrive) found no list and, its worker
    failing, ended the app (`WorkerFailed: NoMatches('CommandList')`). Such a search now just stops; so does
    a page key on a list with no room on screen; and it is dismissed once."""

    _dismissed = False

    def dismiss(self, result: None = None) -> AwaitComplete:
        """Once, as a Modal: a command chosen (enter, or a click) and escape, queued together, dismissed the
        palette twice and the second popped the build screen under it (ScreenStackError)."""
        if self._dismissed:
            return AwaitComplete()
        self._dismissed = True
        return super().dismiss(result)

    def _action_command_list(self, action: str) -> None:
        """Keys the palette passes to its list (up, down, page up, page down): none when the list is gone, and no
        page up or down when the list has no room on screen (Textual's OptionList raised KeyError)."""
        found = self.query(CommandList)
        if not found or (action.startswith("page") and not found.first().scrollable_content_region):
            return
        super()._action_command_list(action)

    @work(exclusive=True, group=CommandPalette._GATHER_COMMANDS_GROUP, exit_on_error=False)
    async def _gather_commands(self, search_value: str) -> None:
        try:
            await CommandPalette._gather_commands.__wrapped__(self, search_value)  # type: ignore[attr-defined]
        except NoMatches:  # nothing left to show the commands in
            return
