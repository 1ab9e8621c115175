"""What Copilot's split-context layout does to the tokenizer of the model a replay sends it to.

Copilot lays its prompt out for, and cuts it with, o200k_base (layout.py, tokens.py); a replay
sends the same text to an open model whose tokenizer differs. These findings (tokens.audit
Findings, counted in the same report) say where that changes what the model reads:

  elision-cut           where the budget cut the document, the suffix or a context block (info)
  elision-splits-token  the cut falls inside one token of the target tokenizer over the uncut
                        text: the prompt starts (or ends) with a piece of that token, a sequence
                        the model did not see there in training
  marker-pieces         how the target tokenizer splits a marker line: `Path: <path>`,
                        `Language: <id>` or the shebang (components/marker.tsx), `Compare this
                        snippet from <path>:` (snippetInclusion/snippets.ts) (info)
  block-seam-shift      a block's tokens in the prompt differ from the same text's tokens where
                        it came from (its file, when the render input is given; else the block
                        alone): the seams between blocks, and the context blocks' trimmed
                        indentation (elision.ts makeContextPrompt trims each block), move token
                        boundaries
  budget-mismatch       Copilot's o200k counts (`extra.prompt_tokens`, `suffix_tokens`) against
                        the target tokenizer's, and whether the target's context (with the
                        request's max_tokens) cuts what Copilot's 8192-token budget kept

Where the cuts are is known from the render input (the document, its open files): the layout is
run again on it (layout.py `Layout.cuts`). The cursor's own seam is the generic
cursor-splits-token check, given the document after the cursor as the middle (`with_middle`).
The engine's FIM prefix is this project's mapping of Copilot's body (profile.engine_text).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import Any

import msgspec

from replay.editors.copilot import layout as lay
from replay.editors.copilot import uris
from replay.editors.copilot.profile import context_blocks, engine_text
from replay.editors.copilot.similar import with_snippet_tabs
from replay.editors.interface import BadLayoutRow
from replay.records import EditorInput
from replay.tokens.audit import Finding, Subject
from replay.tokens.engine import engine_ids
from replay.tokens.tokenizer import Tokenizer

MIDDLE_CHARS = 200  # how much of the document after the cursor the cursor check reads
_HEADLINE = re.compile(r"Compare this snippet(?: from (.*))?:")  # snippets.ts announceSnippet
_DOCUMENT_MARKERS = ("Path: ", "Language: ")  # languageMarker.ts / marker.tsx
Tokens = list[tuple[int, int, int]]  # (start, end, id): a token and the characters it covers


class BodyExtra(msgspec.Struct):
    prompt_tokens: int
    suffix_tokens: int
    context: list[str] = []


class Body(msgspec.Struct):
    """The fields of Copilot's request body the audit reads (request.py writes them)."""

    prompt: str
    suffix: str
    max_tokens: int
    extra: BodyExtra


def body_of(request: dict[str, Any]) -> Body:
    """The typed body (msgspec.ValidationError when the row's request is not Copilot's)."""
    return msgspec.convert(request, Body)


@dataclass(frozen=True)
class Part:
    """One block of the engine's FIM prefix: where it sits in the prompt text, and the text it
    came from with its offset there (the block alone when its source is not known)."""

    kind: str  # marker | snippet | document | suffix
    at: int
    text: str
    origin: str
    origin_at: int
    name: str = ""  # where `origin` is from ("": the block alone stands in)


def with_middle(subject: Subject, body: Body, inp: EditorInput) -> Subject:
    """The subject with the document after the prompt's end as its middle: the trailing blanks
    trimLastLine took off the prompt, then the text after the cursor (the suffix Copilot sends
    starts on the next line)."""
    before = lay.normalize_eol(inp.prefix)
    trimmed, trailing = lay.trim_last_line(before)
    if not trimmed.endswith(body.prompt):
        return subject
    return replace(subject, middle=(trailing + lay.normalize_eol(inp.suffix))[:MIDDLE_CHARS])


def cuts(body: Body, inp: EditorInput) -> tuple[lay.Cut, ...] | None:
    """Where the layout cut at this cursor, from the layout run again on the render input (None:
    the input does not give this body's prompt)."""
    document = inp.prefix + inp.suffix
    fresh = lay.normalize_eol(lay.suffix_text(inp.suffix))
    suffix = fresh if fresh.startswith(body.suffix) else body.suffix  # else the session reused an older one
    result = lay.layout(context_blocks(inp, document, len(inp.prefix)), inp.prefix, suffix)
    if (result.prefix, result.suffix) != (body.prompt, body.suffix):
        return None
    return result.cuts


def _origins(inp: EditorInput | None) -> dict[str, str]:
    if inp is None:
        return {}
    return {(uris.name(f.filepath, inp.workspace) or ""): lay.normalize_eol(f.text)
            for f in with_snippet_tabs(inp).open_files}


def _group_parts(group: str, at: int, first: bool, files: dict[str, str]) -> list[Part]:
    """A context group's blocks: marker lines and the snippet text between them."""
    parts: list[Part] = []
    name, start, pos = "", None, at
    lines = group.split("\n")

    def close(end: int) -> None:
        if start is not None and end > start:
            text = group[start - at:end - at]
            origin = files.get(name, "")
            where = origin.find(text) if origin else -1
            parts.append(Part("snippet", start, text, *((origin, where, name) if where >= 0 else (text, 0, ""))))

    for i, line in enumerate(lines):
        headline = _HEADLINE.fullmatch(line)
        marker = first and i == 0 and (line.startswith(_DOCUMENT_MARKERS) or line in lay.SHEBANG_LINES.values())
        if headline or marker:
            close(pos - 1 if pos > at else pos)
            parts.append(Part("marker", pos, line, line, 0))
            name, start = (headline.group(1) or "") if headline else "", None
        elif start is None:
            start = pos
        pos += len(line) + 1
    close(at + len(group))
    return parts


def parts(body: Body, prefix_at: int, inp: EditorInput | None) -> list[Part]:
    """The blocks of the engine's FIM prefix (profile.engine_text) placed at `prefix_at`."""
    files, found, pos = _origins(inp), [], prefix_at
    for i, group in enumerate(body.extra.context):
        if group:
            found += _group_parts(group, pos, i == 0, files)
            pos += len(group) + 1
    origin, origin_at, name = body.prompt, 0, ""
    if inp is not None:
        before = lay.normalize_eol(inp.prefix)  # the text layout.Cut holds for the prefix
        trimmed, _ = lay.trim_last_line(before)
        if trimmed.endswith(body.prompt):
            origin, origin_at, name = before, len(trimmed) - len(body.prompt), "the document"
    if body.prompt:
        found.append(Part("document", pos, body.prompt, origin, origin_at, name))
    return found


def suffix_part(body: Body, at: int, inp: EditorInput | None) -> Part:
    """The suffix as the prompt holds it (from the next line on, leading blanks trimmed:
    currentFile.tsx AfterCursor) and where it sits in the document after the cursor."""
    after = lay.normalize_eol(inp.suffix) if inp is not None else ""
    where = after.find(body.suffix) if after else -1
    if where < 0:
        return Part("suffix", at, body.suffix, body.suffix, 0)
    return Part("suffix", at, body.suffix, after, where, "the document")


def _over(tokens: Tokens, a: int, n: int) -> Tokens:
    """The tokens over [a, a+n), each with its span relative to a (not cut to the range)."""
    return [(x - a, y - a, i) for x, y, i in tokens if x < a + n and y > a]


def _inside(tokens: Tokens, at: int) -> tuple[int, int, int] | None:
    return next((t for t in tokens if t[0] < at < t[1]), None)


class LayoutAudit:
    """Copilot's layout findings for one target tokenizer, engine and context size."""

    def __init__(self, tokenizer: Tokenizer, *, engine: str = "llama.cpp", ctx: int = 1024) -> None:
        self.tok, self.engine, self.ctx = tokenizer, engine, ctx
        self._tokens: dict[str, Tokens] = {}

    def tokens(self, text: str) -> Tokens:
        """The target tokenizer's tokens of `text` (the last few texts kept: a document's prefix is
        read for its cut and for its seam)."""
        if text not in self._tokens:
            if len(self._tokens) >= 4:
                self._tokens.clear()
            ids, spans = self.tok.encode_with_offsets(text)
            self._tokens[text] = [(x, y, i) for i, (x, y) in zip(ids, spans)]
        return self._tokens[text]

    def findings(self, subject: Subject, body: Body, inp: EditorInput | None = None) -> list[Finding]:
        """The layout's findings on one rendered prompt (`inp`: the render input it came from)."""
        prefix, suffix = engine_text(msgspec.to_builtins(body))
        prefix_at = subject.text.find(prefix) if prefix else 0
        if prefix_at < 0:
            return []
        out: list[Finding] = []
        seen = self.tokens(subject.text)
        eng = engine_ids(self.tok, subject.text, self.engine)

        def add(kind: str, severity: str, char: int, message: str) -> None:
            """A finding at `char` of the prompt, tied to the engine's token there (-1: none)."""
            token = next((i + int(eng.bos_added) for i, (x, y, _) in enumerate(seen) if x <= char < y), -1) if char >= 0 else -1
            out.append(Finding(kind, severity, char, token, message, subject.where))

        blocks = parts(body, prefix_at, inp)
        found = cuts(body, inp) if inp is not None else ()
        if found is None:
            add("elision-cut", "info", -1, "the render input does not give this row's prompt: its cuts are not audited")
        suffix_at = subject.text.find(suffix, prefix_at + len(prefix)) if suffix else -1
        for cut in found or ():
            self._cut(cut, blocks, suffix_at + len(suffix) if suffix_at >= 0 else -1, seen, subject.text, add)
        split = {f.char for f in out if f.kind == "elision-splits-token"}
        for part in blocks + ([suffix_part(body, suffix_at, inp)] if suffix_at >= 0 else []):
            if part.kind == "marker":
                pieces = [subject.text[part.at + x:part.at + y] for x, y, _ in _over(seen, part.at, len(part.text))]
                add("marker-pieces", "info", part.at, f"{self.tok.spec} reads the marker {part.text!r} as {len(pieces)} "
                    f"tokens {pieces}")
            elif part.at not in split:
                self._seam(part, seen, subject.text, add)
        self._budget(len(eng.ids), body, prefix, suffix, add)
        return out

    def _cut(self, cut: lay.Cut, blocks: list[Part], suffix_end: int, seen: Tokens, text: str, add: Any) -> None:
        """elision-cut, and elision-splits-token when the uncut text has one token across the cut
        and the prompt does not have that token there."""
        whole = cut.text
        lines = whole.count("\n", 0, cut.at)
        if cut.part == "suffix":
            char, what = suffix_end, f"the suffix was cut after {cut.at} of its {len(whole)} characters"
        elif cut.part == "prefix":
            char = next((p.at for p in blocks if p.kind == "document"), -1)
            what = f"the document before the cursor lost its first {cut.at} characters ({lines} lines)"
        else:
            kept = whole[cut.at:].strip()
            char = text.find(kept) if kept else -1
            what = (f"the context block {whole.split(chr(10))[0][:60]!r} was dropped" if cut.at == len(whole)
                    else f"the context block {whole.split(chr(10))[0][:60]!r} lost its first {lines} lines")
        add("elision-cut", "info", char, f"{what} (Copilot's o200k budget)")
        token = _inside(self.tokens(whole), cut.at) if 0 < cut.at < len(whole) and char >= 0 else None
        if token is None:
            return
        x, y, tid = token
        a, b = char - (cut.at - x), char + (y - cut.at)
        if any((p, q, i) == (a, b, tid) for p, q, i in seen):
            return  # the prompt's neighbouring text gives the very token back
        there = self.tok.pieces([i for p, q, i in seen if p < char + 1 and q > char - 1])
        add("elision-splits-token", "warning", char,
            f"the {cut.part} cut falls inside {self.tok.spec}'s token {whole[x:y]!r} of the uncut text "
            f"({whole[x:cut.at]!r} | {whole[cut.at:y]!r}); the prompt has {there} there")

    def _seam(self, part: Part, seen: Tokens, text: str, add: Any) -> None:
        """block-seam-shift: the part's tokens in the prompt vs in the text it came from (the
        document's last token is the cursor's seam: cursor-splits-token audits it)."""
        n = len(part.text)
        here, there = _over(seen, part.at, n), _over(self.tokens(part.origin), part.origin_at, n)
        if part.kind in ("document", "suffix"):  # their last token meets a sentinel: the cursor, the cut
            here, there = here[:-1], there[:-1]
        if here == there:
            return
        k = next((i for i, (p, q) in enumerate(zip(here, there)) if p != q), min(len(here), len(there)))
        char = part.at + max(0, here[k][0] if k < len(here) else n)
        show_here = self.tok.pieces([i for _, _, i in here[max(0, k - 1):k + 2]])
        show_there = self.tok.pieces([i for _, _, i in there[max(0, k - 1):k + 2]])
        source = f"in {part.name}" if part.name else "alone"
        add("block-seam-shift", "warning", char,
            f"the {part.kind} block {part.text[:30]!r}... reads {show_here} in the prompt but {show_there} {source} "
            f"({sum(p != q for p, q in zip(here, there)) + abs(len(here) - len(there))} of {len(there)} tokens differ)")

    def _budget(self, n: int, body: Body, prefix: str, suffix: str, add: Any) -> None:
        """budget-mismatch: o200k counts against the target's, and the engine's `n` ids against
        the target's context."""
        o_pre, o_suf = body.extra.prompt_tokens, body.extra.suffix_tokens
        t_pre, t_suf = self.tok.count(prefix), self.tok.count(suffix)
        room = self.ctx - body.max_tokens
        ratio = (t_pre + t_suf) / max(1, o_pre + o_suf)
        counts = (f"Copilot counted {o_pre} + {o_suf} o200k tokens (prompt with context + suffix; its budget "
                  f"{lay.MAX_PROMPT_TOKENS}), {self.tok.spec} {t_pre} + {t_suf} (x{ratio:.2f})")
        if n > room:
            add("budget-mismatch", "warning", -1, f"{counts}; the templated prompt is {n} ids and a {self.ctx}-token "
                f"context with {body.max_tokens} new tokens holds {max(0, room)}: {n - max(0, room)} ids of what "
                "Copilot kept do not fit")
        else:
            add("budget-mismatch", "info", -1, f"{counts}; the templated prompt ({n} ids) fits the {self.ctx}-token "
                f"context with {body.max_tokens} new tokens")


class CopilotLayouts:
    """The copilot profile's layout audit (EditorProfile.layout_audit): each row's body read as
    Copilot's, the document after the cursor as its middle where the render input is given."""

    def __init__(self, tokenizer: Tokenizer, engine: str, ctx: int) -> None:
        self.audit = LayoutAudit(tokenizer, engine=engine, ctx=ctx)
        self._bodies: dict[str, Body] = {}

    def prepare(self, subject: Subject, cursor: EditorInput | None) -> Subject:
        """The subject as audited (BadLayoutRow: its request is not Copilot's body)."""
        if subject.request is None:
            return subject
        try:
            body = body_of(subject.request)
        except msgspec.ValidationError as exc:
            raise BadLayoutRow(f"not Copilot's request body: {exc}") from None
        subject = with_middle(subject, body, cursor) if cursor is not None else subject
        self._bodies[subject.where] = body
        return subject

    def findings(self, subject: Subject, cursor: EditorInput | None) -> list[Finding]:
        body = self._bodies.get(subject.where)
        return [] if body is None else self.audit.findings(subject, body, cursor)
