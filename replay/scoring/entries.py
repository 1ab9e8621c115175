"""A stored run's pairs: each completion with its reference, an item's middle or, of a replayed
capture, what the user typed at its cursor (replay.references) or the text the user accepted."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal

import msgspec

from replay.reading import ScoreKeeper
from replay.records import CaptureRecord
from replay.references import Typed, typed_references
from replay.rejects import Reject

if TYPE_CHECKING:
    from replay.records import ItemReference, Reference


RunEntry = tuple[str, str, str, str, Any]  # item id, file, language, reference, Completion
ReferenceKind = Literal["typed", "accepted"]
REFERENCE_KINDS: tuple[ReferenceKind, ...] = ("typed", "accepted")
SOURCE_COUNT = "reference:"  # run_entries' count of the captures scored against a reference of each source


def run_entries(store: ScoreKeeper, run_id: str,
                completions: list[tuple[Any, ItemReference | None]] | None = None, which: ReferenceKind = "typed"
                ) -> tuple[list[RunEntry], list[Reject], dict[str, int]]:
    """A stored run's completions with their references: the items' middles, or a replayed
    capture's accepted text (`completions`: Store.scored_completions, when the caller read them
    already). A completion's reference is its benchmark item's middle when the store holds the
    item, else what the run keeps as its reference (Store.run_references: a capture, whose
    reference of kind `which` is read now: CaptureReferences); the counts hold, besides, the
    captures' references by source (keys SOURCE_COUNT + source).

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
    captures = CaptureReferences(store, which)
    for comp, item in store.scored_completions(run_id) if completions is None else completions:
        if item is not None:
            entries.append((comp.item_id, item.file, item.language, item.middle, comp))
        else:
            if references is None:
                references = store.run_references(run_id)
            reference = references.get(comp.item_id)
            ref, reason = (captures.of(reference.capture_id)
                           if reference is not None and reference.kind == "capture" else (None, "no such item in the store"))
            if ref is None:
                rejects.append(Reject(f"{run_id}:{comp.item_id}", reason))
                continue
            entries.append((comp.item_id, ref[0], ref[1], ref[2].text, comp))
            counts[SOURCE_COUNT + ref[2].source] = counts.get(SOURCE_COUNT + ref[2].source, 0) + 1
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


class CaptureReference(msgspec.Struct, frozen=True, omit_defaults=True):
    """What a replayed capture is scored against: the text, where it comes from ("typed": what the
    user left at the cursor, replay.references; "typed+accepted": that, which begins with the
    item the user accepted, so the item was kept; "accepted": the accepted item alone, where
    what was typed cannot be read), and for a typed one how long after the request it was read,
    whether the user had left the spot (else the lines finished before the cursor) and the
    capture it was read from."""

    text: str
    source: Literal["typed", "accepted", "typed+accepted"]
    settled_after_ms: int | None = None
    complete: bool | None = None
    read_from: int | None = None


def reference_of(rec: Any, typed: Typed | None, which: ReferenceKind = "typed") -> tuple[CaptureReference | None, str]:
    """A capture's reference, or None and why not. `which` "accepted": the accepted text only
    (a dismissed or merely viewed completion says nothing of the right answer); "typed": the
    typed reference (`typed`, replay.references), else the accepted text."""
    accepted = accepted_text(rec)
    if which == "accepted" or typed is None or typed.text is None:
        if accepted is not None:
            return CaptureReference(accepted, "accepted"), ""
        if which == "accepted":
            return None, f"capture outcome {rec.outcome}: no accepted text to score against"
        why = typed.why if typed is not None else "not read"
        return None, f"no typed reference ({why}) and no accepted text (outcome {rec.outcome})"
    source = "typed+accepted" if accepted and typed.text.startswith(accepted) else "typed"
    return CaptureReference(typed.text, source, typed.settled_after_ms, typed.complete, typed.read_from), ""


class CaptureReferences:
    """The references of a store's captures under one kind (`which`), the typed ones worked out
    once, from every capture of the store, when the first is asked for."""

    def __init__(self, store: ScoreKeeper, which: ReferenceKind = "typed") -> None:
        if which not in REFERENCE_KINDS:
            raise ValueError(f"unknown reference {which!r} (one of {', '.join(REFERENCE_KINDS)})")
        self.store, self.which = store, which
        self._typed: dict[int, Typed] | None = None

    def typed(self, capture_id: int) -> Typed | None:
        if self._typed is None:
            self._typed = typed_references((i, rec) for i, rec, _ in self.store.captures())
        return self._typed.get(capture_id)

    def of(self, capture_id: int, rec: CaptureRecord | None = None) -> tuple[tuple[str, str, CaptureReference] | None, str]:
        """(file, language, reference) of a replayed capture, or None and why not (`rec`: the
        capture when the caller has read it already)."""
        rec = rec if rec is not None else self.store.capture(capture_id)
        if rec is None:
            return None, "no such capture in the store"
        ref, why = reference_of(rec, self.typed(capture_id) if self.which == "typed" else None, self.which)
        return (None, why) if ref is None else ((rec.filepath or rec.source.file, rec.language or "", ref), "")


def capture_reference(store: ScoreKeeper, capture_id: int, which: ReferenceKind = "typed") -> tuple[tuple[str, str, str] | None, str]:
    """(file, language, reference text) of one replayed capture, or None and why not."""
    found, why = CaptureReferences(store, which).of(capture_id)
    return (None, why) if found is None else ((found[0], found[1], found[2].text), "")


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
