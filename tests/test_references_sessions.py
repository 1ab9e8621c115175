"""The typed reference on typing sessions made by the editors' own code (tests/data/sessions/):
each capture's reference is the text the user left at that spot in the final document, or
null with a reason; never another text."""

from __future__ import annotations

import gzip
import json
import re
from pathlib import Path

import msgspec
import pytest

from replay.records import CaptureRecord
from replay.reference_windows import copilot_body, request_body
from replay.references import Window, typed_references, window_of

SESSIONS = Path(__file__).parent / "data" / "sessions"
# references given at the time of recording (tests/data/sessions/README.md): a rule change that
# loses many of them shows here
MIN_GIVEN = {"tabby-agent-1.5.0": 26, "tabby-agent-1.9.0-dev": 22, "llama.vscode-v0.0.63": 31, "chat-lib-0.66.0": 16}


def _moved(point: int, right: bool, at: int, delete: int, insert: str) -> int:
    """Where a point of the document is after an edit: a spot's start keeps to the left of text
    inserted at it, its end to the right (what is typed at the cursor goes between them)."""
    if point < at or (point == at and not right):
        return point
    if point >= at + delete and (point > at or right):
        return point + len(insert) - delete
    return at + len(insert) if right else at


def _sent_after(after: str, sent: str) -> bool:
    """Whether `sent` is the client's suffix of the document text `after` the cursor: as it is; at
    the document's end without llama.vscode's final line breaks (src/completion.ts:
    `lineSuffix + '\\n' + suffixLines.join('\\n') + '\\n'`); from the line break on, the rest of
    the cursor's line (no word character) left out, as tabby-agent does from eae43ba76
    (codeCompletion/contexts.ts); or from the next line, leading blanks trimmed, as Copilot's
    currentFile.tsx `AfterCursor` cuts it."""
    if after.startswith(sent[:300]) or after.rstrip("\n") == sent.rstrip("\n"):
        return True
    if sent and re.sub(r"^.*", "", after, count=1).lstrip().startswith(sent[:300]):
        return True
    rest = after.split("\n", 1)[0]
    return sent.startswith("\n") and re.fullmatch(r"[^A-Za-z0-9_]*", rest) is not None and after[len(rest):].startswith(sent[:300])


def _step_of(window: Window, states: list[tuple[str, int]], first: int, copilot: bool) -> int | None:
    """The first edit step from `first` on whose document and cursor the window was cut from."""
    for n in range(first, len(states)):
        doc, cursor = states[n]
        before = doc[:cursor]
        if copilot and window.before.endswith("\n"):  # Copilot's prompt.ts trimLastLine: a blank last line's blanks left out
            before = before.rstrip(" \t")
        if before.endswith(window.before[-300:]) and _sent_after(doc[cursor:], window.after):
            return n
    return None


def _truth(session: dict, step: int) -> str:
    """The text at the cursor of `step` in the final document, the spot followed through every later edit."""
    start = end = session["steps"][step]["cursor"]
    for edit in session["steps"][step + 1:]:
        start = _moved(start, False, edit["at"], edit["delete"], edit["insert"])
        end = _moved(end, True, edit["at"], edit["delete"], edit["insert"])
    return session["final"][start:end]


@pytest.mark.parametrize("folder", sorted(p.name for p in SESSIONS.iterdir() if p.is_dir()))
def test_every_reference_is_what_the_user_left_at_the_spot(folder: str) -> None:
    session = json.loads(gzip.decompress((SESSIONS / "session.json.gz").read_bytes()))
    lines = gzip.decompress((SESSIONS / folder / "captures.jsonl.gz").read_bytes()).splitlines()
    records = [msgspec.json.decode(line, type=CaptureRecord) for line in lines]
    states, doc = [], session["initial"]
    for edit in session["steps"]:
        doc = doc[:edit["at"]] + edit["insert"] + doc[edit["at"] + edit["delete"]:]
        states.append((doc, edit["cursor"]))
    assert doc == session["final"]
    refs = typed_references(enumerate(records, 1))
    given, first = 0, 0
    for capture_id, rec in enumerate(records, 1):
        body = request_body(rec)
        ref, window = refs[capture_id], window_of(rec, body)
        step = None if isinstance(window, str) else _step_of(window, states, first, copilot_body(rec, body))
        if step is None:  # not a document the user had (a speculative request): never a reference
            assert ref.text is None and ref.why, capture_id
            continue
        first = step + 1
        truth = _truth(session, step)
        if ref.text is None:
            assert ref.why, capture_id
            continue
        given += 1
        if ref.complete:
            assert ref.text == truth, capture_id
        else:  # the lines finished before the cursor's line
            assert truth.startswith(ref.text) and ref.text.endswith("\n"), capture_id
        assert ref.text.split("\n")[0] == truth.split("\n")[0], capture_id
    assert given >= MIN_GIVEN[folder]
