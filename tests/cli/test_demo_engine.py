"""The demo's engine set-up (replay.usecases.demo): llama.cpp on one thread unless asked for
more, since a second thread waits at every barrier on 2 cores another process also uses."""

from __future__ import annotations

from typing import Any

import pytest

from replay.usecases import demo
from replay.usecases.demo import DemoOptions, DemoResult


class _Summary:
    run, items, completed, cached, resumed, errors, wall_s = "r", 0, 0, 0, 0, 0, 0.0


class _Out:
    summary, rejected = _Summary(), 0


@pytest.mark.parametrize(("opts", "threads"), [(DemoOptions(), 1), (DemoOptions(threads=2), 2)])
def test_the_demo_runs_llama_cpp_on_one_thread_unless_told(opts: DemoOptions, threads: int,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    asked: list[Any] = []
    import replay.usecases.replay as replay_usecase

    monkeypatch.setattr(replay_usecase, "run", lambda store, request, on_progress=None: asked.append(request) or _Out())
    demo._replay(None, opts, "benchmark", "items.jsonl", "standard", DemoResult(), lambda s: None, None)  # type: ignore[arg-type]
    assert [r.backend for r in asked] == ["llamacpp"]
    assert asked[0].backend_options["n_threads"] == threads
