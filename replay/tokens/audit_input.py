"""What `fimreplay audit` reads: rendered-prompt JSONL, a prompt as text (@FILE), stored captures.

A line that cannot be used is never dropped silently: it goes to the task's rejects (file, line,
reason, the raw line; replay.rejects), counted in the summary and kept in its rejects file.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import msgspec

from replay.records import RenderedPrompt
from replay.rejects import Rejects
from replay.store import Store
from replay.tokens.audit import Subject, subject_from_capture, subject_from_rendered


def read_rendered_jsonl(path: Path, rejects: Rejects) -> Iterator[Subject]:
    """RenderedPrompt records, one JSON object a line (the output of `fimreplay render`)."""
    with open(path, encoding="utf-8", newline="") as f:
        for n, raw in enumerate(f, start=1):
            line = raw.rstrip("\r\n")
            if not line.strip():
                continue
            try:
                rec = msgspec.json.decode(line, type=RenderedPrompt)
            except (msgspec.DecodeError, msgspec.ValidationError) as exc:
                rejects.at(path, n, f"not a rendered prompt: {exc}", line)
                continue
            yield subject_from_rendered(rec, where=f"{path}:{n}")


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
