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
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field

from replay.records import CaptureRecord, RenderedPrompt
from replay.tokens.diff import first_difference
from replay.tokens.engine import engine_ids
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
}

# FIM sentinel sets in the order a template writes them (first one opens the prompt). Facts from
# TabbyML/tabby crates/tabby/src/services/completion/completion_prompt.rs + registry-tabby
# models.json and continuedev/continue core/autocomplete/templating/AutocompleteTemplate.ts.
SENTINEL_SETS: tuple[tuple[str, ...], ...] = (
    ("<fim_prefix>", "<fim_suffix>", "<fim_middle>"),
    ("<|fim_prefix|>", "<|fim_suffix|>", "<|fim_middle|>"),
    ("<｜fim▁begin｜>", "<｜fim▁hole｜>", "<｜fim▁end｜>"),
    ("<PRE>", "<SUF>", "<MID>"),
    ("[SUFFIX]", "[PREFIX]"),
    ("<[fim-prefix]>", "<[fim-suffix]>", "<[fim-middle]>"),
)
# Other template tokens editors write as text (Continue's Qwen multi-file template, Tabby stop words).
TEMPLATE_TOKENS: tuple[str, ...] = ("<|repo_name|>", "<|file_sep|>", "<repo_name>", "<file_sep>", "<|fim_pad|>", "<fim_pad>")
_SENTINELS = sorted({s for group in SENTINEL_SETS for s in group} | set(TEMPLATE_TOKENS), key=len, reverse=True)
_SENTINEL_RE = re.compile("|".join(re.escape(s) for s in _SENTINELS))


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


def subject_from_rendered(r: RenderedPrompt, where: str = "") -> Subject:
    return Subject(text=r.text, where=where, prefix=r.prefix_sent, suffix=r.suffix_sent, max_new_tokens=r.max_new_tokens,
                   token_ids=tuple(r.token_ids))


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


def _span_of(text: str, part: str | None, start: int = 0) -> tuple[int, int] | None:
    """Where the user's code sits in the prompt (LF-normalised as a fallback: Tabby logs
    segments with CRLF and the prompt with LF)."""
    if not part:
        return None
    for candidate in (part, part.replace("\r\n", "\n")):
        at = text.find(candidate, start)
        if at >= 0:
            return at, at + len(candidate)
    return None


def _token_at(spans: Sequence[tuple[int, int]], char: int, shift: int) -> int:
    for i, (a, b) in enumerate(spans):
        if a <= char < b or (a == b == char):
            return i + shift
    return len(spans) + shift - 1 if spans else -1


class Auditor:
    """Audits prompts for one tokenizer and one engine (and optionally a second tokenizer)."""

    def __init__(self, tokenizer: Tokenizer, *, engine: str = "llama.cpp", ctx: int = 1024,
                 compare: Tokenizer | None = None) -> None:
        self.tok, self.engine, self.ctx, self.compare = tokenizer, engine, ctx, compare

    def audit(self, s: Subject) -> list[Finding]:
        tok, text = self.tok, s.text
        ids, spans = tok.encode_with_offsets(text)
        eng = engine_ids(tok, text, self.engine)
        shift = 1 if eng.bos_added else 0
        out: list[Finding] = []

        def add(kind: str, char: int, token: int, message: str, severity: str | None = None) -> None:
            out.append(Finding(kind, severity or KINDS[kind], char, token, message, s.where))

        pre_span = _span_of(text, s.prefix)
        suf_span = _span_of(text, s.suffix, pre_span[1] if pre_span else 0) or _span_of(text, s.suffix)
        user = [sp for sp in (pre_span, suf_span) if sp]

        def in_user(a: int, b: int) -> bool:
            return any(ua <= a and b <= ub for ua, ub in user)

        # sentinel-not-special / sentinel-in-user-code
        template_hits = [m for m in _SENTINEL_RE.finditer(text) if not in_user(*m.span())]
        for m in template_hits:
            a, b = m.span()
            covering = [i for i, (x, y) in enumerate(spans) if x < b and y > a]
            pieces = tok.pieces([ids[i] for i in covering])
            single = len(covering) == 1 and pieces[0].strip() == m.group(0)
            if not single:
                add("sentinel-not-special", a, (covering[0] + shift) if covering else -1,
                    f"sentinel {m.group(0)!r} is {len(covering)} tokens {pieces} for {tok.spec}, not one special id")
        for i, (tid, (a, b)) in enumerate(zip(ids, spans)):
            if tok.is_special(tid) and in_user(a, b):
                add("sentinel-in-user-code", a, i + shift,
                    f"{tok.pieces([tid])[0]!r} inside the user's code was encoded as special id {tid}")

        # BOS
        if tok.bos_id is not None:
            if eng.bos_added and ids[:1] == [tok.bos_id]:
                add("bos-doubled", 0, 0, f"the prompt text starts with BOS {tok.pieces([tok.bos_id])[0]!r} and {self.engine} adds another")
            elif tok.add_bos and eng.ids[:1] != [tok.bos_id]:
                add("bos-missing", 0, 0, f"{tok.spec} is configured with add_bos but {self.engine}'s ids do not start with BOS")
        if s.token_ids and list(s.token_ids) != eng.ids:
            first = first_difference(s.token_ids, eng.ids)
            add("converter-disagreement", -1, first,
                f"the recorded token_ids differ from {tok.spec} on {self.engine} from token {first} "
                f"({len(s.token_ids)} vs {len(eng.ids)} ids)")

        # seam-mismatch: the pieces between template seams (sentinels) encoded apart vs the joined text
        cuts = sorted({0, len(text), *[p for m in template_hits for p in m.span()]})
        parts = [text[x:y] for x, y in zip(cuts, cuts[1:]) if y > x]
        if len(parts) > 1:
            joined: list[int] = []
            for p in parts:
                joined += tok.encode(p)
            if joined != ids:
                k = first_difference(joined, ids)
                char = spans[k][0] if k < len(spans) else len(text)
                add("seam-mismatch", char, k + shift,
                    f"encoding the {len(parts)} template pieces apart gives {len(joined)} ids, the joined text {len(ids)}; "
                    f"first difference at token {k}: {tok.pieces(joined[k:k + 1])} vs {tok.pieces(ids[k:k + 1])}")

        # spm-space-drift: a "▁" after a sentinel that the text does not have
        if tok.spm:
            for i in range(1, len(ids)):
                if tok.is_special(ids[i - 1]) and not tok.is_special(ids[i]):
                    piece = tok.pieces([ids[i]])[0]
                    a = spans[i][0]
                    if piece.startswith(" ") and not text.startswith(" ", a):
                        add("spm-space-drift", a, i + shift,
                            f"SentencePiece adds a leading space after {tok.pieces([ids[i - 1]])[0]!r}: the model sees "
                            f"{piece!r} where the text has {text[a:a + len(piece) - 1]!r}")

        # cursor-splits-token
        if pre_span and s.prefix:
            out += self._cursor(s, text, pre_span, shift)

        # clipped-sentinel: a later sentinel of a set is in the template, its opening one is not
        in_template = {m.group(0) for m in template_hits}
        for group in SENTINEL_SETS:
            later = [x for x in group[1:] if x in in_template]
            if later and group[0] not in in_template:
                add("clipped-sentinel", 0, shift,
                    f"{later[0]!r} is in the prompt but the opening {group[0]!r} is not (clipped from the front?)")

        # over-context
        budget = self.ctx - s.max_new_tokens
        if len(eng.ids) > budget:
            add("over-context", -1, budget, f"{len(eng.ids)} prompt ids + {s.max_new_tokens} new tokens exceed the "
                f"{self.ctx}-token context by {len(eng.ids) - budget}")

        # crlf-mismatch
        segs = [x for x in (s.segments_prefix, s.segments_suffix, s.prefix, s.suffix) if x]
        seg_crlf = any("\r\n" in x for x in segs)
        if segs and seg_crlf != ("\r\n" in text):
            where = text.find("\r\n") if "\r\n" in text else -1
            add("crlf-mismatch", where, -1, "the segments use CRLF but the prompt has LF only" if seg_crlf
                else "the prompt has CRLF but the segments have LF only")

        # normalizer-changes-text
        back = tok.decode(ids)
        drift = {f.char for f in out if f.kind == "spm-space-drift"}
        k = first_difference(back, text)
        if back != text and k not in drift:  # a SentencePiece drift is reported once, above
            add("normalizer-changes-text", k, _token_at(spans, k, shift),
                f"decode(encode(text)) differs at char {k}: {text[k:k + 12]!r} became {back[k:k + 12]!r}")

        # converter-disagreement with a second tokenizer
        if self.compare is not None:
            other = self.compare.encode(text)
            if other != ids:
                k = first_difference(other, ids)
                char = spans[k][0] if k < len(spans) else len(text)
                add("converter-disagreement", char, k + shift,
                    f"{self.compare.spec} gives {len(other)} ids, {tok.spec} {len(ids)}; first difference at token {k}: "
                    f"{self.compare.pieces(other[k:k + 1])} vs {tok.pieces(ids[k:k + 1])}")
        return out

    def _cursor(self, s: Subject, text: str, pre_span: tuple[int, int], shift: int) -> list[Finding]:
        tok, prefix = self.tok, text[pre_span[0]:pre_span[1]]
        cursor = pre_span[1]
        out = []
        if s.middle:
            ids, spans = tok.encode_with_offsets(prefix + s.middle)
            inside = [i for i, (a, b) in enumerate(spans) if a < len(prefix) < b]
            if inside:
                i = inside[0]
                a, b = spans[i]
                whole = (prefix + s.middle)[a:b]
                out.append(Finding("cursor-splits-token", "warning", cursor, -1,
                                   f"the cursor splits {whole!r} (one token when prefix and middle are joined): the model "
                                   f"must produce a token boundary it never saw in training", s.where))
                return out
        tail = prefix.rsplit("\n", 1)[-1]
        if tail and tail[-1] in " \t" and tail.strip():
            trailing = tail[len(tail.rstrip(" \t")):]
            out.append(Finding("cursor-splits-token", "warning", cursor, -1,
                               f"the prefix ends in trailing whitespace {trailing!r} after code: "
                               "spaces usually belong to the next token", s.where))
        elif tail and (tail[-1].isalnum() or tail[-1] == "_") and not s.middle:
            out.append(Finding("cursor-splits-token", "info", cursor, -1,
                               f"the prefix ends mid-identifier {tail.split()[-1][-20:]!r}: the completion may have to "
                               "continue inside a token", s.where))
        return out


def audit_all(subjects: Iterable[Subject], auditor: Auditor) -> Report:
    report = Report()
    for s in subjects:
        report.subjects += 1
        report.findings += auditor.audit(s)
    return report
