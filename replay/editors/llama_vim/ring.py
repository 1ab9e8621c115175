"""llama.vim's ring buffer of extra context, replayed from an editing session
(ggml-org/llama.vim autoload/llama.vim `s:pick_chunk`, `s:ring_update`, `s:chunk_sim`, and the
picks and evictions in `llama#fim`).

What the plugin does, and what a replay must assume:
- A chunk is picked (queued) from the 1 + 2·(ring_chunk_size/2) lines around the cursor when a
  buffer is entered (100 ms later), left or written, from the yanked lines on a yank, and, after
  an automatic request more than 32 lines away from the last such pick, from the lines above the
  prefix (back to ring_scope) and below the suffix. Chunks under 3 lines, or equal to one held or
  queued, are dropped. A text of ring_chunk_size - 1 lines or more gives a random window of
  ring_chunk_size/2 + 1 lines (Vim's slice `[l0:l1]` includes l1). Vim's `rand()` is seeded from
  the clock, so a replay draws from a generator seeded by the option `replay.seed` instead.
- A new chunk more than 0.9 similar to a queued or held one evicts it (or, for the picks after
  a request, is itself dropped); the queue holds 16.
- A timer every ring_update_ms (from the plugin's start: the first event) moves the oldest
  queued chunk into the ring (ring_n_chunks, the oldest leaving), in normal mode or after 3 s
  without a cursor move in insert mode. The events (opening, entering, leaving, saving,
  yanking) are normal-mode ones and typing is not an event: a replay takes the user to be in
  normal mode until the request (an automatic request is the first move in insert mode) and
  typing in insert mode for the 3 s after an accepted completion, where ticks move nothing.
  The request is made at the option `replay.request_time` (seconds on the events' clock), else
  at the last event.
- Entered, left and saved buffers are taken to be unmodified files on disk (the plugin skips
  modified or unnamed ones).
- Before a request (1175c8d to ec87086, and since 8087476) held chunks more than 0.5 similar to a
  random window around the cursor are dropped.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass
from typing import Any

from replay.editors.llama_vim.releases import Rules
from replay.editors.llama_vim.request import Buffer
from replay.records import ExtraChunk, SessionEvent

QUEUE_SIZE = 16  # `if len(s:ring_queued) == 16` ("TODO: become parameter ?")
QUIET_S = 3.0  # `reltimefloat(reltime(s:t_last_move)) < 3.0`
ENTER_DELAY_S = 0.1  # BufEnter picks from `timer_start(100, ...)`
FAR_LINES = 32  # `if a:is_auto && l:delta_y > 32`
_NON_WORD = re.compile(r"[^0-9A-Za-z_]+")  # Vim's \W: ASCII only


def similarity(c0: tuple[str, ...], c1: tuple[str, ...], rules: Rules) -> float:
    """`s:chunk_sim`: since 8087476 the Dice coefficient of the \\W-split tokens (each token of c1
    found among c0's counts); before, 2·(lines of c0 found in c1)/(lines of both)."""
    if rules.token_dice:
        tokens0 = [t for t in _NON_WORD.split("\n".join(c0)) if t]
        tokens1 = [t for t in _NON_WORD.split("\n".join(c1)) if t]
        if not tokens0 and not tokens1:
            return 1.0
        seen = set(tokens0)
        return 2.0 * sum(1 for t in tokens1 if t in seen) / (len(tokens0) + len(tokens1))
    if not c0 and not c1:
        return 1.0
    lines1 = set(c1)
    return 2.0 * sum(1 for line in c0 if line in lines1) / (len(c0) + len(c1))


@dataclass
class _Chunk:
    data: tuple[str, ...]
    time: float
    filename: str


def _lines(text: str) -> tuple[str, ...]:
    """A buffer's or a yank's lines (a final newline ends the last line)."""
    lines = text.split("\n")
    if len(lines) > 1 and lines[-1] == "":
        lines.pop()
    return tuple(lines)


def window_at(lines: tuple[str, ...], row: int, size: int) -> tuple[str, ...]:
    """`getline(max([1, y - size/2]), min([y + size/2, line('$')]))` for the 0-based row."""
    return lines[max(0, row - size // 2):min(len(lines), row + size // 2 + 1)]


class Ring:
    """The plugin's queue and ring, driven by a session's events."""

    def __init__(self, config: dict[str, Any], rules: Rules, seed: int) -> None:
        self.config, self.rules = config, rules
        self.rng = random.Random(seed)
        self.queued: list[_Chunk] = []
        self.chunks: list[_Chunk] = []
        self.last_pick_row = -9999

    def _rand(self, lo: int, hi: int) -> int:
        return self.rng.randint(lo, hi)

    def pick(self, text: tuple[str, ...], time: float, filename: str, evict: bool) -> None:
        """`s:pick_chunk(text, no_mod, do_evict)`."""
        size = self.config["ring_chunk_size"]
        if self.config["ring_n_chunks"] <= 0 or len(text) < 3:
            return
        if len(text) + 1 < size:
            chunk = text
        else:
            l0 = self._rand(0, max(0, len(text) - size // 2))
            chunk = text[l0:min(l0 + size // 2, len(text)) + 1]
        if any(c.data == chunk for c in (*self.chunks, *self.queued)):
            return
        for held in (self.queued, self.chunks):
            for i in range(len(held) - 1, -1, -1):
                if similarity(held[i].data, chunk, self.rules) > 0.9:
                    if not evict:
                        return
                    del held[i]
        if len(self.queued) == QUEUE_SIZE:
            del self.queued[0]
        self.queued.append(_Chunk(chunk, time, filename))

    def tick(self) -> None:
        """`s:ring_update`: the oldest queued chunk into the ring (its warm-up request, with
        n_predict 0, changes nothing a replay sees)."""
        if not self.queued:
            return
        if len(self.chunks) == self.config["ring_n_chunks"]:
            del self.chunks[0]
        self.chunks.append(self.queued.pop(0))

    def request(self, lines: tuple[str, ...], row: int, time: float, filename: str, auto: bool,
                cursor_row: int | None = None) -> None:
        """What `llama#fim` does to the ring around sending a request at `row`: the eviction of
        chunks like the window around the cursor (`line('.')`: `cursor_row`, the request's row
        unless given) before, the far picks after."""
        size = self.config["ring_chunk_size"]
        if self.rules.evict_at_request:
            text = window_at(lines, row if cursor_row is None else cursor_row, size)
            l0 = self._rand(0, max(0, len(text) - size // 2))
            near = text[l0:min(l0 + size // 2, len(text)) + 1]
            self.chunks = [c for c in self.chunks if similarity(c.data, near, self.rules) <= 0.5]
        y = row + 1
        if not auto or abs(y - self.last_pick_row) <= FAR_LINES:
            return
        n = len(lines)
        above = lines[max(1, y - self.config["ring_scope"]) - 1:max(1, y - self.config["n_prefix"])]
        below_from = min(n, y + self.config["n_suffix"])
        below = lines[below_from - 1:min(n, y + self.config["n_suffix"] + size)]
        self.pick(above, time, filename, evict=False)
        self.pick(below, time, filename, evict=False)
        self.last_pick_row = y


def _picked_at(event: SessionEvent) -> float:
    """When the plugin picks from an event: a buffer entered, 100 ms later (its timer)."""
    return event.time + (ENTER_DELAY_S if event.kind in ("open", "enter") else 0.0)


def _buffer_event(ring: Ring, event: SessionEvent) -> None:
    window = window_at(_lines(event.text), event.line, ring.config["ring_chunk_size"])
    ring.pick(window, _picked_at(event), event.filename, evict=True)


def simulate(events: tuple[SessionEvent, ...], buf: Buffer, config: dict[str, Any], rules: Rules,
             seed: int, request_time: float | None = None) -> tuple[ExtraChunk, ...]:
    """The ring the plugin holds when it sends the request at `buf`'s cursor after `events`."""
    ring = Ring(config, rules, seed)
    ordered = sorted(events, key=_picked_at)
    if not ordered:
        return ()
    start, interval = min(e.time for e in ordered), config["ring_update_ms"] / 1000.0
    end = ordered[-1].time if request_time is None else request_time
    typing = [e.time for e in ordered if e.kind == "accept"]
    ticks = 1
    for event in [*ordered, None]:
        until = end if event is None else min(end, _picked_at(event))
        while interval > 0 and start + ticks * interval < until:
            at = start + ticks * interval
            if not any(t <= at < t + QUIET_S for t in typing):
                ring.tick()
            ticks += 1
        if event is None or _picked_at(event) > end:
            break
        if event.kind == "yank":
            ring.pick(_lines(event.text), event.time, event.filename, evict=True)
        elif event.kind == "accept":
            ring.request(_lines(event.text), event.line, event.time, event.filename, auto=True)
        else:
            _buffer_event(ring, event)
    ring.request(buf.lines, buf.row, end, "", auto=False)
    return tuple(ExtraChunk(text="\n".join(c.data) + "\n", time=c.time, filename=c.filename) for c in ring.chunks)
