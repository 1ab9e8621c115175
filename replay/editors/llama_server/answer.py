"""Where llama-server ends an /infill answer on its own: the n_indent cut and the
t_max_predict_ms time limit (ggml-org/llama.cpp tools/server, `process_token`; server.cpp,
then server-context.cpp).

After each token is appended to the generated text:
- n_indent > 0, once a token with a newline has been seen: the line that starts at the last
  newline found so far is checked; when it has something after its spaces/tabs and fewer of
  them than n_indent, generation stops and the text is cut right after that indentation. The
  search for the next newline then moves on by one newline per token, so the first line is
  never checked and lines are checked one token late (a token holding several newlines leaves
  the later ones to the following tokens);
- t_max_predict_ms > 0: when a token holding a newline arrives after that many milliseconds of
  generation, generation stops (the token is kept).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from replay.editors.stage import StreamStop


class IndentCut:
    """The server's n_indent state over the generated text, fed one token's text at a time."""

    def __init__(self, n_indent: int) -> None:
        self.n_indent = n_indent
        self.text = ""
        self.has_new_line = False
        self.last_nl_pos = 0

    def feed(self, piece: str) -> int | None:
        """Append one token's text; the length the server cuts the text to when it stops here."""
        self.text += piece
        cut = None
        if self.has_new_line and self.n_indent > 0:
            if self.last_nl_pos > 0:
                pos = self.last_nl_pos
                while pos < len(self.text) and self.text[pos] in " \t":
                    pos += 1
                if pos < len(self.text) and pos - self.last_nl_pos < self.n_indent:
                    cut = pos
            found = self.text.find("\n", self.last_nl_pos)
            if found >= 0:
                self.last_nl_pos = found + 1
        if "\n" in piece:
            self.has_new_line = True
        return cut


def body_int(body: dict[str, Any] | None, key: str) -> int:
    value = (body or {}).get(key, 0)
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def indent_stop(body: dict[str, Any] | None) -> StreamStop | None:
    """The n_indent cut as a stream predicate: called once per streamed token with the text so
    far, it returns where the server cut the text when it stopped (None: generating on)."""
    n_indent = body_int(body, "n_indent")
    if n_indent <= 0:
        return None
    state = IndentCut(n_indent)

    def check(text: str) -> int | None:
        if not text.startswith(state.text):  # a new stream: start over
            state.__init__(n_indent)  # type: ignore[misc]
        return state.feed(text[len(state.text):])

    return check


def server_text(body: dict[str, Any] | None, raw: str, timing: Sequence[tuple[int, float]] | None = None) -> str:
    """What the server sent of the model's text `raw`: cut by n_indent and, when the stream's
    timing is known ((characters so far, seconds) per token), by t_max_predict_ms. Without
    timing the text is fed one character at a time: every line is checked as soon as it has a
    character after its indentation (the server, a token late, may have ended before that)."""
    pieces = _pieces(raw, timing)
    n_indent = body_int(body, "n_indent")
    t_max = body_int(body, "t_max_predict_ms")
    state = IndentCut(n_indent)
    for piece, seconds in pieces:
        cut = state.feed(piece)
        if cut is not None:
            return state.text[:cut]
        if timing is not None and t_max > 0 and "\n" in piece and seconds * 1000 > t_max:
            return state.text
    return state.text


def _pieces(raw: str, timing: Sequence[tuple[int, float]] | None) -> list[tuple[str, float]]:
    if timing:
        out, start = [], 0
        for end, seconds in timing:
            out.append((raw[start:end], seconds))
            start = end
        if start < len(raw):
            out.append((raw[start:], timing[-1][1]))
        return out
    return [(char, 0.0) for char in raw]
