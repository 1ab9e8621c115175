"""The body llama.vim sends for a render input: its settings, the ring buffer it holds (as given,
or simulated from the session) and the local context at the cursor."""

from __future__ import annotations

from typing import Any

from replay.editors.llama_vim.releases import Rules
from replay.editors.llama_vim.request import Buffer, build_body, local_context
from replay.editors.llama_vim.ring import simulate
from replay.editors.llama_vim.settings import request_time, seed, settings
from replay.records import EditorInput


def client_body(inp: EditorInput, rules: Rules) -> dict[str, Any]:
    """The /infill body of the first request at the cursor. `inp.extra` is the ring as the plugin
    held it when it sent (after its own evictions); without it, `inp.events` are replayed through
    the ring (ring.py), seeded by the option `replay.seed`, up to `replay.request_time`."""
    config = settings(inp.options, rules)
    buf = Buffer.of(inp.prefix, inp.suffix)
    ctx = local_context(buf, rules, config["n_prefix"], config["n_suffix"])
    extra = inp.extra
    if not extra and inp.events:
        extra = simulate(inp.events, buf, config, rules, seed(inp.options), request_time(inp.options))
    return build_body(ctx, extra, config, rules, inp.trigger)
