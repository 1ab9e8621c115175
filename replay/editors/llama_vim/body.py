"""The body llama.vim sends for a render input: its settings, the ring buffer it holds (as given,
simulated from the session, or, for an input with neither, from its snippets by a fixed policy)
and the local context at the cursor."""

from __future__ import annotations

from typing import Any

from replay.editors.llama_vim.fim_render import render_answer
from replay.editors.llama_server import split_version
from replay.editors.llama_vim.releases import Rules, rules_at
from replay.editors.llama_vim.request import Buffer, build_body, follow_up_context, local_context
from replay.editors.llama_vim.ring import simulate
from replay.editors.llama_vim.settings import follow_up_of, request_time, seed, settings
from replay.records import EditorInput, SessionEvent

# The policy for inputs that give other files (`snippets`, e.g. a benchmark item's neighbours)
# but no ring and no session: each file is entered, in the given order, with the cursor on its
# first line, one ring_update tick apart, and the request follows one tick after the last, so
# each file's first 1 + ring_chunk_size/2 lines (whole for short files) are held.
SNIPPET_POLICY = "each snippet's file entered at its first line, one tick apart, before the request"


def snippet_events(inp: EditorInput, config: dict[str, Any]) -> tuple[tuple[SessionEvent, ...], float]:
    """The session SNIPPET_POLICY stands for, and the time of the request."""
    step = max(config["ring_update_ms"], 1) / 1000.0
    events = tuple(SessionEvent(kind="enter", time=n * step, filename=s.filepath, text=s.content, line=0)
                   for n, s in enumerate(inp.snippets))
    return events, (len(events) + 1) * step


def client_body(inp: EditorInput, rules: Rules) -> dict[str, Any]:
    """The /infill body of the first request at the cursor. `inp.extra` is the ring as the plugin
    held it when it sent (after its own evictions); without it, `inp.events` are replayed through
    the ring (ring.py), seeded by the option `replay.seed`, up to `replay.request_time`; without
    either, `inp.snippets` by SNIPPET_POLICY. With the option `replay.follow_up_of` (the answer
    shown at this cursor) it is the speculative follow-up: the context as if that answer's shown
    lines were accepted, t_max_predict_ms the setting's (1175c8d `llama#fim` from `s:fim_try_hint`)."""
    config = settings(inp.options, rules)
    buf = Buffer.of(inp.prefix, inp.suffix)
    ctx = local_context(buf, rules, config["n_prefix"], config["n_suffix"])
    extra = inp.extra
    if not extra and inp.events:
        extra = simulate(inp.events, buf, config, rules, seed(inp.options), request_time(inp.options))
    elif not extra and inp.snippets:
        events, at = snippet_events(inp, config)
        extra = simulate(events, buf, config, rules, seed(inp.options), at)
    answer = follow_up_of(inp.options, rules)
    if answer is not None:
        shown = render_answer(buf, answer, rules, config["n_prefix"], config["n_suffix"]).content
        ctx = follow_up_context(buf, config["n_prefix"], config["n_suffix"], shown, ctx.indent)
        return build_body(ctx, extra, config, rules, "auto", follow_up=True)
    return build_body(ctx, extra, config, rules, inp.trigger)


def body_of(inp: EditorInput, version: str | None) -> dict[str, Any]:
    """The /infill body: the one given (a capture's), else the one the plugin builds."""
    if inp.request is not None:
        return inp.request
    return client_body(inp, rules_at(split_version(version)[0]))
