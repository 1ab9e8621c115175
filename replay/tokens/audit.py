"""The tokenizer-gotcha audit: what in a prompt makes the model see something other than intended.

Each finding has a kind, a severity, the character offset in the prompt text, the token index
in the ids the engine receives, and a one-line explanation. The kinds come from the gotcha list
in the editors' notes (hamel.dev "Tokenization gotchas", CompChomper, the editors' source):

  sentinel-not-special   a template sentinel is not one token (the model never sees its id)
  sentinel-in-user-code  sentinel-like text inside the user's code became a special token
  bos-doubled            the prompt text starts with BOS and the engine adds another
  bos-missing            the model's config wants BOS and the engine's ids do not start with it
  seam-mismatch          encoding the template pieces apart and joining the ids differs from
                         encoding the joined text (hamel.dev: enc("Ok\\n")+enc("<|im_start|>"))
  spm-space-drift        SentencePiece puts a "▁" before the text after a sentinel that the
                         text does not have
  cursor-splits-token    the prefix ends inside what would be one token (mid-token when the
                         middle is known; trailing spaces/tabs; mid-identifier)
  clipped-sentinel       a later sentinel is there but the first one is gone (clipping by bytes
                         or characters, Tabby since 2025-02-11)
  over-context           prompt ids + max new tokens exceed the context after templating
  crlf-mismatch          the segments and the prompt disagree on CRLF vs LF
  normalizer-changes-text decode(encode(x)) != x
  converter-disagreement a second tokenizer (e.g. transformers' GGUF import) gives other ids

An editor's own layout adds its kinds (reported through audit_all's `extra`): Copilot's
(replay.editors.copilot.audit) elision-cut, elision-splits-token, marker-pieces,
block-seam-shift and budget-mismatch.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from replay.records import CaptureRecord, RenderedPrompt
from replay.tokens.diff import first_difference
from replay.tokens.engine import EngineIds, engine_ids
from replay.tokens.sentinels import SENTINEL_SETS, in_spans, not_single, template_hits, user_spans
from replay.tokens.tokenizer import Tokenizer

SEVERITIES = ("error", "warning", "info")

KINDS: dict[str, str] = {
    "sentinel-not-special": "error",
    "sentinel-in-user-code": "error",
    "bos-doubled": "error",
    "bos-missing": "warning",
    "seam-mismatch": "warning",
    "spm-space-drift": "warning",
    "cursor-splits-token": "warning",
    "clipped-sentinel": "error",
    "over-context": "error",
    "crlf-mismatch": "warning",
    "normalizer-changes-text": "warning",
    "converter-disagreement": "warning",
    "elision-cut": "info",
    "elision-splits-token": "warning",
    "marker-pieces": "info",
    "block-seam-shift": "warning",
    "budget-mismatch": "info",
}


@dataclass(frozen=True)
class Finding:
    kind: str
    severity: str
    char: int  # offset in the prompt text (-1: the prompt as a whole)
    token: int  # index in the engine's ids (-1: not tied to one token)
    message: str
    where: str = ""  # file:line of the audited record

    def line(self) -> str:
        return f"{self.where}: {self.severity}: {self.kind} @char {self.char} tok {self.token}: {self.message}"


@dataclass(frozen=True)
class Subject:
    """One prompt to audit, with whatever is known about how it was built."""

    text: str
    where: str = ""
    prefix: str | None = None  # the user's code before the cursor, as it went into the prompt
    suffix: str | None = None
    segments_prefix: str | None = None  # the editor's segments as logged (may keep CRLF)
    segments_suffix: str | None = None
    middle: str | None = None  # the text the cursor was in front of, when known
    max_new_tokens: int = 128
    token_ids: tuple[int, ...] = ()  # ids the renderer recorded, when given
    profile: str = ""  # the editor profile that rendered it, e.g. "copilot@0.66.0"
    request: dict[str, Any] | None = None  # the client's body, where the editor sends one
    line: int | None = None  # the render input line it was rendered from


def subject_from_rendered(r: RenderedPrompt, where: str = "", line: int | None = None) -> Subject:
    return Subject(text=r.text, where=where, prefix=r.prefix_sent, suffix=r.suffix_sent, max_new_tokens=r.max_new_tokens,
                   token_ids=tuple(r.token_ids), profile=r.profile, request=r.request, line=line)


def subject_from_capture(c: CaptureRecord, where: str = "") -> Subject | None:
    """A capture is audited through its logged prompt; None when nothing was logged."""
    text = c.logged_prompt
    if text is None:
        return None
    seg = c.segments
    return Subject(text=text, where=where or c.source.where(), prefix=seg.prefix if seg else None,
                   suffix=seg.suffix if seg else None, segments_prefix=seg.prefix if seg else None,
                   segments_suffix=seg.suffix if seg else None, middle=c.completion)


@dataclass
class Report:
    findings: list[Finding] = field(default_factory=list)
    subjects: int = 0

    def summary(self) -> dict:
        by_kind = Counter(f.kind for f in self.findings)
        by_sev = Counter(f.severity for f in self.findings)
        return {"subjects": self.subjects, "findings": len(self.findings),
                "subjects_with_findings": len({f.where for f in self.findings}),
                "by_kind": {k: by_kind.get(k, 0) for k in KINDS}, "by_severity": {s: by_sev.get(s, 0) for s in SEVERITIES}}

    def to_dict(self) -> dict:
        return {"summary": self.summary(), "findings": [asdict(f) for f in self.findings]}


def _token_at(spans: Sequence[tuple[int, int]], char: int, shift: int) -> int:
    for i, (a, b) in enumerate(spans):
        if a <= char < b or (a == b == char):
            return i + shift
    return len(spans) + shift - 1 if spans else -1


@dataclass
class _Seen:
    """One subject as the tokenizer and the engine see it, with the findings so far."""

    subject: Subject
    ids: list[int]
    spans: list[tuple[int, int]]
    eng: EngineIds
    shift: int  # 1 when the engine puts a BOS before the ids: token indices move by one
    pre_span: tuple[int, int] | None  # where the user's prefix sits in the text
    user: list[tuple[int, int]]  # where the user's code sits (prefix, suffix)
    template_hits: list[re.Match[str]]  # the sentinels the template wrote (not the user's code)
    findings: list[Finding] = field(default_factory=list)

    @property
    def text(self) -> str:
        return self.subject.text

    def in_user(self, a: int, b: int) -> bool:
        return in_spans(self.user, a, b)

    def add(self, kind: str, char: int, token: int, message: str, severity: str | None = None) -> None:
        self.findings.append(Finding(kind, severity or KINDS[kind], char, token, message, self.subject.where))


class Auditor:
    """Audits prompts for one tokenizer and one engine (and optionally a second tokenizer)."""

    def __init__(self, tokenizer: Tokenizer, *, engine: str = "llama.cpp", ctx: int = 1024,
                 compare: Tokenizer | None = None) -> None:
        self.tok, self.engine, self.ctx, self.compare = tokenizer, engine, ctx, compare

    def audit(self, s: Subject) -> list[Finding]:
        seen = self._see(s)
        for check in (self._sentinels, self._bos, self._recorded_ids, self._seams, self._spm_drift, self._cursor,
                      self._clipped, self._over_context, self._crlf, self._normalizer, self._second_tokenizer):
            check(seen)
        return seen.findings

    def _see(self, s: Subject) -> _Seen:
        text = s.text
        ids, spans = self.tok.encode_with_offsets(text)
        eng = engine_ids(self.tok, text, self.engine)
        pre_span, user = user_spans(text, s.prefix, s.suffix)
        seen = _Seen(s, ids, spans, eng, 1 if eng.bos_added else 0, pre_span, user, [])
        seen.template_hits = template_hits(text, user)
        return seen

    def _sentinels(self, seen: _Seen) -> None:
        """sentinel-not-special and sentinel-in-user-code."""
        tok, ids, spans, shift = self.tok, seen.ids, seen.spans, seen.shift
        for m in seen.template_hits:
            split = not_single(tok, m, ids, spans)
            if split is not None:
                covering, pieces = split
                seen.add("sentinel-not-special", m.start(), (covering[0] + shift) if covering else -1,
                         f"sentinel {m.group(0)!r} is {len(covering)} tokens {pieces} for {tok.spec}, not one special id")
        for i, (tid, (a, b)) in enumerate(zip(ids, spans)):
            if tok.is_special(tid) and seen.in_user(a, b):
                seen.add("sentinel-in-user-code", a, i + shift,
                         f"{tok.pieces([tid])[0]!r} inside the user's code was encoded as special id {tid}")

    def _bos(self, seen: _Seen) -> None:
        tok = self.tok
        if tok.bos_id is None:
            return
        if seen.eng.bos_added and seen.ids[:1] == [tok.bos_id]:
            seen.add("bos-doubled", 0, 0, f"the prompt text starts with BOS {tok.pieces([tok.bos_id])[0]!r} and {self.engine} adds another")
        elif tok.add_bos and seen.eng.ids[:1] != [tok.bos_id]:
            seen.add("bos-missing", 0, 0, f"{tok.spec} is configured with add_bos but {self.engine}'s ids do not start with BOS")

    def _recorded_ids(self, seen: _Seen) -> None:
        """converter-disagreement with the ids the renderer recorded."""
        recorded, eng = seen.subject.token_ids, seen.eng
        if recorded and list(recorded) != eng.ids:
            first = first_difference(recorded, eng.ids)
            seen.add("converter-disagreement", -1, first,
                     f"the recorded token_ids differ from {self.tok.spec} on {self.engine} from token {first} "
                     f"({len(recorded)} vs {len(eng.ids)} ids)")

    def _seams(self, seen: _Seen) -> None:
        """seam-mismatch: the pieces between template seams (sentinels) encoded apart vs the joined text."""
        tok, text, ids, spans = self.tok, seen.text, seen.ids, seen.spans
        cuts = sorted({0, len(text), *[p for m in seen.template_hits for p in m.span()]})
        parts = [text[x:y] for x, y in zip(cuts, cuts[1:]) if y > x]
        if len(parts) <= 1:
            return
        joined: list[int] = []
        for p in parts:
            joined += tok.encode(p)
        if joined != ids:
            k = first_difference(joined, ids)
            char = spans[k][0] if k < len(spans) else len(text)
            seen.add("seam-mismatch", char, k + seen.shift,
                     f"encoding the {len(parts)} template pieces apart gives {len(joined)} ids, the joined text {len(ids)}; "
                     f"first difference at token {k}: {tok.pieces(joined[k:k + 1])} vs {tok.pieces(ids[k:k + 1])}")

    def _spm_drift(self, seen: _Seen) -> None:
        """spm-space-drift: a "▁" after a sentinel that the text does not have."""
        tok, text, ids = self.tok, seen.text, seen.ids
        if not tok.spm:
            return
        for i in range(1, len(ids)):
            if tok.is_special(ids[i - 1]) and not tok.is_special(ids[i]):
                piece = tok.pieces([ids[i]])[0]
                a = seen.spans[i][0]
                if piece.startswith(" ") and not text.startswith(" ", a):
                    seen.add("spm-space-drift", a, i + seen.shift,
                             f"SentencePiece adds a leading space after {tok.pieces([ids[i - 1]])[0]!r}: the model sees "
                             f"{piece!r} where the text has {text[a:a + len(piece) - 1]!r}")

    def _cursor(self, seen: _Seen) -> None:
        """cursor-splits-token."""
        s, pre_span = seen.subject, seen.pre_span
        if not (pre_span and s.prefix):
            return
        tok, prefix = self.tok, seen.text[pre_span[0]:pre_span[1]]
        cursor = pre_span[1]
        if s.middle:
            ids, spans = tok.encode_with_offsets(prefix + s.middle)
            inside = [i for i, (a, b) in enumerate(spans) if a < len(prefix) < b]
            if inside:
                i = inside[0]
                a, b = spans[i]
                whole = (prefix + s.middle)[a:b]
                seen.add("cursor-splits-token", cursor, -1,
                         f"the cursor splits {whole!r} (one token when prefix and middle are joined): the model "
                         f"must produce a token boundary it never saw in training")
                return
        tail = prefix.rsplit("\n", 1)[-1]
        if tail and tail[-1] in " \t" and tail.strip():
            trailing = tail[len(tail.rstrip(" \t")):]
            seen.add("cursor-splits-token", cursor, -1,
                     f"the prefix ends in trailing whitespace {trailing!r} after code: "
                     "spaces usually belong to the next token")
        elif tail and (tail[-1].isalnum() or tail[-1] == "_") and not s.middle:
            seen.add("cursor-splits-token", cursor, -1,
                     f"the prefix ends mid-identifier {tail.split()[-1][-20:]!r}: the completion may have to "
                     "continue inside a token", severity="info")

    def _clipped(self, seen: _Seen) -> None:
        """clipped-sentinel: a later sentinel of a set is in the template, its opening one is not."""
        in_template = {m.group(0) for m in seen.template_hits}
        for group in SENTINEL_SETS:
            later = [x for x in group[1:] if x in in_template]
            if later and group[0] not in in_template:
                seen.add("clipped-sentinel", 0, seen.shift,
                         f"{later[0]!r} is in the prompt but the opening {group[0]!r} is not (clipped from the front?)")

    def _over_context(self, seen: _Seen) -> None:
        s, n = seen.subject, len(seen.eng.ids)
        budget = self.ctx - s.max_new_tokens
        if n > budget:
            seen.add("over-context", -1, budget, f"{n} prompt ids + {s.max_new_tokens} new tokens exceed the "
                     f"{self.ctx}-token context by {n - budget}")

    def _crlf(self, seen: _Seen) -> None:
        s, text = seen.subject, seen.text
        segs = [x for x in (s.segments_prefix, s.segments_suffix, s.prefix, s.suffix) if x]
        seg_crlf = any("\r\n" in x for x in segs)
        if segs and seg_crlf != ("\r\n" in text):
            where = text.find("\r\n") if "\r\n" in text else -1
            seen.add("crlf-mismatch", where, -1, "the segments use CRLF but the prompt has LF only" if seg_crlf
                     else "the prompt has CRLF but the segments have LF only")

    def _normalizer(self, seen: _Seen) -> None:
        """normalizer-changes-text (a SentencePiece drift is reported once, as spm-space-drift)."""
        text = seen.text
        back = self.tok.decode(seen.ids)
        drift = {f.char for f in seen.findings if f.kind == "spm-space-drift"}
        k = first_difference(back, text)
        if back != text and k not in drift:
            seen.add("normalizer-changes-text", k, _token_at(seen.spans, k, seen.shift),
                     f"decode(encode(text)) differs at char {k}: {text[k:k + 12]!r} became {back[k:k + 12]!r}")

    def _second_tokenizer(self, seen: _Seen) -> None:
        """converter-disagreement with a second tokenizer."""
        if self.compare is None:
            return
        tok, ids, spans = self.tok, seen.ids, seen.spans
        other = self.compare.encode(seen.text)
        if other != ids:
            k = first_difference(other, ids)
            char = spans[k][0] if k < len(spans) else len(seen.text)
            seen.add("converter-disagreement", char, k + seen.shift,
                     f"{self.compare.spec} gives {len(other)} ids, {tok.spec} {len(ids)}; first difference at token {k}: "
                     f"{self.compare.pieces(other[k:k + 1])} vs {tok.pieces(ids[k:k + 1])}")


def audit_all(subjects: Iterable[Subject], auditor: Auditor,
              extra: Callable[[Subject], list[Finding]] | None = None) -> Report:
    """Every subject through the auditor, and through `extra` (an editor layout's own findings)."""
    report = Report()
    for s in subjects:
        report.subjects += 1
        report.findings += auditor.audit(s)
        if extra is not None:
            report.findings += extra(s)
    return report
