"""The /infill body llama.vscode sends at a cursor, field by field in the order the source builds
it (the issue's comparisons are of JSON), or None when it sends nothing.

getCompletionItems (src/completion.ts; src/architect.ts before v0.0.9): `input_prefix` = the
n_prefix lines above the cursor line joined by "\\n", plus "\\n" (on line 0: "\\n" alone);
`prompt` = the cursor line up to the cursor ("" when only spaces and tabs, from v0.0.10);
`input_suffix` = the rest of the line + "\\n" + the n_suffix lines below joined by "\\n" + "\\n"
(getPrefixLines/getSuffixLines, src/utils.ts from v0.0.9); `n_indent` = the cursor line's
leading whitespace (`length - trimStart().length`, UTF-16 units). Nothing is sent for an
automatic trigger when the rest of the line is longer than max_line_suffix, or when the
setting `auto` is off. createRequestPayload (src/llama-server.ts) then orders the body; see
releases.py for which field holds from which tag.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from replay.editors.js import js_length, js_trim, js_trim_start
from replay.editors.llama_vscode import releases as r
from replay.editors.llama_vscode.document import Document
from replay.editors.llama_vscode.settings import Settings
from replay.records import EditorInput


@dataclass(frozen=True)
class Local:
    """What getCompletionItems gathers at the cursor before it asks the server."""

    input_prefix: str
    input_suffix: str
    prompt: str
    n_indent: int
    spaces_to_remove: int  # leading characters the shown text loses (prompt blanked, from v0.0.10)


def skipped(doc: Document, trigger: str, conf: Settings) -> str | None:
    """Why the extension sends nothing at this cursor (None: it sends a request):
    `MANUAL_MODE_AUTOMATIC_TRIGGERING_RETURN` (auto off, automatic trigger) or
    `TOO_LONG_SUFFIX_RETURN` (automatic trigger, rest of the line over max_line_suffix), the
    extension's own log names (src/completion.ts getCompletionItems)."""
    if trigger != "auto":
        return None
    if not conf.auto:
        return "MANUAL_MODE_AUTOMATIC_TRIGGERING_RETURN"
    if js_length(doc.line_suffix) > conf.max_line_suffix:
        return "TOO_LONG_SUFFIX_RETURN"
    return None


def _is_only_spaces_or_tabs(text: str) -> bool:
    return all(ch in " \t" for ch in text)


def local_context(doc: Document, conf: Settings, rel: r.Release) -> Local:
    """input_prefix, input_suffix, prompt and n_indent at the cursor (getCompletionItems)."""
    start = max(0, doc.line - conf.n_prefix)
    prefix_lines = doc.lines[start: doc.line]
    end = min(doc.line_count - 1, doc.line + conf.n_suffix)
    suffix_lines = doc.lines[doc.line + 1: end + 1]
    line_text = doc.lines[doc.line]
    prompt, spaces = doc.line_prefix, 0
    if rel.has(r.BLANK_LINE_PROMPT) and _is_only_spaces_or_tabs(prompt):
        prompt, spaces = "", js_length(doc.line_prefix)
    return Local(input_prefix="\n".join(prefix_lines) + "\n",
                 input_suffix=doc.line_suffix + "\n" + "\n".join(suffix_lines) + "\n", prompt=prompt,
                 n_indent=js_length(line_text) - js_length(js_trim_start(line_text)), spaces_to_remove=spaces)


def body(local: Local, chunks: list[dict[str, Any]], conf: Settings, rel: r.Release) -> dict[str, Any]:
    """createRequestPayload(false, …) of the tag (getLlamaCompletion's literal before v0.0.7)."""
    out: dict[str, Any] = {"id_slot": 0} if rel.has(r.ID_SLOT) else {}
    out.update(input_prefix=local.input_prefix, input_suffix=local.input_suffix, input_extra=chunks,
               prompt=local.prompt, n_predict=conf.n_predict)
    if rel.has(r.N_CMPL):
        out["n_cmpl"] = conf.max_parallel_completions
    out.update(top_k=40, top_p=0.99, stream=False)
    if not rel.has(r.N_INDENT_IF_SET):
        out["n_indent"] = local.n_indent
    out.update(samplers=["top_k", "top_p", "infill"], cache_prompt=True)
    if rel.has(r.N_INDENT_IF_SET) and local.n_indent:
        out["n_indent"] = local.n_indent
    out.update(t_max_prompt_ms=conf.t_max_prompt_ms, t_max_predict_ms=conf.t_max_predict_ms)
    if rel.has(r.LORA) and js_trim(conf.lora_completion) != "":
        out["lora"] = [{"id": 0, "scale": 0.5}]
    if rel.has(r.MODEL) and js_trim(conf.ai_model) != "":
        out["model"] = conf.ai_model
    return out


def build(inp: EditorInput, chunks: list[dict[str, Any]], conf: Settings, rel: r.Release) -> dict[str, Any] | None:
    """The body sent at this cursor, or None when the extension sends nothing."""
    doc = Document.at(inp.prefix, inp.suffix)
    if skipped(doc, inp.trigger, conf) is not None:
        return None
    return body(local_context(doc, conf, rel), chunks, conf, rel)
