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
never kept. Bodies are passed compressed as they came (the recorder undoes gzip/deflate for
itself).

When the upstream cannot be reached the editor gets 502 with a one-line body; any status the
upstream answers is the editor's answer. A client that goes away mid-stream closes the upstream
request too (so the model stops generating), and the capture says so.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Callable

import aiohttp
from aiohttp import web
from yarl import URL

from replay.proxy.apis import route_of
from replay.proxy.exchange import DEFAULT_MAX_BODY, Exchange

_HOP_BY_HOP = frozenset(("connection", "keep-alive", "proxy-authenticate", "proxy-authorization", "te", "trailer",
                         "trailers", "transfer-encoding", "upgrade", "host", "content-length", "expect"))
_ANSWER_SKIP = frozenset(("connection", "keep-alive", "transfer-encoding", "upgrade", "trailer", "proxy-authenticate"))
MAX_REQUEST = 1 << 30  # the largest request body forwarded (aiohttp refuses larger ones with 413)


class ProxyServer:
    """One listening proxy. `record(exchange)` receives each finished completion exchange (on
    the event loop's thread: it must only queue it)."""

    def __init__(self, upstream: str, record: Callable[[Exchange], None], host: str = "127.0.0.1", port: int = 8765,
                 max_body: int = DEFAULT_MAX_BODY, shutdown_timeout: float = 5.0) -> None:
        self.upstream = upstream.rstrip("/")
        self.record = record
        self.host, self.port = host, port
        self.max_body = max_body
        self.shutdown_timeout = shutdown_timeout
        self._runner: web.AppRunner | None = None
        self._session: aiohttp.ClientSession | None = None

    async def start(self) -> str:
        """Listen; returns the address it listens on (`host:port`, the port chosen when 0)."""
        self._session = aiohttp.ClientSession(
            connector=aiohttp.TCPConnector(limit=0, ttl_dns_cache=300),
            timeout=aiohttp.ClientTimeout(total=None, sock_connect=30),
            auto_decompress=False, skip_auto_headers=("User-Agent", "Accept-Encoding", "Accept"))
        app = web.Application(client_max_size=MAX_REQUEST)
        app.router.add_route("*", "/{tail:.*}", self._handle)
        self._runner = web.AppRunner(app, access_log=None, shutdown_timeout=self.shutdown_timeout)
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

    async def _handle(self, request: web.Request) -> web.StreamResponse:
        started, t0 = time.time(), time.perf_counter()
        body = await request.read()
        route = route_of(request.path) if request.method == "POST" else None
        ex = None
        if route is not None:
            ex = Exchange(request.method, route, request.path, dict(request.query), request.headers, body, started)
        headers = [(k, v) for k, v in request.headers.items() if k.lower() not in _HOP_BY_HOP]
        url = URL(self.upstream + request.rel_url.raw_path_qs, encoded=True)
        assert self._session is not None
        try:
            upstream = await self._session.request(request.method, url, data=body if body else None, headers=headers,
                                                   allow_redirects=False)
        except (aiohttp.ClientError, OSError, asyncio.TimeoutError) as exc:
            reason = f"fimreplay proxy: upstream {self.upstream} unreachable: {type(exc).__name__}: {exc}".replace("\n", " ")
            if ex is not None:
                ex.status, ex.error, ex.total_s = 502, reason, time.perf_counter() - t0
                self.record(ex)
            return web.Response(status=502, text=reason + "\n")
        answer = web.StreamResponse(status=upstream.status, reason=upstream.reason)
        for key, value in upstream.headers.items():
            if key.lower() not in _ANSWER_SKIP:
                answer.headers.add(key, value)
        if ex is not None:
            ex.status = upstream.status
            ex.content_type = upstream.headers.get("Content-Type", "")
            ex.content_encoding = upstream.headers.get("Content-Encoding", "")
        try:
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
        except (ConnectionResetError, aiohttp.ClientConnectionResetError):
            if ex is not None:
                ex.client_disconnected = True
        except (aiohttp.ClientPayloadError, aiohttp.ClientError, asyncio.TimeoutError) as exc:
            if ex is not None:
                ex.error = f"the upstream's answer broke off: {type(exc).__name__}: {exc}".replace("\n", " ")
        finally:
            upstream.close()
            if ex is not None:
                ex.total_s = time.perf_counter() - t0
                self.record(ex)
        return answer


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
