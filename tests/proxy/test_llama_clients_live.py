"""End to end through the recording proxy in front of the real llama.cpp server (xllamacpp, the
demo GGUF): the /infill bodies llama.vscode and llama.vim really send (taken from their goldens)
are captured, `verify` says why it cannot check them (neither client logs a prompt: the server
builds it), `run captures` replays them in process (llama.vscode's `n_cmpl: 3` with the slots its
answer proves) and `score` says why it has nothing to score them against (nothing typed after them, and
neither client reports which suggestion was kept) and exits 1."""

from __future__ import annotations

import json
from pathlib import Path

import httpx
import pytest

from replay.assets import DEMO_MODEL, asset_path
from tests.editors.llama_server.live import llama_server
from tests.support.proxy_helpers import captures, running_proxy

DATA = Path(__file__).resolve().parents[1] / "data"


def _golden(folder: str, case_id: str) -> dict:
    for line in (DATA / folder).read_text(encoding="utf-8").splitlines():
        case = json.loads(line)
        if case["id"] == case_id:
            return case
    raise AssertionError(f"golden case {case_id} is gone from {folder}")


def _vscode_body() -> bytes:
    """llama.vscode's body of golden case c50 (`n_cmpl: 3`, a chunk of extra context, n_indent)."""
    return json.dumps(_golden("golden/llama.vscode/completion.jsonl", "c50")["request"]).encode()


def _vim_body() -> bytes:
    """llama.vim's body of golden case head_changed-01, byte for byte as the plugin sent it
    (`response_fields`, `stop`, `"time": [s, µs]` reltime pairs in input_extra)."""
    return _golden("golden/llama.vim/cases.jsonl", "head_changed-01")["sent"].encode()


@pytest.fixture(scope="module")
def upstream():  # type: ignore[no-untyped-def]
    """The real server as llama.vscode's README starts it, here with 4 slots (the llama-server
    command's own count when -np is not given): llama.vscode's 3 completions fit."""
    with llama_server(str(asset_path(DEMO_MODEL.name)), {"server.n_ctx": 4096, "server.n_parallel": 4}) as url:
        yield url


@pytest.mark.parametrize(("client", "body", "agent"), [
    ("llama.vscode", _vscode_body, "axios/1.8.4"),  # the extension posts with axios (src/llama-server.ts)
    ("llama.vim", _vim_body, "curl/8.5.0"),  # the plugin posts with curl (autoload/llama.vim `llama#fim`)
])
def test_a_capture_verifies_replays_and_scores(cli, home: Path, upstream: str, client: str, body, agent: str) -> None:
    db = home / "fimreplay.db"
    home.mkdir(parents=True, exist_ok=True)
    with running_proxy(db, upstream) as proxy:
        answer = httpx.post(f"http://{proxy.address}/infill", content=body(), timeout=600,
                            headers={"User-Agent": agent, "Content-Type": "application/json"})
    assert answer.status_code == 200, answer.text
    [(rec, _)] = captures(db)
    assert rec.editor == client and rec.logged_prompt is None and rec.extra["wire"]["http_status"] == 200
    got = answer.json()  # llama.vscode's n_cmpl 3: a list of answers, the first kept as the capture's completion
    assert rec.completion == (got[0] if client == "llama.vscode" else got)["content"]

    verified = cli("verify", "--json", "--db", str(db))
    report = json.loads(verified.stdout)
    assert (report["checked"], report["mismatched"], report["errors"]) == (0, 0, 0)
    assert report["skipped"] == {f"{client} logs no prompt (nothing to check it against; `run captures` replays it)": 1}

    done = cli("run", "captures", "--db", str(db), "--model", "default", "--max-new-tokens", "8", "--run-id", "cap",
               "--threads", "1", "--json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["completed"] == 1, done.stdout
    scored = cli("score", "cap", "--db", str(db), "--json")
    # one capture, no later one of its file (nothing typed to read) and neither client tells its
    # server which suggestion was kept (no accepted text): nothing to judge, said, exit 1
    assert scored.returncode == 1, scored.stderr
    summary = json.loads(scored.stdout)
    assert (summary["items_done"], summary["n_errors"], summary["n_scored"], summary["n_rejects"]) == (1, 0, 0, 1)
    assert summary["nothing_scored"] and "no accepted text (outcome unknown)" in scored.stderr
    assert "nothing scored" in scored.stderr.splitlines()[-1]


def test_a_capture_replays_through_a_one_slot_servers_infill(cli, home: Path, upstream: str) -> None:
    """Replayed through a real llama-server's /infill, llama.vscode's body asks for one completion
    (the first, the one the extension shows): a one-slot server answers it."""
    db = home / "fimreplay.db"
    home.mkdir(parents=True, exist_ok=True)
    with running_proxy(db, upstream) as proxy:
        httpx.post(f"http://{proxy.address}/infill", content=_vscode_body(), timeout=600,
                   headers={"User-Agent": "axios/1.8.4", "Content-Type": "application/json"})
    with llama_server(str(asset_path(DEMO_MODEL.name)), {"server.n_ctx": 1024}) as one_slot:
        done = cli("run", "captures", "--db", str(db), "--backend", "openai", "--endpoint", one_slot, "--model", "default",
                   "--max-new-tokens", "8", "--run-id", "over-http", "--json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["completed"] == 1, done.stdout
