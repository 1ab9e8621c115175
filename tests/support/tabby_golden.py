"""One case of tabby-agent's own golden files (clients/tabby-agent/src/postprocess/golden/**/*.toml
in TabbyML/tabby), as the agent state `state` has it."""

from __future__ import annotations

from typing import Any, NamedTuple


class Golden(NamedTuple):
    """One golden/**/*.toml of the state `state`: options are the toml's [config] as dotted keys."""

    state: str
    path: str
    description: str
    language: str
    options: dict[str, Any]
    kind: str  # unchanged | discard | text
    not_equal: bool
    text: str
    expected: str | None
