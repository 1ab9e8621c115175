"""A stored run's pairs: each completion with its reference, an item's middle or the text the
user accepted of a replayed capture."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from replay.reading import ScoreKeeper
from replay.rejects import Reject

if TYPE_CHECKING:
    from replay.records import ItemReference, Reference


RunEntry = tuple[str, str, str, str, Any]  # item id, file, language, reference, Completion


def run_entries(store: ScoreKeeper, run_id: str,
                completions: list[tuple[Any, ItemReference | None]] | None = None
                ) -> tuple[list[RunEntry], list[Reject], dict[str, int]]:
    """A stored run's completions with their references: the items' middles, or a replayed
    capture's accepted text (`completions`: Store.scored_completions, when the caller read them
    already). A completion's reference is its benchmark item's middle when the store holds the
    item, else what the run keeps as its reference (Store.run_references: a capture, whose
    accepted text is read now).

    What is scored of each is picked later (Completion.scored_pair): "shown", what the editor
    showed after its completion stage (a completion shown as nothing scores as ""; one shown over
    text before the cursor, what it inserts at the cursor), or "raw", what it received. A
    completion that failed (error) is scored as an empty completion, counted in `n_errors`. `n_stop_cut` counts texts cut at a stop word. The counts say how
    shown and raw differ: `n_changed` (the stage changed the text), `n_nothing_shown`,
    `chars_removed` (raw minus shown characters, summed), and `n_no_stage` (completions without
    a stage, scored on their raw text).
    """
    entries: list[RunEntry] = []
    rejects = []
    counts = {"n_errors": 0, "n_stop_cut": 0, "n_changed": 0, "n_nothing_shown": 0, "chars_removed": 0, "n_no_stage": 0}
    references: dict[str, Reference] | None = None  # read once, when a completion has no item
    for comp, item in store.scored_completions(run_id) if completions is None else completions:
        if item is not None:
            entries.append((comp.item_id, item.file, item.language, item.middle, comp))
        else:
            if references is None:
                references = store.run_references(run_id)
            reference = references.get(comp.item_id)
            ref, reason = (capture_reference(store, reference.capture_id)
                           if reference is not None and reference.kind == "capture" else (None, "no such item in the store"))
            if ref is None:
                rejects.append(Reject(f"{run_id}:{comp.item_id}", reason))
                continue
            entries.append((comp.item_id, *ref, comp))
        if comp.error:
            counts["n_errors"] += 1
            continue
        counts["n_stop_cut"] += int(comp.text != comp.raw_text)
        if not comp.stage:
            counts["n_no_stage"] += 1
        else:
            shown = comp.scored_text("shown")
            counts["n_nothing_shown"] += int(comp.shown_text is None)
            counts["n_changed"] += int(comp.shown_text is None or shown != comp.text)
            counts["chars_removed"] += len(comp.text) - len(shown)
    return entries, rejects, counts


def capture_reference(store: ScoreKeeper, capture_id: int) -> tuple[tuple[str, str, str] | None, str]:
    """(file, language, reference) of a replayed capture, or None and why not.

    A capture has a reference only when the user accepted the editor's completion: the accepted
    text is what the user wanted at that cursor. A dismissed or merely viewed completion says
    nothing about the right answer, so such captures are not scored (counted as rejects)."""
    rec = store.capture(capture_id)
    if rec is None:
        return None, "no such capture in the store"
    reference = accepted_text(rec)
    if reference is None:
        return None, f"capture outcome {rec.outcome}: no accepted text to score against"
    return (rec.filepath or rec.source.file, rec.language or "", reference), ""


def accepted_text(rec: Any) -> str | None:
    """The text the user accepted of a capture's completion (a line-wise accept: its first line,
    the part surely taken), or None when nothing was accepted."""
    if rec.outcome not in ("accepted", "accepted_line") or not rec.completion:
        return None
    return rec.completion.split("\n", 1)[0] if rec.outcome == "accepted_line" else rec.completion


def unscored_reasons(rejects: list[Reject]) -> dict[str, int]:
    """Why the items not scored were not: each reason with how many items it stopped, the most
    frequent first (ties in the order first met)."""
    counts: dict[str, int] = {}
    for reject in rejects:
        counts[reject.reason] = counts.get(reject.reason, 0) + 1
    return dict(sorted(counts.items(), key=lambda kv: -kv[1]))


def nothing_scored(n_items: int, reasons: dict[str, int], what: str = "completions") -> str | None:
    """The sentence a score, report or comparison over no scored item says instead of figures
    (None when an item was scored): how many inputs there were and why none could be scored."""
    if n_items:
        return None
    n = sum(reasons.values())
    if not n:
        return f"nothing scored: no {what} to score"
    why = "; ".join(f"{count}: {reason}" for reason, count in reasons.items())
    return f"nothing scored: none of the {n} {what} could be scored ({why})"
