"""A render input that gives other files as snippets but no ring and no session (a public
benchmark's cross-file context): llama.vscode's ring is filled by a session entering those
files (ring.SNIPPET_POLICY), as the extension's listeners would take them."""

from __future__ import annotations

from replay.editors.llama_vscode.profile import render
from replay.records import EditorInput, ExtraChunk, SessionEvent, Snippet

UTILS = "def normalise(xs):\n    xs = list(xs)\n    return [x for x in xs if x is not None]\n"
ORDER = "def median(xs):\n    xs = sorted(xs)\n    return xs[len(xs) // 2]\n"
LONG = "".join(f"value_{i} = {i}\n" for i in range(200))  # over ring_chunk_size (64) lines


def _extra(*snippets: Snippet, **fields: object) -> list[dict]:
    inp = EditorInput(prefix="def mean(xs):\n    xs = ", suffix="\n", snippets=snippets, **fields)  # type: ignore[arg-type]
    rendered = render(inp, "qwen2.5-coder")
    assert rendered.request is not None
    return rendered.request["input_extra"]


def test_each_snippet_file_is_held_whole_in_order() -> None:
    extra = _extra(Snippet("stats/utils.py", UTILS), Snippet("stats/order.py", ORDER))
    assert [(c["filename"], c["text"]) for c in extra] == [("stats/utils.py", UTILS + "\n"), ("stats/order.py", ORDER + "\n")]


def test_a_snippet_under_three_lines_is_dropped_as_pick_chunk_drops_it() -> None:
    assert _extra(Snippet("a.py", "x = 1\ny = 2")) == []
    assert [c["filename"] for c in _extra(Snippet("a.py", "x = 1"), Snippet("b.py", ORDER))] == ["b.py"]


def test_a_long_file_gives_windows_of_half_a_chunk() -> None:
    extra = _extra(Snippet("values.py", LONG))
    assert extra and all(c["filename"] == "values.py" and c["text"].count("\n") <= 33 for c in extra)


def test_a_ring_or_session_given_stands_over_the_snippets() -> None:
    held = _extra(Snippet("stats/utils.py", UTILS), extra=(ExtraChunk(text="held\n", filename="h.py"),))
    assert [c["filename"] for c in held] == ["h.py"]
    session = _extra(Snippet("stats/utils.py", UTILS), events=(SessionEvent(kind="enter", time=0.0, filename="s.py", text="x\ny"),))
    assert "stats/utils.py" not in [c["filename"] for c in session]
