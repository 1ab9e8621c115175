"""llama.vim's speculative follow-ups in the typed reference (replay.references): its /infill
bodies say which request is a follow-up (t_max_predict_ms: 250 for a first request from 1175c8d,
the setting's for the follow-up), where the window would mislead both ways."""

from __future__ import annotations

import json

from replay.records import CaptureRecord, Segments, Source
from replay.references import typed_references

TOP = "import math\n\n\ndef area(r):\n    return math.pi * r * r\n\n\ndef main():\n"
BELOW = "\n    print(perimeter(2))\n\n\ndef perimeter(r):\n    return 2 * math.pi * r\n"


def _vim(n: int, ts: float, prefix: str, prompt: str, suffix: str, predict_ms: int, completion: str) -> tuple[int, CaptureRecord]:
    """A proxy capture of a llama.vim /infill body (the window: input_prefix + prompt | input_suffix)."""
    body = {"input_prefix": prefix, "prompt": prompt, "input_suffix": suffix, "n_predict": 128,
            "t_max_predict_ms": predict_ms}
    return n, CaptureRecord(source=Source(file="proxy:http://127.0.0.1:8012", line=n), editor="llama.vim",  # type: ignore[arg-type]
                            format="proxy", segments=Segments(prefix=prefix, suffix=suffix), ts=ts,
                            completion=completion, raw=json.dumps(body), extra={"wire": {"route": "/infill"}})


def test_a_llama_vim_follow_up_of_a_suggestion_shown_mid_line_is_no_evidence() -> None:
    """llama.vim's follow-up of a suggestion shown mid-line holds the whole line with the suggestion
    appended and no rest of the line (`s:fim_ctx_local` with `a:prev`): taken for the document, it
    would make the spot's text the typed text plus the suggestion. Its t_max_predict_ms (the
    setting's, where the first requests ask 250) says it is a follow-up."""
    got = typed_references([
        _vim(1, 0.0, TOP, "    print(area(2", "))" + BELOW, 250, " * 2"),
        _vim(2, 2.0, TOP, "    print(area(2 # x", "))" + BELOW, 250, " i7"),  # typed " # x", still there
        _vim(3, 2.3, TOP, "    print(area(2 # x)) i7))", BELOW, 1000, ""),  # the follow-up of " i7" shown
    ])
    assert got[3].text is None and "speculative" in (got[3].why or "")
    assert got[1].text is None and "still being typed" in (got[1].why or "")  # not " # x)) i7"


def test_a_llama_vim_first_request_typing_the_suggestion_is_the_document() -> None:
    """A first request (250) after the user typed the start of the suggestion shown is the
    document, though its window is the earlier one's with the completion's start inserted."""
    line = "    print(perimeter(2))\n"
    got = typed_references([
        _vim(1, 0.0, TOP + line, "    res", BELOW, 250, "ult = 2"),
        _vim(2, 0.3, TOP + line, "    result", BELOW, 250, " = 2"),  # typed "ult": a first request, not a twin
        _vim(3, 0.6, TOP + line, "    result = 2", BELOW, 1000, ""),  # a follow-up
        _vim(4, 3.0, TOP + line + "    result = 2\n", "", BELOW[1:], 250, ""),  # moved on to the next line
    ])
    assert got[2].text == " = 2" and got[2].complete
    assert got[1].text == "ult = 2" and got[3].text is None


def test_the_rings_warm_up_requests_keep_their_own_reason() -> None:
    """The ring's warm-up bodies (n_predict 0, t_max_predict_ms 1, `s:ring_update`) are no
    follow-ups: they hold no window, and say so."""
    warm_up = _vim(2, 0.5, "", "", "", 1, "")
    body = json.loads(warm_up[1].raw) | {"n_predict": 0}
    warm_up = (2, CaptureRecord(source=warm_up[1].source, editor="llama.vim", format="proxy",  # type: ignore[arg-type]
                                segments=Segments(prefix="", suffix=""), ts=0.5, completion="", raw=json.dumps(body),
                                extra={"wire": {"route": "/infill"}}))
    got = typed_references([_vim(1, 0.0, TOP, "    print(area(2", "))" + BELOW, 250, " * 2"), warm_up])
    assert "fewer than" in (got[2].why or "")


def test_each_body_is_parsed_once(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """The window, the speculation budget and the Copilot check read the one body parsed per
    capture (reference_windows.request_body)."""
    import replay.reference_windows as windows
    import replay.references as references
    from replay import jsonl

    parsed: list[str] = []
    for module in (windows, references):  # wherever the reference code reads JSON
        monkeypatch.setattr(module, "loads", lambda raw: parsed.append(raw) or jsonl.loads(raw), raising=False)
    captures = [_vim(1, 0.0, TOP, "    print(area(2", "))" + BELOW, 250, " * 2"),
                _vim(2, 2.0, TOP, "    print(area(2 # x", "))" + BELOW, 1000, "")]
    typed_references(captures)
    assert sorted(parsed) == sorted(rec.raw for _, rec in captures)
