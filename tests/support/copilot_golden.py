"""What the Copilot golden tests of both clients (chat-lib's provider and the language server)
share: reading a recording, the session a case belongs to, and a case run after its session's
earlier lines."""

from __future__ import annotations

import json
from pathlib import Path
from collections.abc import Callable
from typing import Any, TypeVar

from replay.editors.inputs import EditorInput, parse_object
from replay.editors.stage import Shown

T = TypeVar("T")

DATA = Path(__file__).resolve().parents[1] / "data"


def load(path: Path) -> list[dict]:
    """One JSON object per line."""
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def session_key(case: dict) -> str:
    """Lines sharing a `session` were asked in order of one client; any other line had its own."""
    return case.get("session") or case["item_id"]


def in_session(cases: list[dict], expected: list[dict], index: int, step: Callable[[EditorInput, dict], T]) -> T:
    """`step` (a call on one client of the profile under test) on each line of case `index`'s
    session up to it, in order, each with what was recorded for it; what it gave for the last."""
    key = session_key(cases[index])
    done = [step(parse_object(case), recorded) for case, recorded in zip(cases[: index + 1], expected[: index + 1])
            if session_key(case) == key]
    return done[-1]


def recorded_chunks(raw: str) -> list[tuple[int, float]]:
    """Both recordings' fetchers streamed 3 characters per chunk (their READMEs): as `timing`."""
    return [(min(end, len(raw)), 0.0) for end in range(3, len(raw) + 3, 3)]


Edit = tuple[str, int, int]  # the text, the characters it replaces before the cursor, after it


def recorded_edit(case: dict, item: dict | None) -> Edit | None:
    """A client's item (insertText over a 0-based range that starts at the line's start) as the
    edit it makes at the cursor; None: no item."""
    if item is None:
        return None
    column = len(case["prefix"].split("\n")[-1])
    return item["insertText"], column - item["range"]["start"]["character"], item["range"]["end"]["character"] - column


def shown_edit(shown: Shown) -> Edit | None:
    """What the profile showed, as the same edit."""
    return None if shown.text is None else (shown.text, shown.replace_before, shown.replace_after)


def row_edit(row: dict) -> Edit | None:
    """A `postprocess` output row's shown edit."""
    return None if row["shown_text"] is None else (row["shown_text"], row["replace_before"], row["replace_after"])


def session_edit(session: Any, cases: list[dict], expected: list[dict], index: int) -> Edit | None:
    """Case `index`'s shown edit from one session's client (`session.complete`), the earlier lines
    of its session first, each read in the recorded chunks."""
    return shown_edit(in_session(cases, expected, index,
                                 lambda inp, rec: session.complete(inp, rec["raw"], recorded_chunks(rec["raw"]))))


def cli_rows(cli: Any, tmp_path: Path, picked: list[tuple[dict, dict]], command: str, *args: str,
             timing: bool = False) -> list[dict]:
    """`fimreplay COMMAND IN.jsonl ARGS -o OUT.jsonl` on the picked (case, recorded) lines, each
    with the text received as `raw` (and, with `timing`, its recorded chunks); OUT's rows."""
    source, output = tmp_path / "in.jsonl", tmp_path / f"{command}.jsonl"
    lines = [json.dumps({**case, "raw": rec["raw"], **({"timing": recorded_chunks(rec["raw"])} if timing else {})})
             for case, rec in picked]
    source.write_text("\n".join(lines) + "\n", encoding="utf-8")
    out = cli(command, str(source), *args, "-o", str(output))
    assert out.returncode == 0, out.stderr
    return load(output)
