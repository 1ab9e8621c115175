"""What `fimreplay audit` reads: rendered-prompt JSONL (a file, or `-` for standard input), a prompt
as text (@FILE), stored captures.

A line that cannot be used is never dropped silently: it goes to the task's rejects (file, line,
reason, the raw line; replay.rejects), counted in the summary and kept in its rejects file.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from pathlib import Path

import msgspec

from replay.records import rendered_prompt_of
from replay.rejects import Rejects
from replay.store import Store
from replay.tokens.audit import Subject, subject_from_capture, subject_from_rendered


def read_rendered_jsonl(path: Path, rejects: Rejects) -> Iterator[Subject]:
    """Rendered prompts, one JSON object a line: the output of `fimreplay render` (any editor's:
    the prompt under `prompt`) or RenderedPrompt records (under `text`), read as `run` reads them."""
    with open(path, "rb") as f:
        yield from read_rendered_lines(f, str(path), rejects)


def read_rendered_lines(lines: Iterable[bytes], name: str, rejects: Rejects) -> Iterator[Subject]:
    """read_rendered_jsonl over lines already open (`render ... | audit -`: standard input),
    `name` saying where they come from. Lines are bytes, each decoded on its own: a byte that
    is not UTF-8 rejects its line alone."""
    for n, raw in enumerate(lines, start=1):
        line = raw.rstrip(b"\r\n")
        if not line.strip():
            continue
        try:
            obj = msgspec.json.decode(line)
            if not isinstance(obj, dict):
                raise msgspec.ValidationError("expected a JSON object")
            rec = rendered_prompt_of(obj)
        except (msgspec.DecodeError, msgspec.ValidationError) as exc:
            rejects.at(name, n, f"not a rendered prompt: {exc}", line)
            continue
        except UnicodeDecodeError as exc:  # msgspec decodes each string's bytes with Python's codec
            rejects.at(name, n, f"not a rendered prompt: invalid UTF-8 (byte 0x{exc.object[exc.start]:02x} in a string)", line)
            continue
        line_no = obj.get("line")  # render's output names the input line it came from
        yield subject_from_rendered(rec, where=f"{name}:{n}", line=line_no if isinstance(line_no, int) else None)


def read_prompt_file(path: Path) -> Subject:
    """A prompt given as text: the whole file, exactly (no newline added or removed)."""
    with open(path, encoding="utf-8", newline="") as f:
        return Subject(text=f.read(), where=str(path))


def read_captures(store: Store, rejects: Rejects) -> Iterator[Subject]:
    for cid, rec, _hash in store.captures():
        subject = subject_from_capture(rec)
        if subject is None:
            rejects.at(rec.source.file, rec.source.line, f"capture {cid} has no logged prompt to audit", rec.raw)
            continue
        yield subject
