"""llama.vim's ring buffer replayed from a session (ggml-org/llama.vim autoload/llama.vim
`s:pick_chunk`, `s:ring_update`, `s:chunk_sim`, the eviction in `llama#fim`)."""

from __future__ import annotations

from replay.editors.llama_vim.body import client_body
from replay.editors.llama_vim.releases import rules_at
from replay.editors.llama_vim.request import Buffer
from replay.editors.llama_vim.ring import QUEUE_SIZE, Ring, similarity, simulate
from replay.editors.llama_vim.settings import settings
from replay.records import EditorInput, SessionEvent

HEAD = rules_at(None)
BEFORE_DICE = rules_at("c31cd09")  # line similarity, no eviction at the request


def ring(rules=HEAD, **options: object) -> Ring:
    return Ring(settings(dict(options), rules), rules, seed=0)


def lines(n: int, tag: str = "l") -> tuple[str, ...]:
    return tuple(f"{tag}{i} = {i}" for i in range(n))


def test_small_text_is_taken_whole_and_tiny_text_dropped() -> None:
    r = ring()
    r.pick(lines(2), 0.0, "a.py", evict=True)
    assert r.queued == []  # "don't pick very small chunks": < 3 lines
    r.pick(lines(62), 0.0, "a.py", evict=True)
    assert r.queued[0].data == lines(62)  # len + 1 < ring_chunk_size: whole


def test_large_text_gives_a_window_of_half_the_chunk_size_plus_one() -> None:
    r = ring()
    text = lines(200)
    r.pick(text, 0.0, "a.py", evict=True)
    data = r.queued[0].data
    assert len(data) == 33 and data == text[text.index(data[0]):text.index(data[0]) + 33]  # Vim's [l0:l1] includes l1
    again = ring()
    again.pick(text, 0.0, "a.py", evict=True)
    assert again.queued[0].data == data  # seeded: the same window


def test_duplicates_are_dropped_and_similar_chunks_evicted() -> None:
    r = ring()
    r.pick(lines(5), 0.0, "a.py", evict=True)
    r.pick(lines(5), 1.0, "a.py", evict=True)
    assert len(r.queued) == 1
    r.pick(lines(5) + ("x = 99",), 2.0, "a.py", evict=True)  # > 0.9 similar: the old one goes
    assert [c.data for c in r.queued] == [lines(5) + ("x = 99",)]
    r.pick(lines(5), 3.0, "a.py", evict=False)  # without eviction the new one is dropped
    assert len(r.queued) == 1


def test_queue_holds_sixteen() -> None:
    r = ring()
    for n in range(QUEUE_SIZE + 2):
        r.pick(lines(3, f"t{n}_"), float(n), "a.py", evict=True)
    assert len(r.queued) == QUEUE_SIZE and r.queued[0].data == lines(3, "t2_")


def test_similarity_token_dice_since_8087476_and_lines_before() -> None:
    a, b = ("def f(x):", "    return x"), ("def g(x):", "    return x")
    assert similarity(a, b, HEAD) == 2.0 * 4 / 10  # def f x return x / def g x return x: 4 of 5 found
    assert similarity(a, b, BEFORE_DICE) == 2.0 * 1 / 4  # one line in common
    assert similarity((), (), HEAD) == 1.0
    assert similarity(("é",), ("é",), HEAD) == 1.0  # Vim's \W is ASCII only: no tokens at all


def test_ticks_move_one_chunk_per_interval_but_not_while_typing() -> None:
    doc = "\n".join(lines(10, "b")) + "\n"
    events = (SessionEvent(kind="yank", time=0.0, filename="b.py", text="a\nb\nc\n"),
              SessionEvent(kind="save", time=0.5, filename="b.py", text=doc, line=2),
              SessionEvent(kind="enter", time=2.0, filename="c.py", text="q = 1\nw = 2\ne = 3\n", line=0))
    buf = Buffer.of("x = ", "\n")
    cfg = settings({}, BEFORE_DICE)
    # the request at the last event (2 s): one tick (1 s); the enter's pick (2.1 s) comes after it
    assert [c.text for c in simulate(events, buf, cfg, BEFORE_DICE, 0)] == ["a\nb\nc\n"]
    held = simulate(events, buf, cfg, BEFORE_DICE, 0, request_time=6.5)
    assert [c.text for c in held] == ["a\nb\nc\n", doc, "q = 1\nw = 2\ne = 3\n"]
    assert held[0].filename == "b.py" and held[0].time == 0.0 and held[2].time == 2.1
    accepted = (*events, SessionEvent(kind="accept", time=2.5, filename="c.py", text="q = 1\n", line=0))
    assert len(simulate(accepted, buf, cfg, BEFORE_DICE, 0, request_time=5.4)) == 2  # typing 2.5..5.5 s: no tick


def test_ring_keeps_ring_n_chunks() -> None:
    events = tuple(SessionEvent(kind="yank", time=float(n), filename="b.py", text=f"a{n}\nb{n}\nc{n}\n") for n in range(4))
    events += (SessionEvent(kind="enter", time=20.0, filename="a.py", text="z\n"),)
    held = simulate(events, Buffer.of("x", ""), settings({"ring_n_chunks": 2}, BEFORE_DICE), BEFORE_DICE, 0)
    assert [c.text for c in held] == ["a2\nb2\nc2\n", "a3\nb3\nc3\n"]


def test_chunks_like_the_cursor_window_are_evicted_before_the_request() -> None:
    text = "def f(x):\n    return x\nprint(f(1))\n"
    events = (SessionEvent(kind="yank", time=0.0, filename="a.py", text=text),
              SessionEvent(kind="enter", time=10.0, filename="a.py", text="q\n"))
    inp = EditorInput(prefix=text, suffix="", events=events)
    assert client_body(inp, HEAD)["input_extra"] == []  # > 0.5 similar to the window around the cursor
    assert len(client_body(inp, BEFORE_DICE)["input_extra"]) == 1  # ec87086..8087476: kept


def test_snippets_fill_the_ring_when_no_ring_or_session_is_given() -> None:
    from replay.records import Snippet

    long = "\n".join(f"v{i} = {i}" for i in range(100)) + "\n"
    inp = EditorInput(prefix="x = ", suffix="\n", snippets=(Snippet(filepath="b.py", content="a = 1\nb = 2\nc = 3\n"),
                                                            Snippet(filepath="c.py", content=long)))
    extra = client_body(inp, HEAD)["input_extra"]
    assert [(c["filename"], c["text"]) for c in extra] == [
        ("b.py", "a = 1\nb = 2\nc = 3\n"), ("c.py", "\n".join(f"v{i} = {i}" for i in range(33)) + "\n")]


def test_an_accepted_completion_far_away_picks_above_the_prefix_and_below_the_suffix() -> None:
    r = ring(BEFORE_DICE)
    doc = lines(400)
    r.request(doc, 300, 5.0, "a.py", auto=True)  # line 301: more than 32 lines from the last pick
    assert [c.data for c in r.queued] == [doc[0:45], doc[364:400]]  # getline(1, 45) and getline(365, 400)
    r.request(doc, 310, 6.0, "a.py", auto=True)  # 10 lines on: no pick
    assert len(r.queued) == 2
