"""Check the simulator against an editor's own log: rebuild each logged prompt from the segments
captured beside it and compare byte for byte.

A capture is checked when it carries both segments (Tabby) or a compiled prefix/suffix
(Continue dev data) and a logged prompt. A mismatch is reported with the first differing byte
offset (UTF-8), a short excerpt of both sides there, and for Continue the rule and release that
wrote the rebuilt bytes (and a release whose rules rebuild the log exactly, when one does).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import msgspec

from replay.editors import PROFILES, explain_mismatch, rebuild_logged_prompt
from replay.errors import UsageError
from replay.records import CaptureRecord
from replay.tokens.diff import first_difference

EXCERPT = 40


@dataclass
class VerifyReport:
    checked: int = 0
    matched: int = 0
    mismatches: list[dict[str, Any]] = field(default_factory=list)
    errors: list[dict[str, Any]] = field(default_factory=list)
    skipped: dict[str, int] = field(default_factory=dict)
    by_editor: dict[str, dict[str, int]] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        return {"checked": self.checked, "matched": self.matched, "mismatched": len(self.mismatches),
                "errors": len(self.errors), "skipped": self.skipped, "by_editor": self.by_editor,
                "mismatches": self.mismatches, "error_details": self.errors}

    @property
    def ok(self) -> bool:
        return not self.mismatches and not self.errors


def _skip(report: VerifyReport, reason: str) -> None:
    report.skipped[reason] = report.skipped.get(reason, 0) + 1


def _no_prompt(editor: str) -> str:
    """Why a capture without a logged prompt is skipped: an editor that never logs one (its
    prompt is built elsewhere, e.g. by llama-server from the /infill body) is named as such."""
    known = PROFILES.get(editor)
    if known is not None and not known.logs_prompts:
        return f"{editor} logs no prompt (nothing to check it against; `run captures` replays it)"
    return "no logged prompt"


def verify(captures: Iterable[tuple[int, CaptureRecord]], model: str | None = None,
           version: str | None = None) -> VerifyReport:
    """Rebuild and compare every capture that can be checked; the rest are counted as skipped.

    `model` / `version` stand in for what a capture does not record (Tabby's log names neither)."""
    report = VerifyReport()
    for capture_id, record in captures:
        if model and not record.model:
            record = msgspec.structs.replace(record, model=model)
        if version and not record.editor_version:
            record = msgspec.structs.replace(record, editor_version=version)
        if record.logged_prompt is None:
            _skip(report, _no_prompt(record.editor))
            continue
        if record.segments is None:
            _skip(report, "no segments")
            continue
        where = record.source.where()
        tally = report.by_editor.setdefault(record.editor, {"checked": 0, "matched": 0})
        try:
            rebuilt = rebuild_logged_prompt(record)
        except (UsageError, ValueError, KeyError, ImportError) as exc:
            report.errors.append({"capture_id": capture_id, "source": where, "reason": str(exc)})
            continue
        if rebuilt is None:
            _skip(report, "cannot be rebuilt from what was logged")
            continue
        report.checked += 1
        tally["checked"] += 1
        if rebuilt == record.logged_prompt:
            report.matched += 1
            tally["matched"] += 1
            continue
        logged, ours = record.logged_prompt.encode("utf-8"), rebuilt.encode("utf-8")
        offset = first_difference(logged, ours)
        report.mismatches.append({
            "capture_id": capture_id, "source": where, "editor": record.editor, "offset": offset,
            "logged": logged[offset:offset + EXCERPT].decode("utf-8", errors="replace"),
            "rebuilt": ours[offset:offset + EXCERPT].decode("utf-8", errors="replace"),
            **explain_mismatch(record),
        })
    return report
