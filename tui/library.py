"""The library calls the TUI makes, in one place: which tokenizer a capture is read with, its
prompt's tokens, the three token diffs, its audit findings and its row stats. Each function only
composes `replay.*` functions (no rule of its own), so the screens stay about display."""

from __future__ import annotations

from dataclasses import dataclass

from replay.records import CaptureRecord
from replay.tokens.audit import Auditor, Finding, subject_from_capture
from replay.tokens.diff import TokenDiff, diff_texts, diff_tokenizers
from replay.tokens.tokenizer import Tokenizer, TokenizerError, default_tokenizer_spec, load_tokenizer

DIFF_MODES = ("logged vs rebuilt", "editor vs standard", "tokenizer A vs B")


def tokenizer_spec(capture: CaptureRecord, override: str | None = None) -> str:
    """`--tokenizer` when given, else the default tokenizer of the capture's model family."""
    if override:
        return override
    from replay.editors.templates import family_for_model

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


def prompt_tokens(text: str, tokenizer: Tokenizer) -> PromptTokens:
    ids, spans = tokenizer.encode_with_offsets(text)
    pieces, end = [], 0
    for start, stop in spans:  # byte tokens of one character share its span: show it once
        start = max(start, end)
        pieces.append(text[start:stop] if stop > start else "")
        end = max(end, stop)
    if end < len(text):
        pieces[-1:] = [pieces[-1] + text[end:]] if pieces else [text[end:]]
    return PromptTokens(tokenizer.spec, ids, pieces, [tokenizer.is_special(i) for i in ids])


def token_diff(capture_id: int, capture: CaptureRecord, mode: str, spec: str, compare_spec: str | None = None) -> TokenDiff:
    """One of DIFF_MODES for a capture, under its tokenizer (`spec`)."""
    from replay.editors import rebuild_logged_prompt, render
    from replay.run_inputs import capture_input

    tokenizer = load_tokenizer(spec)
    logged = capture.logged_prompt or ""
    if mode == "logged vs rebuilt":
        rebuilt = rebuild_logged_prompt(capture)
        if rebuilt is None:
            raise ValueError(f"{capture.source.where()}: nothing to rebuild the prompt from (no segments)")
        return diff_texts(logged, rebuilt, tokenizer, a_label="logged", b_label="rebuilt")
    if mode == "editor vs standard":
        inp = capture_input(capture_id, capture)
        model = capture.model or ""
        editor = render(capture.editor, inp, model, capture.editor_version)
        standard = render("standard", inp, model)
        return diff_texts(editor.text, standard.text, tokenizer, a_label=editor.profile, b_label=standard.profile)
    if mode == "tokenizer A vs B":
        other = compare_spec or _lossy_twin(spec)
        return diff_tokenizers(logged, tokenizer, load_tokenizer(other))
    raise ValueError(f"unknown token diff {mode!r} (one of {', '.join(DIFF_MODES)})")


def _lossy_twin(spec: str) -> str:
    """Without `--compare-tokenizer`, B is transformers' own import of the same GGUF file: the
    converter that ASSETS.md found lossy for code models."""
    from replay.tokens.tokenizer import SHORT_NAMES
    from replay.assets import asset_path

    kind, sep, rest = spec.partition(":")
    if sep and kind == "gguf":
        return f"hf-gguf:{rest}"
    if not sep and spec.lower() in SHORT_NAMES:
        return f"hf-gguf:{asset_path(SHORT_NAMES[spec.lower()])}"
    raise TokenizerError(f"{spec}: no second tokenizer to compare with; start the TUI with --compare-tokenizer SPEC")


def audit_capture(capture: CaptureRecord, spec: str) -> list[Finding]:
    subject = subject_from_capture(capture)
    return [] if subject is None else Auditor(load_tokenizer(spec)).audit(subject)


def capture_stats(capture: CaptureRecord, override: str | None = None) -> tuple[str, int, int] | None:
    """(tokenizer spec, prompt tokens, gotcha findings) of a capture; None when nothing was
    logged to count."""
    if not capture.logged_prompt:
        return None
    spec = tokenizer_spec(capture, override)
    tokenizer = load_tokenizer(spec)
    return spec, tokenizer.count(capture.logged_prompt), len(audit_capture(capture, spec))
