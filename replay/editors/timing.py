"""An editor release's timing rules: when it sends a request after a keystroke, whether the next
keystroke cancels the request in flight, how long it waits for an answer, the time cut it asks
the server for, and whether an answer that comes after the user typed on is still shown.

Each editor package with known rules has a `timing` module whose `timing(version)` returns a
TimingRules read from that editor's source at the release (cited in its `sources`). Quality says
what the editor would show if the user waited; these rules say whether the user waited.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Debounce:
    """The delay between a keystroke and the request it triggers, in milliseconds.

    `mode` is "none" (sent at once), "fixed" (always `min_ms`), "adaptive" (between `min_ms` and
    `max_ms`, by the editor's own estimate), "throttle" (sent at once unless the last request
    went out less than `max_ms` before; then `max_ms` after the keystroke) or "leading" (at once
    after `min_ms` without a keystroke, else `min_ms` after the keystroke if no other came)."""

    mode: str
    min_ms: float = 0.0
    max_ms: float = 0.0

    def bounds(self) -> tuple[float, float]:
        """The shortest and longest delay a keystroke's request may wait."""
        if self.mode == "none":
            return 0.0, 0.0
        if self.mode == "fixed":
            return self.min_ms, self.min_ms
        if self.mode == "leading":
            return 0.0, self.min_ms
        return self.min_ms, self.max_ms


@dataclass(frozen=True)
class TimingRules:
    """One editor release's timing, as its source has it.

    `client_timeout_ms` None: the client never gives up on a request (the server or the host's
    own limits aside). `cancels_in_flight`: the request that follows the next keystroke aborts
    the one in flight, whose answer is then never shown. `shows_late`: an answer that arrives
    after the user typed on can still be shown (from the client's cache, when what was typed
    matches its start), `late_answer` says when. `predict_ms` / `prompt_ms` are the server-side
    time cuts the client sends (llama.cpp's t_max_predict_ms / t_max_prompt_ms), None when it
    sends none. `cache` says what the client serves without a request; `serves_typed`: an answer
    cached at an earlier cursor is served where what was typed since is its start (its rest
    shown). `shown_by_ms`: the client stops reading a stream past that time instead of waiting for
    the whole answer (Continue's showWhateverWeHaveAtXMs: after the first line read past it,
    continue_/stream.py; None: it waits). `in_flight_wait_ms`: a request due while one is in flight
    waits, checking again every that many ms, and is dropped when the user types on (None: it
    goes out at once); the cache is looked up only once the wait is over, and an answer that comes
    after the user typed on reaches the screen that way, from the cache at the waiting call's next
    check (the call that asked for it was cancelled by the host). `serves_typed_whole`: an answer
    the user typed out whole is still a cache hit, whose empty rest shows nothing and asks for
    nothing. `match_wait_ms`: a request due while one sent may still match waits for its answer at
    most that long (None: no such wait). `shown_after_ms`: an answer's item is not shown before
    that long after the keystroke whose call shows it (None: shown when it comes). Both are
    Copilot's, whose own client (replay/editors/copilot/live.py) says which requests count."""

    editor: str
    release: str
    debounce: Debounce
    cancels_in_flight: bool
    client_timeout_ms: float | None
    shows_late: bool
    late_answer: str
    cache: str
    sources: tuple[str, ...]
    predict_ms: int | None = None
    prompt_ms: int | None = None
    server_cut: str = ""
    shown_by_ms: float | None = None
    serves_typed: bool = False
    in_flight_wait_ms: float | None = None
    serves_typed_whole: bool = False
    match_wait_ms: float | None = None
    shown_after_ms: float | None = None
