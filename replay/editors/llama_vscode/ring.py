"""llama.vscode's ring buffer of extra context (src/extra-context.ts, the listeners in
src/architect.ts), as held (`extra`) or replayed from the editing session (`events`).

What the extension does, and how the session's events stand for it:
- `open` / `enter` (onDidChangeActiveTextEditor): two picks around the cursor line of the newly
  active editor; the listener's "previous editor" is read from `window.activeTextEditor`, which
  VS Code has already switched, so both picks are from the new one (the second is dropped as an
  exact duplicate when the chunk is whole, two random windows otherwise). `leave` does nothing.
- `save`: 1000 ms later (a later save restarts the timer), a pick around the cursor when the
  saved file is the active one, else of the whole saved text (`pickChunk(…, noMod, doEvict)`).
- `yank` (copy/cut): the selection's lines, picked 1000 ms later (0 ms before v0.0.6).
- `accept` (a completion was shown at `line`): that is a completion request, so the ring's
  3 s of quiet start again; then, when the cursor moved over 32 lines since the last such pick,
  a chunk of the lines n_prefix..ring_scope above and one of the ring_chunk_size lines from
  n_suffix below, neither checked for duplicates (addFimContextChunks).
- pickChunk: under 3 lines dropped; whole when `lines + 1 < ring_chunk_size`, else a window of
  ring_chunk_size/2 lines at `floor(random · max(0, lines − size/2 + 1))`; with doEvict an exact
  duplicate (ring or queue) is dropped and chunks of line-set Jaccard similarity > 0.9 evicted;
  a full queue (16) drops its oldest chunk but not that chunk's lines, which stay queued and
  shift the pairing of chunks and lines from then on (the source's quirk, kept).
- periodicRingBufferUpdate, every ring_update_ms from the session's first event: one queued
  chunk moves into the ring when 3000 ms passed since the last completion request (from
  v0.0.12, and only once an editor is active: an open, enter or accept); the ring keeps the
  last ring_n_chunks.
Times: an event's `time` is seconds; the extension stamps a chunk with Date.now() at the pick,
here the session's clock in milliseconds. The request is made at the last event's time (timers
and ticks due at or before it have run; at one instant, events before ticks). Documents are
taken as saved (isDirty false). Math.random is a Python Random seeded with the first 8 bytes of
SHA-256 of the line's events as JSON (`seed_of`).
"""

from __future__ import annotations

import hashlib
import heapq
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import msgspec

from replay.editors.llama_vscode import releases as r
from replay.editors.llama_vscode.document import split_lines
from replay.editors.llama_vscode.settings import Settings
from replay.records import ExtraChunk, SessionEvent, Snippet

RING_UPDATE_MIN_TIME_LAST_COMPL = 3000  # src/configuration.ts
MAX_LAST_PICK_LINE_DISTANCE = 32
MAX_QUEUED_CHUNKS = 16
SAVE_DELAY_MS = 1000  # handleDocumentSave's setTimeout


def held(extra: Sequence[ExtraChunk]) -> list[dict[str, Any]]:
    """`input_extra` from the chunks the extension holds, as its literal writes them."""
    return [{"text": c.text, "time": int(c.time) if float(c.time).is_integer() else c.time, "filename": c.filename}
            for c in extra]


def seed_of(events: Sequence[SessionEvent]) -> int:
    return int.from_bytes(hashlib.sha256(msgspec.json.encode(events)).digest()[:8], "big")


def jaccard(lines0: Sequence[str], lines1: Sequence[str]) -> float:
    """jaccardSimilarity: of the two sets of lines (1 for two empty chunks)."""
    if not lines0 and not lines1:
        return 1.0
    a, b = set(lines0), set(lines1)
    return len(a & b) / len(a | b)


@dataclass
class Ring:
    """ExtraContext's fields, and the session's active editor (filename, lines, cursor line)."""

    conf: Settings
    rng: random.Random
    chunks: list[dict[str, Any]] = field(default_factory=list)
    chunks_lines: list[list[str]] = field(default_factory=list)
    queued: list[dict[str, Any]] = field(default_factory=list)
    queued_lines: list[list[str]] = field(default_factory=list)
    last_compl_start: int = 0
    last_line_pick: int = -9999
    active: tuple[str, list[str], int] | None = None
    needs_editor: bool = False  # no update without an active editor (from v0.0.12)

    def pick(self, lines: list[str], evict: bool, filename: str, now: int) -> None:
        """pickChunk(lines, noMod, doEvict, doc) for a saved document."""
        size = self.conf.ring_chunk_size
        if self.conf.ring_n_chunks <= 0 or len(lines) < 3:
            return
        if len(lines) + 1 < size:
            new = lines
        else:
            start = int(self.rng.random() * max(0, len(lines) - size // 2 + 1))
            new = lines[start: min(start + size // 2, len(lines))]
        text = "\n".join(new) + "\n"
        if evict and any(c["text"] == text for c in (*self.chunks, *self.queued)):
            return
        if evict:
            for i in range(len(self.chunks) - 1, -1, -1):
                if jaccard(self.chunks_lines[i], new) > 0.9:
                    del self.chunks[i], self.chunks_lines[i]
            for i in range(len(self.queued) - 1, -1, -1):
                if jaccard(self.queued_lines[i], new) > 0.9:
                    del self.queued[i], self.queued_lines[i]
        if len(self.queued) >= MAX_QUEUED_CHUNKS:
            del self.queued[0]  # queuedChunks.splice(0, 1): queuedChunksLines keeps its first entry
        self.queued.append({"text": text, "time": now, "filename": filename})
        self.queued_lines.append(new)

    def around(self, lines: list[str], line: int, filename: str, now: int) -> None:
        """pickChunkAroundCursor: the lines cursor ± ring_chunk_size/2, with eviction."""
        half = self.conf.ring_chunk_size // 2
        start, end = max(0, line - half), min(line + half, len(lines) - 1)
        self.pick(lines[start: end + 1], True, filename, now)

    def near_completion(self, lines: list[str], line: int, filename: str, now: int) -> None:
        """addFimContextChunks after a shown completion at `line`."""
        if abs(line - self.last_line_pick) <= MAX_LAST_PICK_LINE_DISTANCE:
            return
        c, last = self.conf, len(lines) - 1
        self.pick(_span(lines, max(0, line - c.ring_scope), max(0, line - c.n_prefix)), False, filename, now)
        self.pick(_span(lines, min(last, line + c.n_suffix), min(last, line + c.n_suffix + c.ring_chunk_size)),
                  False, filename, now)
        self.last_line_pick = line

    def tick(self, now: int) -> None:
        """periodicRingBufferUpdate."""
        if self.needs_editor and self.active is None:
            return
        if not self.queued or now - self.last_compl_start < RING_UPDATE_MIN_TIME_LAST_COMPL:
            return
        self.chunks_lines.append(self.queued_lines.pop(0))
        self.chunks.append(self.queued.pop(0))
        while len(self.chunks) > self.conf.ring_n_chunks:
            del self.chunks[0], self.chunks_lines[0]


def _span(lines: list[str], start: int, end: int) -> list[str]:
    """getDocumentLines(start, end): lines start..end inclusive (none when end < start)."""
    return lines[start: end + 1] if end >= start else []


class _Clock:
    """The session's timers (setTimeout, setInterval) in time order; ties in scheduling order."""

    def __init__(self) -> None:
        self._queue: list[tuple[int, int, int, Callable[[int], None]]] = []
        self._seq = 0
        self.save_timer: int | None = None

    def at(self, when: int, action: Callable[[int], None], rank: int = 0) -> int:
        self._seq += 1
        heapq.heappush(self._queue, (when, rank, self._seq, action))
        return self._seq

    def run_until(self, until: int, cancelled: set[int]) -> None:
        while self._queue and self._queue[0][0] <= until:
            when, _, seq, action = heapq.heappop(self._queue)
            if seq not in cancelled:
                action(when)


def simulate(events: Sequence[SessionEvent], conf: Settings, rel: r.Release,
             request_time: float | None = None) -> list[dict[str, Any]]:
    """The ring as sent with a request made at `request_time` (seconds; default the last
    event's time)."""
    if not events:
        return []
    ordered = sorted(events, key=lambda e: e.time)
    ring = Ring(conf=conf, rng=random.Random(seed_of(events)), needs_editor=rel.has(r.RING_NEEDS_EDITOR))
    start, end = _ms(ordered[0].time), _ms(ordered[-1].time if request_time is None else max(request_time, ordered[-1].time))
    ring.last_compl_start = start
    clock, cancelled = _Clock(), set[int]()
    step = max(1, int(conf.ring_update_ms))
    for when in range(start + step, end + 1, step):
        clock.at(when, ring.tick, rank=1)
    for event in ordered:
        clock.at(_ms(event.time), lambda now, e=event: _on(e, now, ring, clock, cancelled, rel))
    clock.run_until(end, cancelled)
    return ring.chunks


# The policy for inputs that give other files (`snippets`, e.g. a public benchmark's cross-file
# context) but no ring and no session: each file is entered, in the given order, with the cursor
# on its first line, one ring_update_ms tick apart, and the request is made 3 s plus 3n + 1
# ticks after the first entry (n files): after the ring's 3 s of quiet, with a tick for each
# entry and for each chunk the entries queue (two per file at most), so every file's chunks are
# held (a file shorter than ring_chunk_size lines whole, else random windows of half that;
# under 3 lines none, as pickChunk drops it), up to ring_n_chunks.
SNIPPET_POLICY = ("each snippet's file entered at its first line, one tick apart; the request after 3 s of quiet"
                  " and a tick per queued chunk")


def snippet_events(snippets: Sequence[Snippet], conf: Settings) -> tuple[tuple[SessionEvent, ...], float]:
    """The session SNIPPET_POLICY stands for, and the time of the request (seconds)."""
    step = max(int(conf.ring_update_ms), 1) / 1000.0
    events = tuple(SessionEvent(kind="enter", time=n * step, filename=s.filepath, text=s.content, line=0)
                   for n, s in enumerate(snippets))
    return events, RING_UPDATE_MIN_TIME_LAST_COMPL / 1000.0 + (3 * len(events) + 1) * step


def _ms(seconds: float) -> int:
    return round(seconds * 1000)


def _on(event: SessionEvent, now: int, ring: Ring, clock: _Clock, cancelled: set[int], rel: r.Release) -> None:
    """One event of the session, as the extension's listeners take it."""
    lines = split_lines(event.text)
    if event.kind in ("open", "enter"):
        ring.active = (event.filename, lines, event.line)
        for _ in range(2):
            clock.at(now, lambda t, e=event, ls=lines: ring.around(ls, e.line, e.filename, t))
    elif event.kind == "save":
        if ring.active is not None and ring.active[0] == event.filename:
            ring.active = (event.filename, lines, event.line)
        if clock.save_timer is not None:
            cancelled.add(clock.save_timer)
        clock.save_timer = clock.at(now + SAVE_DELAY_MS, lambda t, e=event: _saved(e, t, ring))
    elif event.kind == "yank":
        delay = 1000 if rel.has(r.YANK_DELAY) else 0
        clock.at(now + delay, lambda t, e=event: ring.pick(_crlf_lines(e.text), True, e.filename, t))
    elif event.kind == "accept":
        ring.active = (event.filename, lines, event.line)
        ring.last_compl_start = now
        clock.at(now, lambda t, e=event, ls=lines: ring.near_completion(ls, e.line, e.filename, t))


def _crlf_lines(text: str) -> list[str]:
    """`text.split(/\\r?\\n/)`."""
    return text.replace("\r\n", "\n").split("\n")


def _saved(event: SessionEvent, now: int, ring: Ring) -> None:
    """handleDocumentSave's timer: around the active editor's cursor when it shows the saved
    file, else the whole text split on /\\r?\\n/."""
    if ring.active is not None and ring.active[0] == event.filename:
        ring.around(split_lines(event.text), ring.active[2], event.filename, now)
    else:
        ring.pick(_crlf_lines(event.text), True, event.filename, now)
