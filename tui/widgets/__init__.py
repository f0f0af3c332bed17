"""Widgets of the build screen, one per area."""
