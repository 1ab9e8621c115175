"""`fimreplay editors llama.vscode|llama.vim --history`: each client's rule changes (llama.vscode's
by tag, llama.vim's by commit: it has no tags) interleaved by day with llama-server's, the half
both share."""

from __future__ import annotations

import json


def _history(cli, editor: str) -> list[dict[str, str]]:
    done = cli("editors", editor, "--history", "--json")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["editor"] == editor
    return report["history"]


def test_llama_vim_by_commit_with_the_servers_rules(cli) -> None:
    rows = _history(cli, "llama.vim")
    assert [row["date"] for row in rows] == sorted(row["date"] for row in rows)
    by_commit = {row["commit"]: row for row in rows if row["commit"]}
    speculative = by_commit["1175c8d"]  # the speculative follow-up (#53), one commit after 057225f
    assert (speculative["date"], speculative["first_release"], speculative["last_without"]) == ("2025-03-10", "1175c8d", "057225f")
    assert speculative["change"].endswith("(ggml-org/llama.vim autoload/llama.vim)")
    assert by_commit["292b5a4"]["last_without"] == ""  # the first commit: nothing before it
    server = [row for row in rows if not row["commit"]]
    assert [row["first_release"] for row in server][:2] == ["server=2024-10-13", "server=2024-12-08"]
    assert any("context shift off by default" in row["change"] for row in server)
    text = cli("editors", "llama.vim", "--history")
    assert text.returncode == 0 and "2025-03-10  1175c8d     from 1175c8d (last without: 057225f)" in text.stdout


def test_llama_vscode_by_tag_with_the_servers_rules(cli) -> None:
    rows = _history(cli, "llama.vscode")
    assert [row["date"] for row in rows] == sorted(row["date"] for row in rows)
    n_cmpl = next(row for row in rows if row["change"].startswith("n_cmpl"))
    assert (n_cmpl["first_release"], n_cmpl["last_without"]) == ("v0.0.40", "v0.0.39")
    assert sum(row["first_release"].startswith("server=") for row in rows) >= 5
