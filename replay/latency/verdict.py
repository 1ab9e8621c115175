"""Whether the editor would have shown a replayed answer in time: before the user typed on (the
next request of the capture's log, less the debounce that delayed it) and before the client's
timeout, under the editor release's timing rules (replay/editors/*/timing.py)."""

from __future__ import annotations

from dataclasses import dataclass

from replay.editors.timing import TimingRules

IN_TIME, LATE, TIMED_OUT, UNKNOWN = "in_time", "late", "timed_out", "unknown"


@dataclass(frozen=True)
class Verdict:
    """`outcome` one of in_time, late, timed_out, unknown; `reason` says why (always for unknown)."""

    outcome: str
    reason: str = ""


def shown_at(first_s: float, total_s: float, rules: TimingRules) -> float:
    """When the editor shows the answer: when it has arrived, or, for an editor that shows what
    has streamed by `shown_by_ms`, then (but not before its first token)."""
    if rules.shown_by_ms is None:
        return total_s
    return min(total_s, max(first_s, rules.shown_by_ms / 1000))


def verdict(total_s: float, gap_s: float | None, rules: TimingRules | str, first_s: float | None = None) -> Verdict:
    """The verdict on an answer that took `total_s` to arrive (its first token `first_s`: the same
    when not given), where the user's next request came `gap_s` after this one (None: not known),
    under `rules` (a str: why there are none).

    The next request went out one debounce after the keystroke that caused it, so the user typed
    on between gap - longest debounce and gap - shortest: an answer before the first is in time,
    one after the second is late (never shown when the next request aborts it or the editor shows
    no late answer), one between depends on the editor's adaptive estimate."""
    if isinstance(rules, str):
        return Verdict(UNKNOWN, rules)
    total_s = shown_at(total_s if first_s is None else first_s, total_s, rules)
    timeout = rules.client_timeout_ms
    if timeout is not None and total_s * 1000 > timeout:
        return Verdict(TIMED_OUT, f"{rules.editor} {rules.release} gives up after {timeout:g} ms")
    if gap_s is None:
        return Verdict(UNKNOWN, "no later request in the capture's log: when the user typed on is not known")
    shortest, longest = rules.debounce.bounds()
    if total_s * 1000 <= gap_s * 1000 - longest:
        return Verdict(IN_TIME)
    if total_s * 1000 > gap_s * 1000 - shortest:
        if rules.shows_late and not rules.cancels_in_flight:
            return Verdict(UNKNOWN, f"after the user typed on; {rules.editor} {rules.release}: {rules.late_answer}")
        return Verdict(LATE, f"after the user typed on; {rules.editor} {rules.release}: {rules.late_answer}")
    return Verdict(UNKNOWN, f"within {rules.editor}'s {rules.debounce.mode} debounce ({shortest:g}-{longest:g} ms) "
                            "of the user's next keystroke")
