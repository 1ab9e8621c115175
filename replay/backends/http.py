"""What every HTTP backend shares: endpoints balanced by load, timeouts, retries with backoff,
and API keys that never leave the request headers.

An endpoint is picked per request: the one with the fewest requests in flight (ties go round
robin), so several `--endpoint`s share the work by their speed. 5xx, 429, connection errors
and timeouts are retried with exponential backoff (a 429's Retry-After is honoured, capped);
other 4xx and unreadable bodies fail at once. After the last try the item gets the error and
the run goes on (replay.run.runner). The API key is read from the environment variable named by
the backend, sent only as a header, and scrubbed from every error message.
"""

from __future__ import annotations

import contextlib
import itertools
import json
import os
import socket
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from typing import Any, TypeVar

import httpx

from replay import secrets
from replay.backends.base import Backend, BackendError
from replay.errors import UsageError

RETRY_STATUS = frozenset({429, 500, 502, 503, 504})
DEFAULT_MAX_RESPONSE_BYTES = 8 * 1024 * 1024  # far above any completion; bounds what one answer can take
T = TypeVar("T")


def api_key(env: str) -> str:
    """The key in the variable the user named (`--api-key-env`), registered as a secret from
    then on. The variable must be set: running without the key would only fail later (401s),
    or send nothing and succeed against the wrong server."""
    value = os.environ.get(env)
    if not value:
        raise UsageError(f"--api-key-env {env}: the environment variable {env} is not set (or empty)")
    secrets.register(value)
    return value


class _Retry(BackendError):
    """A failure status worth another try (5xx, 429): its one-line reason, and a 429's
    Retry-After in seconds."""

    def __init__(self, reason: str, after: float | None = None) -> None:
        super().__init__(reason, retryable=True)
        self.reason = reason
        self.after = after


RESPONSE_CAP = "response_cap"  # the finish reason of a completion cut at the response cap


class ResponseTooLarge(BackendError):
    """An answer longer than the response cap: reading stopped there (what came before it may
    still be used: a stream's text so far, kept as a truncated completion)."""

    truncated = True


class _Deadline:
    """The end of one request's time: at `seconds` after its start the socket it uses is shut
    down, which wakes a read blocked on a silent or trickling server. The socket is known from
    the connection's trace event (a new connection) or from the response (a reused one, whose
    wait for the headers httpx's read timeout bounds)."""

    def __init__(self, seconds: float) -> None:
        self.expired = False
        self._socket: socket.socket | None = None
        self._lock = threading.Lock()
        self._timer = threading.Timer(seconds, self._expire)
        self._timer.daemon = True
        self._timer.start()

    def trace(self, event: str, info: dict[str, Any]) -> None:
        if event in ("connection.connect_tcp.complete", "connection.start_tls.complete"):
            self.watch(info.get("return_value"))

    def watch(self, stream: Any) -> None:
        sock = stream.get_extra_info("socket") if stream is not None else None
        if sock is None:
            return
        with self._lock:
            self._socket = sock
            if self.expired:
                _shutdown(sock)

    def _expire(self) -> None:
        with self._lock:
            self.expired = True
            if self._socket is not None:
                _shutdown(self._socket)

    def cancel(self) -> None:
        self._timer.cancel()


def _shutdown(sock: socket.socket) -> None:
    try:
        sock.shutdown(socket.SHUT_RDWR)
    except OSError:
        pass  # closed already


def _lines(chunks: Iterable[bytes]) -> Iterator[bytes]:
    """The lines of a byte stream, split on LF only (server-sent events; a CR before it is
    stripped by the reader)."""
    pending = b""
    for chunk in chunks:
        pending += chunk
        *done, pending = pending.split(b"\n")
        yield from done
    if pending:
        yield pending


class Endpoints:
    """Base URLs with in-flight counts: `acquire` picks the least busy one."""

    def __init__(self, urls: list[str]) -> None:
        if not urls:
            raise BackendError("no --endpoint given")
        self.urls = [u.rstrip("/") for u in urls]
        self.in_flight = [0] * len(self.urls)
        self.served = [0] * len(self.urls)
        self._turn = itertools.count()
        self._lock = threading.Lock()

    def acquire(self) -> int:
        with self._lock:
            n = len(self.urls)
            start = next(self._turn) % n
            index = min(((start + i) % n for i in range(n)), key=lambda j: self.in_flight[j])
            self.in_flight[index] += 1
            return index

    def release(self, index: int) -> None:
        with self._lock:
            self.in_flight[index] -= 1
            self.served[index] += 1


class HttpBackend(Backend):
    """A backend that POSTs JSON to one of several endpoints."""

    max_concurrency = 64
    api_key_env: str | None = None  # the environment variable holding the key, if any

    def __init__(self, model: str, model_id: str, endpoints: list[str], timeout: float = 60.0, retries: int = 3,
                 backoff: float = 0.5, api_key_env: str | None = None,
                 max_response_bytes: int = DEFAULT_MAX_RESPONSE_BYTES) -> None:
        super().__init__(model, model_id)
        self.endpoints = Endpoints(endpoints)
        self.timeout = timeout
        self.retries = retries
        self.backoff = backoff
        self.max_response_bytes = max_response_bytes
        if api_key_env:
            api_key(api_key_env)
            self.api_key_env = api_key_env
        self._api_key = os.environ.get(self.api_key_env) if self.api_key_env else None
        secrets.register(self._api_key)  # an answer or an error that echoes it is scrubbed wherever it is written
        limits = httpx.Limits(max_connections=self.max_concurrency, max_keepalive_connections=self.max_concurrency)
        self.client = httpx.Client(timeout=httpx.Timeout(timeout), limits=limits)

    def auth_headers(self, key: str) -> dict[str, str]:
        """How the key is sent (Bearer by default; Anthropic uses x-api-key)."""
        return {"Authorization": f"Bearer {key}"}

    def headers(self) -> dict[str, str]:
        return self.auth_headers(self._api_key) if self._api_key else {}

    def scrub(self, message: str) -> str:
        return secrets.scrub_text(message)

    def _with_retries(self, path: str, attempt: Callable[[str], T]) -> T:
        """`attempt(url)` on the least busy endpoint, tried again with exponential backoff when it
        raises _Retry (5xx, 429: whose Retry-After is honoured, capped) or the connection fails or
        times out; after the last try a retryable BackendError with the last reason."""
        last = ""
        delay = self.backoff
        for tried in range(self.retries + 1):
            if tried:
                time.sleep(delay)
                delay = self.backoff * (2 ** tried)
            index = self.endpoints.acquire()
            url = self.endpoints.urls[index] + path
            try:
                return attempt(url)
            except _Retry as retry:
                last = retry.reason
                if retry.after is not None:
                    delay = min(retry.after, 30.0)
            except (httpx.TimeoutException, httpx.TransportError) as exc:
                last = self._transport_failure(url, exc)
            except httpx.HTTPError as exc:  # not worth another try: a bad URL, a protocol error
                raise BackendError(self.scrub(f"{url}: {type(exc).__name__}: {_short(str(exc))}")) from None
            finally:
                self.endpoints.release(index)
        raise BackendError(self.scrub(f"{last} (after {self.retries + 1} tries)"), retryable=True)

    def _transport_failure(self, url: str, exc: Exception) -> str:
        if isinstance(exc, httpx.TimeoutException):
            return f"{url}: timed out after {self.timeout:g} s"
        return f"{url}: connection failed ({type(exc).__name__})"

    def _check_status(self, url: str, response: httpx.Response, text: str) -> None:
        """_Retry for a status worth trying again, BackendError for any other failure status."""
        if response.status_code in RETRY_STATUS:
            raise _Retry(f"{url}: HTTP {response.status_code} {_short(text)}",
                         _retry_after(response) if response.status_code == 429 else None)
        if response.status_code >= 400:
            raise BackendError(self.scrub(f"{url}: HTTP {response.status_code} {_short(text)}"))

    def post(self, path: str, body: dict[str, Any]) -> dict[str, Any]:
        """POST with retries; the parsed JSON object, or BackendError with a one-line reason."""

        def attempt(url: str) -> dict[str, Any]:
            with self._request(url, body) as response:
                text = b"".join(self._chunks(url, response)).decode("utf-8", "replace")
                self._check_status(url, response, text)
                return _json_object(url, text, self.scrub)

        return self._with_retries(path, attempt)

    def post_stream(self, path: str, body: dict[str, Any], on_event: Callable[[dict[str, Any]], bool]) -> dict[str, Any] | None:
        """POST and read the answer as server-sent events: `on_event` gets each `data:` JSON object
        and returns True to stop reading, which closes the connection (what an editor does when
        it cancels a stream; servers abort the generation on disconnect). A server that answers
        with one JSON object instead (it does not stream) gets that object returned. Retried like
        `post` only while no event has arrived: a stream cut later is the item's error. A stream
        over the response cap raises ResponseTooLarge after the events before it."""

        def attempt(url: str) -> dict[str, Any] | None:
            started = False
            try:
                with self._request(url, body) as response:
                    if response.status_code >= 400:
                        self._check_status(url, response, b"".join(self._chunks(url, response)).decode("utf-8", "replace"))
                    if not response.headers.get("content-type", "").startswith("text/event-stream"):
                        return _json_object(url, b"".join(self._chunks(url, response)).decode("utf-8", "replace"), self.scrub)
                    for raw in _lines(self._chunks(url, response)):
                        line = raw.decode("utf-8", "replace").strip()
                        if not line.startswith("data:"):
                            continue
                        data = line[5:].strip()
                        if data == "[DONE]":
                            return None
                        started = True
                        if on_event(_json_object(url, data, self.scrub)):
                            return None
                    return None
            except (httpx.TimeoutException, httpx.TransportError) as exc:
                if not started:
                    raise
                raise BackendError(self.scrub(f"{self._transport_failure(url, exc)} in the middle of the stream")) from None

        return self._with_retries(path, attempt)

    @contextlib.contextmanager
    def _request(self, url: str, body: dict[str, Any]) -> Iterator[httpx.Response]:
        """One POST under the whole-request limit: `timeout` seconds from the request's start to
        its last byte, whatever the server does (a server that trickles a byte a second is cut
        at the limit like one that never answers). httpx's own timeouts are per phase (connect,
        each read), so a watchdog shuts the socket down at the deadline."""
        deadline = _Deadline(self.timeout)
        try:
            with self.client.stream("POST", url, json=body, headers=self.headers(),
                                    extensions={"trace": deadline.trace}) as response:
                deadline.watch(response.extensions.get("network_stream"))
                yield response
        except httpx.HTTPError as exc:
            if deadline.expired:
                raise httpx.ReadTimeout(f"whole-request limit of {self.timeout:g} s") from exc
            raise
        finally:
            deadline.cancel()

    def _chunks(self, url: str, response: httpx.Response) -> Iterator[bytes]:
        """The body as it arrives (decompressed), up to `max_response_bytes`: past it
        ResponseTooLarge, so that no answer can fill the memory."""
        size = 0
        try:
            for chunk in response.iter_bytes():
                size += len(chunk)
                if size > self.max_response_bytes:
                    yield chunk[: len(chunk) - (size - self.max_response_bytes)]
                    raise ResponseTooLarge(f"{url}: response over the {self.max_response_bytes:,}-byte cap "
                                           "(--max-response-mb): cut there")
                yield chunk
        except httpx.DecodingError as exc:
            raise BackendError(self.scrub(f"{url}: response body cannot be decoded ({_short(str(exc))})")) from None

    def describe(self) -> dict[str, Any]:
        """Endpoints and the key's variable name, never the key."""
        return {**super().describe(), "endpoints": self.endpoints.urls, "api_key_env": self.api_key_env}

    def close(self) -> None:
        self.client.close()


def field(data: dict[str, Any], *path: str | int) -> Any:
    """data[path...] or a BackendError naming the missing field (malformed responses)."""
    cur: Any = data
    for step in path:
        try:
            cur = cur[step]
        except (KeyError, IndexError, TypeError):
            raise BackendError(f"malformed response: no {'.'.join(map(str, path))} in {_short(json.dumps(data))}") from None
    return cur


def token_count(data: dict[str, Any], *path: str) -> int:
    """A count the server reports (`usage.completion_tokens`), 0 when it is missing or not a
    whole number: usage is informative, and a server that types it wrongly still answered."""
    cur: Any = data
    for step in path:
        cur = cur.get(step) if isinstance(cur, dict) else None
    return cur if isinstance(cur, int) and not isinstance(cur, bool) and cur >= 0 else 0


def prompt_count(data: dict[str, Any]) -> int:
    """The prompt's length in tokens as the server reports it: OpenAI's `usage.prompt_tokens`,
    Anthropic's `usage.input_tokens`, llama.cpp's `tokens_evaluated` / `timings.prompt_n`,
    Ollama's `prompt_eval_count`; 0 when it reports none."""
    return (token_count(data, "usage", "prompt_tokens") or token_count(data, "usage", "input_tokens")
            or token_count(data, "tokens_evaluated") or token_count(data, "timings", "prompt_n")
            or token_count(data, "prompt_eval_count"))


def first_token_after(data: dict[str, Any], started: float) -> float:
    """Seconds from `started` (the request) to the first token of an unstreamed answer: the time
    until now less the generation time the server reports (llama.cpp's `timings.predicted_ms`,
    Ollama's `eval_duration` in ns); 0 (not measured) when it reports none."""
    timings = data.get("timings")
    ms = timings.get("predicted_ms") if isinstance(timings, dict) else None
    decode = ms / 1000 if isinstance(ms, (int, float)) and not isinstance(ms, bool) else None
    if decode is None and token_count(data, "eval_duration"):
        decode = data["eval_duration"] / 1e9
    return max(0.0, time.perf_counter() - started - decode) if decode is not None else 0.0


def _json_object(url: str, text: str, scrub: Callable[[str], str]) -> dict[str, Any]:
    try:
        data = json.loads(text)
    except json.JSONDecodeError:
        raise BackendError(scrub(f"{url}: response is not JSON: {_short(text)}")) from None
    if not isinstance(data, dict):
        raise BackendError(scrub(f"{url}: response is not a JSON object: {_short(text)}"))
    return data


def _retry_after(response: httpx.Response) -> float | None:
    try:
        return float(response.headers.get("retry-after", ""))
    except ValueError:
        return None


def _short(text: str, limit: int = 200) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[:limit] + "…"
