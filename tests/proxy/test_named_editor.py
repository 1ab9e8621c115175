"""`fimreplay proxy --editor NAME[@VERSION]`: the editor (and the release) every capture is from,
where the wire does not tell it: a client that sends no User-Agent of its own, and the release
a client runs, which none of its requests carries."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import httpx
import pytest

from replay.proxy.clients import named
from tests.conftest import free_port, wait_listening
from tests.support.processes import spawned
from tests.support.proxy_helpers import captures, running_proxy
from tests.support.proxy_upstream import ShapeUpstream

# continuedev/continue core/llm/llms/Ollama.ts `_streamFim`: a FIM body, sent with no User-Agent
# of Continue's own (its providers set none).
OLLAMA_FIM = {"model": "qwen2.5-coder:1.5b", "prompt": "def add(a, b):\n    ", "suffix": "\n", "stream": True,
              "options": {"temperature": 0.01, "num_predict": 4096, "stop": ["\n\n"]}}


def test_the_named_editor_and_release_stand_over_what_the_wire_tells() -> None:
    assert named(("unknown", None), None, None) == ("unknown", None)
    assert named(("unknown", None), "continue", "1.0.16") == ("continue", "1.0.16")
    assert named(("continue", "1.3.32"), "continue", None) == ("continue", "1.3.32")  # the wire's release kept
    assert named(("continue", "1.3.32"), "continue", "1.0.16") == ("continue", "1.0.16")
    assert named(("llama.vscode", None), "llama.vim", None) == ("llama.vim", None)  # no other editor's release


def test_a_client_the_wire_does_not_tell_is_recorded_as_named(tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    with ShapeUpstream() as up, running_proxy(db, up.url, editor="continue", editor_version="1.0.16") as proxy:
        assert httpx.post(f"http://{proxy.address}/api/generate", json=OLLAMA_FIM,
                          headers={"User-Agent": "node-fetch"}).status_code == 200
    [(rec, _)] = captures(db)
    assert (rec.editor, rec.editor_version, rec.user_agent) == ("continue", "1.0.16", "node-fetch")


def test_without_a_name_the_client_is_told_from_the_wire(tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    with ShapeUpstream() as up, running_proxy(db, up.url) as proxy:
        for agent in ("node-fetch", "Continue/1.3.32"):
            assert httpx.post(f"http://{proxy.address}/api/generate", json=OLLAMA_FIM,
                              headers={"User-Agent": agent}).status_code == 200
    assert sorted((rec.editor, rec.editor_version) for rec, _ in captures(db)) == [("continue", "1.3.32"), ("unknown", None)]


def test_the_command_records_the_named_editor_and_release(tmp_path: Path) -> None:
    db, port = tmp_path / "s.db", free_port()
    env = {**os.environ, "FIMREPLAY_HOME": str(tmp_path / "home")}
    with ShapeUpstream() as up:
        with spawned([sys.executable, "-m", "replay", "proxy", "--upstream", up.url, "--listen", f"127.0.0.1:{port}",
                      "--editor", "continue@1.0.16", "--db", str(db), "--json"], sig=signal.SIGINT,
                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env) as proc:
            wait_listening(port)
            assert httpx.post(f"http://127.0.0.1:{port}/api/generate", json=OLLAMA_FIM).status_code == 200
            proc.send_signal(signal.SIGINT)
            out, err = proc.communicate(timeout=30)
    assert proc.returncode == 0, err
    recorded = json.loads(out.splitlines()[0])
    assert (recorded["editor"], recorded["editor_version"]) == ("continue", "1.0.16")
    listing = subprocess.run([sys.executable, "-m", "replay", "captures", "--json", "--db", str(db)], capture_output=True,
                             text=True, env=env, check=True).stdout
    [capture] = [json.loads(line) for line in listing.splitlines()]
    assert capture["editor"] == "continue" and capture["editor_version"] == "1.0.16"


@pytest.mark.parametrize("args, says", [
    (["--editor", "copilot"], "'copilot' is not an editor here"),
    (["--editor-version", "1.0.16"], "--editor-version needs --editor NAME"),
    (["--editor", "continue@"], "no version after '@'"),
    (["--editor", "continue@1.0.16", "--editor-version", "1.3.32"], "two editor versions"),
])
def test_a_bad_editor_is_one_usage_line(tmp_path: Path, args: list[str], says: str) -> None:
    r = subprocess.run([sys.executable, "-m", "replay", "proxy", "--upstream", "http://127.0.0.1:9", *args,
                        "--db", str(tmp_path / "s.db")], capture_output=True, text=True,
                       env={**os.environ, "FIMREPLAY_HOME": str(tmp_path / "home")}, timeout=60)
    assert r.returncode == 2 and says in r.stderr and "Traceback" not in r.stderr, r.stderr
