"""Continue logs: dev data (both layouts), the VS Code output channel (both eras, both FIM
renderings, glued separators, "=" lines in prompts), JetBrains prompt.log (both writers)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from replay.importers.common import BadRecord, Ignored
from replay.rejects import Rejects
from replay.importers.continue_console import SEPARATOR, parse_text
from replay.importers.continue_devdata import parse_line
from replay.importers.continue_jetbrains import parse as parse_jetbrains
from replay.importers.detect import detect_file
from replay.importers.importer import Importer
from replay.records import CaptureRecord, Source
from replay.store import Store
from tests.conftest import CAPTURES

CONT = CAPTURES / "continue"
SRC = Source(file="autocomplete.jsonl", line=1)


def _records(items) -> list:
    return [r for _, r in items]


# -- dev data ---------------------------------------------------------------------------------
def test_devdata_0_2_0() -> None:
    line = (CONT / "dev_data" / "0.2.0" / "autocomplete.jsonl").read_bytes().splitlines()[0]
    rec = parse_line(line, SRC)
    obj = json.loads(line)
    assert isinstance(rec, CaptureRecord) and rec.editor == "continue" and rec.format == "continue-devdata"
    assert rec.segments.prefix == obj["prefix"] and rec.segments.suffix == obj["suffix"] and "\r\n" in rec.segments.prefix
    assert rec.logged_prompt == obj["prompt"] and rec.completion == obj["completion"]
    assert rec.model == "qwen2.5-coder:0.5b" and rec.language == "solidity" and rec.outcome == "accepted"
    assert rec.extra["layout"] == "0.2.0" and rec.extra["options"]["maxPromptTokens"] == 1024
    assert rec.ts == pytest.approx(1740042902.114)
    assert rec.completion_id == "e2a6c1f4-0b9d-4e3a-8f7c-6d5b4a3c2e10" and rec.editor_version == "0.9.262"


def test_devdata_earlier_layout_with_nested_completion_options() -> None:
    lines = (CONT / "dev_data" / "autocomplete.jsonl").read_bytes().splitlines()
    acc, rej = parse_line(lines[0], SRC), parse_line(lines[1], SRC)
    assert acc.extra["layout"] == "pre-0.2.0" and acc.extra["completionOptions"]["model"] == "qwen2.5-coder:1.5b-base"
    assert acc.ts == pytest.approx(1733131200.0) and acc.language == "typescript" and acc.outcome == "accepted"
    assert rej.outcome == "dismissed" and rej.outcome_detail == "not accepted within 10 s" and rej.language == "python"


def test_devdata_other_events_ignored_and_bad_types_rejected() -> None:
    assert parse_line(b'{"eventName":"chatFeedback","schema":"0.2.0","timestamp":"2025-02-20T09:15:02Z"}', SRC) == Ignored("chatFeedback")
    with pytest.raises(BadRecord, match="wrong field type"):
        parse_line(b'{"prefix":1,"suffix":"","prompt":"","completion":"","completionId":"x"}', SRC)
    no_accept = parse_line(b'{"prefix":"a","suffix":"","prompt":"a","completion":"b","completionId":"x"}', SRC)
    assert no_accept.outcome == "unknown"


# -- VS Code output channel -------------------------------------------------------------------
def _console(name: str) -> list:
    path = CONT / "console" / name
    return _records(parse_text(path.read_bytes().decode("utf-8"), str(path)))


def test_console_era1_fim_marker_raw_prompt_and_chat() -> None:
    fim, raw, chat = _console("llm-prompt-completion-2024-06.txt")
    assert fim.extra["route"] == "fim" and fim.extra["fim_rendering"] == "<FIM>" and fim.extra["era"] == 1
    assert fim.segments.prefix.endswith("function increment() public {\n        ") and fim.segments.suffix == "\n    }\n}\n"
    assert fim.completion == "count += 1;" and fim.model == "deepseek-coder:1.3b-base"
    assert fim.logged_prompt is None and fim.extra["logged_text"] == fim.segments.prefix + "<FIM>" + fim.segments.suffix
    assert fim.extra["options"]["contextLength"] == "8192"
    # the prompt holds 74-"=" comment lines; the separator is glued to its last line
    assert raw.extra["route"] == "raw" and raw.logged_prompt.startswith("<fim_prefix># " + "=" * 74)
    assert raw.logged_prompt.endswith("<fim_middle>") and raw.completion == "False"
    assert isinstance(chat, Ignored)


def test_console_era2_two_newline_completion_and_long_rule_before_separator() -> None:
    raw, fim = _console("llm-prompt-completion-2024-10.txt")
    assert raw.logged_prompt.endswith("# " + "=" * 78 + "<|fim_suffix|>\n<|fim_middle|>")
    assert raw.completion == '\ndef footer() -> str:\n    return "=" * 80'
    assert raw.extra["request_options"] == {} and raw.extra["era"] == 2
    assert fim.extra["fim_rendering"] == "<FIM>" and fim.completion == "count++;" and fim.model == "codestral-latest"


def test_console_era2_prefix_suffix_rendering_crlf_and_aborted_request() -> None:
    fim, aborted, raw = _console("llm-prompt-completion-2025-01.txt")
    assert fim.extra["fim_rendering"] == "Prefix/Suffix"
    assert fim.segments.prefix.startswith("using System;\r\n") and fim.segments.suffix == "\r\n    }\r\n}\r\n"
    assert fim.completion == 'Console.WriteLine("Hello, world!");'
    assert aborted.completion is None and aborted.extra["no_completion"] is True
    assert raw.completion == ' "pong";' and raw.extra["request_options"] == {"timeout": 7200}


def test_console_raw_is_the_original_text() -> None:
    path = CONT / "console" / "llm-prompt-completion-2024-06.txt"
    text = path.read_text(encoding="utf-8")
    first = _records(parse_text(text, "x"))[0]
    assert (SEPARATOR + "\n" + SEPARATOR + "\n" + first.raw) in text


def test_console_one_newline_form_detected_per_file() -> None:
    opts = '##### Completion options #####\n{\n  "model": "qwen2.5-coder:1.5b"\n}\n\n##### Prompt #####\n'
    sep = SEPARATOR + "\n" + SEPARATOR + "\n"
    text = (sep + opts + "<|fim_prefix|>a<|fim_suffix|>b<|fim_middle|>" + sep + "Completion:\n\nx = 1\n\n"
            + sep + opts + "<|fim_prefix|>c<|fim_suffix|>d<|fim_middle|>" + sep + "Completion:\ny\n\n")
    a, b = _records(parse_text(text, "x"))
    assert a.completion == "\nx = 1" and b.completion == "y"  # one-newline form: the blank line is text


def test_console_crlf_saved_copy_is_lossy() -> None:
    sep = SEPARATOR + "\r\n" + SEPARATOR + "\r\n"
    text = sep + "##### Completion options #####\r\n{}\r\n\r\n##### Prompt #####\r\nPrefix: a\r\nb\r\nSuffix: c" + sep + "Completion:\r\nd\r\n\r\n"
    (rec,) = _records(parse_text(text, "x"))
    assert rec.lossy and rec.segments.prefix == "a\nb" and rec.segments.suffix == "c" and rec.completion == "d"


def test_console_partial_head_and_orphan_completion_rejected() -> None:
    sep = SEPARATOR + "\n" + SEPARATOR + "\n"
    out = list(parse_text("tail of an entry\n" + sep + "Completion:\nx\n\n", "x"))
    assert [type(r) for _, r in out] == [BadRecord, BadRecord]


# -- JetBrains prompt.log ---------------------------------------------------------------------
def test_prompt_log_formatter_era() -> None:
    path = CAPTURES / "jetbrains" / "prompt.log"
    fim, raw, chat = sorted(_records(parse_jetbrains(path.read_text(encoding="utf-8"), str(path))), key=lambda r: getattr(r, "source", Source("", 99)).line)
    assert fim.lossy and fim.extra["route"] == "fim" and fim.model == "codestral-latest"
    assert fim.segments.prefix == "pragma solidity ^0.8.24;\n\ncontract Vesting {\n    uint256 public unlockTime;\n    function release() external {\n        "
    assert fim.segments.suffix == "\n    }\n}\n" and fim.extra["time_utc"] == "09:30:12.4" and fim.extra["status"] == "Success"
    assert fim.completion.startswith("        require(block.timestamp") and "beneficiary\");" in fim.completion
    assert raw.logged_prompt == "<|fim_prefix|>def add(a, b):\n    <|fim_suffix|>\n<|fim_middle|>" and raw.completion == "return a + b"
    assert isinstance(chat, Ignored)


def test_prompt_log_binary_era() -> None:
    path = CAPTURES / "jetbrains" / "prompt-2025-01.log"
    (rec,) = _records(parse_jetbrains(path.read_text(encoding="utf-8"), str(path)))
    assert rec.lossy and rec.format == "continue-jetbrains" and rec.model == "qwen2.5-coder:1.5b"
    assert rec.logged_prompt.endswith("<|fim_middle|>") and rec.completion == 'return "Hello, " + name;'


# -- detection and the whole folder -----------------------------------------------------------
@pytest.mark.parametrize("rel,fmt", [
    ("tabby/events/2023-05-31.json", "tabby"), ("tabby/events/2025-04-02.json.gz", "tabby"),
    ("continue/dev_data/autocomplete.jsonl", "continue-devdata"), ("continue/dev_data/0.2.0/autocomplete.jsonl", "continue-devdata"),
    ("continue/console/llm-prompt-completion-2024-06.txt", "continue-console"),
    ("jetbrains/prompt.log", "continue-jetbrains"), ("jetbrains/prompt-2025-01.log", "continue-jetbrains"),
])
def test_detect(rel: str, fmt: str) -> None:
    assert detect_file(CAPTURES / rel) == fmt


def test_continue_folder_counts(tmp_path: Path) -> None:
    with Store(tmp_path / "s.db") as store:
        imp = Importer(store, Rejects(tmp_path / "r.jsonl"))
        s = imp.import_paths([CONT, CAPTURES / "jetbrains"])
        assert s.by_format["continue-devdata"]["imported"] == 4
        assert s.by_format["continue-console"]["imported"] == 8 and s.by_format["continue-console"]["ignored"] == 1
        assert s.by_format["continue-jetbrains"]["imported"] == 5 and s.by_format["continue-jetbrains"]["ignored"] == 2
        assert s.rejected == 0


# -- credentials never reach the store or the rejects file ------------------------------------
def test_tokens_are_redacted_everywhere(tmp_path: Path) -> None:
    token = "ctn_SECRET0123456789"
    good = {"eventName": "autocomplete", "schema": "0.2.0", "userId": token, "prefix": "a", "suffix": "", "prompt": "a",
            "completion": "b", "completionId": "x1", "completionOptions": {"model": "m", "apiKey": "sk-SECRET"}}
    bad = dict(good, completionId=7)
    (tmp_path / "d").mkdir()
    (tmp_path / "d" / "autocomplete.jsonl").write_text(json.dumps(good) + "\n" + json.dumps(bad) + "\n", encoding="utf-8")
    sep = SEPARATOR + "\n" + SEPARATOR + "\n"
    (tmp_path / "d" / "channel.txt").write_text(
        sep + '##### Completion options #####\n{\n  "model": "codestral-latest"\n}\n\n##### Request options #####\n'
        '{\n  "headers": {\n    "Authorization": "Bearer sk-SECRET"\n  }\n}\n\n##### Prompt #####\nPrefix: a\nSuffix: b'
        + sep + "Completion:\nc\n\n", encoding="utf-8")
    log = Rejects(tmp_path / "r.jsonl")
    with Store(tmp_path / "s.db") as store:
        imp = Importer(store, log)
        s = imp.import_paths([tmp_path / "d"])
        dump = b"".join(bytes(r[0]) for r in store.query("SELECT record FROM capture_records"))
    log.close()
    assert (s.imported, s.rejected) == (2, 1)
    assert b"SECRET" not in dump and b"<redacted>" in dump
    assert "SECRET" not in (tmp_path / "r.jsonl").read_text(encoding="utf-8")


def test_prompt_log_binary_era_raw_is_the_file_text() -> None:
    path = CAPTURES / "jetbrains" / "prompt-2025-01.log"
    text = path.read_text(encoding="utf-8")
    (rec,) = _records(parse_jetbrains(text, str(path)))
    assert rec.raw == text


def test_devdata_lone_surrogate_kept_as_javascript_held_it_and_bad_bytes_rejected(tmp_path: Path) -> None:
    """JSON.stringify writes a lone surrogate (a completion cut in the middle of an emoji) as an
    escape that JSON.parse reads back: the record is kept, the half replaced by U+FFFD (no UTF-8
    text can hold it), and marked lossy. Node never writes a byte that is not UTF-8: a line with
    one is damage, rejected alone."""
    line = (CONT / "dev_data" / "0.2.0" / "autocomplete.jsonl").read_bytes().splitlines()[0]
    obj = json.loads(line)
    cut = line.replace(json.dumps(obj["completion"]).encode(), json.dumps(obj["completion"] + "\ud83d").encode())
    rec = parse_line(cut, SRC)
    assert isinstance(rec, CaptureRecord) and rec.completion == obj["completion"] + "\ufffd"
    assert rec.lossy and rec.extra["replaced_surrogates"] == 1 and "\\ud83d" in rec.raw
    log = tmp_path / "autocomplete.jsonl"
    log.write_bytes(cut + b"\n" + line.replace(json.dumps(obj["completion"]).encode(), b'"\xff' + json.dumps(obj["completion"]).encode()[1:]) + b"\n")
    with Store(tmp_path / "s.db") as store, Rejects(tmp_path / "r.jsonl") as rejects:
        summary = Importer(store, rejects).import_file(log)
        stored = [r for _, r, _ in store.captures()]
    assert summary.imported == 1 and summary.rejected == 1 and stored[0].lossy
    assert json.loads((tmp_path / "r.jsonl").read_text(encoding="utf-8"))["reason"].startswith("invalid UTF-8: byte 0xff")


def test_console_options_with_a_lone_surrogate_reject_their_entry_alone(tmp_path: Path) -> None:
    """The output channel's options JSON holding a lone surrogate escape: that entry is rejected
    (nothing of Continue reads the channel back), the file's other entries imported."""
    text = (CONT / "console" / "llm-prompt-completion-2024-10.txt").read_text(encoding="utf-8")
    clean = tmp_path / "clean.txt"
    clean.write_text(text, encoding="utf-8")
    damaged = tmp_path / "damaged.txt"
    damaged.write_text(text.replace('"model": "', '"model": "\\ud83d', 1), encoding="utf-8")
    assert damaged.read_text(encoding="utf-8") != text
    with Store(tmp_path / "s.db") as store, Rejects(tmp_path / "r.jsonl") as rejects:
        before = Importer(store, rejects).import_file(clean).imported
    with Store(tmp_path / "d.db") as store, Rejects(tmp_path / "d.jsonl") as rejects:
        summary = Importer(store, rejects).import_file(damaged)
    assert summary.rejected == 1 and summary.imported == before - 1
    assert "lone UTF-16 surrogate" in json.loads((tmp_path / "d.jsonl").read_text(encoding="utf-8"))["reason"]
