"""The llama.vim profile: the plugin's half (the body it sends, what it shows) joined to
llama-server's half (the prompt the server assembles from that body, where it ends the answer).

A version is the plugin's commit (a day or a sha, releases.py), optionally followed by
`,server=bNNNN` for the llama.cpp release of the server.
"""

from __future__ import annotations

from typing import Any

import msgspec

from replay.editors.llama_server import answer_text, render_body, server_stop, split_version
from replay.editors.llama_vim.body import SNIPPET_POLICY, client_body
from replay.editors.llama_vim.completion import shown
from replay.editors.llama_vim.releases import rules_at
from replay.editors.llama_vim.request import Buffer
from replay.editors.llama_vim.settings import settings
from replay.editors.stage import Shown, StreamStop, Timing
from replay.records import EditorInput, RenderedPrompt

NAME = "llama.vim"


def body_of(inp: EditorInput, version: str | None) -> dict[str, Any]:
    """The /infill body: the one given (a capture's), else the one the plugin builds."""
    if inp.request is not None:
        return inp.request
    return client_body(inp, rules_at(split_version(version)[0]))


def render(inp: EditorInput, model: str, version: str | None = None) -> RenderedPrompt:
    """The prompt llama-server builds from the body llama.vim sends at this cursor."""
    client, server = split_version(version)
    rules = rules_at(client)
    body = body_of(inp, version)
    rendered = render_body(body, model, inp.options, server, profile=f"{NAME}@{rules.sha}", item_id=inp.item_id)
    if inp.request is None and not inp.extra and not inp.events and inp.snippets:
        why = f"llama.vim ring from the snippets: {SNIPPET_POLICY}"
        return msgspec.structs.replace(rendered, version_why="; ".join(filter(None, (rendered.version_why, why))))
    return rendered


def complete(inp: EditorInput, raw: str, model: str | None = None, version: str | None = None,
             timing: Timing | None = None) -> Shown:
    """What llama.vim shows of the model's `raw` text: the server's cut first (n_indent,
    t_max_predict_ms with timing), then the plugin's own rules (completion.py)."""
    rules = rules_at(split_version(version)[0])
    body = body_of(inp, version)
    text = answer_text(body, raw, timing)
    if inp.request is not None and not inp.prefix and not inp.suffix:
        # a capture holds the body only: the document is what it sent around the cursor
        buf = Buffer.of(str(body.get("input_prefix", "")) + str(body.get("prompt", "")),
                        str(body.get("input_suffix", "")))
    else:
        buf = Buffer.of(inp.prefix, inp.suffix)
    config = settings(inp.options, rules)
    result = shown(buf, text, rules, config["n_prefix"], config["n_suffix"])
    return Shown(text=result.text, multiline=result.multiline, replace_after=result.replace_after,
                 trace=result.trace, timing_applied=timing is not None)


def stream_stop(inp: EditorInput, model: str | None = None, version: str | None = None) -> StreamStop | None:
    """The server's n_indent cut (the plugin itself reads the whole answer)."""
    return server_stop(body_of(inp, version))
