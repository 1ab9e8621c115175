"""Corpora from git, every line dated by git blame -w -M -C, on small repositories built here
with backdated commits (tests/corpus/gitrepo.py), offline, with the real git."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from replay.corpus import blame, sources
from replay.corpus.linedates import UNCOMMITTED
from tests.corpus.gitrepo import NEW, REWRITTEN, commit, git, make_repo


@pytest.fixture()
def repo(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    path = tmp_path / "contest"
    return path, make_repo(path)


def blame_days(repo: Path, rev: str, rel: str, first: int, last: int) -> list[str]:
    """The UTC committer days git blame -w -M -C gives lines first..last (1-based), asked of git
    directly: what every item's date must agree with."""
    out = git(repo, "blame", "--line-porcelain", "-w", "-M", "-C", "-L", f"{first},{last}", rev, "--", rel)
    import datetime as dt

    return [dt.datetime.fromtimestamp(int(ln.split()[1]), dt.timezone.utc).date().isoformat()
            for ln in out.splitlines() if ln.startswith("committer-time ")]


def items(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def test_newer_than_takes_middles_only_from_lines_blame_dates_after_the_day(tmp_path: Path, repo, cli) -> None:
    path, shas = repo
    added = cli("corpus", "add", f"git:{path}", "--json")
    assert added.returncode == 0, added.stderr
    info = json.loads(added.stdout)
    assert info["kind"] == "git" and info["commit"] == shas["2025"] and info["ref"] == "HEAD"
    assert info["blame"]["options"] == ["-w", "-M", "-C"] and info["blame"]["n_files"] == 3
    assert "blame: 3/3 files" in added.stderr  # progress on stderr
    out = tmp_path / "items.jsonl"
    got = cli("evalgen", "contest", "-o", str(out), "--per-file", "20", "--newer-than", "2024-01-31", "--json")
    assert got.returncode == 0, got.stderr
    summary = json.loads(got.stdout)
    assert summary["n_files_not_newer"] == 1  # Old.sol: reindented and moved in 2025, written in 2023
    made = items(out)
    assert {it["file"] for it in made} == {"src/Vault.sol", "src/New.sol"}
    assert {it["middle"] for it in made if it["file"] == "src/Vault.sol"} == set(REWRITTEN)
    for it in made:
        text = (path / it["file"]).read_text(encoding="utf-8")
        first = text.count("\n", 0, it["start"]) + 1
        last = text.count("\n", 0, it["end"] - 1) + 1
        days = blame_days(path, shas["2025"], it["file"], first, last)
        assert min(days) > "2024-01-31"
        assert it["middle_date"][:10] == max(days) == "2024-06-01"
        assert it["middle_date_source"] == "blame" and it["middle_commit"] == shas["2024"]
    # Without --newer-than the 2023 file gives items too, dated 2023 by blame.
    every = tmp_path / "all.jsonl"
    assert cli("evalgen", "contest", "-o", str(every), "--per-file", "20").returncode == 0
    old = [it for it in items(every) if it["file"] == "src/Old.sol"]
    assert old and {it["middle_date"][:10] for it in old} == {"2023-03-01"}
    # --code-only combines: every middle still newer, and holds code.
    code = tmp_path / "code.jsonl"
    assert cli("evalgen", "contest", "-o", str(code), "--per-file", "20", "--newer-than", "2024-01-31",
               "--code-only").returncode == 0
    assert items(code) and all(it["middle_date"] > "2024-02" for it in items(code))


def test_file_url_tag_and_commit_refs(tmp_path: Path, repo, cli) -> None:
    path, shas = repo
    by_tag = json.loads(cli("corpus", "add", f"git:file://{path}@v1", "--json").stdout)
    assert by_tag["name"] == "contest-v1" and by_tag["commit"] == shas["2024"] and by_tag["url"] == f"file://{path}"
    assert by_tag["source"] == f"git:file://{path}@v1" and by_tag["published"]["date"] == "2024-06-01"
    files = Path(by_tag["root"])
    assert (files / "src/Old.sol").read_text(encoding="utf-8").startswith("pragma solidity ^0.8.20;\n\ncontract Old {\n    address")
    by_commit = json.loads(cli("corpus", "add", f"git:{path}@{shas['2023']}", "--json").stdout)
    assert by_commit["commit"] == shas["2023"] and by_commit["blame"]["n_files"] == 2
    assert by_commit["blame"]["newest"][:10] == "2023-03-01"


def test_a_bare_repository_is_read_in_place(tmp_path: Path, repo, cli) -> None:
    path, shas = repo
    bare = tmp_path / "bare.git"
    subprocess.run(["git", "clone", "-q", "--bare", str(path), str(bare)], check=True)
    info = json.loads(cli("corpus", "add", f"git:{bare}", "--json").stdout)
    assert info["commit"] == shas["2025"] and info["blame"]["n_files"] == 3 and not info["blame"]["failed"]
    listed = cli("corpus", "list").stdout
    assert f"git:{bare}" in listed and f"40 lines in 3 files dated by git blame at {shas['2025'][:12]} (2023-03-01 to 2024-06-01)" in listed
    shown = cli("evalgen", "bare", "-o", str(tmp_path / "i.jsonl"), "--newer-than", "qwen2.5-coder").stdout
    assert "not newer than 2024-01-31, left out: 28 lines dated by git blame (1 whole files)" in shown


def test_a_work_tree_folder_dates_uncommitted_lines_now_and_flags_them(tmp_path: Path, repo, cli) -> None:
    path, _ = repo
    vault = path / "src/Vault.sol"
    vault.write_text(vault.read_text(encoding="utf-8").removesuffix("}\n") + "    uint256 public fee = 3;\n}\n",
                     encoding="utf-8")
    (path / "src/Draft.sol").write_text("pragma solidity ^0.8.20;\ncontract Draft {\n    uint256 x;\n}\n", encoding="utf-8")
    info = json.loads(cli("corpus", "add", str(path / "src"), "--name", "tree", "--json").stdout)
    assert info["blame"]["n_uncommitted"] == 5  # the new line of Vault.sol, the four of Draft.sol
    out = tmp_path / "items.jsonl"
    assert cli("evalgen", "tree", "-o", str(out), "--per-file", "20", "--newer-than", "2025-12-31").returncode == 0
    made = items(out)
    assert made and all(it["middle_date_source"] == "uncommitted" and "middle_commit" not in it for it in made)
    assert {it["file"] for it in made} == {"Vault.sol", "Draft.sol"}


def test_credentials_in_a_url_are_never_stored_or_shown(tmp_path: Path, home: Path, cli) -> None:
    got = cli("corpus", "add", "git:https://alice:s3cr3t-token@127.0.0.1:9/contest.git@main")
    assert got.returncode == 1
    assert len(got.stderr.strip().splitlines()) == 1 and "Traceback" not in got.stderr
    assert "127.0.0.1:9" in got.stderr and "s3cr3t" not in got.stderr + got.stdout
    assert not any("s3cr3t" in p.read_text(errors="replace") for p in home.rglob("*") if p.is_file())


def test_a_stored_source_has_no_credentials() -> None:
    spec = sources._git.parse_spec("git:https://alice:ghp_abcdefghijklmnopqrstuvwxyz0123@github.com/o/contest.git@v1.0")
    assert spec.ref == "v1.0" and spec.source == "git:https://github.com/o/contest.git@v1.0"
    assert sources.default_name("git:https://alice:pw@github.com/o/contest.git@v1.0") == "contest-v1.0"
    scp = sources._git.parse_spec("git:git@github.com:o/contest.git@feature/x")
    assert scp.url == "git@github.com:o/contest.git" and scp.ref == "feature/x"


def test_a_bad_ref_is_one_line(repo, cli) -> None:
    path, _ = repo
    got = cli("corpus", "add", f"git:{path}@no-such-branch")
    assert got.returncode == 2 and len(got.stderr.strip().splitlines()) == 1
    assert "no-such-branch is no branch, tag or commit" in got.stderr
    missing = cli("corpus", "add", f"git:{path}/nowhere")
    assert missing.returncode == 2 and "no such folder" in missing.stderr


def test_blame_runs_once_per_file_per_commit(repo, home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path, _ = repo
    calls: list[list[str]] = []
    real = blame.run_blame

    def counted(args: list[str], cwd: Path | None = None) -> bytes:
        calls.append(args)
        return real(args, cwd)

    monkeypatch.setattr(blame, "run_blame", counted)
    first = sources.add_corpus(f"git:{path}", "one")
    assert len(calls) == 3
    again = sources.add_corpus(f"git:{path}", "two")  # another name, the same commit: read back
    forced = sources.add_corpus(f"git:{path}", "one", force=True)
    assert len(calls) == 3
    assert again.manifest["line_dates"] == first.manifest["line_dates"] == forced.manifest["line_dates"]


def test_commits_in_git_blame_ignore_revs_date_nothing(tmp_path: Path, home: Path) -> None:
    path = tmp_path / "r"
    make_repo(path)
    text = NEW.replace("round + 1", "(round + 1)")  # a formatting commit that is not whitespace only
    fmt = commit(path, {"src/New.sol": text}, "2025-06-01T00:00:00+00:00", "format")
    listed = f"# formatting\n{fmt}  # the trailing comment too\n{'e' * 40}\n{fmt[:10]}\n"  # unknown; abbreviated
    commit(path, {".git-blame-ignore-revs": listed}, "2025-06-02T00:00:00+00:00", "ignore it")
    corpus = sources.add_corpus(f"git:{path}", "fmt")
    assert corpus.manifest["blame"]["ignore_revs"] is True
    assert corpus.manifest["blame"]["ignore_revs_not_ids"] == [fmt[:10]] and not corpus.manifest["blame"]["failed"]
    runs = corpus.manifest["line_dates"]["src/New.sol"]
    assert {r[1][:10] for r in runs} == {"2024-06-01"} and all(r[2] != UNCOMMITTED for r in runs)
