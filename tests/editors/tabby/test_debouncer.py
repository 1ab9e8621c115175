"""tabby-agent's adaptive debounce through a session (replay/editors/tabby/debouncer.py, from
TabbyML/tabby clients/tabby-agent/src/codeCompletion/debouncer.ts and latencyTracker.ts)."""

from __future__ import annotations

from replay.editors import PROFILES
from replay.editors.live import Doc
from replay.editors.tabby.debouncer import AdaptiveDebouncer
from replay.editors.tabby.version import tabby_version

STATE = tabby_version("1.8.0").agent


def test_with_no_answer_yet_the_estimate_is_nan_and_the_request_goes_out_after_1ms() -> None:
    debouncer = AdaptiveDebouncer(STATE)
    assert debouncer.delay(Doc("x = f", 5), 0.0, cached=False, last_sent_ms=None) == 1.0


def test_the_delay_is_the_rate_times_the_base_interval_less_the_mean_latency() -> None:
    debouncer = AdaptiveDebouncer(STATE)
    debouncer.answered(150.0)
    debouncer.answered(None)  # a timeout: NaN, left out of the mean
    debouncer.answered(250.0)
    # "f" is a word character, at the line's end (+0.4) and the document's (+0.1): rate 3 - 1.5 x 0.5 = 2.25
    assert debouncer.delay(Doc("x = f", 5), 0.0, cached=False, last_sent_ms=None) == 2.25 * 200 - 200
    # a cached answer is debounced without the response time; "(" is no word character: rate 1.5
    assert debouncer.delay(Doc("x = f(", 6), 1000.0, cached=True, last_sent_ms=None) == 1.5 * 200


def test_the_base_interval_follows_the_typing_once_more_than_20_intervals_are_known() -> None:
    debouncer = AdaptiveDebouncer(STATE)
    debouncer.answered(0.0)
    for n in range(22):
        delay = debouncer.delay(Doc("x = f", 5), n * 150.0, cached=False, last_sent_ms=None)
    assert debouncer.base == 150.0 and delay == 2.25 * 150
    debouncer.delay(Doc("x = f", 5), 22 * 150.0 + 5000.0, cached=False, last_sent_ms=None)  # > 400 ms: not counted
    assert len(debouncer.intervals) == 21


def test_a_fixed_debounce_sleeps_its_interval() -> None:
    debouncer = AdaptiveDebouncer(STATE, {"completion.debounce.mode": "fixed", "completion.debounce.interval": 75})
    assert debouncer.delay(Doc("x = f", 5), 0.0, cached=False, last_sent_ms=None) == 75


def test_the_tabby_profile_drives_its_sessions_with_it() -> None:
    assert isinstance(PROFILES["tabby"].debouncer("1.8.0"), AdaptiveDebouncer)
    assert PROFILES["continue"].debouncer(None) is None
