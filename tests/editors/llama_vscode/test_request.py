"""The /infill body by tag (ggml-org/llama.vscode src/llama-server.ts createRequestPayload, the
getLlamaCompletion literal before v0.0.7; src/completion.ts getCompletionItems, src/architect.ts
before v0.0.9; src/utils.ts getPrefixLines/getSuffixLines)."""

from __future__ import annotations

import json

import pytest

from replay.editors.inputs import BadInputLine
from replay.editors.llama_vscode import releases, request
from replay.editors.llama_vscode.document import Document
from replay.editors.llama_vscode.releases import UnknownRelease
from replay.editors.llama_vscode.settings import settings
from replay.records import EditorInput


def _body(prefix: str, suffix: str, tag: str = "v0.0.63", trigger: str = "auto", **options: object) -> dict | None:
    rel = releases.release(tag)
    inp = EditorInput(prefix=prefix, suffix=suffix, trigger=trigger,  # type: ignore[arg-type]
                      options={f"llama-vscode.{k}": v for k, v in options.items()})
    return request.build(inp, [], settings(inp.options, rel), rel)


def test_the_newest_body_in_the_sources_order() -> None:
    """v0.0.63: id_slot first (#155, v0.0.43), n_cmpl after n_predict (#148, v0.0.40), the
    sampling defaults, n_indent only when not 0, the time limits, then model (ai_model's default)."""
    body = _body("def f():\n    ret", "\nx = 1\n")
    assert list(body) == ["id_slot", "input_prefix", "input_suffix", "input_extra", "prompt", "n_predict", "n_cmpl",
                          "top_k", "top_p", "stream", "samplers", "cache_prompt", "n_indent", "t_max_prompt_ms",
                          "t_max_predict_ms", "model"]
    assert body["input_prefix"] == "def f():\n" and body["prompt"] == "    ret" and body["input_suffix"] == "\nx = 1\n\n"
    assert (body["n_indent"], body["n_cmpl"], body["model"]) == (4, 3, "google/gemini-2.5-flash")


def test_the_first_tags_body_always_has_n_indent_after_stream() -> None:
    """v0.0.1-v0.0.6 (getLlamaCompletion's literal): n_indent always, between stream and samplers."""
    body = _body("x", "", tag="v0.0.1")
    assert list(body)[:9] == ["input_prefix", "input_suffix", "input_extra", "prompt", "n_predict", "top_k", "top_p",
                              "stream", "n_indent"]
    assert body["n_indent"] == 0 and "n_indent" not in _body("x", "", tag="v0.0.7")


@pytest.mark.parametrize(("tag", "has"), [("v0.0.13", set()), ("v0.0.14", {"model"}), ("v0.0.40", {"model", "n_cmpl"}),
                                          ("v0.0.42", {"model", "n_cmpl"}), ("v0.0.43", {"model", "n_cmpl", "id_slot"})])
def test_fields_by_tag(tag: str, has: set[str]) -> None:
    assert set(_body("x", "", tag=tag)) & {"model", "n_cmpl", "id_slot"} == has


def test_lora_and_model_follow_their_settings() -> None:
    """lora when lora_completion is not blank (v0.0.10); model omitted when blank (v0.0.14)."""
    body = _body("x", "", lora_completion="adapter.gguf", ai_model="  ")
    assert body["lora"] == [{"id": 0, "scale": 0.5}] and "model" not in body
    assert "lora" not in _body("x", "", tag="v0.0.9", lora_completion="adapter.gguf")


def test_the_local_context_lines() -> None:
    """n_prefix lines above, joined by "\\n" plus "\\n" ("\\n" alone on line 0); the rest of the
    line, "\\n", n_suffix lines, "\\n" (on the last line: the rest and "\\n\\n")."""
    body = _body("a\nb\nc\nd", "X\ne\nf\ng", n_prefix=2, n_suffix=1, max_line_suffix=10)
    assert (body["input_prefix"], body["prompt"], body["input_suffix"]) == ("b\nc\n", "d", "X\ne\n")
    first = _body("ab", "")
    assert (first["input_prefix"], first["input_suffix"]) == ("\n", "\n\n")


def test_crlf_lines_are_sent_with_lf() -> None:
    """VS Code's lineAt(i).text has no line break; the extension joins with "\\n"."""
    assert _body("a\r\nb\r\n", "c\r\n")["input_prefix"] == "a\nb\n"


@pytest.mark.parametrize(("tag", "prompt"), [("v0.0.9", "  \t "), ("v0.0.10", "")])
def test_a_blank_line_prefix_is_sent_as_an_empty_prompt_from_v0_0_10(tag: str, prompt: str) -> None:
    """isOnlySpacesOrTabs (#48, de06d78): prompt "" while n_indent still counts the line's indentation."""
    body = _body("x\n  \t ", "", tag=tag)
    assert body["prompt"] == prompt and body["n_indent"] == 4


def test_n_indent_counts_js_whitespace_in_utf16_units() -> None:
    """`lineText.length - lineText.trimStart().length`: U+3000 is JS whitespace."""
    assert _body("\u3000\u3000x", "")["n_indent"] == 2


@pytest.mark.parametrize(("suffix", "trigger", "sent"), [
    ("12345678", "auto", True), ("123456789", "auto", False), ("123456789", "manual", True),
    ("\U0001f600" * 4 + "1", "auto", False),  # 9 UTF-16 units
])
def test_an_automatic_trigger_with_a_long_rest_of_line_sends_nothing(suffix: str, trigger: str, sent: bool) -> None:
    """`lineSuffix.length > max_line_suffix` on InlineCompletionTriggerKind.Automatic (8 by default)."""
    assert (_body("x = ", suffix + "\nnext", trigger=trigger) is not None) is sent


def test_auto_off_sends_nothing_on_an_automatic_trigger() -> None:
    assert _body("x", "", auto=False) is None and _body("x", "", auto=False, trigger="manual") is not None


def test_the_cursor_cannot_sit_inside_a_crlf() -> None:
    doc = Document.at("a\r", "\nb")
    assert (doc.line, doc.character, doc.lines) == (1, 0, ("a", "b"))


def test_body_json_keeps_integral_numbers_integral() -> None:
    """JSON.stringify writes 300, not 300.0."""
    assert json.dumps(_body("x", "", n_predict=300.0)).count('"n_predict": 300,') == 1


def test_settings_errors() -> None:
    with pytest.raises(BadInputLine, match="unknown llama.vscode setting"):
        _body("x", "", n_prefx=3)
    with pytest.raises(BadInputLine, match="must be a number"):
        _body("x", "", n_predict="128")
    with pytest.raises(BadInputLine, match="not modelled"):
        _body("x", "", use_openai_endpoint=True)
    with pytest.raises(BadInputLine, match="whole number"):
        _body("x", "", n_prefix=2.5)


def test_a_setting_the_tag_does_not_have_is_ignored() -> None:
    """max_parallel_completions came with v0.0.40: an older extension never reads it."""
    assert "n_cmpl" not in _body("x", "", tag="v0.0.39", max_parallel_completions=1)


def test_versions() -> None:
    assert releases.release(None).tag == "v0.0.63" and releases.release("0.0.40").tag == "v0.0.40"
    assert releases.release("v0.0.62").tag == "v.0.0.62"  # the repository's own spelling of that tag
    assert releases.release("2026-01-06").tag == "v0.0.40" and releases.release("2026-01-05").tag == "v0.0.40"
    with pytest.raises(UnknownRelease):
        releases.release("v0.1.0")
    with pytest.raises(UnknownRelease):
        releases.release("2025-01-20")


def test_the_history_lists_every_rule_with_its_first_tag() -> None:
    rows = releases.BOOK.history(releases.describe)
    assert len(rows) == len(releases.RULES) and [r.date for r in rows] == sorted(r.date for r in rows)
    one = next(r for r in rows if r.commit == "8e42441edc" and r.last_release)
    assert (one.first_release, one.last_release, one.last_without) == ("v0.0.40", "v0.0.40", "v0.0.39")
    both = releases.history()  # with llama-server's, the half both clients share
    assert len(both) > len(rows) and [r.date for r in both] == sorted(r.date for r in both)
