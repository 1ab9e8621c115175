"""A proxy capture of a llama.cpp client replays its /infill body: the run input carries the
body as `request`, and the capture's day names llama-server's rules."""

from __future__ import annotations

import datetime
import json

import pytest

from replay.assets import DEMO_MODEL, asset_path
from replay.editors import capture_version
from replay.editors.llama_server import InfillRefused, answered_settings, render_body
from replay.records import CaptureRecord, Segments, Source
from replay.editors.interface import CaptureNotReplayable
from replay.run.inputs import capture_input

BODY = {"id_slot": 0, "input_prefix": "def f(x):\n", "input_suffix": "\n", "prompt": "    return",
        "input_extra": [{"text": "X = 1\n", "time": 3.5, "filename": "a.py"}], "n_predict": 128, "n_indent": 4,
        "n_cmpl": 3}
DAY = datetime.datetime(2025, 9, 10, 12, tzinfo=datetime.timezone.utc).timestamp()


def _capture(editor: str = "llama.vscode", **kw: object) -> CaptureRecord:
    fields = {"source": Source(file="proxy.jsonl", line=1), "editor": editor, "format": "proxy", "ts": DAY,
              "segments": Segments(prefix=BODY["input_prefix"], suffix=BODY["input_suffix"]),
              "raw": json.dumps(BODY), "extra": {"wire": {"route": "/infill"}}}
    return CaptureRecord(**{**fields, **kw})  # type: ignore[arg-type]


def test_a_llama_client_capture_is_replayed_from_its_body() -> None:
    inp = capture_input(7, _capture())
    assert inp.request == BODY and inp.item_id == "capture-7"
    slots = {"server.n_parallel": 4, "server.kv_unified": True}  # llama-server's own: the body asks for 3 completions
    rendered = render_body(inp.request, str(asset_path(DEMO_MODEL.name)), {**inp.options, **slots})
    assert rendered.text.endswith("<|fim_prefix|>def f(x):\n    return<|fim_suffix|>\n<|fim_middle|>")


def test_a_body_cut_at_the_proxys_limit_is_not_replayed() -> None:
    with pytest.raises(CaptureNotReplayable, match="size limit"):
        capture_input(1, _capture(extra={"wire": {"truncated": True}}))


def test_the_capture_day_names_the_servers_rules() -> None:
    assert capture_version(_capture()) == "server=2025-09-10"
    assert capture_version(_capture(editor_version="v0.0.40")) == "v0.0.40,server=2025-09-10"
    assert capture_version(_capture("llama.vim")) == "2025-09-10,server=2025-09-10"
    assert capture_version(_capture(ts=None)) is None


def test_an_answered_capture_replays_with_the_slots_its_answer_proves() -> None:
    model = str(asset_path(DEMO_MODEL.name))
    answered = capture_input(2, _capture(extra={"wire": {"route": "/infill", "http_status": 200}}))
    assert answered.options == {"server.n_parallel": 3, "server.kv_unified": True}
    assert render_body(answered.request, model, answered.options).token_ids
    # refused upstream (or never answered): the server's defaults, one slot, refuse it again
    refused = capture_input(3, _capture(extra={"wire": {"route": "/infill", "http_status": 400}}))
    assert refused.options == {}
    with pytest.raises(InfillRefused, match="n_cmpl"):
        render_body(refused.request, model, refused.options)


def test_one_completion_proves_no_more_than_the_defaults() -> None:
    assert answered_settings({"n_cmpl": 1}) == answered_settings({}) == answered_settings({"n_cmpl": True}) == {}
    assert answered_settings({"n": 2}) == {"server.n_parallel": 2, "server.kv_unified": True}
