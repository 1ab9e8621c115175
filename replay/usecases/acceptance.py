"""`fimreplay report --acceptance`: acceptance and retention of what the editors showed, and which
score of the shown text against what the user typed predicts acceptance (replay.reports.acceptance)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from replay.reports.acceptance import GROUPS, Shown, acceptance, to_markdown
from replay.store import Store
from replay.usecases.score import write_page

__all__ = ["GROUPS", "AcceptanceReport", "acceptance_report"]  # GROUPS: what a report groups by

# The outcomes that say whether a shown completion was accepted (unknown: the log holds none).
KNOWN = {"accepted": True, "accepted_line": True, "dismissed": False, "viewed": False}


@dataclass(frozen=True)
class AcceptanceReport:
    data: dict[str, Any]  # replay.reports.acceptance.acceptance's
    page: str  # Markdown
    output: Path | None = None

    @property
    def nothing_scored(self) -> str | None:
        """Why there is nothing to report: no capture with a logged outcome (None otherwise)."""
        if self.data["n_shown"]:
            return None
        return "nothing to judge: no capture's log says whether its completion was accepted (Tabby events, Continue dev data do)"


def acceptance_report(store: Store, seed: int = 0, workers: int | None = None, output: Path | None = None) -> AcceptanceReport:
    """Every capture whose outcome is logged and whose completion is kept: accepted or not, the
    accepted item retained once the document settled (its typed reference begins with it), and
    the shown text's scores against the typed reference (replay.scoring.CaptureReferences)."""
    from replay.editors import capture_version
    from replay.scoring import CaptureReferences, accepted_text, score_rows

    references = CaptureReferences(store)
    shown: list[tuple[str, Shown]] = []
    pairs = []
    for cid, rec, outcome in store.captures():
        if outcome not in KNOWN or not rec.completion:
            continue
        typed = references.typed(cid)
        text = typed.text if typed is not None else None
        kept = accepted_text(rec)
        item = Shown(rec.editor, capture_version(rec) or "?", rec.language or "?", rec.model or "?", KNOWN[outcome],
                     len(rec.completion), len(kept or ""), None if text is None or kept is None else text.startswith(kept))
        shown.append((str(cid), item))
        if text is not None:
            pairs.append((str(cid), rec.filepath or rec.source.file, rec.language or "", text, rec.completion))
    values = {row.item_id: row.values for row in score_rows(pairs, "auto", workers)}
    items = [Shown(**{**s.__dict__, "values": values.get(cid, {})}) for cid, s in shown]
    data = acceptance(items, seed)
    page = to_markdown(data)
    if output is not None:
        write_page(output, page)
    return AcceptanceReport(data, page, output)
