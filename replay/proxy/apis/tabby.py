"""Tabby's own API, between its editor clients (tabby-agent) and the Tabby server.

`POST /v1/completions`: TabbyML/tabby crates/tabby/src/services/completion.rs
(`CompletionRequest`: language, segments {prefix, suffix, filepath, git_url, declarations
[{filepath, body}], relevant_snippets_from_changed_files, clipboard}, temperature, seed, mode;
`CompletionResponse`: id, choices [{index, text}]). The client: TabbyML/tabby clients/tabby-agent
src/TabbyAgent.ts (`provideCompletions` posts it; `postEvent` posts `/v1/events`).

`POST /v1/events`: crates/tabby-common/src/api/event.rs `LogEventRequest` (type view / select /
dismiss, completion_id, choice_index, view_id, elapsed; `select_kind` as a query parameter),
which the server turns into the same event its log writes (crates/tabby/src/routes/events.rs
`log_event`). The proxy does the same and hands the line to the Tabby importer
(replay.importers.tabby), so an outcome posted through the proxy joins its completion exactly as
one read from the server's log.
"""

from __future__ import annotations

import time
from typing import Any

import msgspec

from replay.importers.common import BadRecord
from replay.importers.tabby import parse_line
from replay.proxy.wire import Api, WireRequest, text
from replay.records import OutcomeEvent, Snippet, Source

EVENTS_ROUTE = "/v1/events"


def _snippets(segments: dict[str, Any]) -> tuple[Snippet, ...]:
    out = []
    for key, kind in (("declarations", "declaration"), ("relevant_snippets_from_changed_files", "snippet"),
                      ("relevant_snippets_from_recently_opened_files", "snippet")):
        for item in segments.get(key) or ():
            if isinstance(item, dict) and isinstance(item.get("body"), str):
                out.append(Snippet(filepath=str(item.get("filepath", "")), content=item["body"], kind=kind))
    return tuple(out)


def _parse(route: str, body: dict[str, Any]) -> WireRequest | None:
    segments = body.get("segments")
    if not isinstance(segments, dict):
        return None
    params = {"temperature": body["temperature"]} if body.get("temperature") is not None else {}
    return WireRequest("tabby", "fim", prompt=None, prefix=text(segments.get("prefix")), suffix=text(segments.get("suffix")),
                       snippets=_snippets(segments), filepath=text(segments.get("filepath")),
                       language=text(body.get("language")), git_url=text(segments.get("git_url")),
                       clipboard=text(segments.get("clipboard")), params=params)


def _text_of(obj: dict[str, Any]) -> str:
    for choice in obj.get("choices") or ():
        if isinstance(choice, dict) and choice.get("index", 0) == 0 and isinstance(choice.get("text"), str):
            return choice["text"]
    return ""


def outcome_event(body: dict[str, Any], query: dict[str, str], source: Source, ts: float | None = None) -> OutcomeEvent | None:
    """The outcome event a client's `/v1/events` post stands for (None: not a view, select or
    dismiss of a completion)."""
    kind = body.get("type")
    if kind not in ("view", "select", "dismiss") or not isinstance(body.get("completion_id"), str):
        return None
    event = {k: body[k] for k in ("completion_id", "choice_index", "view_id", "elapsed") if body.get(k) is not None}
    if kind == "select" and query.get("select_kind"):
        event["kind"] = query["select_kind"]
    line = msgspec.json.encode({"ts": int((time.time() if ts is None else ts) * 1000), "event": {kind: event}})
    try:
        parsed = parse_line(line, source)
    except BadRecord:
        return None
    return parsed if isinstance(parsed, OutcomeEvent) else None


API = Api("tabby", ("/v1/completions",), _parse, _text_of, lambda obj: text(obj.get("id")))
