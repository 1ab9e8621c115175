"""The whole Tabby path for one cursor (client body, server prompt, engine prompt, stops), and
the logged prompt rebuilt from a capture's segments (what `fimreplay verify` compares).
"""

from __future__ import annotations

import dataclasses
from typing import Any

from replay.editors.tabby.agent_config import ignored_options
from replay.editors.tabby.client import build_request
from replay.editors.tabby.options import SERVER_DEFAULTS, TabbyInputError, options
from replay.editors.tabby import registry
from replay.editors.tabby.version import TabbyVersion, tabby_version
from replay.editors.tabby.server import (
    TabbyRules,
    build_server_prompt,
    split_fim_prompt,
    stop_words,
)
from replay.editors.templates import FIM_TOKEN, Family, get_family, model_family
from replay.records import EditorInput, RenderedPrompt, Segments


def render(inp: EditorInput, model: str, version: str | None = None) -> RenderedPrompt:
    """The whole Tabby path for one cursor: agent body, server prompt, engine prompt, stops.

    `model` is a Tabby registry id, HF/GGUF name, a family name, or a Tabby HTTP kind
    (`openai/completion`: the `<|FIM|>` template, prefix and suffix sent apart: route "fim").
    prefix_sent/suffix_sent: what went into the template (route "raw"), or the two parts the
    HTTP engine sends (route "fim"). A blank prefix gives route "raw" with an empty text and no
    request, as the agent sends nothing. `ignored_options`: the client keys of `inp.options`
    that another agent release reads and this one leaves unread (agent_config).
    """
    chosen = tabby_version(version)
    rules = chosen.server
    family, template_why = _served_family(model, chosen)
    why = f"{chosen.why}; template: {template_why}"
    # a release's own decoding budget (128 before 0.11.0) unless the user's config sets one
    ignored = ignored_options(inp.options, chosen.agent)
    opts = options(inp.options, {**SERVER_DEFAULTS, "completion.max_decoding_tokens": rules.max_decoding_tokens}, ignored)
    profile = f"tabby@{chosen.label}"
    request = build_request(inp, state=chosen.agent)
    max_new = opts["completion.max_decoding_tokens"]
    if request is None:
        return RenderedPrompt(profile=profile, family=family.name, text="", prefix_sent="", suffix_sent="",
                              route="raw", stop=(), max_new_tokens=max_new, request=None, item_id=inp.item_id,
                              version_why=why, ignored_options=ignored)
    server = build_server_prompt(request["segments"], request.get("language"), family, rules,
                                 opts["completion.max_input_length"])
    stop = stop_words(request.get("language") or "unknown", rules)
    if family.name == "tabby-http":
        head, tail = split_fim_prompt(server.engine_prompt)
        return RenderedPrompt(profile=profile, family=family.name, text=server.engine_prompt, prefix_sent=head,
                              suffix_sent=tail or "", route="fim" if tail is not None else "raw", stop=stop,
                              max_new_tokens=max_new, request=request, item_id=inp.item_id,
                              logged_prompt=server.logged_prompt, version_why=why, ignored_options=ignored)
    return RenderedPrompt(profile=profile, family=family.name, text=server.engine_prompt, prefix_sent=server.prefix,
                          suffix_sent=server.suffix, route="raw", stop=stop, max_new_tokens=max_new,
                          request=request, item_id=inp.item_id, logged_prompt=server.logged_prompt,
                          version_why=why, ignored_options=ignored)


def _served_family(model: str, chosen: TabbyVersion) -> tuple[Family, str]:
    """The model's family with the template the server read for it on the day it ran, and
    where that template came from: the registry entry of that exact model name on that day
    (before 0.5.0 its model repository's tabby.json; registry.py); any other model (a GGUF
    file, another name, a family), or no day known, runs with its family's own template, as
    the server runs a model given by path with the template of its own tabby.json. An entry
    is never taken for a model that merely shares a family word with it."""
    family = _family(model)
    own = f"the {family.name} family's own"
    if chosen.day is None:
        return family, own
    try:
        served = registry.served_template(model, chosen.day, chosen.server.release)
    except registry.NoTemplateKnown as exc:
        return family, f"{own} ({exc})"
    return dataclasses.replace(family, template=served.template), served.why


def _family(model: str) -> Family:
    family = model_family(model)
    if family is None:
        raise TabbyInputError(f"no FIM template known for model {model!r}; name a registry model or a family")
    return family


def segments_to_request(segments: Segments) -> dict[str, Any]:
    """A logged Tabby `segments` (the event log keeps prefix, suffix and declarations) as the
    request segments the server built the prompt from."""
    out: dict[str, Any] = {"prefix": segments.prefix, "suffix": segments.suffix}
    declarations = [{"filepath": s.filepath, "body": s.content} for s in segments.snippets if s.kind == "declaration"]
    if declarations:
        out["declarations"] = declarations
    return out


# Leading sentinels of the families Tabby's registry uses, to tell a logged prompt's template
# when the capture does not name its model (Tabby's event log does not).
_LEADS: tuple[tuple[str, str], ...] = (
    ("<fim_prefix>", "starcoder"), ("<|fim_prefix|>", "qwen2.5-coder"), ("<PRE> ", "codellama"),
    ("<｜fim▁begin｜>", "deepseek-coder"), ("[SUFFIX]", "codestral"),
)


def guess_family(logged_prompt: str) -> Family:
    """The template family a logged prompt was built with, from its sentinels (the log names no
    model): the first sentinel found in the prompt; `<|FIM|>` for HTTP kinds; else no template."""
    hits = [(logged_prompt.find(lead), name) for lead, name in _LEADS if lead in logged_prompt]
    if hits:
        return get_family(min(hits)[1])
    if FIM_TOKEN in logged_prompt:
        return get_family("tabby-http")
    return get_family("none")


def logged_prompt(segments: Segments, language: str | None, model: str | None = None,
                  version: str | None = None, reference: str | None = None, date: str | None = None) -> str:
    """Rebuild the `prompt` Tabby logged (before clipping) from a capture's segments.

    The family comes from `model` when given, else from the sentinels of `reference` (the
    logged prompt being checked); the release decides CRLF handling. Snippets from changed or
    opened files are not in Tabby's log, so a prompt that had them cannot be rebuilt. Without
    a version the capture's `date` picks the release (TabbyRules.for_date), else the newest.
    """
    rules = TabbyRules.for_date(date) if version is None and date else tabby_version(version).server
    if model:
        family = _family(model)
    elif reference is not None:
        family = guess_family(reference)
    else:
        raise TabbyInputError("a model (or the logged prompt) is needed to know the template")
    return build_server_prompt(segments_to_request(segments), language, family, rules).logged_prompt
