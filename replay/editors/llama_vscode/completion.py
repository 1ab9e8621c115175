"""What llama.vscode shows of the server's answer (getCompletionItems in src/completion.ts;
src/architect.ts before v0.0.9), per tag:

1. nothing when the answer is blank (`completion.trim() == ""`; from v0.0.40 the same through
   shouldDiscardSuggestion of no lines);
2. the answer split on /\\r?\\n/, trailing blank lines dropped (removeTrailingNewLines);
3. nothing when shouldDiscardSuggestion holds: no lines; one blank line; (not on the last line
   of the document) a first line blank or equal to the rest of the line (trimmed) followed by
   exactly the document's next lines; one line equal to the rest of the line; the line before
   the cursor + line 1 equal to the next non-empty line, with nothing more, or a second line
   that starts that line's follower, or further lines equal to the lines after it. A comparison
   that reads past the end of the document throws in VS Code (`lineAt`), and the catch around
   it returns no suggestion;
4. the text: the kept lines joined (v0.0.1-v0.0.5); the answer as received (v0.0.6); with a
   non-blank rest of the line, line 1 without that rest at its end, or line 1 alone
   (updateSuggestion, from v0.0.7);
5. from v0.0.10, when the line before the cursor is only spaces and tabs (the prompt was sent
   blank), that many leading spaces removed (removeLeadingSpaces); from v0.0.13 its test
   `i < n && str[i] === ' ' || str[i] === '\\t'` also removes every leading tab, whatever n.
Before the client, the server's own cut (n_indent, t_max_predict_ms) is applied to the answer.
v0.0.40 read a single answer (n_cmpl 1) as a string and iterated its characters: each is a
suggestion, the first one kept is shown. With n_cmpl > 1 the server's first answer stands for
the list (a replay has one answer).
"""

from __future__ import annotations

from typing import Any

import msgspec

from replay.editors.js import js_trim
from replay.editors.llama_server import answer_text, server_stop, split_version
from replay.editors.llama_vscode import releases as r
from replay.editors.llama_vscode import request as req
from replay.editors.llama_vscode.document import Document
from replay.editors.llama_vscode.settings import settings
from replay.editors.stage import Shown, Steps, StreamStop, Timing
from replay.records import EditorInput, TraceStep

_UTILS = r.REPO + "src/utils.ts"
_SERVER = "ggml-org/llama.cpp tools/server (process_token: n_indent, t_max_predict_ms)"


def source(rel: r.Release, name: str = "src/completion.ts") -> str:
    """The file a completion rule is in at this tag (src/architect.ts before v0.0.9)."""
    if rel.index < r.tag_index("v0.0.9"):
        return r.REPO + "src/architect.ts"
    return r.REPO + name


def suggestion_lines(text: str) -> list[str]:
    """`text.split(/\\r?\\n/)` then removeTrailingNewLines."""
    lines = text.replace("\r\n", "\n").split("\n")
    while lines and js_trim(lines[-1]) == "":
        lines.pop()
    return lines


class _Thrown:
    """lineAt past the end of the document: VS Code throws, the catch around the suggestion
    returns no suggestion."""


THROWN = _Thrown()


def _repeats(lines: list[str], doc: Document, first: int) -> bool | _Thrown:
    """`lines.every((v, i) => v === document.lineAt(first + i).text)`, stopping at the first
    difference, THROWN at a line past the end."""
    for i, value in enumerate(lines):
        line = doc.line_at(first + i)
        if line is None:
            return THROWN
        if value != line:
            return False
    return True


def should_discard(lines: list[str], doc: Document) -> bool | _Thrown:
    """shouldDiscardSuggestion (unchanged from v0.0.1 to v0.0.63); THROWN where VS Code throws."""
    prefix, suffix = doc.line_prefix, doc.line_suffix
    if not lines or (len(lines) == 1 and js_trim(lines[0]) == ""):
        return True
    if doc.line == doc.line_count - 1:
        return False
    if len(lines) > 1 and (js_trim(lines[0]) == "" or js_trim(lines[0]) == js_trim(suffix)):
        repeated = _repeats(lines[1:], doc, doc.line + 1)
        if repeated is not False:
            return repeated
    if len(lines) == 1 and lines[0] == suffix:
        return True
    first = doc.line + 1
    while first < doc.line_count and js_trim(doc.lines[first]) == "":
        first += 1
    if first >= doc.line_count:
        return False
    if prefix + lines[0] == doc.lines[first]:
        if len(lines) == 1:
            return True
        if len(lines) == 2:
            follower = doc.line_at(first + 1)
            return THROWN if follower is None else follower.startswith(lines[1])
        return _repeats(lines[1:], doc, first + 1)
    return False


def update_suggestion(lines: list[str], line_suffix: str) -> str:
    """updateSuggestion (from v0.0.7)."""
    if js_trim(line_suffix) != "":
        if lines[0].endswith(line_suffix):
            return lines[0][: len(lines[0]) - len(line_suffix)]
        if len(lines) > 1:
            return lines[0]
    return "\n".join(lines)


def remove_leading_spaces(text: str, n: int, tabs_always: bool) -> str:
    """removeLeadingSpaces(str, n) (src/completion.ts, from v0.0.10; the tab quirk from v0.0.13)."""
    i = 0
    while (i < len(text) and i < n and text[i] == " ") or (tabs_always and i < len(text) and text[i] == "\t"):
        i += 1
    return text[i:]


def one(answer: str, doc: Document, spaces: int, rel: r.Release, steps: Steps) -> str | None:
    """One suggestion through steps 1-5 (None: discarded), its changes traced on `steps`."""
    here = source(rel)
    if js_trim(answer) == "":
        return steps.set("completion.trim() == \"\"", here, None)
    lines = suggestion_lines(answer)
    steps.set("removeTrailingNewLines", source(rel, "src/utils.ts"), "\n".join(lines))
    discard = should_discard(lines, doc)
    if discard is THROWN:
        return steps.set("shouldDiscardSuggestion (lineAt past the end: caught, no suggestion)", here, None)
    if discard:
        return steps.set("shouldDiscardSuggestion", here, None)
    if rel.has(r.RAW_SHOWN):
        steps.set("no trimming (updateSuggestion disabled)", here, answer)
    elif rel.has(r.UPDATE_SUGGESTION):
        steps.set("updateSuggestion", here, update_suggestion(lines, doc.line_suffix))
    if rel.has(r.BLANK_LINE_PROMPT) and steps.text is not None:
        steps.apply("removeLeadingSpaces", here,
                    lambda text: remove_leading_spaces(text, spaces, rel.has(r.TABS_ALWAYS_REMOVED)))
    return steps.text


def candidates(answer: str, body: dict[str, Any], rel: r.Release) -> list[str]:
    """The suggestions the extension reads from the server's answer: the answer itself, or
    (v0.0.40 with a single answer, n_cmpl 1) each of its characters (`for…of`: code points)."""
    if rel.has(r.CHARACTERS_AS_COMPLETIONS) and body.get("n_cmpl", 1) == 1:
        return list(answer)
    return [answer]


def _body(inp: EditorInput, version: str | None) -> tuple[dict[str, Any] | None, Document, int, r.Release]:
    """The body (None: nothing sent), the document the stage compares with, the leading
    characters to remove, and the tag. A request-only line has no document: it is rebuilt from
    the body's window (input_prefix + prompt | input_suffix without its last "\\n"), and a blank
    prompt stands for a line of n_indent spaces before the cursor."""
    rel = r.release(split_version(version)[0])
    if inp.request is not None:
        body = inp.request
        prefix, prompt = str(body.get("input_prefix", "")), str(body.get("prompt", ""))
        indent = body.get("n_indent", 0) if rel.has(r.BLANK_LINE_PROMPT) and prompt == "" else 0
        indent = indent if isinstance(indent, int) and not isinstance(indent, bool) else 0
        doc = Document.at(prefix + " " * indent + prompt, str(body.get("input_suffix", "\n"))[:-1])
        return body, doc, indent, rel
    conf = settings(inp.options, rel)
    doc = Document.at(inp.prefix, inp.suffix)
    if req.skipped(doc, inp.trigger, conf) is not None:
        return None, doc, 0, rel
    local = req.local_context(doc, conf, rel)
    return req.body(local, [], conf, rel), doc, local.spaces_to_remove, rel


def complete(inp: EditorInput, raw: str, *, model: str | None = None, version: str | None = None,
             timing: Timing | None = None) -> Shown:
    """What llama.vscode `version` shows of the model's `raw` text at this cursor (None: nothing):
    the server's own cut of the answer, then the extension's rules (client_shown)."""
    body = _body(inp, version)[0]
    received = raw if body is None else answer_text(body, raw, timing)
    shown = client_shown(inp, received, version)
    # The step is traced whenever the text ends where the server stops, so that an answer the
    # replay already stopped there (stream_stop) shows the same trace as the whole answer.
    stopped_here = body is not None and answer_text(body, received + "xx") == received  # the server checks a line a token late
    if received == raw and not stopped_here:
        return msgspec.structs.replace(shown, timing_applied=bool(timing))
    cut = TraceStep(step="server stop (n_indent, t_max_predict_ms)", source=_SERVER, text=received)
    return msgspec.structs.replace(shown, trace=(cut, *shown.trace), timing_applied=bool(timing))


def client_shown(inp: EditorInput, received: str, version: str | None = None) -> Shown:
    """What the extension shows of the server's answer `received` (getCompletionItems)."""
    body, doc, spaces, rel = _body(inp, version)
    if body is None:
        step = TraceStep(step="getCompletionItems (no request sent)", source=source(rel), text=None)
        return Shown(text=None, multiline=False, trace=(step,))
    multiline = not (rel.has(r.UPDATE_SUGGESTION) and js_trim(doc.line_suffix) != "")
    answers = candidates(received, body, rel)
    if answers == [received]:
        steps = Steps(received)
        one(received, doc, spaces, rel, steps)
        return Shown(text=steps.text, multiline=multiline, trace=tuple(steps.trace))
    for answer in answers:  # v0.0.40: the first character that is not discarded, through its own rules
        steps = Steps(answer)
        if one(answer, doc, spaces, rel, steps) is not None:
            split = TraceStep(step="getComplFromContent (a single answer read character by character)",
                              source=source(rel), text=answer)
            return Shown(text=steps.text, multiline=multiline, trace=(split, *steps.trace))
    nothing = TraceStep(step="getComplFromContent (no character kept)", source=source(rel), text=None)
    return Shown(text=None, multiline=multiline, trace=(nothing,))


def stream_stop(inp: EditorInput, *, model: str | None = None, version: str | None = None) -> StreamStop | None:
    """The server's n_indent cut (the extension itself reads one JSON answer, `stream: false`)."""
    return server_stop(_body(inp, version)[0])
