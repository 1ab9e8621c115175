"""The `copilot` profile's answer side: what Copilot's client shows of the text it received.

Sources (microsoft/vscode-copilot-chat, src/extension/completions-core/vscode-node/lib/src/;
checked against chat-lib 0.66.0's compiled dist), in the order they apply:
0. While streaming a multiline answer in the tree-sitter block modes (Python, Ruby:
   ghostText/ghostTextStrategy.ts `buildFinishedCallback` -> prompt/parseBlock.ts
   `parsingBlockFinished`), openai/fetch.ts `convertStreamToApiChoices` asks, at every chunk
   that holds a newline, whether the block the cursor opened has ended (blocks.py
   `block_body_finished`) and keeps the answer up to there. The chunk that carries
   `finish_reason` is asked too, but its cut is dropped (the source replaces a numeric answer by
   "yield all" there). The chunks are the streamed pieces (`timing`, when given); without them
   each line of the received text counts as one chunk ending with its newline.
1. ghostText/completionsFromNetwork.ts `postProcessChoices`: trailing whitespace trimmed;
   nothing left, nothing shown.
2. suggestions/suggestions.ts `postProcessChoiceInContext`: dropped when it equals the next
   non-empty line of the document (compared trimmed, except in JavaScript/TypeScript/Go's
   MoreMultiline mode); `maybeSnipCompletion`: trailing lines that repeat the block closers
   already below the cursor are cut (the closer is `}`, `end` for Ruby).
3. ghostText/ghostText.ts: `checkSuffix` (when the cursor is mid-line, which
   xtab/common/inlineSuggestion.ts allows only before closers and `:{;,`): how much of the
   rest of the line the item replaces; `adjustLeadingWhitespace` against the blanks the prompt
   dropped from a blank last line.
4. ghostText/copilotCompletion.ts `completionsFromGhostTextResults`: the item's range starts
   at the beginning of the cursor's line, so the inserted text carries that line's text before
   the cursor (`replace_before` characters are replaced), except on a blank line when the
   completion re-indents it.

Not reproduced: indentation character normalisation (normalizeIndent.ts, only with the
editor's formatting options).
"""

from __future__ import annotations

from replay.editors.copilot import blocks, request
from replay.editors.copilot import layout as lay
from replay.editors.copilot.profile import request_body
from replay.editors.stage import Shown, Steps, StreamStop, Timing
from replay.records import EditorInput

_SRC = "microsoft/vscode-copilot-chat src/extension/completions-core/vscode-node/lib/src/"


def matches_next_line(suffix: str, text: str, trim: bool) -> bool:
    """suggestions.ts matchesNextLine: the first non-empty line after the cursor's equals it."""
    compare = text.strip() if trim else text
    for line in suffix.split("\n")[1:]:
        line = line.strip() if trim else line
        if line == compare:
            return True
        if line:
            return False
    return False


def snip_closers(suffix: str, text: str, closer: str) -> str:
    """suggestions.ts maybeSnipCompletionImpl."""
    sep = "\r\n" if "\r\n" in text else "\n"
    lines = text.split(sep)
    doc_lines = suffix.split("\n")[1:]
    for start in range(1, len(lines)):
        matched = True
        doc_skip = comp_skip = 0
        offset = 0
        while offset + start + comp_skip < len(lines):
            while True:
                idx = offset + doc_skip
                doc_line = doc_lines[idx] if idx < len(doc_lines) else None
                if doc_line is not None and doc_line.strip() == "":
                    doc_skip += 1
                else:
                    break
            while True:
                comp_idx = start + offset + comp_skip
                comp_line = lines[comp_idx] if comp_idx < len(lines) else None
                if comp_line is not None and comp_line.strip() == "":
                    comp_skip += 1
                else:
                    break
            last = comp_idx == len(lines) - 1
            ok = bool(comp_line) and bool(doc_line) and (
                (doc_line.startswith(comp_line) or comp_line.startswith(doc_line)) if last
                else (doc_line == comp_line and comp_line.strip() == closer))
            if not ok:
                matched = False
                break
            offset += 1
        if matched:
            return sep.join(lines[:start])
    return text


def check_suffix(rest_of_line: str, text: str) -> int:
    """suggestions.ts checkSuffix: characters of the rest of the line the item covers."""
    if not rest_of_line:
        return 0
    if rest_of_line in text:
        return len(rest_of_line)
    last, covered = -1, 0
    for char in rest_of_line:
        at = text.find(char, last + 1)
        if at > last:
            covered += 1
            last = at
        else:
            break
    return covered


def insert_text(line_before: str, rest_of_line: str, text: str, trailing_ws: str) -> str:
    """ghostText.ts adjustLeadingWhitespace + copilotCompletion.ts: the text that replaces the
    line from its start to the cursor (the completion alone when the whole line is blank and
    the completion re-indents it or starts with the line's blanks)."""
    display, needs_offset = text, False
    if trailing_ws:
        if text.startswith(trailing_ws):
            display = text[len(trailing_ws):]
        elif trailing_ws.startswith(text[: len(text) - len(text.lstrip())]):
            display, needs_offset = text.lstrip(), True
    if not (line_before + rest_of_line).strip() and (needs_offset or text.startswith(line_before)):
        return text
    return line_before + display


def chunk_ends(raw: str, timing: Timing | None) -> list[int]:
    """Where each streamed chunk of `raw` ends: the timing's character counts, else each line."""
    if timing:
        return [min(chars, len(raw)) for chars, _ in timing]
    return [at + 1 for at, char in enumerate(raw) if char == "\n"]


def block_end_cut(inp: EditorInput, raw: str, timing: Timing | None) -> str:
    """parsingBlockFinished as convertStreamToApiChoices calls it (step 0 of the docstring); the
    cursor is moved back over a blank last line's blanks, as the prompt trimmed them
    (ghostTextStrategy.ts `adjustedPosition`)."""
    prefix, _ = lay.trim_last_line(inp.prefix)
    start = 0
    for end in chunk_ends(raw, timing):
        if "\n" in raw[start:end]:
            cut = blocks.block_body_finished(inp.language or "", prefix, raw[:end])
            if cut is not None:
                return raw[:cut]
        start = end
    return raw


def complete(inp: EditorInput, raw: str, *, model: str | None = None, version: str | None = None,
             timing: Timing | None = None) -> Shown:
    """What Copilot shows of `raw`, the text its client received for this cursor."""
    language = inp.language or ""
    body = request_body(inp)
    is_multiline = body is not None and body["stop"] != ["\n"]
    line_before = inp.prefix.split("\n")[-1]
    rest = inp.suffix.split("\n")[0]
    steps = Steps(raw)
    if is_multiline and request.block_mode(language) in ("parsing", "parsingandserver"):
        steps.apply("parsingBlockFinished", _SRC + "prompt/parseBlock.ts", lambda t: block_end_cut(inp, t, timing))
    steps.apply("postProcessChoices", _SRC + "ghostText/completionsFromNetwork.ts", lambda t: t.rstrip() or None)
    trim = request.block_mode(language) != "moremultiline"
    steps.apply("matchesNextLine", _SRC + "suggestions/suggestions.ts",
                lambda t: None if matches_next_line(inp.suffix, t, trim) else t)
    closer = "end" if language == "ruby" else "}"
    steps.apply("maybeSnipCompletion", _SRC + "suggestions/suggestions.ts", lambda t: snip_closers(inp.suffix, t, closer) or None)
    inline = request.inline_position(rest)
    if inline is None:
        steps.set("isInlineSuggestion", _SRC + "ghostText/ghostText.ts", None)
    covered = check_suffix(rest, steps.text) if inline and steps.text is not None else 0
    _, trailing = lay.trim_last_line(inp.prefix)
    steps.apply("completionsFromGhostTextResults", _SRC + "ghostText/copilotCompletion.ts",
                lambda t: insert_text(line_before, rest, t, trailing))
    shown = steps.shown(multiline=is_multiline, replace_after=covered)
    return Shown(text=shown.text, multiline=shown.multiline, replace_after=shown.replace_after if shown.text else 0,
                 replace_before=len(line_before) if shown.text is not None else 0, trace=shown.trace)


def stream_stop(inp: EditorInput, *, model: str | None = None, version: str | None = None) -> StreamStop | None:
    """The client reads the whole stream of a request (its server stops at the request's stop)."""
    return None
