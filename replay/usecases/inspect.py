"""Looking at prompts as the model reads them: token pieces and ids, the tokenizer gotcha audit,
and, for one capture, its prompt's tokens, token diffs, findings and row counts (the TUI's
captures table, item and audit views)."""

from __future__ import annotations

import sys
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from replay.editors.interface import EditorProfile
from replay.editors.rulebook import HistoryRow, InForce
from replay.errors import UsageError
from replay.records import CaptureRecord, Completion
from replay.rejects import Rejects, stamped
from replay.store import Store
from replay.tokens.audit import Finding
from replay.tokens.diff import TokenDiff
from replay.tokens.tokenizer import Tokenizer, TokenizerError
from replay.usecases.base import Say

DIFF_MODES = ("logged vs rebuilt", "editor vs standard", "tokenizer A vs B")


def read_text_arg(text: str) -> str:
    """TEXT, or @FILE read exactly (no newline added or removed)."""
    if not text.startswith("@"):
        return text
    path = Path(text[1:])
    try:
        with open(path, encoding="utf-8", newline="") as f:
            return f.read()
    except (OSError, UnicodeDecodeError) as exc:
        raise UsageError(f"{path}: cannot read ({exc})") from exc


def tokenizer(spec: str) -> Tokenizer:
    from replay.tokens.tokenizer import load_tokenizer

    return load_tokenizer(spec)


def tokens(text: str, spec: str, engine: str | None = None, diff_spec: str | None = None,
           special: bool = True) -> dict[str, Any]:
    """Token pieces and ids of `text` (or @FILE) under `spec`; with `engine` the ids that engine
    receives, with `diff_spec` a token diff against a second tokenizer (replay.tokens.view)."""
    from replay.tokens.view import tokens_view

    body = read_text_arg(text)
    tok = tokenizer(spec)
    other = tokenizer(diff_spec) if diff_spec else None
    return tokens_view(body, tok, engine=engine, special=special, other=other)


@dataclass
class AuditResult:
    """`summary` is what `--json` prints under "summary" (counts by kind and severity, rejects,
    tokenizer, engine); `findings` one per gotcha."""

    summary: dict[str, Any]
    findings: list[Finding]

    def to_json(self) -> dict[str, Any]:
        from dataclasses import asdict

        return {"summary": self.summary, "findings": [asdict(f) for f in self.findings]}


def audit(store: Store, inputs: Sequence[str], spec: str, engine: str = "llama.cpp", ctx: int = 1024,
          compare_spec: str | None = None, captures: bool = False, rejects_path: Path | None = None,
          warn: Say | None = None, render_input: Path | None = None) -> AuditResult:
    """Tokenizer gotchas in rendered-prompt JSONL files (`-`: standard input, `render`'s output
    piped), @FILE prompts and (with `captures`) the stored captures' logged prompts.
    `compare_spec` "hf-gguf" alone means transformers' import of the same GGUF file. Unusable lines go to the rejects file, each told to `warn`.
    An editor's layout adds its own findings (replay.usecases.layouts); `render_input` is the
    file the rows were rendered from, where the layout's cuts are found."""
    from replay.tokens import audit_input
    from replay.tokens.audit import Auditor, audit_all
    from replay.tokens.engine import engine_rule
    from replay.tokens.tokenizer import converter_spec
    from replay.usecases.layouts import EditorLayouts, render_inputs

    if not inputs and not captures:
        raise UsageError("nothing to audit: give rendered-prompt JSONL files (- for standard input), @FILE prompts, or --captures")
    engine_rule(engine)
    tok = tokenizer(spec)
    if compare_spec == "hf-gguf":
        compare_spec = converter_spec(tok)
    compare = tokenizer(compare_spec) if compare_spec else None
    with Rejects(rejects_path, name=stamped("audit"), echo=warn) as rejects:
        subjects = []
        for item in inputs:
            if item == "-":  # `render ... | audit -`
                subjects.extend(audit_input.read_rendered_lines(sys.stdin.buffer, "<stdin>", rejects))
                continue
            path = Path(item[1:] if item.startswith("@") else item)
            if not path.is_file():
                raise UsageError(f"{path}: no such file")
            try:
                if item.startswith("@"):
                    subjects.append(audit_input.read_prompt_file(path))
                else:
                    subjects.extend(audit_input.read_rendered_jsonl(path, rejects))
            except (OSError, UnicodeDecodeError) as exc:
                raise UsageError(f"{path}: cannot read ({exc})") from exc
        if captures:
            subjects.extend(audit_input.read_captures(store, rejects))
        cursors = render_inputs(render_input, rejects) if render_input is not None else None
        layouts = EditorLayouts(tok, engine, ctx, cursors, rejects)
        report = audit_all(layouts.prepare(subjects), Auditor(tok, engine=engine, ctx=ctx, compare=compare), layouts)
    summary = {**report.summary(), "rejects": len(rejects), "tokenizer": tok.spec, "engine": engine}
    if rejects:
        summary["rejects_file"] = rejects.file
    return AuditResult(summary, list(report.findings))


# -- one capture, for the TUI's views ------------------------------------------------------------
def tokenizer_spec(capture: CaptureRecord, override: str | None = None) -> str:
    """`--tokenizer` when given, else the default tokenizer of the capture's model family."""
    if override:
        return override
    from replay.editors.templates import family_for_model
    from replay.tokens.tokenizer import default_tokenizer_spec

    family = family_for_model(capture.model or "")
    if family is None:
        raise TokenizerError(f"{capture.source.where()}: no known model family for {capture.model!r}; "
                             "start the TUI with --tokenizer SPEC")
    return default_tokenizer_spec(family.name)


@dataclass(frozen=True)
class PromptTokens:
    """The prompt cut at token boundaries: `pieces` joined give the prompt text back."""

    spec: str
    ids: list[int]
    pieces: list[str]
    special: list[bool]


def prompt_tokens(capture: CaptureRecord, override: str | None = None) -> PromptTokens:
    """The capture's logged prompt as tokens of its tokenizer (tokenizer_spec)."""
    tok = tokenizer(tokenizer_spec(capture, override))
    text = capture.logged_prompt or ""
    ids, spans = tok.encode_with_offsets(text)
    pieces: list[str] = []
    end = 0
    for start, stop in spans:  # byte tokens of one character share its span: show it once
        start = max(start, end)
        pieces.append(text[start:stop] if stop > start else "")
        end = max(end, stop)
    if end < len(text):
        pieces[-1:] = [pieces[-1] + text[end:]] if pieces else [text[end:]]
    return PromptTokens(tok.spec, ids, pieces, [tok.is_special(i) for i in ids])


@dataclass(frozen=True)
class TokenDiffView:
    """A token diff and its text (what the item view copies)."""

    mode: str
    diff: TokenDiff
    text: str


def token_diff(capture_id: int, capture: CaptureRecord, mode: str, override: str | None = None,
               compare_spec: str | None = None) -> TokenDiffView:
    """One of DIFF_MODES for a capture, under its tokenizer."""
    from replay.editors import rebuild_logged_prompt, render
    from replay.editors import capture_version
    from replay.run.inputs import capture_input
    from replay.tokens.diff import diff_texts, diff_tokenizers
    from replay.tokens.view import render_diff

    spec = tokenizer_spec(capture, override)
    tok = tokenizer(spec)
    logged = capture.logged_prompt or ""
    if mode == "logged vs rebuilt":
        rebuilt = rebuild_logged_prompt(capture)
        if rebuilt is None:
            raise UsageError(f"{capture.source.where()}: nothing to rebuild the prompt from (no segments)")
        diff = diff_texts(logged, rebuilt, tok, a_label="logged", b_label="rebuilt")
    elif mode == "editor vs standard":
        inp = capture_input(capture_id, capture)
        model = capture.model or ""
        editor = render(capture.editor, inp, model, capture_version(capture))
        standard = render("standard", inp, model)
        diff = diff_texts(editor.text, standard.text, tok, a_label=editor.profile, b_label=standard.profile)
    elif mode == "tokenizer A vs B":
        diff = diff_tokenizers(logged, tok, tokenizer(compare_spec or _lossy_twin(spec)))
    else:
        raise UsageError(f"unknown token diff {mode!r} (one of {', '.join(DIFF_MODES)})")
    return TokenDiffView(mode, diff, render_diff(diff))


def _lossy_twin(spec: str) -> str:
    """Without `--compare-tokenizer`, B is transformers' own import of the same GGUF file: the
    converter found lossy for code models (tests/tokens/test_tokenizer_specs.py)."""
    from replay.assets import asset_path
    from replay.tokens.tokenizer import SHORT_NAMES

    kind, sep, rest = spec.partition(":")
    if sep and kind == "gguf":
        return f"hf-gguf:{rest}"
    if not sep and spec.lower() in SHORT_NAMES:
        return f"hf-gguf:{asset_path(SHORT_NAMES[spec.lower()])}"
    raise TokenizerError(f"{spec}: no second tokenizer to compare with; start the TUI with --compare-tokenizer SPEC")


def audit_capture(capture: CaptureRecord, override: str | None = None) -> list[Finding]:
    """The gotcha findings of a capture's logged prompt under its tokenizer."""
    from replay.tokens.audit import Auditor, subject_from_capture

    subject = subject_from_capture(capture)
    return [] if subject is None else Auditor(tokenizer(tokenizer_spec(capture, override))).audit(subject)


@dataclass(frozen=True)
class FindingRow:
    capture_id: int
    token: int | None  # None: the finding is not tied to one token
    kind: str  # "severity: kind"
    message: str


def audit_findings(store: Store, capture_id: int | None, override: str | None = None,
                   batch: int = 200) -> Iterator[tuple[list[FindingRow], bool]]:
    """The findings of one capture, or of every capture `batch` at a time (read by id range, so
    the whole set never sits in memory): (rows, whether this is the last batch)."""
    last = 0
    while True:
        if capture_id is not None:
            captures = list(store.captures(ids=(capture_id,)))
        else:
            captures = list(store.captures(after=last, limit=batch))
        rows = [FindingRow(cid, f.token if f.token >= 0 else None, f"{f.severity}: {f.kind}", f.message)
                for cid, capture, _ in captures for f in audit_capture(capture, override)]
        done = capture_id is not None or len(captures) < batch
        yield rows, done
        if done:
            return
        last = captures[-1][0]


@dataclass
class CaptureStats:
    """Prompt-token and gotcha counts stored for some captures; `unknown` names the captures
    that could not be counted for want of a tokenizer (their model family is not known)."""

    counted: int = 0
    unknown: list[str] = field(default_factory=list)


def count_capture_stats(store: Store, ids: Sequence[int], override: str | None = None) -> CaptureStats:
    """Tokenize and audit the captures `ids` and keep their counts in the store, so that each is
    counted once. A capture with nothing logged to count is left as it is."""
    stats = CaptureStats()
    rows = []
    for capture_id in ids:
        capture = store.capture(capture_id)
        if capture is None or not capture.logged_prompt:
            continue
        try:
            spec = tokenizer_spec(capture, override)
        except TokenizerError:
            stats.unknown.append(capture.source.where())
            continue
        rows.append((capture_id, spec, tokenizer(spec).count(capture.logged_prompt), len(audit_capture(capture, spec))))
    if rows:
        store.set_capture_stats(rows)
    stats.counted = len(rows)
    return stats


def replays_of(store: Store, capture_id: int) -> list[tuple[str, Completion]]:
    """(run id, completion) of every run that replayed the capture (its item's reference is the
    capture: replay.run.inputs), oldest first."""
    return store.capture_replays(capture_id)


def similarity(reference: str, text: str) -> float:
    """The Indel similarity `score` reports, of two texts."""
    from replay.scoring import indel

    return indel(reference, text)


__all__ = ["DIFF_MODES", "AuditResult", "CaptureStats", "FindingRow", "PromptTokens", "TokenDiffView", "audit",
           "audit_capture", "audit_findings", "count_capture_stats", "prompt_tokens", "read_text_arg",
           "replays_of", "similarity", "token_diff", "tokenizer", "tokenizer_spec", "tokens"]


def _rule_keeper(editor: str) -> EditorProfile:
    """The editor's profile, where it keeps a rule book (a usage error naming those that do)."""
    from replay.editors import PROFILES, profile

    prof, _ = profile(editor)
    if not prof.has_history:
        kept = [name for name, p in PROFILES.items() if p.has_history]
        raise UsageError(f"no release history is kept for {editor} ({', '.join(kept[:-1])} and {kept[-1]} have one)")
    return prof


def editor_history(editor: str) -> list[HistoryRow]:
    """The editor's rule changes by date with the releases that first had them (EditorProfile.history:
    Continue's by release tag; Tabby's of both halves; each llama.cpp client's with llama-server's)."""
    return _rule_keeper(editor).history()


def editor_rules(editor: str, version: str | None) -> tuple[InForce, ...]:
    """The rules in force at `version` of the editor (None: its newest), one entry per half."""
    return _rule_keeper(editor).rules_in_force(version)
