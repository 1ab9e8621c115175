"""Continue dev data (`~/.continue/dev_data/`) -> CaptureRecord; the other event files ignored.

`autocomplete.jsonl` holds one line per shown completion (written when it is accepted, or 10 s
after it was shown with `accepted: false`). Every layout ever written, from the git history of
continuedev/continue (AutocompleteOutcome and its writer):

- 2024-01-31 (0.8.x, extensions/vscode/src/lang-server/completionProvider.ts, commit 0419da7568):
  {accepted?, time, prompt, completion, modelProvider, modelName, completionOptions}; 2024-02
  adds `cacheHit`, and from 0.8.24 (core/autocomplete/completionProvider.ts) the
  TabAutocompleteOptions are spread flat into the line. No prefix/suffix/completionId/timestamp.
- 0.8.28 .. 0.8.39: the same plus `filepath`.
- 0.8.40 (2024-05-08, commit 57ca9f1dd7) on: + prefix, suffix, gitRepo?, completionId, uniqueId.
- 2024-11-03 (commit 1fd8cf2b0a): + `timestamp: Date.now()` (milliseconds).
  All of these are written by core/util/devdata.ts `logDevData` as `JSON.stringify(outcome)`.
- 0.2.0 (2025-01-31 on): `~/.continue/dev_data/0.2.0/autocomplete.jsonl`, written by
  core/data/log.ts `DataLogger.logDevData` after a zod parse against
  packages/config-yaml/src/schemas/data/autocomplete/v0.2.0.ts, with the base fields of
  schemas/data/base.ts (eventName, schema, userId, userAgent, selectedProfileId). Its
  `timestamp` stayed the number above (autocomplete/index.ts overrides the base's ISO string
  with z.number()) until 2025-07-08 (commit 330fa09aab: `new Date().toISOString()`).
  core/util/paths.ts `migrateV1DevDataFiles` moved the earlier files into `0.1.0/`.

A line is imported with what it has (prompt, completion, accepted, time, model); what its
layout lacks is listed in `extra["missing"]` (prefix/suffix absent: no segments to rebuild
from). The install's other event files (tokens_generated / tokensGenerated, chat /
chatFeedback, quickEdit, chatInteraction, editInteraction, editOutcome, nextEditOutcome,
nextEditWithHistory, toolUsage: schemas/data/index.ts) hold no completion request: their lines
are valid records, counted as ignored, never rejected.

`prefix`/`suffix` are the compiled ones (with the snippet header), `prompt` is the rendered
template even when the FIM route was used; there are no snippets of their own to recover.
"""

from __future__ import annotations

import re
from datetime import datetime
from typing import Any

import msgspec

from replay.importers.common import BadRecord, Ignored, Parsed, decode_error_reason, invalid_utf8, scrub_json
from replay.jsonl import replace_lone_surrogates
from replay.languages import language_of
from replay.secrets import scrub_text
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


# The event files of an install (packages/config-yaml/src/schemas/data/index.ts `DevEventName`,
# and the names before core/util/paths.ts `migrateV1DevDataFiles` renamed them).
DEV_DATA_FILES = frozenset(f"{name}.jsonl" for name in (
    "autocomplete", "tokens_generated", "tokensGenerated", "chat", "chatFeedback", "quickEdit",
    "chatInteraction", "editInteraction", "editOutcome", "nextEditOutcome", "nextEditWithHistory", "toolUsage",
))

# Keys that only the other events have (their schemas under schemas/data/), tried in order.
_OTHER_EVENTS = (("generatedTokens", "tokensGenerated"), ("sessionId", "chatFeedback"),
                 ("modelTitle", "chatFeedback"), ("diffs", "quickEdit"), ("label", "quickEdit"))
# What the layouts before 0.8.40 lack, listed in extra["missing"]. A line that has the first
# five (every layout from 0.8.40 on) gets the record it always got, and so keeps its identity
# in stores made before the earlier layouts were read.
_LAYOUT_FIELDS = ("prefix", "suffix", "completionId", "prompt", "completion", "filepath", "timestamp")


class _Line(msgspec.Struct):
    prefix: str | None = None
    suffix: str | None = None
    prompt: str | None = None
    completion: str | None = None
    completionId: str | None = None
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


_generic = msgspec.json.Decoder(dict[str, Any])


def parse_line(data: bytes, source: Source) -> Parsed:
    """One line of a dev data file (any layout, any event). Raises BadRecord with a one-line
    reason; another event's line is Ignored.

    The writers (core/util/devdata.ts, core/data/log.ts) append `JSON.stringify(...)` with
    fs.writeFileSync, i.e. UTF-8 from a JavaScript string: never a byte that is not UTF-8 (a
    lone surrogate in the string is written as a "\\ud83d" escape by JSON.stringify, and Node's
    encoder would write U+FFFD for a raw one), so such a byte is damage and rejects its line.
    A lone surrogate escape is what Continue held (a completion cut in the middle of an emoji)
    and what JSON.parse reads back: the line is kept, each such half replaced by U+FFFD, and
    the capture marked lossy with the count in `extra["replaced_surrogates"]`."""
    if (why := invalid_utf8(data)) is not None:
        raise BadRecord(why)
    raw_obj, replaced = _decode(data)
    event = raw_obj.get("eventName")
    if isinstance(event, str) and event != "autocomplete":
        return Ignored(event)
    if event is None:
        other = next((name for key, name in _OTHER_EVENTS if key in raw_obj), None)
        if other is not None:
            return Ignored(other)
    try:
        line = msgspec.convert(raw_obj, _Line)
    except msgspec.ValidationError as exc:
        raise BadRecord(decode_error_reason(exc)) from None
    if line.prompt is None and line.completion is None and line.prefix is None:
        # the noCode level of the schemas (prefix/suffix/prompt/completion omitted), or no event
        return Ignored("autocomplete event without its code" if event else "dev data event without a completion")
    options = {k: raw_obj[k] for k in _OPTION_KEYS if k in raw_obj}
    extra: dict[str, Any] = {"layout": _layout(line)}
    missing = [k for k in _LAYOUT_FIELDS if raw_obj.get(k) is None]
    if any(k in missing for k in _LAYOUT_FIELDS[:5]):
        extra["missing"] = missing
    for key, value in (("schema", line.schema), ("modelProvider", line.modelProvider), ("time_ms", line.time),
                       ("cacheHit", line.cacheHit), ("gitRepo", line.gitRepo), ("uniqueId", line.uniqueId),
                       ("selectedProfileId", line.selectedProfileId),
                       ("completionOptions", scrub_json(line.completionOptions))):
        if value is not None:
            extra[key] = value
    if options:
        extra["options"] = options
    if replaced:
        extra["replaced_surrogates"] = replaced
    if line.accepted is None:
        outcome, detail = "unknown", None
    elif line.accepted:
        outcome, detail = "accepted", "accepted"
    else:
        # Not accepted within COUNT_COMPLETION_REJECTED_AFTER (10 s) of being shown.
        outcome, detail = "dismissed", "not accepted within 10 s"
    segments = None
    if line.prefix is not None:
        segments = Segments(prefix=line.prefix, suffix=line.suffix, filepath=line.filepath, git_url=line.gitRepo)
    return CaptureRecord(
        source=source,
        editor="continue",
        format=FORMAT,
        completion_id=line.completionId,
        editor_version=_continue_version(line.userAgent),
        model=line.modelName,
        language=language_of(line.filepath),
        filepath=line.filepath,
        segments=segments,
        logged_prompt=line.prompt,
        completion=line.completion,
        outcome=outcome,  # type: ignore[arg-type]
        outcome_detail=detail,
        ts=_timestamp(line.timestamp),
        user=None,  # userId is the IDE's user token (core/data/log.ts): never stored
        user_agent=line.userAgent,
        lossy=replaced > 0,
        extra=extra,
        raw=scrub_text(data.decode("utf-8")),
    )


def _decode(data: bytes) -> tuple[dict[str, Any], int]:
    """The line's object, and how many lone surrogate escapes were replaced to read it: msgspec
    refuses every one, so a line is tried as it is first (the replacement costs a scan)."""
    try:
        return _generic.decode(data), 0
    except (msgspec.DecodeError, msgspec.ValidationError, UnicodeDecodeError, RecursionError) as exc:
        fixed, replaced = replace_lone_surrogates(data)
        if not replaced:
            raise BadRecord(decode_error_reason(exc)) from None
    try:
        return _generic.decode(fixed), replaced
    except (msgspec.DecodeError, msgspec.ValidationError, RecursionError) as exc:
        raise BadRecord(decode_error_reason(exc)) from None


def _layout(line: _Line) -> str:
    """The layout a line proves (see the module docstring)."""
    if line.schema:
        return line.schema
    if line.prefix is not None or line.completionId is not None:
        return "pre-0.2.0"  # 0.8.40 .. 0.2.0, the name it has in stores made before
    if line.filepath is not None:
        return "0.8.28-0.8.39"
    return "0.8.0-0.8.27"


def _continue_version(user_agent: str | None) -> str | None:
    """The extension version in the 0.2.0 base field userAgent, e.g. "Visual Studio Code/1.97.2
    (Continue/0.9.262)" (core/data/log.ts fills it from the IDE info)."""
    if not user_agent:
        return None
    m = re.search(r"Continue/([0-9][0-9A-Za-z.+-]*)", user_agent)
    return m.group(1) if m else None


def _timestamp(value: str | float | None) -> float | None:
    """Milliseconds (Date.now(): 2024-11-03 .. 2025-07-08, 0.2.0 included) or an ISO string
    (0.2.0 from 2025-07-08) -> epoch seconds."""
    if value is None:
        return None
    if isinstance(value, (int, float)):
        return float(value) / 1000.0
    try:
        return datetime.fromisoformat(value.replace("Z", "+00:00")).timestamp()
    except (ValueError, OverflowError, OSError):  # not a date, or one outside what a timestamp holds
        raise BadRecord(f"wrong field type: timestamp {value!r} is not an ISO date") from None


def looks_like(head: bytes) -> bool:
    """Dev data lines are JSON objects naming `completionId`, `modelProvider` or `eventName`
    (autocomplete, and the 0.2.0 events), or the keys of the earlier tokens_generated lines."""
    return any(key in head for key in (b'"completionId":', b'"modelProvider":', b'"eventName":', b'"generatedTokens":'))
