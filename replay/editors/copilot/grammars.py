"""The tree-sitter grammars Copilot's block rules and statement splitter parse with, loaded once.

chat-lib parses with the 0.23 wasm builds of @vscode/tree-sitter-wasm. py-tree-sitter 0.22 (pinned:
codebleu needs it) takes a grammar as its TSLanguage pointer: the 0.21 wheels hand it over as an
int, the 0.23 wheels in a capsule named "tree_sitter.Language" (the grammar's static data, which
lives as long as its module), unwrapped here. Which wheel each language uses, and why, is said in
pyproject.toml and where each rule is.
"""

from __future__ import annotations

import ctypes
import importlib
from functools import lru_cache
from typing import Any

import tree_sitter

_CAPSULE_POINTER = ctypes.PYFUNCTYPE(ctypes.c_void_p, ctypes.py_object, ctypes.c_char_p)(
    ("PyCapsule_GetPointer", ctypes.pythonapi))


def _pointer(handle: Any) -> int:
    return handle if isinstance(handle, int) else _CAPSULE_POINTER(handle, b"tree_sitter.Language")


@lru_cache(maxsize=None)
def grammar(module: str, function: str = "language") -> tree_sitter.Language:
    """The grammar a wheel's module gives by `function` (TypeScript's has two: typescript, tsx)."""
    return tree_sitter.Language(_pointer(getattr(importlib.import_module(module), function)()))
