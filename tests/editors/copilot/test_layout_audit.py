"""What Copilot's layout does to a target tokenizer (replay.editors.copilot.audit), on real
vocabularies: Qwen2.5-Coder's (the demo GGUF), StarCoder2's and CodeLlama's (SentencePiece)."""

from __future__ import annotations

import functools
import json
from pathlib import Path

from replay.editors.copilot import layout as lay
from replay.editors.copilot import profile
from replay.editors.copilot.audit import LayoutAudit, body_of, cuts, with_middle
from replay.editors.inputs import parse_line
from replay.records import EditorInput
from replay.tokens.audit import Auditor, Finding, subject_from_rendered
from replay.tokens.tokenizer import load_tokenizer

DATA = Path(__file__).resolve().parents[2] / "data" / "golden" / "copilot"


@functools.cache
def case(item_id: str) -> EditorInput:
    for line in (DATA / "cases.jsonl").read_text(encoding="utf-8").splitlines():
        if json.loads(line)["item_id"] == item_id:
            return parse_line(line)
    raise LookupError(item_id)


@functools.cache
def tokenizer(spec: str):  # noqa: ANN201 - a test helper
    return load_tokenizer(spec)


def audited(inp: EditorInput, spec: str, with_input: bool = True) -> list[Finding]:
    rendered = profile.render(inp, "qwen2.5-coder")
    subject = subject_from_rendered(rendered, where="t:1")
    return LayoutAudit(tokenizer(spec)).findings(subject, body_of(rendered.request or {}), inp if with_input else None)


def kinds(findings: list[Finding], kind: str) -> list[Finding]:
    return [f for f in findings if f.kind == kind]


def test_the_layout_says_where_it_cut() -> None:
    inp = case("py-long-elision")
    body = body_of(profile.request_body(inp) or {})
    found = cuts(body, inp)
    assert found is not None
    assert [c.part for c in found] == ["context", "context", "context", "prefix", "suffix"]
    context, prefix, suffix = found[0], found[3], found[4]
    assert context.at == len(context.text) and context.text == "Path: src/big.py\n"  # dropped whole
    assert prefix.text == lay.normalize_eol(inp.prefix) and prefix.text[prefix.at:].startswith(body.prompt)
    assert prefix.text[prefix.at - 1] == "\n"  # elision keeps whole lines
    assert suffix.kept == "head" and suffix.text[:suffix.at] == body.suffix and suffix.at < len(suffix.text)


def test_a_cut_inside_one_target_token_is_a_warning_only_where_the_tokenizer_merges_across_it() -> None:
    # the prefix is cut after "...- 1\n" before "    return z": StarCoder2's byte-level pattern
    # reads "\n   " as one token there, Qwen2.5's keeps "\n" apart
    star = audited(case("py-long-elision"), "starcoder2")
    [split] = kinds(star, "elision-splits-token")
    assert split.severity == "warning" and "'\\n   '" in split.message and "prefix cut" in split.message
    assert split.token == 7  # the qwen sentinel is 7 StarCoder2 pieces (0-6); the kept "   " is the next id
    qwen = audited(case("py-long-elision"), "qwen2.5-coder")
    assert not kinds(qwen, "elision-splits-token")
    cut = kinds(qwen, "elision-cut")
    assert len(cut) == 5 and any("lost its first 87995 characters (3761 lines)" in f.message for f in cut)
    assert any("the suffix was cut after 2916 of its 31535 characters" in f.message for f in cut)


def test_without_the_render_input_the_cuts_are_not_known() -> None:
    findings = audited(case("py-long-elision"), "starcoder2", with_input=False)
    assert not kinds(findings, "elision-cut") and not kinds(findings, "elision-splits-token")
    assert kinds(findings, "budget-mismatch")


def test_an_input_that_does_not_give_the_row_is_said() -> None:
    rendered = profile.render(case("py-open3"), "qwen2.5-coder")
    other = case("py-open1")
    findings = LayoutAudit(tokenizer("qwen2.5-coder")).findings(subject_from_rendered(rendered), body_of(rendered.request or {}), other)
    assert any(f.kind == "elision-cut" and "not audited" in f.message for f in findings)


def test_markers_as_the_target_reads_them() -> None:
    markers = kinds(audited(case("py-open3"), "qwen2.5-coder"), "marker-pieces")
    assert [f.message.split(" as ")[1] for f in markers] == [
        "5 tokens ['Path', ':', ' src', '/service', '.py']",
        "8 tokens ['Compare', ' this', ' snippet', ' from', ' src', '/utils', '.py', ':\\n']",
        "8 tokens ['Compare', ' this', ' snippet', ' from', ' src', '/models', '.py', ':\\n']",
    ]


def test_the_suffix_loses_its_first_lines_indentation() -> None:
    # AfterCursor trims the suffix's leading blanks: "    return 0" is sent as "return 0"
    inp = EditorInput(prefix="def f(x):\n    if x:\n        return 1", suffix="\n    return 0\n", filepath="/w/a.py",
                      workspace="/w", language="python")
    [shift] = kinds(audited(inp, "qwen2.5-coder"), "block-seam-shift")
    assert shift.message.startswith("the suffix block 'return 0\\n'")
    assert "['return', ' '] in the prompt but [' return', ' '] in the document" in shift.message


def test_a_snippet_read_apart_from_its_file_on_sentencepiece() -> None:
    # CodeLlama's SentencePiece reads the file's first word with its dummy-prefix space; after the
    # headline's newline the prompt has it without
    [snippet] = [f for f in kinds(audited(case("py-open1"), "codellama"), "block-seam-shift") if "snippet" in f.message]
    assert "in the prompt but [' def'" in snippet.message and "in src/utils.py" in snippet.message
    assert not [f for f in kinds(audited(case("py-open1"), "qwen2.5-coder"), "block-seam-shift") if "snippet" in f.message]


def test_budgets_in_o200k_and_in_the_target_tokenizer() -> None:
    [long] = kinds(audited(case("py-long-elision"), "qwen2.5-coder"), "budget-mismatch")
    assert long.severity == "warning"
    assert "Copilot counted 6528 + 1154 o200k tokens" in long.message and "qwen2.5-coder 7488 + 1211 (x1.13)" in long.message
    assert "holds 524: 8178 ids of what Copilot kept do not fit" in long.message
    [small] = kinds(audited(case("py-open3"), "qwen2.5-coder"), "budget-mismatch")
    assert small.severity == "info" and "fits the 1024-token context with 500 new tokens" in small.message


def test_the_cursor_seam_is_the_generic_check_given_the_document_after_it() -> None:
    inp = case("py-open3")
    rendered = profile.render(inp, "qwen2.5-coder")
    subject = with_middle(subject_from_rendered(rendered), body_of(rendered.request or {}), inp)
    assert subject.middle == "    " + inp.suffix  # the blanks trimLastLine took off the prompt, then the rest
    cursor = kinds(Auditor(tokenizer("starcoder2")).audit(subject), "cursor-splits-token")
    assert cursor and "'\\n    '" in cursor[0].message


def test_a_suffix_cut_between_a_newline_and_the_next_lines_indentation() -> None:
    # the suffix budget (o200k) ends after "...sum\n": o200k ends a token there, StarCoder2 reads
    # "\n   " (the newline and the next line's indentation) as one token
    suffix = "\n" + "".join(f"    totalValue{i}_x = computeTotal(valueList{i}, {i * 7})  # running   sum\n" for i in range(1500))
    inp = EditorInput(prefix="def run(valueList):\n    # note" + " x" * 6 + "\n    ", suffix=suffix, filepath="/w/a.py",
                      workspace="/w", language="python")
    rendered = profile.render(inp, "starcoder2")
    findings = LayoutAudit(tokenizer("starcoder2")).findings(subject_from_rendered(rendered), body_of(rendered.request or {}), inp)
    [split] = kinds(findings, "elision-splits-token")
    assert split.message == ("the suffix cut falls inside starcoder2's token '\\n   ' of the uncut text ('\\n' | '   '); "
                             "the prompt has ['\\n', '<fim_middle>'] there")
    assert rendered.text[split.char:].startswith("<fim_middle>")
    assert not kinds(LayoutAudit(tokenizer("qwen2.5-coder")).findings(subject_from_rendered(rendered),
                                                                      body_of(rendered.request or {}), inp), "elision-splits-token")
