"""A run kept under a name (RunRequest.reuse_as, the demo's) is found again by what decides its
completions: the same prompts and settings give the same id, any change another."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import msgspec

from replay.backends import GenParams, ModelRef
from replay.records import RenderedPrompt
from replay.rejects import Rejects
from replay.run.inputs import Inputs
from replay.usecases.replay import RunRequest, reused_run_id

REF = ModelRef(name="m", model_id="sha256:ab", editor_model="m", family="qwen2.5-coder")


def _inputs(tmp_path: Path, *texts: str) -> Inputs:
    prompts = [RenderedPrompt(profile="standard", family="qwen2.5-coder", text=t, prefix_sent=t, suffix_sent="",
                              item_id=f"i{n}") for n, t in enumerate(texts)]
    return Inputs(prompts=prompts, rejects=Rejects(tmp_path / "r.jsonl"), corpus_hash="h", kind="items")


def test_the_same_replay_gets_the_same_id_and_any_change_another(tmp_path: Path) -> None:
    req = RunRequest("items.jsonl", params=GenParams(ctx=1024, max_new_tokens=8), reuse_as="demo-benchmark")
    inputs = _inputs(tmp_path, "a", "b")
    first = reused_run_id("demo-benchmark", req, REF, inputs)
    assert first.startswith("demo-benchmark-") and first == reused_run_id("demo-benchmark", req, REF, _inputs(tmp_path, "a", "b"))
    changed = [
        reused_run_id("demo-benchmark", req, REF, _inputs(tmp_path, "a", "c")),  # a prompt rendered otherwise
        reused_run_id("demo-benchmark", replace(req, params=GenParams(ctx=1024, max_new_tokens=4)), REF, inputs),
        reused_run_id("demo-benchmark", req, msgspec.structs.replace(REF, model_id="sha256:cd"), inputs),  # other weights
        reused_run_id("demo-benchmark", replace(req, early_stop=False), REF, inputs),
        reused_run_id("demo-captures", req, REF, inputs),
    ]
    assert first not in changed and len(set(changed)) == len(changed)

