"""The forwarding server: every request goes to the upstream unchanged and its answer comes
back unchanged, chunk by chunk as the upstream writes it (a server-sent-event or NDJSON stream
is never buffered); completion exchanges are handed to the recorder once they finish.

asyncio (aiohttp's server and client) with one pooled upstream session: the per-request work on
the event loop is the header filter, a route lookup, and appending each chunk to a list for the
recorder, which decodes it later on its own thread (replay.proxy.recorder). Hop-by-hop headers
(RFC 9110 section 7.6.1: Connection, Keep-Alive, TE, Trailer, Transfer-Encoding, Upgrade, and
Proxy-Authorization / Proxy-Authenticate, meant for this hop) are not forwarded, nor Expect
(curl's `100-continue`, answered here: the body is read before it is forwarded); Host is the
upstream's. Everything else, Authorization and API-key headers included, is forwarded as is and
never kept. Bodies, the request's and the answer's, are passed compressed as they came (the
recorder undoes gzip/deflate for itself).

When the upstream cannot be reached the editor gets 502 with a one-line body; any status the
upstream answers is the editor's answer. A client that goes away mid-stream closes the upstream
request too (so the model stops generating), and the capture says so.

A request the proxy cannot take (a request line or header HTTP does not allow, a chunked body
cut or malformed, a body over 1 GiB, a client gone before its body arrived) is never forwarded:
the client gets aiohttp's 4xx answer where it still listens, and `warn` one line naming the
request (its number, method and path once they were read, its peer) and what was wrong, never a traceback nor an
exception's name. aiohttp reports those faults through its server logger (web_protocol.py
`handle_error`, "Error handling request"); each server gets a logger of its own that says them
this way, and its event loop's exception handler does the same for anything asyncio would print.
Every exchange on a recorded route reaches `record` exactly once, whatever broke it off.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
import re
import threading
import time
from collections.abc import Callable
from typing import Any

import aiohttp
from aiohttp import web
from aiohttp.http_exceptions import HttpProcessingError
from yarl import URL

from replay.proxy.apis import route_of
from replay.proxy.exchange import DEFAULT_MAX_BODY, Exchange, as_text
from replay.secrets import scrub_text

_HOP_BY_HOP = frozenset(("connection", "keep-alive", "proxy-authenticate", "proxy-authorization", "te", "trailer",
                         "trailers", "transfer-encoding", "upgrade", "host", "content-length", "expect"))
_ANSWER_SKIP = frozenset(("connection", "keep-alive", "transfer-encoding", "upgrade", "trailer", "proxy-authenticate"))
MAX_REQUEST = 1 << 30  # the largest request body forwarded (aiohttp refuses larger ones with 413)
_FAULT_CHARS = 240  # the most of a fault's description one line gives


def fault_text(exc: BaseException) -> str:
    """What went wrong, in words and on one line, without the exception's name: aiohttp's HTTP
    parser errors say what was wrong, then (after a blank line) the bytes around it, which are
    left out (they may hold a header's credential)."""
    message = exc.message if isinstance(exc, HttpProcessingError) and exc.message else str(exc)
    words = []
    for line in str(message).splitlines():
        if not line.strip():
            break
        words.append(line.strip())
    text = _BYTES_SHOWN.sub("", " ".join(words)).rstrip(":").strip() or "no detail given"
    return scrub_text(text)[:_FAULT_CHARS]


# What the request held, shown by aiohttp's parser errors: "Got more than 8190 bytes when reading:
# b'...'", "Bad status line 'FOO /x?key=... HTTP/1.1'" (http_exceptions.py): left out.
_BYTES_SHOWN = re.compile(r"""(:?\s*b['"]|(?<=Bad status line) ['"]).*$""")


class _OneLine(logging.Handler):
    """aiohttp's server logger and asyncio's, for one proxy: a record with an exception, or a
    warning or worse, becomes one line to `say`; the rest (debug notes) is dropped."""

    def __init__(self, say: Callable[[str], None]) -> None:
        super().__init__(logging.DEBUG)
        self.say = say

    def emit(self, record: logging.LogRecord) -> None:
        if record.levelno < logging.WARNING and record.exc_info is None:
            return
        if record.msg == "Error handling request from %s" and record.args:  # web_protocol.py handle_error
            text = f"a request from {record.args[0]} (not HTTP this proxy can take) was refused"  # type: ignore[index]
        else:
            try:
                text = record.getMessage()
            except Exception:  # noqa: BLE001 - a message whose arguments do not format is still said
                text = str(record.msg)
        if record.exc_info and record.exc_info[1] is not None:
            text = f"{text.rstrip('.: ')}: {fault_text(record.exc_info[1])}"
        self.say(scrub_text(text)[:2 * _FAULT_CHARS])


class ProxyServer:
    """One listening proxy. `record(exchange)` receives each finished completion exchange (on
    the event loop's thread: it must only queue it); `warn(line)` each request refused, one line
    (on the same thread); `refused` counts them."""

    def __init__(self, upstream: str, record: Callable[[Exchange], None], host: str = "127.0.0.1", port: int = 8765,
                 max_body: int = DEFAULT_MAX_BODY, shutdown_timeout: float = 5.0,
                 warn: Callable[[str], None] | None = None) -> None:
        self.upstream = upstream.rstrip("/")
        self.record = record
        self.host, self.port = host, port
        self.max_body = max_body
        self.shutdown_timeout = shutdown_timeout
        self.warn = warn
        self.refused = 0
        self._numbers = itertools.count(1)
        self._runner: web.AppRunner | None = None
        self._session: aiohttp.ClientSession | None = None
        self._log = logging.Logger(f"fimreplay.proxy.{id(self):x}", logging.DEBUG)  # its own: not in logging's tree
        self._log.addHandler(_OneLine(self._refuse))
        self._log.propagate = False

    def _refuse(self, text: str) -> None:
        self.refused += 1
        if self.warn is not None:
            self.warn(f"proxy: {text}")

    def _loop_fault(self, loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
        """The event loop's exception handler: what asyncio would print with a traceback."""
        exc = context.get("exception")
        what = str(context.get("message") or "event loop fault")
        self._refuse(f"{what}: {fault_text(exc)}" if isinstance(exc, BaseException) else what)

    async def start(self) -> str:
        """Listen; returns the address it listens on (`host:port`, the port chosen when 0)."""
        asyncio.get_running_loop().set_exception_handler(self._loop_fault)
        self._session = aiohttp.ClientSession(
            connector=aiohttp.TCPConnector(limit=0, ttl_dns_cache=300),
            timeout=aiohttp.ClientTimeout(total=None, sock_connect=30),
            auto_decompress=False, skip_auto_headers=("User-Agent", "Accept-Encoding", "Accept"))
        app = web.Application(client_max_size=MAX_REQUEST)
        app.router.add_route("*", "/{tail:.*}", self._handle)
        # auto_decompress off: a compressed request body is read and forwarded as it came (the
        # recorder undoes gzip/deflate for itself), not inflated here under its Content-Encoding.
        self._runner = web.AppRunner(app, access_log=None, shutdown_timeout=self.shutdown_timeout, logger=self._log,
                                     auto_decompress=False)
        await self._runner.setup()
        site = web.TCPSite(self._runner, self.host, self.port)
        await site.start()
        host, port = self._runner.addresses[0][:2]
        self.port = port
        return f"{host}:{port}"

    async def close(self) -> None:
        """Stop listening, let the exchanges under way finish (up to `shutdown_timeout`)."""
        if self._runner is not None:
            await self._runner.cleanup()
        if self._session is not None:
            await self._session.close()

    def _named(self, number: int, request: web.Request) -> str:
        """A request as a line names it: number, method, path (no query: it may carry a key), peer."""
        return f"request {number} ({request.method} {scrub_text(as_text(request.path))[:120]} from {request.remote})"

    async def _handle(self, request: web.Request) -> web.StreamResponse:
        number = next(self._numbers)
        started, t0 = time.time(), time.perf_counter()
        try:
            body = await request.read()
        except web.HTTPException as exc:  # over MAX_REQUEST: aiohttp's own 413
            self._refuse(f"{self._named(number, request)}: {exc.reason.lower()} (over {MAX_REQUEST >> 20} MiB): "
                         "not forwarded")
            raise
        except Exception as exc:  # noqa: BLE001 - a body cut or malformed on the wire, the client gone
            self._refuse(f"{self._named(number, request)}: the body could not be read ({fault_text(exc)}): not forwarded")
            return web.Response(status=400, text=f"fimreplay proxy: the request's body could not be read: {fault_text(exc)}\n")
        route = route_of(request.path) if request.method == "POST" else None
        ex = None
        if route is not None:
            ex = Exchange(number, request.method, route, request.path, dict(request.query), request.headers, body, started)
        headers = [(k, v) for k, v in request.headers.items() if k.lower() not in _HOP_BY_HOP]
        url = URL(self.upstream + request.rel_url.raw_path_qs, encoded=True)
        assert self._session is not None
        try:
            upstream = await self._session.request(request.method, url, data=body if body else None, headers=headers,
                                                   allow_redirects=False)
        except Exception as exc:  # noqa: BLE001 - not reached, refused, or the request could not be sent as it came
            why = "unreachable" if isinstance(exc, (aiohttp.ClientError, OSError, asyncio.TimeoutError)) else "not forwarded"
            reason = f"fimreplay proxy: upstream {scrub_text(self.upstream)} {why}: {fault_text(exc)}"
            if ex is not None:
                ex.status, ex.error, ex.total_s = 502, reason, time.perf_counter() - t0
                self.record(ex)
            elif why != "unreachable":
                self._refuse(f"{self._named(number, request)}: {reason.removeprefix('fimreplay proxy: ')}")
            return web.Response(status=502, text=reason + "\n")
        try:
            answer = web.StreamResponse(status=upstream.status, reason=upstream.reason)
            for key, value in upstream.headers.items():
                if key.lower() not in _ANSWER_SKIP:
                    answer.headers.add(key, value)
            if ex is not None:
                ex.status = upstream.status
                ex.content_type = upstream.headers.get("Content-Type", "")
                ex.content_encoding = upstream.headers.get("Content-Encoding", "")
            await answer.prepare(request)
            async for chunk in upstream.content.iter_any():
                if ex is not None:
                    if ex.ttfb_s is None:
                        ex.ttfb_s = time.perf_counter() - t0
                    if ex.answer_size < self.max_body:
                        ex.chunks.append(chunk)
                    else:
                        ex.answer_truncated = True
                    ex.answer_size += len(chunk)
                await answer.write(chunk)
            await answer.write_eof()
        except ConnectionResetError:  # the client went away (aiohttp's ClientConnectionResetError is one)
            if ex is not None:
                ex.client_disconnected = True
        except (aiohttp.ClientPayloadError, aiohttp.ClientError, asyncio.TimeoutError) as exc:
            if ex is not None:
                ex.error = f"the upstream's answer broke off: {fault_text(exc)}"
            _cut_off(request)
        except Exception as exc:  # noqa: BLE001 - an answer aiohttp could not pass on as it came
            if ex is not None:
                ex.error = f"the answer could not be passed on: {fault_text(exc)}"
            self._refuse(f"{self._named(number, request)}: the answer could not be passed on: {fault_text(exc)}")
            _cut_off(request)
        finally:
            upstream.close()
            if ex is not None:
                ex.total_s = time.perf_counter() - t0
                self.record(ex)
        return answer


def _cut_off(request: web.Request) -> None:
    """Close the client's connection after what was passed on, without ending the answer: the
    client sees it cut, as it was, rather than a whole answer that is short (aiohttp then finds
    the connection closing and ends the request quietly)."""
    if request.transport is not None:
        request.transport.close()


class ProxyThread:
    """A ProxyServer on its own event loop in a background thread (the TUI's `--proxy`, tests,
    the bench): `start()` returns once it listens, `stop()` once it has closed."""

    def __init__(self, server: ProxyServer) -> None:
        self.server = server
        self.loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self.loop.run_forever, name="fimreplay-proxy", daemon=True)
        self.address = ""

    def start(self) -> str:
        self._thread.start()
        self.address = asyncio.run_coroutine_threadsafe(self.server.start(), self.loop).result()
        return self.address

    def stop(self) -> None:
        if not self._thread.is_alive():
            return
        asyncio.run_coroutine_threadsafe(self.server.close(), self.loop).result()
        self.loop.call_soon_threadsafe(self.loop.stop)
        self._thread.join()
        self.loop.close()
