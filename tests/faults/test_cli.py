"""Every command driven with bad inputs (a missing file, a folder for a file, a file that is
not a store, an unreachable server): a traceback is a bug. Each case must end in exit 1 or 2
with one line naming what failed. The list of commands is the CLI's own registry: a new
command without bad-input cases here fails `test_every_command_is_audited`."""

from __future__ import annotations

import json
from pathlib import Path

import click
import pytest

from replay.cli import cli
from tests.conftest import run_cli

MISSING = "{tmp}/no-such-file.jsonl"
FOLDER = "{tmp}/a-folder"

# command -> argument lists with bad inputs ({tmp}: the test's folder)
CASES: dict[str, list[list[str]]] = {
    "import": [[MISSING]],
    "watch": [[MISSING]],
    "captures": [["--db", FOLDER]],
    "render": [[MISSING, "--editor", "standard", "--model", "qwen2.5-coder"], [FOLDER, "--editor", "standard", "--model", "m"]],
    "postprocess": [[MISSING, "--editor", "standard", "--model", "qwen2.5-coder"], [FOLDER, "--editor", "tabby", "--model", "m"]],
    "run": [[MISSING], [FOLDER], ["{tmp}/one.jsonl", "--backend", "openai", "--model", "m", "--endpoint", "http://127.0.0.1:9",
                                   "--retries", "0"], ["no-such-run-or-file"]],
    "export": [[MISSING, "-o", "{tmp}/out.jsonl"], ["{tmp}/one.jsonl", "-o", FOLDER, "--model", "qwen2.5-coder"]],
    "import-results": [[MISSING, "--run", "r"], ["{tmp}/one.jsonl", "--run", "no-such-run"]],
    "demo": [["--model", MISSING]],
    "evalgen": [[MISSING, "-o", "{tmp}/items.jsonl"], ["{tmp}/one.jsonl", "-o", FOLDER]],
    "corpus": [["add", MISSING], ["nope"]],
    "score": [[MISSING], [FOLDER], ["no-such-run"], ["{tmp}/one.jsonl", "--execute"], [MISSING, "--execute"],
              [FOLDER, "--execute"]],
    "report": [["no-such-run"], ["no-such-run", "-o", FOLDER]],
    "verify": [["--limit", "x"]],
    "tokens": [["@" + MISSING, "--tokenizer", "qwen2.5-coder"], ["@" + FOLDER, "--tokenizer", "qwen2.5-coder"],
               ["x", "--tokenizer", "gguf:" + MISSING], ["x", "--tokenizer", "gguf:{tmp}/one.jsonl"]],
    "audit": [[MISSING, "--tokenizer", "qwen2.5-coder"], [FOLDER, "--tokenizer", "qwen2.5-coder"]],
    "tui": [["--db", FOLDER]],
    "assets": [["install", "--only", "no-such-asset"], ["nope"]],
    "editors": [["nope"]],
    "compare": [["no-such-run", "no-such-run-either"], [MISSING, FOLDER]],
    "leaderboard": [[MISSING, "--model", "default"], [FOLDER, "--model", "default"]],
    "session": [[MISSING, "--editor", "llama.vim"], [FOLDER, "--editor", "llama.vim"], ["{tmp}/one.jsonl", "--editor", "llama.vim"],
                ["{tmp}/one.jsonl", "--editor", "no-such-editor"], ["{tmp}/one.jsonl", "--editor", "llama.vim", "-o", FOLDER]],
    "proxy": [["--upstream", "nota-url"], ["--upstream", "http://127.0.0.1:9", "--listen", "127.0.0.1:notaport"]],
}


def _takes_db(name: str) -> bool:
    cmd = cli.commands[name]
    return any(isinstance(p, click.Option) and "--db" in p.opts for p in cmd.params)


def test_every_command_is_audited() -> None:
    assert set(CASES) == set(cli.commands)


def _fill(args: list[str], tmp: Path) -> list[str]:
    return [a.replace("{tmp}", str(tmp)) for a in args]


def _no_traceback(out, *, codes: tuple[int, ...] = (1, 2)) -> str:  # type: ignore[no-untyped-def]
    assert "Traceback" not in out.stderr and "Traceback" not in out.stdout, out.stderr
    assert out.returncode in codes, (out.returncode, out.stderr)
    last = out.stderr.strip().splitlines()[-1]
    assert last.startswith(("fimreplay: ", "Error: ")), out.stderr
    return last


@pytest.mark.parametrize(("name", "n"), [(name, n) for name, cases in CASES.items() for n in range(len(cases))])
def test_bad_inputs_give_one_line(name: str, n: int, tmp_path: Path, home: Path) -> None:
    (tmp_path / "a-folder").mkdir()
    (tmp_path / "one.jsonl").write_text('{"id": "a", "prefix": "x = ", "suffix": "\\n"}\n')
    args = _fill(CASES[name][n], tmp_path)
    if _takes_db(name) and "--db" not in args:
        args += ["--db", str(tmp_path / "s.db")]
    _no_traceback(run_cli(name, *args, timeout=120))


@pytest.mark.parametrize("name", [n for n in CASES if _takes_db(n) and n not in ("tui", "demo")])
def test_bad_store_gives_one_line(name: str, tmp_path: Path, home: Path) -> None:
    """A store that is not one: every command that opens it names it, exit 2."""
    db = tmp_path / "notes.db"
    db.write_text("not a store\n")
    (tmp_path / "a-folder").mkdir()
    (tmp_path / "one.jsonl").write_text('{"id": "a", "prefix": "x = ", "suffix": "\\n"}\n')
    args = _fill(CASES[name][0], tmp_path)
    last = _no_traceback(run_cli(name, *args, "--db", str(db), timeout=120), codes=(2,))
    assert str(db) in last or "Error: " in last


def test_score_execute_names_the_checker_field_a_line_lacks(tmp_path: Path, home: Path) -> None:
    """A file of items to execute whose only line lacks a field its benchmark's checker runs the
    completion with: one line naming the file, the line and the field, exit 2."""
    line = {"id": "SingleLineInfilling/HumanEval/0/L0", "file": "HumanEval/0", "prefix": "def f():\n", "middle": "    return 1\n",
            "suffix": "", "mode": "single-line", "language": "python", "benchmark": "humaneval-infilling",
            "test": "def check(candidate):\n    assert candidate() == 1\n", "completion": "    return 1\n"}
    path = tmp_path / "he.jsonl"
    path.write_text(json.dumps(line) + "\n")
    last = _no_traceback(run_cli("score", str(path), "--execute"), codes=(2,))
    assert last.startswith(f"fimreplay: {path}:1: missing or empty: entry_point (humaneval-infilling's checker")
