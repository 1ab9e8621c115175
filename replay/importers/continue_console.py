"""Continue's VS Code output channel "Continue - LLM Prompt/Completion" (copied text) -> CaptureRecord.

The writer (continuedev/continue extensions/vscode/src/extension/VsCodeExtension.ts, 2024-07-01
.. 2025-02-11): every `writeLog(text)` does two `appendLine` of 74 "=" and then `append(text)`.
The prompt message has no trailing newline, so the next separator is glued to its last line.
The messages (core/llm/index.ts `_compileLogMessage`, `streamComplete`, `streamFim`):

- era 1 (to 2024-09-23): `Settings:\n` + `key: value` lines + `\n\n` + 44 "#" + `\n\n{prompt}`;
  then `Completion:\n\n{completion}\n\n`.
- era 2: `##### Completion options #####\n{json}` [+ `\n\n##### Request options #####\n{json}`]
  + `\n\n##### Prompt #####\n{prompt}`; the completion message `Completion:\n\n{c}\n\n` became
  `Completion:\n{c}\n\n` on 2024-11-21.
- the FIM route (prefix and suffix sent separately) is logged as `{prefix}<FIM>{suffix}` from
  2024-05-23 and as `Prefix: {prefix}\nSuffix: {suffix}` from 2024-12-13 (commit 1f36d42571).
  Such a record has segments and no `logged_prompt` (no prompt string was sent); the logged
  rendering is kept in `extra["logged_text"]` and `raw`.

Chat requests go to the same channel; only prompts that are autocomplete requests (the FIM
route, a FIM template's sentinels, or the hole-filler QUERY) become captures, the rest is
counted as ignored. The channel has no completion ids, timestamps or file names.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from replay.importers.common import BadRecord, Ignored, scrub_json
from replay.jsonl import loads
from replay.secrets import scrub_text
from replay.records import CaptureRecord, Segments, Source

FORMAT = "continue-console"
SEPARATOR = "=" * 74
_HEADS = r"(?:Settings:\n|##### Completion options #####\n|Completion:\n)"
# Two separator lines followed by a message head (one line in copies people pasted into issue
# threads, which drop the doubled line). The first line may be glued to the end of the previous
# message (no newline before it); a longer "=" run in the prompt's last line is left to the
# prompt because exactly 74 "=" must stand right before each newline.
_SPLIT = re.compile(rf"(?:={{74}}\n){{1,2}}(?={_HEADS})")
# The separators of a message that the copy stops before (nothing of it was copied).
_TRAILING_SEPARATORS = re.compile(r"\n?(?:={74}(?:\n|\Z)){1,2}\Z")
_ERA1_RULE = "\n\n" + "#" * 44 + "\n\n"
_OPTIONS_HEAD = "##### Completion options #####\n"
_REQUEST_HEAD = "\n\n##### Request options #####\n"
_PROMPT_HEAD = "\n\n##### Prompt #####\n"

# Sentinels of the autocomplete templates (core/autocomplete/templating/AutocompleteTemplate.ts)
# and the hole-filler prompt: a raw prompt holding one of them is an autocomplete request.
_AUTOCOMPLETE_MARKS = (
    "<fim_prefix>", "<fim_suffix>", "<|fim_prefix|>", "<|fim_suffix|>", "<PRE> ", "<｜fim▁begin｜>",
    "[SUFFIX]", "<[fim-prefix]>", "<|code_prefix|>", "{{FILL_HERE}}",
)


@dataclass(frozen=True)
class Message:
    """One `writeLog` text: its 1-based first line in the file and its body."""

    line: int
    body: str


def split_channel(text: str) -> tuple[list[Message], str]:
    """Messages of an output-channel copy, and any text before the first separator."""
    matches = list(_SPLIT.finditer(text))
    if not matches:
        return [], text
    messages = []
    for i, m in enumerate(matches):
        end = matches[i + 1].start() if i + 1 < len(matches) else len(text)
        line = text.count("\n", 0, m.end()) + 1
        messages.append(Message(line, text[m.end() : end]))
    return messages, text[: matches[0].start()]


def parse_text(text: str, file: str, fmt: str = FORMAT, lossy: bool = False,
               messages: list[Message] | None = None, trailer: str = "") -> Iterator[tuple[int, CaptureRecord | Ignored | BadRecord]]:
    """(line, record | Ignored | BadRecord) for each request in the channel text.

    `messages`/`trailer` let the JetBrains era-1 prompt.log (the same messages, each followed by
    "\\n\\n" instead of preceded by separators) share the message parser.
    """
    if messages is None:
        if re.search(r"={74}\r\n={74}\r\n", text):
            # The copy was saved with CRLF line ends: the original "\r\n" of CRLF sources can no
            # longer be told from converted ones.
            text = text.replace("\r\n", "\n")
            lossy = True
        messages, head = split_channel(_TRAILING_SEPARATORS.sub("", text))
        if head.strip():
            yield 1, BadRecord("text before the first separator (a partial entry)")
    one_newline = _completion_has_one_newline([m.body for m in messages])
    pending: list[tuple[Message, dict[str, Any] | None]] = []  # None: a prompt already rejected
    for msg in messages:
        body = msg.body[: len(msg.body) - len(trailer)] if trailer and msg.body.endswith(trailer) else msg.body
        if body.startswith("Completion:\n"):
            completion = body[len("Completion:\n") :]
            if not one_newline and completion.startswith("\n"):
                completion = completion[1:]
            if completion.endswith("\n\n"):
                completion = completion[:-2]
            if not pending:
                yield msg.line, BadRecord("completion without a prompt before it")
                continue
            prompt_msg, prompt = pending.pop()
            for older_msg, older in pending:  # requests cancelled before they completed
                if older is not None:
                    yield older_msg.line, _record(older, None, older_msg.line, file, fmt, lossy)
            pending.clear()
            if prompt is None:
                continue  # the completion of a rejected prompt goes with it
            # the original text: the channel puts separators before each message, prompt.log not
            prompt["raw"] += ("" if trailer else f"{SEPARATOR}\n{SEPARATOR}\n") + msg.body
            yield prompt_msg.line, _record(prompt, completion, prompt_msg.line, file, fmt, lossy)
            continue
        try:
            pending.append((msg, _parse_prompt_message(body) | {"raw": msg.body}))
        except BadRecord as exc:
            yield msg.line, exc
            pending.append((msg, None))
    for msg, prompt in pending:
        if prompt is not None:
            yield msg.line, _record(prompt, None, msg.line, file, fmt, lossy)


def _completion_has_one_newline(bodies: list[str]) -> bool:
    """Whether the completion messages use 2024-11-21's `Completion:\\n{c}` (one newline).

    A file is written by one Continue version: if any completion message has a non-newline right
    after `Completion:\\n`, the file is of the one-newline form; if every one starts with a blank
    line, it is taken as the earlier `Completion:\\n\\n{c}` form (the era-1 form always is).
    """
    completions = [b for b in bodies if b.startswith("Completion:\n")]
    if any(b.startswith("Settings:\n") for b in bodies):
        return False
    return any(not b.startswith("Completion:\n\n") for b in completions) or not completions


def _parse_prompt_message(body: str) -> dict[str, Any]:
    if body.startswith("Settings:\n"):
        head, sep, prompt = body.partition(_ERA1_RULE)
        if not sep:
            raise BadRecord("era-1 entry without the '#' rule before the prompt")
        options: dict[str, Any] = {}
        for line in head[len("Settings:\n") :].split("\n"):
            key, colon, value = line.partition(": ")
            if colon:
                options[key] = value
        return {"era": 1, "options": options, "prompt": prompt}
    if body.startswith(_OPTIONS_HEAD):
        head, sep, prompt = body.partition(_PROMPT_HEAD)
        if not sep:
            raise BadRecord("entry without '##### Prompt #####'")
        opts_text, _, request_text = head[len(_OPTIONS_HEAD) :].partition(_REQUEST_HEAD)
        try:
            options = loads(opts_text)
            request = loads(request_text) if request_text else None
        except json.JSONDecodeError as exc:
            raise BadRecord(f"invalid completion options JSON: {exc.msg} (line {exc.lineno})") from None
        except ValueError as exc:
            raise BadRecord(f"invalid completion options JSON: {exc}") from None
        if not isinstance(options, dict):
            raise BadRecord("completion options are not a JSON object")
        out: dict[str, Any] = {"era": 2, "options": options, "prompt": prompt}
        if request is not None:
            out["request_options"] = request
        return out
    raise BadRecord("unknown entry head")


def _record(msg: dict[str, Any], completion: str | None, line: int, file: str, fmt: str,
            lossy: bool) -> CaptureRecord | Ignored | BadRecord:
    prompt: str = msg["prompt"]
    try:
        extra: dict[str, Any] = {"era": msg["era"], "options": scrub_json(msg["options"])}
        if "request_options" in msg:
            extra["request_options"] = scrub_json(msg["request_options"])
    except BadRecord as exc:
        return exc
    segments = None
    route = "raw"
    if msg["era"] == 2 and prompt.startswith("Prefix: ") and "\nSuffix: " in prompt:
        route = "fim"
        extra["fim_rendering"] = "Prefix/Suffix"
        prefix, _, suffix = prompt[len("Prefix: ") :].partition("\nSuffix: ")
        if prompt.count("\nSuffix: ") > 1:
            extra["split_ambiguous"] = prompt.count("\nSuffix: ")
        segments = Segments(prefix=prefix, suffix=suffix)
    elif "<FIM>" in prompt and not any(mark in prompt for mark in _AUTOCOMPLETE_MARKS):
        route = "fim"
        extra["fim_rendering"] = "<FIM>"
        prefix, _, suffix = prompt.partition("<FIM>")
        if prompt.count("<FIM>") > 1:
            extra["split_ambiguous"] = prompt.count("<FIM>")
        segments = Segments(prefix=prefix, suffix=suffix)
    elif not any(mark in prompt for mark in _AUTOCOMPLETE_MARKS) and not _raw_request(msg["options"]):
        return Ignored("not an autocomplete prompt (chat or edit)")
    extra["route"] = route
    if route == "fim":
        # No prompt string was sent: prefix and suffix went separately (they are the segments).
        # The made-up rendering stays in `raw` and here, not in `logged_prompt`.
        extra["logged_text"] = prompt
    if completion is None:
        extra["no_completion"] = True
    model = msg["options"].get("model")
    return CaptureRecord(
        source=Source(file=file, line=line),
        editor="continue",
        format=fmt,
        model=model if isinstance(model, str) else None,
        segments=segments,
        logged_prompt=prompt if route == "raw" else None,
        completion=completion,
        lossy=lossy,
        extra=extra,
        raw=scrub_text(msg["raw"]),
    )


def _raw_request(options: dict[str, Any]) -> bool:
    """Whether the request was sent with `raw: true`: autocomplete renders its template itself
    and asks the model not to template again (core/autocomplete/generation/CompletionStreamer.ts,
    core/autocomplete/completionProvider.ts before it). So an autocomplete prompt that token
    pruning emptied (a prefix and suffix pruned to "") is still an autocomplete, with an empty
    prompt."""
    return options.get("raw") in (True, "true")


_SEP = SEPARATOR.encode()


_HEAD_AFTER_SEPARATOR = re.compile(rb"(?:^|\n)={74}\r?\n(?:={74}\r?\n)?(?:Settings:|##### Completion options #####|Completion:)\r?\n")


def looks_like(head: bytes) -> bool:
    """The channel's two separator lines, one right after the other, or a separator line
    followed by a message head (a pasted copy)."""
    return _SEP + b"\n" + _SEP in head or _SEP + b"\r\n" + _SEP in head or _HEAD_AFTER_SEPARATOR.search(head) is not None
