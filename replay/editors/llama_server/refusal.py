"""What llama-server refuses, in its own words: a body its /infill handler rejects, a model
without FIM tokens, a prompt that does not fit the slot.

ggml-org/llama.cpp tools/server: the /infill handler answers 501 "Infill is not supported by
this model" when the vocabulary lacks FIM_PRE/SUF/MID, 400 for a body without `input_prefix`
or `input_suffix` or with a malformed `input_extra`; when the slot takes the task, a prompt of
n_ctx tokens or more is refused (with context shift off, the default) with
`exceed_context_size_error`: "request (N tokens) exceeds the available context size (M
tokens), try increasing it" (older releases: other words, or no refusal at all: releases.py).
"""

from __future__ import annotations

from typing import Any

from replay.editors.inputs import BadInputLine
from replay.editors.llama_server.releases import ServerRules


class InfillRefused(BadInputLine):
    """llama-server answered the /infill body with an error: `kind` is its error type
    (exceed_context_size_error, invalid_request_error, not_supported_error), the message its own."""

    def __init__(self, message: str, kind: str = "invalid_request_error", status: int = 400) -> None:
        super().__init__(f"llama-server refuses the request: {message} ({kind}, HTTP {status})")
        self.reason = message
        self.kind = kind
        self.status = status


def check_body(body: Any) -> list[dict[str, Any]]:
    """The body's chunks of extra context, or InfillRefused as the handler answers. Its checks of
    `prompt`, `input_prefix` and `input_suffix` set an error without returning: a non-string
    prompt is then read as "" and a missing prefix or suffix fails later, when it is read, with
    the JSON library's words; the `input_extra` checks do return, so they come first."""
    if not isinstance(body, dict):
        raise InfillRefused("the /infill body must be a JSON object")
    if "input_extra" in body and not isinstance(body["input_extra"], list):
        raise InfillRefused('"input_extra" must be an array of {"filename": string, "text": string}')
    extra = body.get("input_extra") or []
    for chunk in extra:
        if not isinstance(chunk, dict) or not isinstance(chunk.get("text"), str):
            raise InfillRefused('extra_context chunk must contain a "text" field with a string value')
        if "filename" in chunk and not isinstance(chunk["filename"], str):
            raise InfillRefused('extra_context chunk\'s "filename" field must be a string')
    for key in ("input_prefix", "input_suffix"):
        if key not in body:
            raise InfillRefused(f"[json.exception.out_of_range.403] key '{key}' not found")
    return extra


_INT32_MAX = 2**31 - 1
# The request schema's whole-number fields with hard limits (tools/server/server-schema.cpp,
# `make_llama_cmpl_schema`: `set_hard_limits`), with their aliases; None: the server's slots.
HARD_LIMITS: tuple[tuple[tuple[str, ...], int, int | None], ...] = (
    (("sse_ping_interval",), -1, _INT32_MAX),
    (("n_predict", "max_completion_tokens", "max_tokens"), -1, _INT32_MAX),
    (("n_indent",), 0, _INT32_MAX),
    (("n_keep",), -1, _INT32_MAX),
    (("n_discard",), 0, _INT32_MAX),
    (("n_cmpl", "n"), 1, None),
    (("n_cache_reuse",), 0, _INT32_MAX),
    (("t_max_predict_ms",), -1, 2**63 - 1),
    (("repeat_last_n",), 0, _INT32_MAX),
    (("dry_allowed_length",), 0, _INT32_MAX),
    (("dry_penalty_last_n",), 0, _INT32_MAX),
    (("min_keep",), 0, _INT32_MAX),
)


def check_fields(body: dict[str, Any], n_slots: int, rules: ServerRules) -> None:
    """The request schema's hard limits, in its order: e.g. `n_cmpl` (llama.vscode asks for 3
    completions) between 1 and the server's slots; releases before the schema did not check."""
    if not rules.schema:
        return
    for names, low, high in HARD_LIMITS:
        top = n_slots if high is None else high
        key = next((k for k in names if k in body), None)  # the message names the key given
        value = body.get(key) if key is not None else None
        if isinstance(value, int) and not isinstance(value, bool) and not low <= value <= top:
            raise InfillRefused(f"Field '{key}': Value must be between {low} <= value <= {top}, but got {value}")


def infill_prompt(body: dict[str, Any]) -> str:
    """`json_value(data, "prompt", "")`: anything but a string is read as ""."""
    prompt = body.get("prompt", "")
    return prompt if isinstance(prompt, str) else ""


def fit_to_context(ids: list[int], n_ctx: int, rules: ServerRules, n_keep: int = 0) -> list[int]:
    """The ids the slot evaluates: all of them when they fit (fewer than n_ctx); else refused,
    or (before context shift was turned off by default) truncated: the first n_keep kept, then
    whole blocks of (n_ctx − n_keep)/2 dropped (releases.py)."""
    if len(ids) < n_ctx:
        return ids
    if rules.refuses:
        raise InfillRefused(rules.refusal_words.format(n=len(ids), n_ctx=n_ctx), kind=rules.refusal_type)
    n_keep = max(0, min(n_keep, n_ctx - 2))
    block = (n_ctx - n_keep) // 2
    erased = (len(ids) - n_keep - block) // block
    return ids[:n_keep] + ids[n_keep + erased * block:]
