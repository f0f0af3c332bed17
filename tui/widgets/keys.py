"""The footer of key bindings, recomposed only when the keys it shows change."""

from __future__ import annotations

from textual.screen import Screen
from textual.widgets import Footer


class KeysFooter(Footer):
    """Textual's Footer rebuilds all its key widgets on every focus change (its bindings signal fires
    then), which costs more than a whole re-check; the keys shown here only change when a binding is
    enabled or disabled, so it rebuilds only then."""

    _keys: tuple[tuple[str, str, bool], ...] | None = None

    def bindings_changed(self, screen: Screen) -> None:  # type: ignore[type-arg,unused-ignore]
        keys = tuple((binding.key, binding.description, enabled)
                     for _, binding, enabled, _ in screen.active_bindings.values() if binding.show)
        if keys == self._keys and self._bindings_ready:
            return
        self._keys = keys
        super().bindings_changed(screen)
