"""`fimreplay editors NAME@VERSION`: the rules in force at a release or a day, read from the
editor's rule book, for every editor that keeps one (both halves where an editor has two); and
the refusals: a version no book names, an editor without a book, --history with a version."""

from __future__ import annotations

import json
from typing import Any


def _in_force(cli, spec: str) -> dict[str, dict[str, Any]]:
    done = cli("editors", spec, "--json")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["editor"] == spec.partition("@")[0]
    return {part["part"]: part for part in report["in_force"]}


def _names(part: dict[str, Any]) -> set[str]:
    return {rule["name"] for rule in part["rules"]}


def test_llama_vscode_at_a_tag_with_the_servers_rules(cli) -> None:
    parts = _in_force(cli, "llama.vscode@v0.0.40")
    client = parts["llama.vscode"]
    assert (client["release"], client["commit"], client["day"]) == ("v0.0.40", "bdbe2e31d5", "2026-01-05")
    names = _names(client)
    assert "n_cmpl = max_parallel_completions" in names and "id_slot 0 first" not in names  # #148 in, #155 from v0.0.43
    assert "a single answer is iterated character by character" in names  # undone in v0.0.41
    assert "a single answer is iterated character by character" not in _names(_in_force(cli, "llama.vscode@v0.0.41")["llama.vscode"])
    rule = next(r for r in client["rules"] if r["name"].startswith("n_cmpl"))
    assert (rule["commit"], rule["since"], rule["source"]) == ("8e42441edc", "v0.0.40", "ggml-org/llama.vscode src/llama-server.ts")
    assert parts["llama-server"]["rules"], "the newest server rules"
    old_server = _in_force(cli, "llama.vscode@v0.0.40,server=2024-12-31")["llama-server"]
    assert [r["day"] for r in old_server["rules"]] == ["2024-10-13", "2024-12-08"]


def test_llama_vim_on_a_day_and_tabby_at_a_release(cli) -> None:
    vim = _in_force(cli, "llama.vim@2025-03-10")["llama.vim"]
    assert vim["release"] == "7ed2617" and "1175c8d" in {r["commit"] for r in vim["rules"]}
    speculative = next(r for r in vim["rules"] if r["commit"] == "1175c8d")
    assert speculative["sets"]["first_predict_ms"] == 250 and speculative["sets"]["defaults"] == {"t_max_predict_ms": 1000}
    tabby = _in_force(cli, "tabby@1.8.0")
    agent = tabby["tabby-agent"]
    assert agent["release"] == "1.8.0" and agent["commit"].startswith("5dfe7a125")
    assert "dropMinimum" in _names(agent) and "normalizeIndentation" not in _names(agent)
    assert tabby["tabby server"]["release"] == "0.18.0" and "crlf-to-lf" not in _names(tabby["tabby server"])


def test_continue_at_a_release_and_the_text_form(cli) -> None:
    parts = _in_force(cli, "continue@0.9.227-vscode")
    assert "911256bad1" in {r["commit"] for r in parts["continue prompt"]["rules"]}
    assert parts["continue completion stage"]["rules"]
    text = cli("editors", "llama.vscode@0.0.40")
    assert text.returncode == 0, text.stderr
    assert text.stdout.startswith("llama.vscode v0.0.40  bdbe2e31d5  2026-01-05")
    assert "  2026-01-05  8e42441edc  n_cmpl = max_parallel_completions: after n_predict (#148)" in text.stdout


def test_refusals_are_one_line_with_a_usage_exit(cli) -> None:
    for spec, words in (("llama.vim@zzz", "names no commit"), ("llama.vscode@v9.9.9", "unknown llama.vscode version"),
                        ("tabby@9.9.9", "was never published"), ("continue@9.9.9", "unknown Continue version"),
                        ("copilot", "no release history is kept for copilot")):
        done = cli("editors", spec)
        assert done.returncode == 2 and words in done.stderr, (spec, done.stderr)
        assert "Traceback" not in done.stderr and "UnknownRelease" not in done.stderr
    assert cli("editors", "tabby@1.8.0", "--history").returncode == 2
