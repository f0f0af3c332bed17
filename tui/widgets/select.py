"""A dropdown you can type into: a letter or digit typed on the closed dropdown opens it and jumps to the first
option that holds what is typed (Textual's Select searches only once it is open)."""

from __future__ import annotations

from typing import TypeVar

from textual import events
from textual.widgets import Select
from textual.widgets._select import SelectOverlay

T = TypeVar("T")


class TypedSelect(Select[T]):
    def check_consume_key(self, key: str, character: str | None = None) -> bool:
        """Printable keys are typed into the dropdown: they do not reach the screen's bindings."""
        return character is not None and character.isprintable() and not character.isspace()

    def on_key(self, event: events.Key) -> None:
        if self.expanded or not self.check_consume_key(event.key, event.character):
            return
        event.stop()
        event.prevent_default()
        self.action_show_overlay()
        # the opened list searches what is typed (Textual's type-to-search): this key is its first letter
        self.query_one(SelectOverlay).post_message(events.Key(event.key, event.character))
