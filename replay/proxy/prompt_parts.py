"""The prefix and suffix inside a templated prompt the proxy saw on the raw route.

An editor that templates its prompt itself (Continue's raw route: Ollama `raw: true`, OpenAI
`/v1/completions`, llama.cpp `/completion`) sends prefix and suffix inside the model family's
FIM template. The family is told by the model name (replay.editors.templates.family_for_model),
and its template's literal parts around `{prefix}` and `{suffix}` locate them; text before the
first literal part (a repository or file header some templates add) is allowed and left out.
With the parts, a proxied capture can be replayed like a logged one, and `fimreplay verify`
checks the editor's own rendering of them against the wire prompt.
"""

from __future__ import annotations

import functools
import re

from replay.editors.templates import family_for_model


@functools.lru_cache(maxsize=64)
def _pattern(model: str) -> tuple[re.Pattern[str], int, int] | None:
    """A regex over a whole prompt of `model`'s family, and the groups of prefix and suffix."""
    family = family_for_model(model)
    template = family.template if family is not None else None
    if template is None or "{prefix}" not in template or "{suffix}" not in template:
        return None
    pieces = re.split(r"(\{prefix\}|\{suffix\})", template)
    regex = "(?s)^.*?" if pieces[0] else "(?s)^"
    order = []
    for piece in pieces:
        if piece in ("{prefix}", "{suffix}"):
            order.append(piece)
            regex += "(.*)"
        else:
            regex += re.escape(piece)
    return re.compile(regex + "$"), order.index("{prefix}") + 1, order.index("{suffix}") + 1


def split_prompt(model: str | None, prompt: str | None) -> tuple[str, str] | None:
    """(prefix, suffix) inside `prompt`, or None: no family with a template for `model`, or the
    prompt is not in that template."""
    if not model or not prompt:
        return None
    found = _pattern(model)
    if found is None:
        return None
    pattern, prefix_group, suffix_group = found
    match = pattern.match(prompt)
    return (match.group(prefix_group), match.group(suffix_group)) if match else None
