"""Widgets of the fimreplay TUI."""
