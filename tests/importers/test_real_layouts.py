"""Logs as the editors really wrote them, in every layout: Continue dev data of each release and
its other event files, the 2025 prompt.log formatter (single interaction, chat items, an
autocomplete pruned to an empty prompt), and everything in captures/ with no wrong reject."""

from __future__ import annotations

import json
from pathlib import Path

from replay.importers.importer import Importer
from replay.rejects import Rejects
from replay.store import Store
from tests.conftest import CAPTURES

# AutocompleteOutcome as each release wrote it (JSON.stringify(outcome) in core/util/devdata.ts):
# 0.8.x (2024-01-31 .. 0.8.27): no filepath, no prefix/suffix/completionId, options spread flat.
V080 = {"disable": False, "maxPromptTokens": 1024, "debounceDelay": 350, "accepted": True, "time": 412,
        "prompt": "<fim_prefix>def add(a, b):\n    <fim_suffix>\n<fim_middle>", "completion": "return a + b",
        "modelProvider": "ollama", "modelName": "starcoder2:3b",
        "completionOptions": {"temperature": 0.01, "maxTokens": 1024}, "cacheHit": False}
# 0.8.28 .. 0.8.39: + filepath.
V0828 = dict(V080, filepath="/home/u/app/math.py", accepted=False, cacheHit=True)
# 0.8.40 .. 2024-11-03: + prefix, suffix, completionId, uniqueId (and gitRepo).
V0840 = dict(V0828, prefix="def add(a, b):\n    ", suffix="\n", completionId="c-0840", uniqueId="u1")
# 2024-11-03 on: + timestamp in milliseconds.
V1103 = dict(V0840, completionId="c-1103", timestamp=1730700000000)


def _import(tmp_path: Path, *paths: Path, name: str = "s") -> tuple[dict, list[dict], Store]:
    rejects = tmp_path / f"{name}.rejects.jsonl"
    log = Rejects(rejects)
    store = Store(tmp_path / f"{name}.db")
    summary = Importer(store, log).import_paths(list(paths)).to_json()
    log.close()
    rows = [json.loads(x) for x in rejects.read_text(encoding="utf-8").splitlines()] if rejects.exists() else []
    return summary, rows, store


def _dev_data(tmp_path: Path) -> Path:
    d = tmp_path / "dev_data"
    (d / "0.2.0").mkdir(parents=True)
    lines = [V080, V0828, V0840, V1103]
    (d / "autocomplete.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines), encoding="utf-8")
    (d / "tokens_generated.jsonl").write_text(
        json.dumps({"model": "starcoder2:3b", "provider": "ollama", "promptTokens": 120, "generatedTokens": 9}) + "\n",
        encoding="utf-8")
    (d / "chat.jsonl").write_bytes(b"")
    (d / "quickEdit.jsonl").write_bytes(b"")
    base = {"eventName": "autocomplete", "schema": "0.2.0", "userId": "u", "userAgent": "VS Code/1.97 (Continue/0.9.262)",
            "selectedProfileId": "local"}
    numeric = dict(V1103, **base, completionId="c-num", timestamp=1740000000000)  # 0.2.0 before 2025-07-08
    iso = dict(V1103, **base, completionId="c-iso", timestamp="2025-08-01T10:00:00.000Z")  # from 2025-07-08
    no_code = {k: v for k, v in iso.items() if k not in ("prefix", "suffix", "prompt", "completion")} | {"completionId": "c-nc"}
    tokens = dict(base, eventName="tokensGenerated", model="m", provider="p", promptTokens=1, generatedTokens=2)
    (d / "0.2.0" / "autocomplete.jsonl").write_text("".join(json.dumps(x) + "\n" for x in (numeric, iso, no_code)), encoding="utf-8")
    (d / "0.2.0" / "tokensGenerated.jsonl").write_text(json.dumps(tokens) + "\n", encoding="utf-8")
    return d


def test_continue_dev_data_of_every_release_is_imported_with_what_it_has(tmp_path: Path) -> None:
    summary, rejects, store = _import(tmp_path, _dev_data(tmp_path))
    with store:
        recs = [r for _, r, _ in store.captures()]
    assert rejects == [] and summary["rejected"] == 0
    assert summary["imported"] == 6
    # tokens_generated (both names), the noCode line: valid, no capture in them -> ignored, never rejected
    assert summary["ignored"] == 3
    assert summary["by_format"]["empty"]["files"] == 2  # chat.jsonl, quickEdit.jsonl
    by_layout = {r.extra["layout"]: r for r in recs}
    old = by_layout["0.8.0-0.8.27"]
    assert (old.logged_prompt, old.completion, old.outcome, old.model, old.extra["time_ms"]) == (
        V080["prompt"], "return a + b", "accepted", "starcoder2:3b", 412)
    assert old.segments is None and old.completion_id is None and old.filepath is None
    assert old.extra["missing"] == ["prefix", "suffix", "completionId", "filepath", "timestamp"]
    mid = by_layout["0.8.28-0.8.39"]
    assert mid.filepath == "/home/u/app/math.py" and mid.language == "python" and mid.outcome == "dismissed"
    assert mid.extra["missing"] == ["prefix", "suffix", "completionId", "timestamp"]
    stamped = {r.completion_id: r.ts for r in recs}
    assert stamped["c-1103"] == 1730700000.0 and stamped["c-num"] == 1740000000.0
    assert stamped["c-iso"] == 1754042400.0 and stamped["c-0840"] is None


def _formatter_chat() -> str:
    """A 2025 prompt.log chat with every item core/llm/logFormatter.ts writes for a message."""
    return "\n".join([
        " 10:00:00.0 [Chat]",
        "            Options: {",
        '              "model": "claude"',
        "            }",
        "            Role: user",
        "            | what is in this picture?",
        "            Image: data:image/png;base64,iVBORw0KGgo=",
        "       +0.5 Role: thinking",
        "            | let me look",
        "            Redacted Thinking: abc",
        "            Signature: sig==",
        "       +0.9 Role: assistant",
        "            Tool call: {",
        '              "id": "t1",',
        '              "type": "function"',
        "            }",
        "            | calling the tool",
        "       +1.0 Role: tool",
        "            Tool Call ID: t1",
        "            | 42",
        "       +1.2 Success",
        "            Prompt Tokens: 10",
        "            Generated Tokens: 20",
        "            Thinking Tokens: 3",
        "",
    ])


def test_prompt_log_formatter_chat_items_single_start_and_empty_prompt(tmp_path: Path) -> None:
    d = tmp_path / "logs"
    d.mkdir()
    (d / "chat.log").write_text(_formatter_chat(), encoding="utf-8")
    # an autocomplete whose prompt was pruned to "" (logLines("") writes one "| " line)
    (d / "empty.log").write_text(" 10:00:01.0 [Complete]\n            Options: {}\n            Prompt:\n            | \n"
                                 "       +0.2 Result:\n            | x\n       +0.3 Success\n", encoding="utf-8")
    summary, rejects, store = _import(tmp_path, d)
    assert rejects == [] and summary["by_format"]["continue-jetbrains"]["files"] == 2
    assert summary["ignored"] == 1 and summary["imported"] == 1
    with store:
        (rec,) = [r for _, r, _ in store.captures()]
    assert rec.logged_prompt == "" and rec.completion == "x" and rec.extra["route"] == "raw"


def test_console_autocomplete_pruned_to_an_empty_prompt_stays_an_autocomplete(tmp_path: Path) -> None:
    sep = "=" * 74 + "\n" + "=" * 74 + "\n"
    f = tmp_path / "channel.txt"
    f.write_text(sep + '##### Completion options #####\n{\n  "model": "qwen2.5-coder:1.5b",\n  "raw": true\n}\n\n'
                 "##### Prompt #####\n" + sep + "Completion:\nx\n\n"
                 + sep + '##### Completion options #####\n{\n  "model": "gpt-4o"\n}\n\n##### Prompt #####\nExplain this\n'
                 + sep + "Completion:\nIt adds.\n\n", encoding="utf-8")
    summary, rejects, store = _import(tmp_path, f)
    assert rejects == [] and (summary["imported"], summary["ignored"]) == (1, 1)
    with store:
        (rec,) = [r for _, r, _ in store.captures()]
    assert rec.logged_prompt == "" and rec.completion == "x"


def test_every_capture_in_the_repository_imports_with_no_wrong_reject(tmp_path: Path) -> None:
    good = [p for p in sorted(CAPTURES.iterdir()) if p.is_dir() and p.name != "bad"]
    summary, rejects, _ = _import(tmp_path, *good)
    assert rejects == [] and summary["rejected"] == 0
    assert summary["by_format"]["continue-jetbrains"]["files"] == 5  # the formatter fixtures included
    assert "unrecognized" not in summary["by_format"]


def test_a_console_copy_pasted_into_an_issue_is_read(tmp_path: Path) -> None:
    """continuedev/continue issue #3908 as posted: one separator line, cut before the completion."""
    summary, rejects, store = _import(tmp_path, CAPTURES / "continue" / "console" / "issue-3908-pasted.txt")
    assert rejects == [] and summary["imported"] == 1
    with store:
        (rec,) = [r for _, r, _ in store.captures()]
    assert (rec.model, rec.segments.prefix, rec.segments.suffix) == ("codestral-latest", "# 2", "")
    assert rec.extra["no_completion"] is True and rec.extra["options"]["maxTokens"] == 4096


def test_a_prompt_log_cut_inside_an_interaction_is_one_reject(tmp_path: Path) -> None:
    """A prompt.log copied from the middle (as pasted in continuedev/continue issue #6406): the
    interaction whose start is missing is one reject, and the next whole one is imported."""
    f = tmp_path / "prompt.log"
    f.write_text("            | TASK: Fill the {{FILL_HERE}} hole.\n            | <COMPLETION>\n       +1.9 Result:\n"
                 "            | <COMPLETION>def get_weather(location):\n       +2.0 |     # This function\n"
                 "       +2.3 Success\n            Prompt Tokens: 10\n"
                 + (CAPTURES / "jetbrains" / "formatter-complete.log").read_text(encoding="utf-8"), encoding="utf-8")
    summary, rejects, _ = _import(tmp_path, f)
    assert summary["imported"] == 1 and [r["line"] for r in rejects] == [1]
