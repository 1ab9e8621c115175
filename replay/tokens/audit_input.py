"""What `fimreplay audit` reads: rendered-prompt JSONL, a prompt as text (@FILE), stored captures.

A line that cannot be used is never dropped silently: it becomes a Reject (file, line, reason,
the raw line), counted in the summary and written to a rejects file.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from dataclasses import asdict, dataclass
from pathlib import Path

import msgspec

from replay.paths import data_dir
from replay.records import RenderedPrompt
from replay.store import Store
from replay.tokens.audit import Subject, subject_from_capture, subject_from_rendered


@dataclass(frozen=True)
class Reject:
    file: str
    line: int
    reason: str
    raw: str

    def line_text(self) -> str:
        return f"{self.file}:{self.line}: {self.reason}"


def read_rendered_jsonl(path: Path, rejects: list[Reject]) -> Iterator[Subject]:
    """RenderedPrompt records, one JSON object a line (the output of `fimreplay render`)."""
    with open(path, encoding="utf-8", newline="") as f:
        for n, raw in enumerate(f, start=1):
            line = raw.rstrip("\r\n")
            if not line.strip():
                continue
            try:
                rec = msgspec.json.decode(line, type=RenderedPrompt)
            except (msgspec.DecodeError, msgspec.ValidationError) as exc:
                rejects.append(Reject(str(path), n, f"not a rendered prompt: {exc}", line))
                continue
            yield subject_from_rendered(rec, where=f"{path}:{n}")


def read_prompt_file(path: Path) -> Subject:
    """A prompt given as text: the whole file, exactly (no newline added or removed)."""
    with open(path, encoding="utf-8", newline="") as f:
        return Subject(text=f.read(), where=str(path))


def read_captures(store: Store, rejects: list[Reject]) -> Iterator[Subject]:
    for cid, rec, _hash in store.captures():
        subject = subject_from_capture(rec)
        if subject is None:
            rejects.append(Reject(rec.source.file, rec.source.line, f"capture {cid} has no logged prompt to audit", rec.raw))
            continue
        yield subject


def write_rejects(rejects: list[Reject], path: Path | None = None) -> Path:
    """The rejected lines as JSONL (file, line, reason, raw); default under the data dir."""
    if path is None:
        folder = data_dir() / "rejects"
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / f"audit-{time.strftime('%Y%m%dT%H%M%S', time.gmtime())}.jsonl"
    with open(path, "w", encoding="utf-8") as f:
        for r in rejects:
            f.write(json.dumps(asdict(r), ensure_ascii=False) + "\n")
    return path
