"""Continue dev data `autocomplete.jsonl` -> CaptureRecord.

Two layouts, one line per shown completion (written when it is accepted, or 10 s after it was
shown with `accepted: false`: continuedev/continue core/autocomplete/util/AutocompleteLoggingService.ts):

- 0.2.0 (from 2025-01-31): `~/.continue/dev_data/0.2.0/autocomplete.jsonl`, written by
  core/data/log.ts `DataLogger.logDevData` after a zod parse against
  packages/config-yaml/src/schemas/data/autocomplete/v0.2.0.ts: flat fields plus the base
  fields of schemas/data/base.ts (eventName, schema, timestamp as an ISO string, userId,
  userAgent, selectedProfileId); `completionOptions` may still be there (deprecated).
- the earlier layout: `~/.continue/dev_data/autocomplete.jsonl`, written by core/util/devdata.ts
  `logDevData("autocomplete", outcome)` with the whole AutocompleteOutcome
  (core/autocomplete/util/types.ts): TabAutocompleteOptions spread flat, completionOptions
  nested, `timestamp: Date.now()` in milliseconds, no schema field.

`prefix`/`suffix` are the compiled ones (with the snippet header), `prompt` is the rendered
template even when the FIM route was used; there are no snippets of their own to recover.
"""

from __future__ import annotations

import re
from datetime import datetime
from typing import Any

import msgspec

from replay.importers.common import Ignored, Parsed, BadRecord, decode_error_reason, language_of
from replay.secrets import scrub_obj, scrub_text
from replay.records import CaptureRecord, Segments, Source

FORMAT = "continue-devdata"

# Autocomplete options (TabAutocompleteOptions) kept in `extra["options"]`, as listed in
# packages/config-yaml/src/schemas/data/autocomplete/index.ts.
_OPTION_KEYS = (
    "disable", "useFileSuffix", "maxPromptTokens", "debounceDelay", "maxSuffixPercentage",
    "prefixPercentage", "transform", "template", "multilineCompletions",
    "slidingWindowPrefixPercentage", "slidingWindowSize", "useCache", "onlyMyCode",
    "useRecentlyEdited", "useImports", "disableInFiles", "enabledStaticContextualization",
)


class _Line(msgspec.Struct):
    prefix: str
    suffix: str
    prompt: str
    completion: str
    completionId: str
    modelName: str | None = None
    modelProvider: str | None = None
    filepath: str | None = None
    accepted: bool | None = None
    time: float | None = None
    cacheHit: bool | None = None
    gitRepo: str | None = None
    uniqueId: str | None = None
    timestamp: str | float | None = None
    schema: str | None = None
    eventName: str | None = None
    userId: str | None = None
    userAgent: str | None = None
    selectedProfileId: str | None = None
    completionOptions: dict[str, Any] | None = None


_decoder = msgspec.json.Decoder(_Line)
_generic = msgspec.json.Decoder(dict[str, Any])


def parse_line(data: bytes, source: Source) -> Parsed:
    """One line of autocomplete.jsonl (either layout). Raises BadRecord with a one-line reason."""
    try:
        line = _decoder.decode(data)
    except msgspec.ValidationError as exc:
        event = _event_name(data)
        if event is not None and event != "autocomplete":
            return Ignored(event)
        raise BadRecord(decode_error_reason(exc)) from None
    except (msgspec.DecodeError, UnicodeDecodeError) as exc:
        raise BadRecord(decode_error_reason(exc)) from None
    if line.eventName is not None and line.eventName != "autocomplete":
        return Ignored(line.eventName)
    raw_obj = _generic.decode(data)
    options = {k: raw_obj[k] for k in _OPTION_KEYS if k in raw_obj}
    extra: dict[str, Any] = {"layout": "0.2.0" if line.schema else "pre-0.2.0"}
    for key, value in (("schema", line.schema), ("modelProvider", line.modelProvider), ("time_ms", line.time),
                       ("cacheHit", line.cacheHit), ("gitRepo", line.gitRepo), ("uniqueId", line.uniqueId),
                       ("selectedProfileId", line.selectedProfileId),
                       ("completionOptions", scrub_obj(line.completionOptions))):
        if value is not None:
            extra[key] = value
    if options:
        extra["options"] = options
    if line.accepted is None:
        outcome, detail = "unknown", None
    elif line.accepted:
        outcome, detail = "accepted", "accepted"
    else:
        # Not accepted within COUNT_COMPLETION_REJECTED_AFTER (10 s) of being shown.
        outcome, detail = "dismissed", "not accepted within 10 s"
    return CaptureRecord(
        source=source,
        editor="continue",
        format=FORMAT,
        completion_id=line.completionId,
        editor_version=_continue_version(line.userAgent),
        model=line.modelName,
        language=language_of(line.filepath),
        filepath=line.filepath,
        segments=Segments(prefix=line.prefix, suffix=line.suffix, filepath=line.filepath, git_url=line.gitRepo),
        logged_prompt=line.prompt,
        completion=line.completion,
        outcome=outcome,  # type: ignore[arg-type]
        outcome_detail=detail,
        ts=_timestamp(line.timestamp),
        user=None,  # userId is the IDE's user token (core/data/log.ts): never stored
        user_agent=line.userAgent,
        extra=extra,
        raw=scrub_text(data.decode("utf-8")),
    )


def _continue_version(user_agent: str | None) -> str | None:
    """The extension version in the 0.2.0 base field userAgent, e.g. "Visual Studio Code/1.97.2
    (Continue/0.9.262)" (core/data/log.ts fills it from the IDE info)."""
    if not user_agent:
        return None
    m = re.search(r"Continue/([0-9][0-9A-Za-z.+-]*)", user_agent)
    return m.group(1) if m else None


def _event_name(data: bytes) -> str | None:
    try:
        obj = _generic.decode(data)
    except (msgspec.DecodeError, UnicodeDecodeError):
        return None
    name = obj.get("eventName")
    return name if isinstance(name, str) else None


def _timestamp(value: str | float | None) -> float | None:
    """Milliseconds (the earlier layout's Date.now()) or an ISO string (0.2.0) -> epoch seconds."""
    if value is None:
        return None
    if isinstance(value, (int, float)):
        return float(value) / 1000.0
    try:
        return datetime.fromisoformat(value.replace("Z", "+00:00")).timestamp()
    except ValueError:
        raise BadRecord(f"wrong field type: timestamp {value!r} is not an ISO date") from None


def looks_like(head: bytes) -> bool:
    """Dev data lines are JSON objects naming `completionId`, `modelProvider` or `eventName`."""
    return any(key in head for key in (b'"completionId":', b'"modelProvider":', b'"eventName":'))
