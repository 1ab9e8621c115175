"""The capture formats, registered once: every name list (the CLI's `--format` choices, format
detection, which files are tailed line by line) is derived from FORMATS.

A format is either JSON Lines (`lines`: read, and tailed by `watch`, line by line; each line
parsed on its own) or a text log (`text`: read whole, its entries parsed together). Each format
module says how its files start (`looks_like`, tried in the order below on the first bytes) and
how its records are parsed.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Literal

from replay.importers import continue_console, continue_devdata, continue_jetbrains, tabby
from replay.errors import UsageError
from replay.importers.common import BadRecord, Ignored, Parsed
from replay.records import CaptureRecord, Source
from replay.store import StoredCapture

LineParser = Callable[[bytes, Source], Parsed | StoredCapture]
TextParser = Callable[[str, str], Iterator[tuple[int, CaptureRecord | Ignored | BadRecord]]]


@dataclass(frozen=True)
class CaptureFormat:
    name: str
    description: str
    kind: Literal["lines", "text"]
    looks_like: Callable[[bytes], bool]  # the file's first bytes, BOM and leading whitespace removed
    parse_line: LineParser | None = None  # lines: one line -> a record, Ignored, or BadRecord raised
    parse_text: TextParser | None = None  # text: the whole log -> (line, record | Ignored | BadRecord)
    file_names: frozenset[str] = frozenset()  # files of these names that hold JSON lines are this format


FORMATS: dict[str, CaptureFormat] = {f.name: f for f in (
    CaptureFormat(tabby.FORMAT, "Tabby server event logs (~/.tabby/events/*.json, .gz)", "lines",
                  tabby.looks_like, parse_line=tabby.scan_line),
    CaptureFormat(continue_devdata.FORMAT, "Continue dev data (autocomplete.jsonl; the other event files ignored)", "lines",
                  continue_devdata.looks_like, parse_line=continue_devdata.parse_line,
                  file_names=continue_devdata.DEV_DATA_FILES),
    CaptureFormat(continue_console.FORMAT, "Continue's VS Code output channel (copied text)", "text",
                  continue_console.looks_like, parse_text=continue_console.parse_text),
    CaptureFormat(continue_jetbrains.FORMAT, "Continue's JetBrains prompt.log", "text",
                  continue_jetbrains.looks_like, parse_text=continue_jetbrains.parse),
)}
NAMES = tuple(FORMATS)
LINE_FORMATS = tuple(name for name, f in FORMATS.items() if f.kind == "lines")


def capture_format(name: str) -> CaptureFormat:
    try:
        return FORMATS[name]
    except KeyError:
        raise UsageError(f"unknown format {name!r} (one of {', '.join(NAMES)})") from None
