"""Screens of the fimreplay TUI."""
