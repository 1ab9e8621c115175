"""The real llama.cpp server, in process (xllamacpp: llama.cpp's own tools/server built as a
Python extension), asked /infill over loopback: what the golden data was recorded from, and
what the live test asks again.

`answer(server, case)` returns what the server said of one case: its `prompt` text and
`tokens_evaluated`, or its error (type and message) for a refused body.
"""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

# Settings a case may name (`server.*` options) that xllamacpp's CommonParams takes as is.
PARAMS = ("n_ctx", "n_batch", "n_predict", "n_parallel")


def xllamacpp_version() -> str:
    import xllamacpp

    return str(xllamacpp.__version__)


@contextmanager
def llama_server(gguf: str, options: dict[str, Any], threads: int = 2) -> Iterator[str]:
    """A llama.cpp server on a free loopback port with the case's `server.*` settings (one
    slot, as many threads as given); yields its base URL and stops it on exit."""
    from xllamacpp import CommonParams, Server

    params = CommonParams()
    params.model.path = gguf
    params.n_parallel = 1
    params.warmup = False
    params.cpuparams.n_threads = params.cpuparams_batch.n_threads = threads
    for name in PARAMS:
        if f"server.{name}" in options:
            setattr(params, name, int(options[f"server.{name}"]))
    params.n_ubatch = min(params.n_ubatch, params.n_batch)
    server = Server(params)
    try:
        yield server.listening_address
    finally:
        del server


def answer(url: str, body: dict[str, Any]) -> dict[str, Any]:
    """The server's answer to one /infill body: prompt and tokens_evaluated, or the error."""
    request = urllib.request.Request(url + "/infill", data=json.dumps(body).encode(),
                                     headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=600) as response:
            got = json.loads(response.read())
            return {"status": response.status, "prompt": got["prompt"], "tokens_evaluated": got["tokens_evaluated"]}
    except urllib.error.HTTPError as exc:
        error = json.loads(exc.read())["error"]
        return {"status": exc.code, "error": {"type": error["type"], "message": error["message"]}}


def settings_key(options: dict[str, Any]) -> tuple[tuple[str, Any], ...]:
    """The server settings of a case (cases with the same ones share one server)."""
    return tuple(sorted((k, v) for k, v in options.items() if k.startswith("server.")))
