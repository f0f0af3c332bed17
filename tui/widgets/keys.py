"""The footer of key bindings: the focused panel's keys first, then the app's, as many as the width holds;
recomposed only when the keys it shows change."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from itertools import groupby
from typing import Any

from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import Footer
from textual.widgets._footer import FooterKey, FooterLabel, KeyGroup


class KeysFooter(Footer):
    """Textual's Footer rebuilds all its key widgets on every focus change (its bindings signal fires then); this
    one rebuilds only when the keys it shows change. On a narrow terminal it leaves out the keys of `drop_first`
    (actions, in that order) until the rest fit, rather than cutting off the last ones (Save, Quit)."""

    def __init__(self, *, drop_first: Iterable[str] = (), **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.drop_first = tuple(drop_first)
        self._keys: tuple[object, ...] | None = None

    def _shown(self, screen: Screen[Any]) -> list[tuple[Binding, bool, str]]:
        """The first binding of each action shown, in the footer's order, less what the width cannot hold."""
        by_action: dict[str, tuple[Binding, bool, str]] = {}
        for _, binding, enabled, tooltip in screen.active_bindings.values():
            if binding.show:
                by_action.setdefault(binding.action, (binding, enabled, tooltip))
        shown = list(by_action.values())
        width = self.size.width or self.app.size.width
        for action in self.drop_first:
            if self._width([binding for binding, _, _ in shown]) <= width:
                break
            shown = [item for item in shown if item[0].action.removeprefix("app.") != action]
        return shown

    def _width(self, bindings: list[Binding]) -> int:
        """Cells the compact keys take: each key, a space and its description, and the gap after it; a group's
        keys without descriptions, then its label (as Footer lays them out, with the gap after the label)."""
        width = 0
        groups = {binding.group.description for binding in bindings if binding.group is not None}
        for binding in bindings:
            key = len(self.app.get_key_display(binding))
            width += key if binding.group is not None else key + 1 + len(binding.description) + 1
        return width + sum(len(label) + 3 for label in groups)

    def bindings_changed(self, screen: Screen[Any]) -> None:
        keys = (self.size.width, *((b.key, b.description, enabled) for b, enabled, _ in self._shown(screen)))
        if keys == self._keys and self._bindings_ready:
            return
        self._keys = keys
        super().bindings_changed(screen)

    def on_resize(self) -> None:
        if self.is_attached:
            self.bindings_changed(self.screen)

    def compose(self) -> ComposeResult:
        """Textual's Footer.compose, over the keys that fit."""
        if not self._bindings_ready:
            return
        action_to_bindings: defaultdict[str, list[tuple[Binding, bool, str]]] = defaultdict(list)
        for binding, enabled, tooltip in self._shown(self.screen):
            action_to_bindings[binding.action].append((binding, enabled, tooltip))
        self.styles.grid_size_columns = len(action_to_bindings)
        for group, multi in groupby(action_to_bindings.values(), lambda bindings: bindings[0][0].group):
            items = list(multi)
            if group is not None and len(items) > 1:
                with KeyGroup(classes="-compact" if group.compact else ""):
                    for bindings in items:
                        binding, enabled, tooltip = bindings[0]
                        yield FooterKey(binding.key, self.app.get_key_display(binding), "", binding.action,
                                        disabled=not enabled, tooltip=tooltip or binding.description,
                                        classes="-grouped").data_bind(compact=Footer.compact)
                yield FooterLabel(group.description)
            else:
                for bindings in items:
                    binding, enabled, tooltip = bindings[0]
                    yield FooterKey(binding.key, self.app.get_key_display(binding), binding.description,
                                    binding.action, disabled=not enabled,
                                    tooltip=tooltip).data_bind(compact=Footer.compact)
