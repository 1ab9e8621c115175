"""`fimreplay verify` on captures the proxy recorded: the wire prompt of Continue's raw route
against the Continue profile's own rendering of the prefix and suffix found in it; FIM routes
and clients no profile renders are skipped, never reported as mismatches."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import httpx

from tests.support.proxy_helpers import running_proxy
from tests.support.proxy_upstream import ShapeUpstream

PREFIX = "def add(a, b):\n    "
SUFFIX = "\n\nprint(add(1, 2))\n"
CONTINUE = {"User-Agent": "Continue/1.0.16"}  # the product Continue names itself by (replay/proxy/clients.py)


def _verify(db: Path) -> dict:
    out = subprocess.run([sys.executable, "-m", "replay", "verify", "--json", "--db", str(db)], capture_output=True, text=True,
                         env={**os.environ, "FIMREPLAY_HOME": str(db.parent / "home")})
    return json.loads(out.stdout)


def test_wire_prompts_checked_against_the_editor_profile(tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    qwen = f"<|fim_prefix|>{PREFIX}<|fim_suffix|>{SUFFIX}<|fim_middle|>"
    with ShapeUpstream() as up, running_proxy(db, up.url) as proxy:
        base = f"http://{proxy.address}"
        # Continue's raw route (core/llm/llms/Ollama.ts `_streamComplete`, raw: true): the template
        # of its qwen2.5-coder profile, as Continue renders it
        httpx.post(base + "/api/generate", headers=CONTINUE, json={"model": "qwen2.5-coder:1.5b", "prompt": qwen, "raw": True})
        # a header the profile does not render: a mismatch where it starts
        httpx.post(base + "/api/generate", headers=CONTINUE,
                   json={"model": "qwen2.5-coder:1.5b", "prompt": "<|repo_name|>proj\n" + qwen, "raw": True})
        # the FIM route and a llama.cpp client: nothing templated on the client side
        httpx.post(base + "/api/generate", headers=CONTINUE, json={"model": "qwen2.5-coder:1.5b", "prompt": PREFIX, "suffix": SUFFIX})
        httpx.post(base + "/infill", json={"input_prefix": PREFIX, "input_suffix": SUFFIX, "n_cmpl": 1})
    report = _verify(db)
    assert (report["checked"], report["matched"], report["mismatched"], report["errors"]) == (2, 1, 1, 0)
    [mismatch] = report["mismatches"]
    assert mismatch["offset"] == 2 and mismatch["logged"].startswith("repo_name|>proj")  # after the common "<|" and mismatch["editor"] == "continue"
    assert sum(report["skipped"].values()) == 2
