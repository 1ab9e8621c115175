"""The timing rules of the editor release a completion was shown by (its stage label,
`NAME@VERSION`), from the editor packages' `timing` modules; the editors without one yet are
named, so that their verdicts say why they are unknown."""

from __future__ import annotations

import functools
from collections.abc import Callable

from replay.editors.llama_server import split_version
from replay.editors.continue_ import timing as continue_timing
from replay.editors.copilot import timing as copilot_timing
from replay.editors.llama_vim import timing as llama_vim_timing
from replay.editors.llama_vscode import timing as llama_vscode_timing
from replay.editors.tabby import timing as tabby_timing
from replay.editors.timing import TimingRules
from replay.errors import FimreplayError

_TIMING: dict[str, Callable[[str | None], TimingRules]] = {
    continue_timing.NAME: lambda version: continue_timing.timing(version),
    copilot_timing.NAME: lambda version: copilot_timing.timing(version),
    llama_vim_timing.NAME: lambda version: llama_vim_timing.timing(split_version(version)[0]),
    llama_vscode_timing.NAME: lambda version: llama_vscode_timing.timing(split_version(version)[0]),
    tabby_timing.NAME: lambda version: tabby_timing.timing(version),
}


@functools.lru_cache(maxsize=256)
def rules_for(stage: str) -> TimingRules | str:
    """The TimingRules of a completion stage's label, or why there are none (a str)."""
    if not stage:
        return "no editor showed this completion (a run of prompts or items without an editor)"
    name, _, version = stage.partition("@")
    if name == "standard":
        return "the standard profile is no editor's: it has no timing of its own"
    timing = _TIMING.get(name)
    if timing is None:
        return f"{name}'s timing rules are not modelled yet"
    try:
        return timing(version or None)
    except (FimreplayError, ValueError) as exc:
        return f"{stage}: {exc}"
