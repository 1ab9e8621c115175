"""Continue's JetBrains `~/.continue/logs/prompt.log` -> CaptureRecord (always `lossy=True`).

Two writers (continuedev/continue binary/src/index.ts, core/util/paths.ts `getPromptLogsPath`):

- to 2025-03-26: `fs.appendFileSync(promptLogsPath, text + "\\n\\n")` for every `writeLog(text)`,
  i.e. the messages of the VS Code output channel (see continue_console) with no separators,
  each followed by a blank line. Where one message ends is a guess when a prompt itself holds a
  blank line followed by `Completion:` or a message head: lossy.
- from 2025-03-26 (commit e0ee0f63de): core/llm/logFormatter.ts `LLMLogFormatter`. Every line
  is `{marker}{time:10} {text}`: the marker (" ", "|", "&", "%", "#", then "X") tells
  overlapping interactions apart, the time field is `HH:MM:SS.d` (UTC) on an interaction's first
  line, `+S.d` on later items, blank otherwise. `[Complete]` / `[Fim]` / `[Chat]` open an
  interaction, then `Options: {json}`, then `Prompt:` or `Prefix:`/`Suffix:` with each text
  line written as `| line` (not wrapped), `Result:` with the streamed text as `| ` lines that
  are wrapped at 100 columns (continuations marked `. `, whitespace at the break trimmed), and
  `Success`/`Error`/`Cancelled` with token counts. The result cannot be restored exactly
  (wrapping trims spaces; another interaction's line between two chunks breaks the line).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

from replay.importers.common import BadRecord, Ignored, scrub_json
from replay.jsonl import loads
from replay.secrets import scrub_text
from replay.importers.continue_console import Message, parse_text
from replay.records import CaptureRecord, Segments, Source

FORMAT = "continue-jetbrains"
_MARKERS = " |&%#X"
_START = re.compile(r"^[ |&%#X]\d\d:\d\d:\d\d\.\d \[(Complete|Fim|Chat)\]$", re.M)
_ERA1_HEAD = re.compile(r"^(?=Settings:\n|##### Completion options #####\n|Completion:\n)", re.M)
_END = ("Success", "Error", "Cancelled")
# A chat message's items other than its text (logFormatter.ts logMessage / logToolcalls /
# logMessageContent): written with logLines, so a multi-line value (the tool call's indented
# JSON, a redacted block) goes on in lines without a "| " marker. Chats are not captures: these
# lines are kept in the interaction's raw text only.
_CHAT_ITEMS = ("Tool call: ", "Image: ", "Redacted Thinking: ", "Signature: ", "Tool Call ID: ")


def is_formatter_log(text: str) -> bool:
    """Whether the text is the LLMLogFormatter layout (2025-03-26 on)."""
    return _START.search(text) is not None


def parse(text: str, file: str) -> Iterator[tuple[int, CaptureRecord | Ignored | BadRecord]]:
    """(line, record | Ignored | BadRecord) for each request in a prompt.log. A copy saved with
    CRLF line ends (every "\n" after a "\r") is read as the LF file it was (prompt.log is lossy
    anyway)."""
    if "\r\n" in text and text.count("\n") == text.count("\r\n"):
        text = text.replace("\r\n", "\n")
    if is_formatter_log(text):
        yield from _parse_formatter(text, file)
        return
    starts = [m.start() for m in _ERA1_HEAD.finditer(text) if m.start() == 0 or text.endswith("\n\n", 0, m.start())]
    if not starts:
        yield 1, BadRecord("no prompt.log entries found")
        return
    if text[: starts[0]].strip():
        yield 1, BadRecord("text before the first entry (a partial entry)")
    messages = [
        Message(text.count("\n", 0, s) + 1, text[s : starts[i + 1] if i + 1 < len(starts) else len(text)])
        for i, s in enumerate(starts)
    ]
    yield from parse_text(text, file, fmt=FORMAT, lossy=True, messages=messages, trailer="\n\n")


class _Interaction:
    def __init__(self, kind: str, line: int, time: str) -> None:
        self.kind = kind
        self.line = line
        self.time = time
        self.section = "head"
        self.options_lines: list[str] = []
        self.parts: dict[str, list[str]] = {"Prompt": [], "Prefix": [], "Suffix": [], "Result": [], "Message": []}
        self.status: str | None = None
        self.raw: list[str] = []


def _parse_formatter(text: str, file: str) -> Iterator[tuple[int, CaptureRecord | Ignored | BadRecord]]:
    open_: dict[str, _Interaction] = {}
    orphaned: set[str] = set()  # markers whose interaction began before the file (a cut or pasted copy)
    for number, line in enumerate(text.split("\n"), start=1):
        if not line:
            continue
        if len(line) < 12 or line[0] not in _MARKERS or line[11] != " ":
            yield number, BadRecord("line without the prompt.log marker and time columns")
            continue
        marker, stamp, body = line[0], line[1:11].strip(), line[12:]
        m = re.fullmatch(r"\[(Complete|Fim|Chat)\]", body)
        if m:
            if marker in open_:
                yield from _finish(open_.pop(marker), file)
            orphaned.discard(marker)
            open_[marker] = _Interaction(m.group(1), number, stamp)
            open_[marker].raw.append(line)
            continue
        inter = open_.get(marker)
        if inter is None:  # one reject for the whole partial interaction, not one per line
            if marker not in orphaned:
                orphaned.add(marker)
                yield number, BadRecord("an interaction whose start is not in the file (its lines up to the next start are left out)")
            continue
        inter.raw.append(line)
        if body.startswith("Options: "):
            inter.section = "Options"
            inter.options_lines.append(body[len("Options: ") :])
        elif body in ("Prompt:", "Prefix:", "Suffix:", "Result:"):
            inter.section = body[:-1]
        elif body.startswith("Role: "):  # a chat message: its text lines follow
            inter.section = "Message"
        elif body.startswith(_CHAT_ITEMS) and inter.kind == "Chat":
            inter.section = "chat item"
        elif body.startswith(("| ", ". ")) or body in ("|", "."):
            if inter.section == "chat item":  # the message's text after a tool call or image
                inter.section = "Message"
            if inter.section not in inter.parts:
                yield number, BadRecord(f"text line outside a Prompt/Prefix/Suffix/Result section ({inter.section})")
                continue
            piece = body[2:]
            lines = inter.parts[inter.section]
            if body[0] == "." and lines:
                lines[-1] += piece
            else:
                lines.append(piece)
        elif body in _END:
            inter.status = body
            inter.section = "tokens"
        elif inter.section == "Options":
            inter.options_lines.append(body)
        elif inter.section == "chat item":
            continue
        elif inter.section == "tokens" and body.startswith(("Prompt Tokens:", "Generated Tokens:", "Thinking Tokens:")):
            continue
        else:
            yield number, BadRecord(f"unexpected line in a {inter.kind} interaction")
    for inter in open_.values():
        yield from _finish(inter, file)


def _finish(inter: _Interaction, file: str) -> Iterator[tuple[int, CaptureRecord | Ignored | BadRecord]]:
    if inter.kind == "Chat":
        yield inter.line, Ignored("chat interaction")
        return
    try:
        options: Any = loads("\n".join(inter.options_lines)) if inter.options_lines else {}
        scrubbed = scrub_json(options)
    except json.JSONDecodeError as exc:
        yield inter.line, BadRecord(f"invalid Options JSON: {exc.msg}")
        return
    except ValueError as exc:  # nested too deeply (BadRecord is not a ValueError)
        yield inter.line, BadRecord(f"invalid Options JSON: {exc}")
        return
    except BadRecord as exc:
        yield inter.line, exc
        return
    if not isinstance(options, dict):
        yield inter.line, BadRecord("Options is not a JSON object")
        return
    extra: dict[str, Any] = {"era": "formatter", "options": scrubbed, "time_utc": inter.time,
                             "status": inter.status, "route": "fim" if inter.kind == "Fim" else "raw"}
    segments = None
    prompt = None
    if inter.kind == "Fim":
        segments = Segments(prefix="\n".join(inter.parts["Prefix"]), suffix="\n".join(inter.parts["Suffix"]))
    else:
        prompt = "\n".join(inter.parts["Prompt"])
    result = "\n".join(inter.parts["Result"]) if inter.parts["Result"] else None
    model = options.get("model")
    yield inter.line, CaptureRecord(
        source=Source(file=file, line=inter.line),
        editor="continue",
        format=FORMAT,
        model=model if isinstance(model, str) else None,
        segments=segments,
        logged_prompt=prompt,
        completion=result,
        lossy=True,
        extra=extra,
        raw=scrub_text("\n".join(inter.raw)),
    )


def looks_like(head: bytes) -> bool:
    """The LLMLogFormatter columns, or the bare message heads the earlier writer appended. The
    head keeps its first line's leading space: it is the first interaction's marker."""
    text = head.decode("utf-8", errors="replace").replace("\r\n", "\n")  # a CRLF copy too
    return is_formatter_log(text) or text.startswith(("##### Completion options #####\n", "Settings:\n"))
