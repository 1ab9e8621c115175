"""llama.vscode's own code (v0.0.63, and eleven older tags for the completion path), run under
node on cases made for it (tests/data/golden/llama.vscode/README.md): the body
getCompletionItems sends (as JSON: its fields in the source's order), what it shows of an answer,
and the ring buffer ExtraContext holds, each equal to this profile's."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from replay.editors.llama_vscode import releases, request
from replay.editors.llama_vscode.document import split_lines
from replay.editors.llama_vscode.completion import client_shown
from replay.editors.llama_vscode.ring import Ring, held, simulate
from replay.editors.llama_vscode.settings import settings
from replay.records import EditorInput, ExtraChunk, SessionEvent

DATA = Path(__file__).resolve().parents[2] / "data" / "golden" / "llama.vscode"
DOCUMENTS = json.loads((DATA / "documents.json").read_text(encoding="utf-8"))
TAG = releases.release("v0.0.63")


def _cases(name: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (DATA / name).read_text(encoding="utf-8").splitlines()]


def _offset(text: str, line: int, character: int) -> int:
    starts = [0] + [m.end() for m in re.finditer(r"\r\n|\r|\n", text)]
    return starts[line] + character


def _input(case: dict[str, Any]) -> EditorInput:
    text = DOCUMENTS[case["document"]]
    at = _offset(text, case["line"], case["character"])
    return EditorInput(prefix=text[:at], suffix=text[at:], trigger=case["trigger"], options=case["options"],
                       extra=tuple(ExtraChunk(**chunk) for chunk in case["extra"]))


COMPLETION = _cases("completion.jsonl")
BY_ID = {case["id"]: case for case in COMPLETION}
BY_TAG = [{**BY_ID[row["id"]], **row} for row in _cases("completion_by_tag.jsonl")]


def _check(case: dict[str, Any], tag: str) -> None:
    inp = _input(case)
    rel = releases.release(tag)
    body = request.build(inp, held(inp.extra), settings(inp.options, rel), rel)
    assert json.dumps(body) == json.dumps(case["request"])
    shown = client_shown(inp, case["raw"], tag).text
    assert shown == (case["shown"][0] if case["shown"] else None)


@pytest.mark.parametrize("case", COMPLETION, ids=[c["id"] for c in COMPLETION])
def test_the_body_and_the_shown_text_are_the_extensions(case: dict[str, Any]) -> None:
    _check(case, "v0.0.63")


@pytest.mark.parametrize("case", BY_TAG, ids=[f"{c['tag']}-{c['id']}" for c in BY_TAG])
def test_older_tags_send_and_show_as_their_code_does(case: dict[str, Any]) -> None:
    _check(case, case["tag"])


class _Recorded:
    """Math.random's values as the recorded run drew them."""

    def __init__(self, values: list[float]) -> None:
        self.values = iter(values)

    def random(self) -> float:
        return next(self.values)


RING = _cases("ring.jsonl")


@pytest.mark.parametrize("case", RING, ids=[c["id"] for c in RING])
def test_the_ring_buffer_is_the_extensions(case: dict[str, Any]) -> None:
    ring = Ring(conf=settings(case["options"], TAG), rng=_Recorded(case["random"]))  # type: ignore[arg-type]
    docs = [split_lines(text) for text in case["documents"]]
    for op in case["ops"]:
        now = op["now"]
        if op["op"] == "around":
            ring.around(docs[op["doc"]], op["line"], op["filename"], now)
        elif op["op"] == "near":
            ring.near_completion(docs[op["doc"]], op["line"], op["filename"], now)
        elif op["op"] == "pick":
            ring.pick(op["lines"], op["evict"], op["filename"], now)
        elif op["op"] == "compl":
            ring.last_compl_start = now
        else:
            ring.tick(now)
    assert (ring.chunks, ring.queued) == (case["chunks"], case["queued"])


SESSIONS = _cases("sessions.jsonl")


def _events(case: dict[str, Any]) -> tuple[SessionEvent, ...]:
    out = []
    for e in case["events"]:
        text = case["documents"][e["doc"]]
        if "lines" in e:
            start, count = e["lines"]
            text = "\n".join(text.split("\n")[start:start + count])
        out.append(SessionEvent(kind=e["kind"], time=e["time"], filename=f"/w/f{e['doc']}.py", text=text, line=e["line"]))
    return tuple(out)


@pytest.mark.parametrize("case", SESSIONS, ids=[c["id"] for c in SESSIONS])
def test_a_session_fills_the_ring_as_the_extensions_listeners_do(case: dict[str, Any]) -> None:
    """The events replayed through the extension's own listeners (Architect) and ExtraContext
    under a fake clock, Math.random drawing this profile's seeded values."""
    chunks = simulate(_events(case), settings(case["options"], TAG), TAG)
    assert json.dumps(chunks) == json.dumps(case["chunks"])
