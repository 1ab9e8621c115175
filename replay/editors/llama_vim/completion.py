"""llama.vim's completion stage: the server's cut of the answer first (n_indent, and
t_max_predict_ms with timing: replay.editors.llama_server), then what the plugin shows of what
it received (fim_render.py, its `s:fim_render`)."""

from __future__ import annotations

from replay.editors.llama_server import answer_text, server_stop, split_version
from replay.editors.llama_vim.body import body_of
from replay.editors.llama_vim.fim_render import shown
from replay.editors.llama_vim.releases import rules_at
from replay.editors.llama_vim.request import Buffer
from replay.editors.llama_vim.settings import settings
from replay.editors.stage import Shown, StreamStop, Timing
from replay.records import EditorInput


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
