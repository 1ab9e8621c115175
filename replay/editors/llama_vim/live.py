"""llama.vim driven through a typing session in time (replay/editors/live.py), as
ggml-org/llama.vim autoload/llama.vim has it from 1175c8d (2025-03-10, the speculative
follow-up) on; each rule cites the function it is read from.

- `s:setup_autocmds`: CursorMovedI calls `s:on_move` (hide the hint, `s:fim_try_hint` at the
  cursor), then `llama#fim(-1, -1, v:true, [], v:true)`. Vim fires CursorMovedI once the keys it
  was given are handled and only when the cursor is not where it was last seen: one event of the
  session is one keystroke (or one burst of keys), and a deletion or a move is one too.
- `llama#fim`: while a request is in flight nothing is sent; a 100 ms timer (`s:timer_fim`,
  one at a time: a new call stops the pending one) calls it again with the same arguments.
  An automatic request is not sent when the rest of the line is longer than max_line_suffix,
  nor when one of its hashes (the context, and the context with 1 to 3 of the first prefix lines
  dropped) has a cached answer. Nothing is ever stopped and there is no client timeout (a curl
  job without --max-time).
- `s:fim_on_response`: the answer is cached under the request's hashes; unless a hint that can
  be accepted is shown, `s:fim_try_hint` runs at the cursor as it is then. Vim reads the answer
  (no newline ends it) when curl closes its output, and most often has seen the job end
  (`s:fim_on_exit`) by then, so a follow-up asked for from the answer's callback goes out at
  once; in about 3 cases of 10 the output comes first and it waits for the 100 ms timer (Vim
  9.0 with curl, 28 of 40 jobs exit first: docs/figures.md): the model takes the common order.
- Each request reaches the server CURL_START_MS after the job starts (the curl process).
- `s:fim_try_hint`: the answer cached for the cursor's context, or one cached up to 128 bytes
  back whose start is what was typed since (its rest shown); shown by `s:fim_render`, and then a
  speculative `llama#fim` for the context as if the hint were accepted.
- `s:ring_update`: every ring_update_ms, in insert mode only once the cursor has not moved for
  3 s, the oldest queued chunk joins the ring and an /infill request with n_predict 0 carries it
  to the server (its answer is not read). The session's `open` is the user entering insert mode
  at the cursor in a file opened before in normal mode: BufEnter's pick of the window around
  the file's first line (where Vim's cursor was) is in the ring by then, and the ring's timer is
  taken to tick from the open.
- `llama#fim_accept`: 'full' sets the line to the text before the cursor (the whole line at
  column 0: Vim's `line[:-1]`) and the suggestion's first line, appends the others and puts the
  cursor after the suggestion; 'line' sets only the first line (the rest of the line is not
  kept) and, when there are more, feeds an Enter (a new line at the cursor; before 0a811fb
  2026-01-26 only for 3 lines or more). The hint is hidden; the cursor's move is a CursorMovedI.
- The accept keys are mapped only while a hint is shown; otherwise <Tab> and <S-Tab> insert a tab.
- Dismissing is Escape: InsertLeavePre's `llama#fim_hide`, then normal mode, where nothing is
  shown; the next event takes the user back into insert mode.
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any

from replay.editors.live import Doc, Host, Item, Request
from replay.editors.llama_vim.fim_render import render_answer
from replay.editors.llama_vim.releases import SOURCE, resolve, rules_at
from replay.editors.llama_vim.request import (
    Buffer,
    LocalContext,
    build_body,
    follow_up_context,
    input_extra,
    local_context,
)
from replay.editors.llama_vim.ring import QUIET_S, Ring, window_at
from replay.editors.llama_vim.settings import seed, settings
from replay.editors.llama_vim.timing import SPECULATIVE, since
from replay.editors.interface import NoTiming
from replay.editors.llama_server import split_version
from replay.records import ExtraChunk

ENTER_FOR_TWO = "0a811fb"  # accepting a line of a 2-line hint feeds the Enter too (before: of 3 lines or more)
# The server has the body this long after llama#fim started the curl job (a process start and a
# connection: the median seen in recordings of Vim 9.0 with curl here, docs/figures.md).
CURL_START_MS = 35.0
RETRY_MS = 100  # `timer_start(100, {-> llama#fim(...)})` while a request is in flight
BACK_BYTES = 128  # `for i in range(128)` in s:fim_try_hint (since 1175c8d)
MARK = "Î".encode()  # the separator of prefix + middle and suffix in every cache key


@dataclass
class _Hint:
    """`s:fim_data`: where the hint is shown, its line and lines, and the request it came from."""

    row: int
    col: int
    line: str
    content: list[str]
    can_accept: bool
    request: int


@dataclass
class _Cached:
    content: str
    request: int


@dataclass
class _State:
    cache: OrderedDict[bytes, _Cached] = field(default_factory=OrderedDict)
    hint: _Hint | None = None
    shown: bool = False  # s:fim_hint_shown
    job: Request | None = None  # s:current_job_fim
    timer: int | None = None  # s:timer_fim
    indent_last: int = -1
    last_move_ms: float = 0.0  # s:t_last_move
    last_seen: tuple[int, int] | None = None  # where Vim last saw the cursor (CursorMovedI fires on a change)
    insert: bool = True  # in insert mode (a dismiss is Escape)


def _key(prefix_middle: bytes, suffix: str) -> bytes:
    return prefix_middle + MARK + suffix.encode()


def _hashes(ctx: LocalContext) -> list[bytes]:
    """`l:hashes` of llama#fim: the context, then with its first prefix line dropped, up to 3 times."""
    keys = [_key((ctx.prefix + ctx.middle).encode(), ctx.suffix)]
    trimmed = ctx.prefix
    for _ in range(3):
        trimmed = trimmed.split("\n", 1)[1] if "\n" in trimmed else trimmed  # substitute '^[^\n]*\n'
        if not trimmed:
            break
        keys.append(_key((trimmed + ctx.middle).encode(), ctx.suffix))
    return keys


def _head(line: str, col: int) -> str:
    """Vim's `line[:(col - 1)]` on bytes: the whole line at column 0."""
    return line if col == 0 else line.encode()[:col].decode("utf-8", errors="ignore")


class LlamaVimClient:
    """The plugin's FIM loop and ring updates against the session's host."""

    def __init__(self, host: Host, version: str | None, options: dict[str, Any], filepath: str) -> None:
        client, _ = split_version(version)
        if not since(resolve(client), SPECULATIVE):
            raise NoTiming(f"llama.vim sessions are modelled from {SPECULATIVE} (2025-03-10, {SOURCE} s:fim_try_hint "
                           "and the speculative follow-up) on")
        self.host, self.rules = host, rules_at(client)
        self.enter_after = 1 if since(resolve(client), ENTER_FOR_TWO) else 2
        self.config = settings(dict(options), self.rules)
        self.auto = bool(self.config["auto_fim"]) and bool(self.config.get("enable_at_startup", True))
        self.ring = Ring(self.config, self.rules, seed(options))  # Vim's rand() is seeded from the clock
        self.filepath = filepath
        self.state = _State()

    # --- the buffer as Vim holds it

    def _buffer(self) -> tuple[Buffer, bool]:
        """The document as Vim's lines and byte cursor, and whether a final newline was read off."""
        doc = self.host.doc()
        buf = Buffer.of(doc.prefix, doc.suffix)
        return buf, len(buf.lines) < len(doc.text.split("\n"))

    def _set(self, lines: list[str], row: int, col: int, eol: bool) -> None:
        text = "\n".join(lines) + ("\n" if eol else "")
        line = lines[row].encode()[:col].decode("utf-8", errors="ignore")
        self.host.set_doc(Doc(text, sum(len(s) + 1 for s in lines[:row]) + len(line)))

    def _at(self, row: int, col: int) -> Buffer:
        return Buffer(self._buffer()[0].lines, row, col)

    # --- the user's events

    def opened(self) -> None:
        """The file was opened in normal mode before the session, Vim's cursor on its first line:
        BufEnter's pick of the window around that line (100 ms after entering) has already
        reached the ring, which s:ring_update fills in normal mode. At the open the user enters
        insert mode at the cursor."""
        buf, _ = self._buffer()
        self.state.last_seen = (0, 0)
        self.state.last_move_ms = self.host.now()
        if self.config["ring_n_chunks"] > 0 and self.config.get("enable_at_startup", True):
            self.ring.pick(window_at(buf.lines, 0, self.config["ring_chunk_size"]), self.host.now() / 1000,
                           self.filepath, evict=True)
            self.ring.tick()
            self.host.later(self.config["ring_update_ms"], self._ring_update, background=True)
        self._cursor_moved_i()

    def edited(self, changed: bool) -> None:  # noqa: ARG002 - Vim's events do not tell an edit from a move
        """A key in insert mode (after a dismiss, the user is back in insert mode at the cursor first)."""
        self.state.insert = True
        self._cursor_moved_i()

    def _cursor_moved_i(self) -> None:
        """CursorMovedI: only when the cursor is not where Vim last saw it, and only with auto_fim
        on (s:setup_autocmds) in an enabled plugin (enable_at_startup, since 7202297)."""
        buf, _ = self._buffer()
        if self.state.last_seen == (buf.row, buf.col) or not self.auto:
            return
        self.state.last_seen = (buf.row, buf.col)
        self._on_move()
        self._fim(None, None)

    def accept(self, line_only: bool) -> None:
        hint = self.state.hint
        if not self.state.shown or hint is None:
            self._unmapped_tab()
            return
        if hint.can_accept and hint.content:
            buf, eol = self._buffer()
            lines = list(buf.lines)
            content = hint.content
            lines[hint.row] = _head(hint.line, hint.col) + content[0]
            if len(content) > 1 and not line_only:
                lines[hint.row + 1:hint.row + 1] = content[1:]
            if line_only or len(content) == 1:
                row, col = hint.row, hint.col + len(content[0].encode())
                if len(content) > self.enter_after:  # feedkeys("\<CR>")
                    line = lines[row].encode()
                    lines[row:row + 1] = [line[:col].decode("utf-8", "ignore"), line[col:].decode("utf-8", "ignore")]
                    row, col = row + 1, 0
            else:
                row, col = hint.row + len(content) - 1, len(content[-1].encode())
            col = min(col, len(lines[row].encode()))
            self._set(lines, row, col, eol)
        self._hide()
        self._cursor_moved_i()

    def _unmapped_tab(self) -> None:
        """The accept keys (<Tab>, <S-Tab>) are mapped only while a hint is shown (s:fim_render
        maps them, llama#fim_hide unmaps them): otherwise the key inserts a tab, as both do in
        insert mode."""
        doc = self.host.doc()
        self.host.set_doc(Doc(doc.prefix + "\t" + doc.suffix, doc.cursor + 1))
        self.edited(True)

    def dismiss(self) -> None:
        """Escape: InsertLeavePre hides the hint; Vim leaves insert mode with the cursor one
        character back (not at a line's start), a CursorMoved in normal mode (s:on_move: its
        s:fim_try_hint shows nothing outside insert mode, nor does an answer that comes now)."""
        self._hide()
        if not self.state.insert:
            return  # Escape in normal mode does nothing
        self.state.insert = False
        doc = self.host.doc()
        if doc.cursor > 0 and doc.text[doc.cursor - 1] != "\n":
            self.host.set_doc(Doc(doc.text, doc.cursor - 1))
        buf, _ = self._buffer()
        if self.state.last_seen != (buf.row, buf.col):
            self.state.last_seen = (buf.row, buf.col)
            self._on_move()

    # --- the plugin's functions

    def _hide(self) -> None:
        """llama#fim_hide."""
        if self.state.shown:
            self.host.hide()
        self.state.shown = False

    def _on_move(self) -> None:
        """s:on_move."""
        self.state.last_move_ms = self.host.now()
        self._hide()
        buf, _ = self._buffer()
        self._try_hint(buf.row, buf.col)

    def _context(self, buf: Buffer, prev: list[str] | None) -> LocalContext:
        n_prefix, n_suffix = self.config["n_prefix"], self.config["n_suffix"]
        if prev is None:
            return local_context(buf, self.rules, n_prefix, n_suffix)
        return follow_up_context(buf, n_prefix, n_suffix, prev, self.state.indent_last)

    def _fim(self, pos: tuple[int, int] | None, prev: list[str] | None) -> None:
        """llama#fim(pos_x, pos_y, v:true, prev, v:true)."""
        state = self.state
        if state.job is not None:
            if state.timer is not None:
                self.host.stop_timer(state.timer)
            state.timer = self.host.later(RETRY_MS, lambda: self._fim(pos, prev))
            return
        buf, _ = self._buffer()
        row, col = pos if pos is not None else (buf.row, buf.col)
        at = Buffer(buf.lines, row, col)
        ctx = self._context(at, prev)
        if len(ctx.rest_of_line.encode()) > self.config["max_line_suffix"]:
            return
        hashes = _hashes(ctx)
        if any(self._cache_get(h) is not None for h in hashes):
            return
        state.indent_last = ctx.indent
        # the eviction of chunks like the cursor's window before sending, the far picks after
        self.ring.request(buf.lines, row, self.host.now() / 1000, self.filepath, auto=True, cursor_row=buf.row)
        body = build_body(ctx, self._extra(), self.config, self.rules, "auto", follow_up=prev is not None)
        holder: list[Request] = []
        state.job = self.host.send(body, lambda text: self._on_response(hashes, holder[0], text),
                                   reaches_server_ms=CURL_START_MS)
        holder.append(state.job)

    def _on_response(self, hashes: list[bytes], request: Request, text: str) -> None:
        """s:fim_on_exit, then s:fim_on_response: the answer has no newline, so Vim's channel (NL
        mode) hands it over when curl closes its output, mostly after Vim saw the job end."""
        if self.state.job is request:
            self.state.job = None
        for h in hashes:
            self._cache_insert(h, _Cached(text, request.n))
        hint = self.state.hint
        if not self.state.shown or hint is None or not hint.can_accept:
            buf, _ = self._buffer()
            self._try_hint(buf.row, buf.col)

    def _try_hint(self, row: int, col: int) -> None:
        """s:fim_try_hint: "show the suggestion only in insert mode"."""
        if not self.state.insert:
            return
        ctx = local_context(self._at(row, col), self.rules, self.config["n_prefix"], self.config["n_suffix"])
        pm = (ctx.prefix + ctx.middle).encode()
        found = self._cache_get(_key(pm, ctx.suffix))
        if found is None:
            best = 0
            for i in range(BACK_BYTES):
                # Vim's `pm[:-(2 + i)]` ends inclusively: all but the last i + 1 bytes (removed)
                cached = self._cache_get(pm[:-(1 + i)] + MARK + ctx.suffix.encode())
                if cached is None:  # (the plugin also skips a cached "", which a server's JSON never is)
                    continue
                content = cached.content.encode()
                if content[0:i + 1] != pm[-(1 + i):]:
                    continue
                rest = content[i + 1:]
                if rest:
                    if found is None:
                        found = _Cached(rest.decode("utf-8", errors="ignore"), cached.request)
                    elif len(rest) > best:  # the plugin's `best` starts at 0: the second match replaces the first
                        best = len(rest)
                        found = _Cached(rest.decode("utf-8", errors="ignore"), cached.request)
        if found is None:
            return
        self._render(row, col, found)
        if self.state.shown and self.state.hint is not None:
            self._fim((row, col), list(self.state.hint.content))

    def _render(self, row: int, col: int, cached: _Cached) -> None:
        """s:fim_render: the hint's lines, what accepting all of it makes of the line."""
        at = self._at(row, col)
        rendered = render_answer(at, cached.content, self.rules, self.config["n_prefix"], self.config["n_suffix"])
        self.state.hint = _Hint(row, col, rendered.line, list(rendered.content), rendered.can_accept, cached.request)
        self.state.shown = True
        if rendered.inserts:
            self.host.show(cached.request, self._item(at, rendered.line, list(rendered.content)))

    def _item(self, at: Buffer, line_cur: str, content: list[str]) -> Item:
        """The shown hint as an edit at the cursor: what accepting all of it does to the line."""
        line = at.line(at.row)
        before = line.encode()[:at.col].decode("utf-8", errors="ignore")
        new = "\n".join([_head(line_cur, at.col) + content[0], *content[1:]])
        same = 0
        while same < min(len(before), len(new)) and before[same] == new[same]:
            same += 1
        return Item(new[same:], replace_before=len(before) - same, replace_after=len(line) - len(before))

    def _extra(self) -> tuple[ExtraChunk, ...]:
        return tuple(ExtraChunk(text="\n".join(c.data) + "\n", time=c.time, filename=c.filename)
                     for c in self.ring.chunks)

    def _cache_get(self, key: bytes) -> _Cached | None:
        """s:cache_get: a hit becomes the most recently used (LRU since d1961ad)."""
        value = self.state.cache.get(key)
        if value is not None:
            self.state.cache.move_to_end(key)
        return value

    def _cache_insert(self, key: bytes, value: _Cached) -> None:
        """s:cache_insert: the least recently used key leaves once max_cache_keys are held."""
        cache = self.state.cache
        if len(cache) > self.config["max_cache_keys"] - 1:
            cache.popitem(last=False)
        cache[key] = value
        cache.move_to_end(key)

    # --- the ring's timers

    def _ring_update(self) -> None:
        """s:ring_update: re-armed first; in insert mode only after 3 s without a move."""
        self.host.later(self.config["ring_update_ms"], self._ring_update, background=True)
        if (self.state.insert and self.host.now() - self.state.last_move_ms < QUIET_S * 1000) or not self.ring.queued:
            return
        self.ring.tick()
        body: dict[str, Any] = {}
        if self.rules.id_slot:
            body["id_slot"] = 0
        body.update({"input_prefix": "", "input_suffix": "", "input_extra": input_extra(self._extra()), "prompt": "",
                     "n_predict": 0, "temperature": 0.0, "samplers": [], "stream": False, "cache_prompt": True,
                     "t_max_prompt_ms": 1, "t_max_predict_ms": 1, "response_fields": [""]})
        if self.rules.model_setting:
            body["model"] = self.config[self.rules.model_setting]
        self.host.send(body, lambda text: None, scripted=False, reaches_server_ms=CURL_START_MS)  # "no callbacks": its answer is not read
