"""Copilot's answer side, its rules: from the text its client received (or a choice it kept in
its cache) to the item it shows. completion.py applies them for a fresh client, session.py for
a session's.

Sources (microsoft/vscode-copilot-chat, src/extension/completions-core/vscode-node/lib/src/;
checked against chat-lib 0.66.0's compiled dist), in the order they apply:
0. After the user accepted the whole item on screen (request.py `after_accept`), the client
   reads the first line after the cursor's (ghostTextStrategy.ts `takeNLines`), or in
   JavaScript, TypeScript and Go splits the stream by statements (splitter.py: the first part
   is the choice, the later ones go to the cache). Else, while
   streaming a multiline answer in the tree-sitter block modes (Python, Ruby:
   ghostText/ghostTextStrategy.ts `buildFinishedCallback` -> prompt/parseBlock.ts
   `parsingBlockFinished`), openai/fetch.ts `convertStreamToApiChoices` asks, at every chunk
   that holds a newline, whether the block the cursor opened has ended (blocks.py
   `block_body_finished`) and keeps the answer up to there (`read_stream`). The chunk that carries
   `finish_reason` is asked too, but its cut is dropped (the source replaces a numeric answer by
   "yield all" there).
1. ghostText/completionsFromNetwork.ts `postProcessChoices`: trailing whitespace trimmed;
   nothing left, nothing shown.
2. suggestions/suggestions.ts `postProcessChoiceInContext`: dropped when the streamed chunks it
   was read from end in a repetition (suggestions/anomalyDetection.ts `isRepetitive`); dropped
   when it equals the next non-empty line of the document (compared trimmed, except in
   JavaScript/TypeScript/Go's MoreMultiline mode); `maybeSnipCompletion`: trailing lines that
   repeat the block closers already below the cursor are cut (the closer is `}`, `end` for
   Ruby).
3. ghostText/ghostText.ts: `checkSuffix` (when the cursor is mid-line, which
   xtab/common/inlineSuggestion.ts allows only before closers and `:{;,`): how much of the
   rest of the line the item replaces; `adjustLeadingWhitespace` against the blanks the prompt
   dropped from a blank last line.
4. ghostText/copilotCompletion.ts `completionsFromGhostTextResults`: the item's range starts
   at the beginning of the cursor's line, so the inserted text carries that line's text before
   the cursor (`replace_before` characters are replaced), except on a blank line when the
   completion re-indents it.

The streamed chunks (steps 0 and 2) are the stream's pieces as `timing` gives them; without
timing, the named model's tokens (an engine streams one token per event, a character split
across tokens waiting for the rest); without a model either, each line of the received text
with its newline.

A line the client answers locally (ghostText/ghostText.ts `getLocalInlineSuggestion`) takes its
choices from the item on screen typed as suggested (ghostText/current.ts
`getCompletionsForUserTyping`: the post-processed choices, less what was typed) then from the
cache (ghostText/completionsCache.ts `findAll`: the choices kept after step 1, longest key
first, less what was typed), or when neither has one from the first completed request that goes
on from here (ghostText/asyncCompletions.ts); a cache or async choice is forced to its first
line when this request is single-line (completionsFromNetwork.ts `makeGhostAPIChoice`); each
goes through step 2 twice (before and
after the decision to go to the network), the first left goes through steps 3 and 4; none left,
nothing is shown (and nothing sent).

Not reproduced: indentation character normalisation (normalizeIndent.ts, only with the
editor's formatting options).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from replay.editors.copilot import blocks, request, splitter
from replay.editors.copilot import layout as lay
from replay.editors.stage import Shown, Steps, Timing
from replay.editors.templates import family_for_model
from replay.records import EditorInput
from replay.tokens.tokenizer import default_tokenizer_spec, load_tokenizer

SRC = "microsoft/vscode-copilot-chat src/extension/completions-core/vscode-node/lib/src/"


@dataclass(frozen=True)
class Choice:
    """A choice as the client holds it: its text and the streamed chunks it was read from
    (fetch.ts APIChoice `tokens`, which the repetition filter reads)."""

    text: str
    chunks: tuple[str, ...]
    arrived: tuple[str, ...] | None = None  # the chunks when it arrived, where the stream was read on
    request: int = 0  # the session's request whose answer it is (fetch.ts APIChoice `requestId`; 0: none known)

    def rest(self, text: str) -> Choice:
        """The same choice with another text (less what was typed, cut to a line, post-processed)."""
        return Choice(text, self.chunks, request=self.request)

    @property
    def chunks_on_arrival(self) -> tuple[str, ...]:
        """What the repetition filter saw when the choice arrived: the client's chunk list is one
        array that grows while the stream is read (fetch.ts createAPIChoice `tokens`), so the
        first part of a split stream is checked on the chunks read so far, and later on all."""
        return self.chunks if self.arrived is None else self.arrived


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


def adjust_leading_whitespace(text: str, trailing_ws: str) -> tuple[str, bool]:
    """ghostText.ts `adjustLeadingWhitespace`: (display text, whether it needs the line's
    blanks as an offset), given the blanks the prompt dropped from a blank last line."""
    if trailing_ws and text.startswith(trailing_ws):
        return text[len(trailing_ws):], False
    if trailing_ws and trailing_ws.startswith(text[: len(text) - len(text.lstrip())]):
        return text.lstrip(), True
    return text, False


def insert_text(line_before: str, rest_of_line: str, text: str, trailing_ws: str) -> str:
    """ghostText.ts adjustLeadingWhitespace + copilotCompletion.ts: the text that replaces the
    line from its start to the cursor (the completion alone when the whole line is blank and
    the completion re-indents it or starts with the line's blanks)."""
    display, needs_offset = adjust_leading_whitespace(text, trailing_ws)
    if not (line_before + rest_of_line).strip() and (needs_offset or text.startswith(line_before)):
        return text
    return line_before + display


# anomalyDetection.ts configs: (longest pattern, in chunks; how many last chunks it must fill).
REPETITION_CONFIGS = ((1, 10), (10, 30), (20, 45), (30, 60))


def chunk_ends(raw: str, timing: Timing | None, model: str | None = None) -> list[int]:
    """Where each streamed chunk of `raw` ends (the module's docstring says which chunks)."""
    if timing:
        ends = [min(chars, len(raw)) for chars, _ in timing]
        return ends if ends[-1] == len(raw) else ends + [len(raw)]  # text past the last count: one more chunk
    family = family_for_model(model) if model else None
    if family is not None:
        _, spans = load_tokenizer(default_tokenizer_spec(family.name)).encode_with_offsets(raw, special=False)
        return sorted({end for _, end in spans if end > 0})
    return [at + 1 for at, char in enumerate(raw) if char == "\n"] + ([] if raw.endswith("\n") else [len(raw)])


def read_stream(raw: str, ends: list[int], finished: Callable[[str], int | None]) -> tuple[str, int]:
    """openai/fetch.ts convertStreamToApiChoices: the strategy's `finishedCb` is asked at every
    chunk that holds a newline (step 0 of the docstring); a length it gives ends the reading.
    Returns the text kept and how much of the stream was read."""
    start = 0
    for end in ends:
        if "\n" in raw[start:end]:
            cut = finished(raw[:end])
            if cut is not None:
                return raw[:cut], end
        start = end
    return raw, len(raw)


def block_finished(inp: EditorInput) -> Callable[[str], int | None]:
    """prompt/parseBlock.ts parsingBlockFinished at this cursor, moved back over a blank last
    line's blanks as the prompt trimmed them (ghostTextStrategy.ts `adjustedPosition`)."""
    prefix, _ = lay.trim_last_line(inp.prefix)
    return lambda text: blocks.block_body_finished(inp.language or "", prefix, text)


def take_lines(lines: int) -> Callable[[str], int | None]:
    """ghostTextStrategy.ts takeNLines, after an accepted item: `lines` lines after the cursor's."""
    def finished(text: str) -> int | None:
        parts = text.split("\n")
        return len("\n".join(parts[: lines + 1])) if len(parts) > lines + 1 else None
    return finished


def _repeated_pattern(items: list[str]) -> bool:
    """anomalyDetection.ts isRepeatedPattern: the first `last` items are a pattern of at most
    `longest` items repeated (the last repetition may be cut), by the KMP prefix function."""
    if not items:
        return False
    prefix = [-1] * len(items)
    k = -1
    for q in range(1, len(items)):
        while k >= 0 and items[k + 1] != items[q]:
            k = prefix[k]
        if items[k + 1] == items[q]:
            k += 1
        prefix[q] = k
    return any(len(items) >= last and last - 1 - prefix[last - 1] <= longest for longest, last in REPETITION_CONFIGS)


def is_repetitive(chunks: list[str]) -> bool:
    """anomalyDetection.ts isRepetitive: the chunks end in a repetition, blank chunks counted or not."""
    backwards = chunks[::-1]
    return _repeated_pattern(backwards) or _repeated_pattern([c for c in backwards if c.strip()])


def stream_chunks(raw: str, ends: list[int]) -> list[str]:
    """The chunks of the stream (fetch.ts CompletionAccumulator.chunks: the non-empty ones)."""
    pieces, start = [], 0
    for end in ends:
        if end > start:
            pieces.append(raw[start:end])
            start = end
    return pieces


def received(inp: EditorInput, raw: str, cut: str | None, timing: Timing | None = None,
             model: str | None = None) -> tuple[Steps, Choice | None, list[tuple[str, Choice]]]:
    """Steps 0 and 1 on a received stream (`cut`: request.stream_cut): the trace so far, the
    choice the cache keeps, and the later parts the statement splitter puts in the cache (text
    added to the request's cache prefix, the part)."""
    steps = Steps(raw)
    ends = chunk_ends(raw, timing, model)
    read, parts = len(raw), []
    if cut == "block":
        kept, read = read_stream(raw, ends, block_finished(inp))
        steps.set("parsingBlockFinished", SRC + "prompt/parseBlock.ts", kept)
    elif cut == "lines":
        kept, read = read_stream(raw, ends, take_lines(request.AFTER_ACCEPT_LINES))
        steps.set("takeNLines", SRC + "ghostText/ghostTextStrategy.ts", kept)
    elif cut == "split":
        prefix, _ = lay.trim_last_line(inp.prefix)
        split = splitter.finished_reader(inp.language or "", inp.prefix + inp.suffix, len(inp.prefix), prefix)(raw, ends)
        read = split.read
        steps.set("StreamedCompletionSplitter", SRC + "ghostText/streamedCompletionSplitter.ts",
                  raw if split.first is None else raw[: split.first])
        parts = [(added, Choice(text, tuple(stream_chunks(raw, ends)))) for added, text in split.cached]
    steps.apply("postProcessChoices", SRC + "ghostText/completionsFromNetwork.ts", lambda t: t.rstrip() or None)
    chunks = tuple(stream_chunks(raw[:read], [e for e in ends if e <= read] + [read]))
    if steps.text is None:
        return steps, None, parts
    return steps, (Choice(steps.text, tuple(stream_chunks(raw, ends)), chunks) if cut == "split"
                   else Choice(steps.text, chunks)), parts


def in_context(inp: EditorInput, steps: Steps, chunks: tuple[str, ...]) -> str | None:
    """Step 2, suggestions.ts postProcessChoiceInContext."""
    language = inp.language or ""
    repetitive = is_repetitive(list(chunks))
    steps.apply("isRepetitive", SRC + "suggestions/anomalyDetection.ts", lambda t: None if repetitive else t)
    trim = request.block_mode(language) != "moremultiline"
    steps.apply("matchesNextLine", SRC + "suggestions/suggestions.ts",
                lambda t: None if matches_next_line(inp.suffix, t, trim) else t)
    closer = "end" if language == "ruby" else "}"
    return steps.apply("maybeSnipCompletion", SRC + "suggestions/suggestions.ts",
                       lambda t: snip_closers(inp.suffix, t, closer) or None)


def item(inp: EditorInput, steps: Steps, multiline: bool) -> Shown:
    """Steps 3 and 4: the edit the item makes."""
    line_before = inp.prefix.split("\n")[-1]
    rest = inp.suffix.split("\n")[0]
    inline = request.inline_position(rest)  # never None here: no request is made there
    covered = check_suffix(rest, steps.text) if inline and steps.text is not None else 0
    _, trailing = lay.trim_last_line(inp.prefix)
    steps.apply("completionsFromGhostTextResults", SRC + "ghostText/copilotCompletion.ts",
                lambda t: insert_text(line_before, rest, t, trailing))
    shown = steps.shown(multiline=multiline, replace_after=covered)
    return Shown(text=shown.text, multiline=shown.multiline, replace_after=shown.replace_after if shown.text else 0,
                 replace_before=len(line_before) if shown.text is not None else 0, trace=shown.trace)


def force_single_line(text: str) -> str:
    """completionsFromNetwork.ts makeGhostAPIChoice with forceSingleLine (a leading line break
    does not count as a line)."""
    lead = "\r\n" if text.startswith("\r\n") else "\n" if text.startswith("\n") else ""
    return lead + text.split("\n")[1] if lead else text.split("\n")[0]


# Where a locally answered line's choices come from (session.py), and the file that holds each.
LOCAL_SOURCES = {"getCompletionsForUserTyping": "ghostText/current.ts", "getCompletionsFromCache": "ghostText/completionsCache.ts",
                 "AsyncCompletionManager": "ghostText/asyncCompletions.ts"}


def local(inp: EditorInput, candidates: list[tuple[str, Choice]], multiline: bool) -> tuple[Shown, list[Choice]]:
    """A locally answered line (the module's docstring): the item shown, and the post-processed
    choices (the item now on screen). `candidates` are (where from, choice less what was typed)."""
    kept: list[tuple[Steps, Choice]] = []
    for source, choice in candidates:
        steps = Steps(None)
        steps.set(source, SRC + LOCAL_SOURCES[source], choice.text)
        for _ in range(2):
            in_context(inp, steps, choice.chunks)
        if steps.text is not None:
            kept.append((steps, choice.rest(steps.text)))
    if not kept:
        return Shown(text=None, multiline=multiline), []
    return item(inp, kept[0][0], multiline), [choice for _, choice in kept]
