"""The timing rules of the editor release a completion was shown by (its stage label,
`NAME@VERSION`), from the editor's profile (EditorProfile.timing, each package's `timing`
module); an editor without them says why, so that its verdicts say why they are unknown."""

from __future__ import annotations

import functools

from replay.editors import profile
from replay.editors.interface import NoTiming
from replay.editors.timing import TimingRules
from replay.errors import FimreplayError


@functools.lru_cache(maxsize=256)
def rules_for(stage: str) -> TimingRules | str:
    """The TimingRules of a completion stage's label, or why there are none (a str)."""
    if not stage:
        return "no editor showed this completion (a run of prompts or items without an editor)"
    try:
        prof, version = profile(stage)
    except FimreplayError:
        return f"{stage.partition('@')[0]}'s timing rules are not modelled yet"
    try:
        return prof.timing(version)
    except NoTiming as exc:
        return str(exc)
    except (FimreplayError, ValueError) as exc:
        return f"{stage}: {exc}"
