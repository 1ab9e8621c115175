"""Which editor (and release) sent a request: from its User-Agent where it names itself, from
the request's shape where the client's source shows a field no other client sends.

What each client sends, read in its source:
- tabby-agent sets no User-Agent of its own (TabbyML/tabby clients/tabby-agent src/TabbyAgent.ts
  `setupApi`: only Authorization and the user's `server.requestHeaders`); it is the only client
  of Tabby's own API, whose `/v1/completions` body carries `segments`
  (replay.proxy.apis.tabby). A `tabby-agent/VERSION` product in a User-Agent is read when set.
- Continue's providers set no User-Agent either (continuedev/continue core/llm/llms/OpenAI.ts,
  Ollama.ts, LlamaCpp.ts: Content-Type, Authorization and the user's `requestOptions.headers`);
  `Continue/VERSION` is the product its own code sends where it names itself
  (core/llm/llms/ClawRouter.ts `User-Agent: Continue/${CONTINUE_VERSION}`), and what a user
  sets in `requestOptions.headers` to be recognised here.
- llama.vscode posts `/infill` with axios (User-Agent `axios/…`) and is the client whose body has
  `n_cmpl` (ggml-org/llama.vscode src/llama-server.ts `createRequestPayload`).
- llama.vim posts `/infill` with curl (User-Agent `curl/…`) and asks for `response_fields`
  (ggml-org/llama.vim autoload/llama.vim `llama#fim`).
Anything else is "unknown". `fimreplay proxy --editor NAME[@VERSION]` names the client of every
capture where the user knows it better than the wire tells it (`named`).
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from replay.proxy.wire import WireRequest

CLIENTS = ("tabby", "continue", "llama.vscode", "llama.vim")
UNKNOWN = "unknown"

_PRODUCTS = (
    (re.compile(r"(?i)\btabby-agent/([\w.+-]+)"), "tabby"),
    (re.compile(r"(?i)\bcontinue/([\w.+-]+)"), "continue"),
    (re.compile(r"(?i)\bllama[.-]vscode/([\w.+-]+)"), "llama.vscode"),
    (re.compile(r"(?i)\bllama[.-]vim/([\w.+-]+)"), "llama.vim"),
)


def detect(headers: Mapping[str, str], wire: WireRequest | None) -> tuple[str, str | None]:
    """(editor, version or None) of a request's client."""
    agent = headers.get("User-Agent") or headers.get("user-agent") or ""
    for pattern, name in _PRODUCTS:
        found = pattern.search(agent)
        if found:
            return name, found.group(1)
    if wire is None:
        return UNKNOWN, None
    if wire.api == "tabby":
        return "tabby", None
    if "n_cmpl" in wire.hints or (wire.api == "llama.cpp" and agent.lower().startswith("axios/")):
        return "llama.vscode", None
    if "response_fields" in wire.hints or (wire.api == "llama.cpp" and agent.lower().startswith("curl/")):
        return "llama.vim", None
    return UNKNOWN, None


def named(detected: tuple[str, str | None], editor: str | None, version: str | None) -> tuple[str, str | None]:
    """(editor, version) of a capture: as the wire told it (`detected`), or as the user named it
    (`proxy --editor NAME[@VERSION]`), which stands for every capture: a client that does not say
    who it is (Continue without its User-Agent, llama.vscode behind another HTTP library) and the
    release it runs, which no request carries. A release the wire told is kept where the user
    named the same editor without one."""
    if editor is None:
        return detected
    told, told_version = detected
    return editor, version or (told_version if told == editor else None)
