"""One way to name an editor and a model on every command: `--editor NAME[@VERSION]` (with
`--editor-version` kept as another way to give the version), the registry's names in the help,
and `--model` taking the names `run` takes (`default`, a model asset's name) on render and
postprocess too."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from replay.assets import DEMO_MODEL, asset_path
from replay.editors import PROFILES

CURSOR = {"id": "c", "prefix": "def add(a, b):\n    ", "suffix": "\n", "language": "python", "filepath": "/w/a.py"}


def _input(tmp_path: Path, **extra: str) -> Path:
    src = tmp_path / "in.jsonl"
    src.write_text(json.dumps({**CURSOR, **extra}) + "\n", encoding="utf-8")
    return src


def _rows(stdout: str) -> list[dict]:
    return [json.loads(line) for line in stdout.splitlines()]


def test_render_takes_the_version_after_the_editor_name(cli, tmp_path: Path) -> None:
    src = _input(tmp_path)
    at = cli("render", str(src), "--editor", "tabby@1.5.0", "--model", "qwen2.5-coder")
    flag = cli("render", str(src), "--editor", "tabby", "--editor-version", "1.5.0", "--model", "qwen2.5-coder")
    newest = cli("render", str(src), "--editor", "tabby", "--model", "qwen2.5-coder")
    assert at.returncode == flag.returncode == newest.returncode == 0, (at.stderr, flag.stderr, newest.stderr)
    assert _rows(at.stdout) == _rows(flag.stdout)
    assert _rows(at.stdout)[0]["profile"].startswith("tabby@agent=1.5.0,")
    assert _rows(newest.stdout)[0]["profile"] != _rows(at.stdout)[0]["profile"]
    both = cli("render", str(src), "--editor", "tabby@1.5.0", "--editor-version", "1.5.0", "--model", "qwen2.5-coder")
    assert both.returncode == 0 and _rows(both.stdout) == _rows(at.stdout)


def test_postprocess_takes_the_version_after_the_editor_name(cli, tmp_path: Path) -> None:
    src = _input(tmp_path, raw="return a + b\n\ndef mul(a, b):\n    return a * b\n")
    at = cli("postprocess", str(src), "--editor", "tabby@1.8.0", "--received")
    flag = cli("postprocess", str(src), "--editor", "tabby", "--editor-version", "1.8.0", "--received")
    assert at.returncode == flag.returncode == 0, (at.stderr, flag.stderr)
    assert _rows(at.stdout) == _rows(flag.stdout) and _rows(at.stdout)[0]["shown_text"]


@pytest.mark.parametrize("args, says", [
    (("--editor", "tabby@1.5.0", "--editor-version", "1.8.0"), "two editor versions"),
    (("--editor", "tabbie"), "'tabbie' is not an editor here"),
    (("--editor", "tabby@"), "no version after '@'"),
])
def test_a_bad_editor_is_one_usage_line(cli, tmp_path: Path, args: tuple[str, ...], says: str) -> None:
    proc = cli("render", str(_input(tmp_path)), *args, "--model", "qwen2.5-coder")
    assert proc.returncode == 2 and says in proc.stderr and "Traceback" not in proc.stderr
    assert proc.stdout == ""


def test_run_needs_an_editor_name_for_a_version(cli, tmp_path: Path) -> None:
    proc = cli("run", str(_input(tmp_path)), "--editor-version", "1.5.0")
    assert proc.returncode == 2 and "--editor-version needs --editor NAME" in proc.stderr


def test_verify_takes_the_version_after_the_editor_name(cli, tmp_path: Path) -> None:
    """Only the editors whose captures can be verified are offered; the version given either way."""
    db = str(tmp_path / "x.db")
    assert cli("verify", "--db", db, "--editor", "tabby@0.20", "--json").returncode == 0
    wrong = cli("verify", "--db", db, "--editor", "llama.vscode")
    assert wrong.returncode == 2 and "tabby, continue" in wrong.stderr


@pytest.mark.parametrize("command", ["render", "postprocess", "session", "run", "export", "leaderboard"])
def test_every_editor_of_the_registry_is_in_the_help(cli, command: str) -> None:
    proc = cli(command, "--help")
    assert proc.returncode == 0
    text = re.sub(r"\s+", " ", re.sub(r"-\n\s*", "-", proc.stdout))
    assert "--editor NAME[@VERSION]" in text and "--editor-version" in text
    assert "one of " + ", ".join(PROFILES) in text


def test_render_and_postprocess_take_the_model_names_run_takes(cli, tmp_path: Path) -> None:
    """`default` and the demo model's asset alias are the installed demo GGUF, as for `run`: the
    template its name picks and the ids its vocabulary gives."""
    src = _input(tmp_path)
    gguf = str(asset_path(DEMO_MODEL.name))
    by_path = cli("render", str(src), "--editor", "llama.vscode", "--model", gguf)
    assert by_path.returncode == 0, by_path.stderr
    for name in ("default", *DEMO_MODEL.aliases):
        by_name = cli("render", str(src), "--editor", "llama.vscode", "--model", name)
        assert by_name.returncode == 0, by_name.stderr
        assert _rows(by_name.stdout) == _rows(by_path.stdout)
    continue_default = _rows(cli("render", str(src), "--editor", "continue", "--model", "default").stdout)[0]
    assert continue_default["family"] == "qwen2.5-coder"  # not Continue's fallback for a name it does not know
    raw = _input(tmp_path, raw="return a + b\n")
    shown = cli("postprocess", str(raw), "--editor", "continue", "--model", "default")
    assert shown.returncode == 0, shown.stderr
    assert _rows(shown.stdout)[0]["shown_text"] == "return a + b"
