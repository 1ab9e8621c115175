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


def shown_between(first_s: float, total_s: float, rules: TimingRules) -> tuple[float, float]:
    """When the editor shows the answer, as (earliest, latest): when it has arrived; for an editor
    that stops reading a stream at `shown_by_ms` (Continue's showWhateverWeHaveAtXMs), at the end
    of the first line read past that time (replay/editors/continue_/stream.py), which a run's
    first-token and whole-answer times bound but do not fix: not before the limit nor the first
    token, not after the whole answer."""
    if rules.shown_by_ms is None:
        return total_s, total_s
    return min(total_s, max(first_s, rules.shown_by_ms / 1000)), total_s


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
    earliest, latest = shown_between(total_s if first_s is None else first_s, total_s, rules)
    early, late = _shown_at(earliest, gap_s, rules), _shown_at(latest, gap_s, rules)
    if early.outcome == late.outcome:
        return late
    return Verdict(UNKNOWN, f"{rules.editor} {rules.release} shows what it read by the end of the first line past "
                            f"{rules.shown_by_ms:g} ms: {early.outcome} at the earliest that can be, {late.outcome} "
                            "with the whole answer, and the run did not time its line ends")


def _shown_at(shown_s: float, gap_s: float | None, rules: TimingRules) -> Verdict:
    """The verdict on an answer shown `shown_s` after its request (verdict's docstring)."""
    timeout = rules.client_timeout_ms
    if timeout is not None and shown_s * 1000 > timeout:
        return Verdict(TIMED_OUT, f"{rules.editor} {rules.release} gives up after {timeout:g} ms")
    if gap_s is None:
        return Verdict(UNKNOWN, "no later request in the capture's log: when the user typed on is not known")
    shortest, longest = rules.debounce.bounds()
    if shown_s * 1000 <= gap_s * 1000 - longest:
        return Verdict(IN_TIME)
    if shown_s * 1000 > gap_s * 1000 - shortest:
        if rules.shows_late and not rules.cancels_in_flight:
            return Verdict(UNKNOWN, f"after the user typed on; {rules.editor} {rules.release}: {rules.late_answer}")
        return Verdict(LATE, f"after the user typed on; {rules.editor} {rules.release}: {rules.late_answer}")
    return Verdict(UNKNOWN, f"within {rules.editor}'s {rules.debounce.mode} debounce ({shortest:g}-{longest:g} ms) "
                            "of the user's next keystroke")
