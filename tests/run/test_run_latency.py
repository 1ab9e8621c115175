"""A replay's time: each completion's seconds to the first token and to the whole answer and its
token counts as the engine reported them, stored with it, and the run's figures in its summary."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from replay.store import Store
from tests.run.test_run_export import write_prompts
from tests.support.backend_stubs import Reply, StubServer, openai_reply


def _llama_server_reply(r: object) -> Reply:
    """llama-server's /v1/completions answer with its timings: 150 ms of it spent generating."""
    body = openai_reply("1", tokens=4).body
    return Reply(body={**body, "usage": {"completion_tokens": 4, "prompt_tokens": 12},
                       "timings": {"prompt_n": 12, "predicted_n": 4, "predicted_ms": 150.0}}, delay=0.3)


def test_run_stores_time_and_token_counts_and_prints_the_figures(cli, home: Path, tmp_path: Path) -> None:
    src = tmp_path / "p.jsonl"
    write_prompts(src, 2)
    db = tmp_path / "s.db"
    with StubServer(_llama_server_reply) as srv:
        out = cli("run", str(src), "--backend", "openai", "--endpoint", srv.url, "--model", "default", "--db", str(db),
                  "--run-id", "t", "--json", "--no-cache")
        assert out.returncode == 0, out.stderr
        text = cli("run", str(src), "--backend", "openai", "--endpoint", srv.url, "--model", "default", "--db", str(db),
                   "--run-id", "t2", "--no-cache", "--speed", "prefill=120,decode=40,overhead=50")
    latency = json.loads(out.stdout)["latency"]
    assert latency["n"] == 2 and latency["prompt_tokens_mean"] == 12 and latency["gen_tokens_mean"] == 4
    assert 0.3 <= latency["total_p50_s"] < 2 and latency["ttft_p50_s"] == pytest.approx(latency["total_p50_s"] - 0.15, abs=0.02)
    # items of no editor's stage: the verdict is unknown, and says why
    assert latency["unknown"] == 2 and latency["shown_in_time"] is None
    assert "no editor showed this completion" in next(iter(latency["unknown_reasons"]))
    with Store(db) as store:
        done = store.completions("t")
        assert all(c.prompt_tokens == 12 and c.n_tokens == 4 and 0 < c.ttft_s < c.latency_s for c in done)
        assert [(t.prompt_tokens, t.gen_tokens, t.total_s) for t in store.timed_completions("t")] == \
            [(12, 4, c.latency_s) for c in done]
    # at 120 tok/s prefill, 40 tok/s decode, 50 ms overhead: 50 + 100 + 25 + 3 x 25 = 250 ms
    assert "run t2: latency: p50 250 ms, p90 250 ms (at prefill=120,decode=40,overhead=50, 2 answers)" in text.stdout
