"""llama.vim's prompt side: the body the plugin sends (body.py) and the prompt llama-server
assembles from it (replay.editors.llama_server); what it shows of the answer is completion.py's.

A version is the plugin's commit (a day or a sha, releases.py), optionally followed by
`,server=bNNNN` for the llama.cpp release of the server.
"""

from __future__ import annotations

import msgspec

from replay.editors.llama_server import render_body, split_version
from replay.editors.llama_vim.body import SNIPPET_POLICY, body_of
from replay.editors.llama_vim.releases import rules_at
from replay.records import EditorInput, RenderedPrompt

NAME = "llama.vim"


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
