"""The ring buffer replayed from a session (ggml-org/llama.vscode src/extra-context.ts; the
listeners of src/architect.ts: onDidChangeActiveTextEditor, handleDocumentSave, the copy/cut
intercepts, addFimContextChunks after a completion; periodicRingBufferUpdate every
ring_update_ms)."""

from __future__ import annotations

import pytest

from replay.editors.inputs import BadInputLine
from replay.editors.llama_vscode import releases
from replay.editors.llama_vscode.profile import render
from replay.editors.llama_vscode.ring import held, jaccard, simulate
from replay.editors.llama_vscode.settings import settings
from replay.records import EditorInput, ExtraChunk, SessionEvent

A = "".join(f"alpha {i}\n" for i in range(10))
B = "".join(f"beta {i}\n" for i in range(200))


def editor(time: float = 0) -> SessionEvent:
    """An editor made active on a two-line file (too small to pick): the ring updates from v0.0.12
    only with an active editor."""
    return ev("enter", time, "/w/small.py", "x\ny")


def _ring(*events: SessionEvent, tag: str = "v0.0.63", **options: object) -> list[dict]:
    rel = releases.release(tag)
    return simulate(events, settings({f"llama-vscode.{k}": v for k, v in options.items()}, rel), rel)


def ev(kind: str, time: float, filename: str = "/w/a.py", text: str = A, line: int = 0) -> SessionEvent:
    return SessionEvent(kind=kind, time=time, filename=filename, text=text, line=line)  # type: ignore[arg-type]


def test_a_chunk_enters_the_ring_after_three_seconds_without_a_completion() -> None:
    """Queued on enter; moved by the first tick at least 3000 ms after the last completion request
    (the session's start, before any)."""
    assert _ring(ev("enter", 0), ev("leave", 2.9)) == []
    ring = _ring(ev("enter", 0), ev("leave", 3.0))
    assert ring == [{"text": A + "\n", "time": 0, "filename": "/w/a.py"}]  # the document's last line is empty


def test_entering_picks_twice_and_the_whole_duplicate_is_dropped() -> None:
    """The listener's "previous" editor is already the new one: two picks of the same chunk."""
    assert len(_ring(ev("enter", 0), ev("leave", 10))) == 1


def test_entering_a_long_file_picks_two_windows_seeded_by_the_session() -> None:
    """Over ring_chunk_size - 1 lines: a random window of 32 lines each time (Math.random seeded
    from the events); windows over 0.9 similar evict the older."""
    events = (ev("enter", 0, "/w/b.py", B, line=100), ev("leave", 10))
    first = _ring(*events)
    assert first == _ring(*events) and 1 <= len(first) <= 2
    assert all(len(chunk["text"].splitlines()) == 32 for chunk in first)


def test_one_chunk_moves_per_tick() -> None:
    events = [editor(), *(ev("yank", 0, f"/w/{n}.py", f"{n}a\n{n}b\n{n}c\n") for n in range(3))]
    assert len(_ring(*events, ev("leave", 3.5))) == 1
    assert len(_ring(*events, ev("leave", 5.0))) == 3


def test_a_completion_restarts_the_quiet_and_picks_around_a_far_cursor() -> None:
    """accept = a completion request (lastComplStartTime) and addFimContextChunks: the lines
    n_prefix..ring_scope above and ring_chunk_size lines from n_suffix below, when the cursor moved
    over 32 lines."""
    ring = _ring(ev("accept", 0, "/w/b.py", B, line=150), ev("leave", 2.9), n_prefix=10, n_suffix=5)
    assert ring == []
    ring = _ring(ev("accept", 0, "/w/b.py", B, line=150), ev("leave", 5), n_prefix=10, n_suffix=5)
    texts = [chunk["text"] for chunk in ring]
    assert len(texts) == 2 and texts[0].startswith("beta ") and "beta 155\n" in texts[1]


def test_a_save_picks_a_second_later_and_a_later_save_restarts_the_timer() -> None:
    other = "x\ny\nz\n"
    assert _ring(editor(), ev("save", 0, "/w/o.py", other), ev("leave", 0.9)) == []
    once = _ring(editor(), ev("save", 0, "/w/o.py", other), ev("save", 0.5, "/w/o.py", other), ev("leave", 5))
    assert [chunk["time"] for chunk in once] == [1500]


@pytest.mark.parametrize(("tag", "time"), [("v0.0.5", 0), ("v0.0.6", 1000)])
def test_a_yank_is_picked_a_second_later_from_v0_0_6(tag: str, time: int) -> None:
    """f4d20d7 (#14): the copy/cut intercepts wait 1000 ms (before: 0 ms); the chunk is stamped then."""
    assert [c["time"] for c in _ring(editor(), ev("yank", 0, text="a\nb\nc"), ev("leave", 3.5), tag=tag)] == [time]


def test_no_update_without_an_active_editor_from_v0_0_12() -> None:
    """4e4a5cc (#67): periodicRingBufferUpdate returns without window.activeTextEditor."""
    yanked = (ev("yank", 0, text="a\nb\nc"), ev("leave", 5))
    assert _ring(*yanked) == [] and len(_ring(*yanked, tag="v0.0.11")) == 1
    assert len(_ring(editor(), *yanked)) == 1


def test_small_chunks_are_not_picked() -> None:
    assert _ring(editor(), ev("yank", 0, text="a\nb"), ev("leave", 10)) == []


def test_the_ring_keeps_the_last_ring_n_chunks() -> None:
    events = [editor(), *(ev("yank", n * 0.01, text=f"{n}a\n{n}b\n{n}c") for n in range(5))]
    ring = _ring(*events, ev("leave", 20), ring_n_chunks=2)
    assert [chunk["text"][0] for chunk in ring] == ["3", "4"]


def test_jaccard_of_line_sets() -> None:
    assert jaccard([], []) == 1.0 and jaccard(["a", "b"], ["b", "c"]) == pytest.approx(1 / 3)


def test_extra_as_held_is_sent_as_the_extension_writes_it() -> None:
    chunk = ExtraChunk(text="int x;\n", time=1700000000000.0, filename="/w/b.c")
    assert held([chunk]) == [{"text": "int x;\n", "time": 1700000000000, "filename": "/w/b.c"}]


def test_extra_and_events_together_are_refused() -> None:
    inp = EditorInput(prefix="x", suffix="", extra=(ExtraChunk(text="a"),), events=(ev("open", 0),))
    with pytest.raises(BadInputLine, match="not both"):
        render(inp, "qwen2.5-coder")


def test_an_item_without_a_session_sends_an_empty_ring() -> None:
    rendered = render(EditorInput(prefix="def f():\n    return ", suffix="\n"), "qwen2.5-coder")
    assert rendered.request["input_extra"] == [] and "empty ring" in rendered.version_why
