"""The in-time verdict and the stated speed (replay.latency)."""

from __future__ import annotations

import pytest

from replay.editors.llama_vim.timing import timing as llama_vim
from replay.editors.tabby.timing import timing as tabby
from replay.errors import UsageError
from replay.latency import Speed, parse_speed, summarize, verdict
from replay.latency.rules import rules_for
from replay.latency.summary import percentile
from replay.reading import TimedCompletion


def test_verdict_against_the_next_keystroke_and_the_timeout() -> None:
    fixed = tabby("1.8.0", {"completion.debounce.mode": "fixed", "completion.debounce.interval": 200})
    # the next request went out 1.0 s later, 200 ms after its keystroke: the user typed on at 0.8 s
    assert verdict(0.79, 1.0, fixed).outcome == "in_time"
    assert verdict(0.81, 1.0, fixed).outcome == "late"
    assert verdict(4.5, None, tabby("1.3.0")).outcome == "timed_out"
    assert verdict(0.5, None, tabby("1.3.0")).outcome == "unknown"


def test_adaptive_debounce_leaves_a_band_unknown() -> None:
    rules = tabby("1.8.0")  # 100..1000 ms
    assert verdict(0.5, 2.0, rules).outcome == "in_time"
    assert verdict(1.5, 2.0, rules).outcome == "unknown"
    assert verdict(1.95, 2.0, rules).outcome == "late"


def test_llama_vim_late_answer_depends_on_what_was_typed() -> None:
    newest = llama_vim(None)
    assert verdict(0.3, 0.5, newest).outcome == "in_time"
    late = verdict(0.6, 0.5, newest)
    assert late.outcome == "unknown" and "s:fim_try_hint" in late.reason
    assert verdict(0.6, 0.5, llama_vim("292b5a4")).outcome == "late"  # the next request stops it (jobstop)


def test_no_rules_is_unknown_with_the_reason() -> None:
    assert verdict(0.1, 1.0, rules_for("copilot-ls")).reason == "copilot-ls's timing rules are not modelled yet"
    assert "JetBrains" in verdict(0.1, 1.0, rules_for("continue@v1.0.16-jetbrains")).reason
    assert "no editor" in verdict(0.1, 1.0, rules_for("")).reason
    assert "no timing of its own" in rules_for("standard")


def test_speed_parses_and_projects() -> None:
    speed = parse_speed("prefill=1000tok/s, decode=50,overhead=20ms")
    assert speed == Speed(1000.0, 50.0, 20.0)
    done = TimedCompletion(item_id="a", ttft_s=9, total_s=9, prompt_tokens=500, gen_tokens=11)
    first, total = speed.project(done)
    assert first == pytest.approx(0.02 + 0.5 + 0.02) and total == pytest.approx(first + 10 / 50)
    assert parse_speed("prefill=10,decode=5").overhead_ms == 0


@pytest.mark.parametrize("text", ["prefill=100", "decode=5", "prefill=x,decode=5", "prefill=0,decode=5", "speed=3,decode=1,prefill=1"])
def test_bad_speed_is_a_usage_error(text: str) -> None:
    with pytest.raises(UsageError, match="--speed"):
        parse_speed(text)


def test_summary_counts_and_percentiles() -> None:
    timed = [TimedCompletion(item_id=str(n), ttft_s=n / 100, total_s=n / 10, prompt_tokens=10, gen_tokens=4,
                             stage="tabby@1.3.0", gap_s=10.0) for n in range(1, 11)]
    timed.append(TimedCompletion(item_id="err", ttft_s=0, total_s=0.3, prompt_tokens=0, gen_tokens=0, answered=False))
    timed.append(TimedCompletion(item_id="untimed", ttft_s=0, total_s=0, prompt_tokens=0, gen_tokens=0))
    s = summarize(timed)
    assert s.n == 10 and s.total_p50_s == 0.5 and s.total_p90_s == 0.9 and s.ttft_p50_s == 0.05
    assert (s.in_time, s.late, s.timed_out, s.unknown, s.shown_in_time) == (10, 0, 0, 0, 1.0)
    slow = summarize(timed, Speed(1.0, 1.0))  # 10 s to read the prompt: every answer past the 4 s timeout
    assert slow.timed_out == 10 and slow.shown_in_time == 0.0 and slow.speed == "prefill=1,decode=1,overhead=0"
    assert percentile([], 50) is None


def test_continue_shows_what_it_read_by_the_first_line_past_its_limit() -> None:
    from replay.editors.continue_.timing import timing as continue_timing

    rules = continue_timing("0.9.246-vscode")  # showWhateverWeHaveAtXMs from the option: 300 ms
    assert rules.shown_by_ms == 300
    # the whole answer by 0.5 s: shown by then, before the keystroke at 1.0 s - 0.35 s of debounce
    assert verdict(0.5, 1.0, rules, first_s=0.1).outcome == "in_time"
    # the whole answer at 2 s, its first token at 0.1 s: shown at the end of the first line read
    # past 0.3 s, somewhere in 0.3-2 s, which the run's two times do not fix
    found = verdict(2.0, 1.0, rules, first_s=0.1)
    assert found.outcome == "unknown"
    assert "first line past 300 ms" in found.reason and "in_time at the earliest" in found.reason
    # its leading debounce: the keystroke came between 0.65 s and 1.0 s
    assert verdict(2.0, 1.0, rules, first_s=0.8).outcome == "unknown"
    assert verdict(2.0, 1.0, rules, first_s=1.2).outcome == "late"
    assert continue_timing("2025-06-01", {"modelTimeout": 90}).shown_by_ms == 90
    assert continue_timing("2024-09-01").shown_by_ms is None
