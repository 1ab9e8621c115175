"""Each editor's timing rules at the releases where they changed (replay/editors/*/timing.py)."""

from __future__ import annotations

import pytest

from replay.editors.llama_vim.timing import timing as llama_vim
from replay.editors.tabby.timing import adaptive_delay_ms
from replay.editors.tabby.timing import timing as tabby
from replay.editors.timing import Debounce


def test_llama_vim_first_commit_throttles_600_ms_and_stops_the_request_in_flight() -> None:
    rules = llama_vim("292b5a4")
    assert rules.debounce == Debounce("throttle", 0.0, 600.0) and rules.debounce.bounds() == (0.0, 600.0)
    assert rules.cancels_in_flight and not rules.shows_late and rules.client_timeout_ms is None
    assert (rules.predict_ms, rules.prompt_ms) == (3000, 500) and rules.cache == "none"


@pytest.mark.parametrize(("version", "predict_ms"), [
    ("f4d2ba2", 2000), ("a4b3ef2", 500), ("2d5a1fe", 1500), ("1175c8d", 250), ("a1c8e6e", 250)])
def test_llama_vim_time_cut_follows_the_default_and_the_quick_first_request(version: str, predict_ms: int) -> None:
    assert llama_vim(version).predict_ms == predict_ms


def test_llama_vim_waits_for_the_request_in_flight_from_a0ca488() -> None:
    before, after = llama_vim("d13d932"), llama_vim("a0ca488")
    assert before.debounce.mode == "throttle" and before.cancels_in_flight
    assert after.debounce == Debounce("none") and not after.cancels_in_flight
    assert "10 characters" in before.cache


def test_llama_vim_shows_a_late_answer_where_the_context_matches_from_057225f() -> None:
    assert not llama_vim("3fb05d3").shows_late
    assert llama_vim("057225f").shows_late and "10 characters" in llama_vim("057225f").late_answer
    newest = llama_vim(None)
    assert "128 characters" in newest.late_answer and "speculative" in newest.cache
    assert all("ggml-org/llama.vim autoload/llama.vim @" in s for s in newest.sources)


def test_llama_vim_by_day() -> None:
    assert llama_vim("2025-01-04").release == "a0ca488" and not llama_vim("2025-01-04").cancels_in_flight


def test_tabby_timeout_is_completion_timeout_until_84f27ce67() -> None:
    assert tabby("1.3.0").client_timeout_ms == 4000
    assert tabby(None).client_timeout_ms == 120000
    assert tabby("1.3.0", {"completion.timeout": 1500}).client_timeout_ms == 1500
    assert tabby("1.3.0", {"completion.timeout": 0}).client_timeout_ms == 30000  # `completion.timeout || server.requestTimeout`


def test_tabby_debounce_is_adaptive_unless_fixed_and_aborts_the_request_in_flight() -> None:
    rules = tabby("1.8.0")
    assert rules.debounce == Debounce("adaptive", 100.0, 1000.0) and rules.cancels_in_flight and not rules.shows_late
    fixed = tabby("1.8.0", {"completion.debounce.mode": "fixed", "completion.debounce.interval": 150})
    assert fixed.debounce.bounds() == (150.0, 150.0)


@pytest.mark.parametrize(("trigger", "line_end", "doc_end", "base", "response", "delay"), [
    ("a", False, False, 200, 0, 600),  # rate 3.0 x 200
    ("(", False, False, 200, 0, 450),  # a non-word trigger: score 0.5, rate 2.25
    ("", True, True, 200, 0, 300),  # score 1: rate 1.5
    ("a", True, False, 200, 0, 480),  # score 0.4: rate 2.4
    ("a", False, False, 400, 0, 1000),  # clamped at the most
    ("(", True, True, 200, 250, 100),  # 300 - 250, clamped at the least
])
def test_tabby_adaptive_delay(trigger: str, line_end: bool, doc_end: bool, base: float, response: float, delay: float) -> None:
    assert adaptive_delay_ms(trigger, line_end, doc_end, base, response) == pytest.approx(delay)


def test_llama_vscode_waits_for_the_request_in_flight_and_debounces_from_v0_0_45() -> None:
    from replay.editors.llama_vscode.timing import timing as llama_vscode

    old = llama_vscode("v0.0.44", {"llama-vscode.debounce_ms": 300})  # the setting did not exist yet
    assert old.debounce == Debounce("none") and not old.cancels_in_flight and old.client_timeout_ms is None
    assert old.shows_late and (old.predict_ms, old.prompt_ms) == (500, 500)
    assert llama_vscode("v0.0.45").debounce == Debounce("none")  # default 0
    tuned = llama_vscode("v0.0.45", {"llama-vscode.debounce_ms": 300, "llama-vscode.t_max_predict_ms": 900})
    assert tuned.debounce.bounds() == (300.0, 300.0) and tuned.predict_ms == 900


def test_continue_debounces_350_ms_and_aborts_on_the_next_keystroke() -> None:
    from replay.editors.continue_.releases import ContinueError
    from replay.editors.continue_.timing import timing as continue_timing

    rules = continue_timing("0.9.246-vscode")  # the leading debounce, until 42cdb7f845 (2025-05-12)
    assert rules.debounce == Debounce("leading", 350.0) and rules.cancels_in_flight and rules.shows_late
    assert continue_timing("2.1.0-vscode").debounce == Debounce("fixed", 350.0)
    assert rules.client_timeout_ms is None and "showWhateverWeHaveAtXMs (option)" in rules.server_cut
    assert continue_timing(None, {"debounceDelay": 120}).debounce.bounds() == (120.0, 120.0)
    assert continue_timing("0.9.246-vscode", {"debounceDelay": 120}).debounce.bounds() == (0.0, 120.0)
    assert "stopAfterMaxProcessingTime" in continue_timing("2025-06-01").server_cut
    assert "stopAfterMaxProcessingTime" not in continue_timing("2025-05-01").server_cut
    with pytest.raises(ContinueError, match="JetBrains"):
        continue_timing("v1.0.16-jetbrains")


def test_copilot_chat_lib_waits_for_a_matching_request_in_flight() -> None:
    from replay.editors.rulebook import UnknownRelease
    from replay.editors.copilot.timing import timing as copilot

    rules = copilot("0.66.0")
    assert rules == copilot(None) and rules.debounce == Debounce("none")
    assert not rules.cancels_in_flight and rules.shows_late and "200 ms" in rules.late_answer
    with pytest.raises(UnknownRelease):
        copilot("1.0.0")


def test_options_set_the_time_cuts_and_debounce_where_the_editor_reads_them() -> None:
    from replay.editors.copilot.timing import timing as copilot

    assert llama_vim("3fb05d3", {"t_max_predict_ms": 900, "t_max_prompt_ms": 100}).predict_ms == 900
    assert llama_vim("3fb05d3", {"t_max_prompt_ms": 100}).prompt_ms == 100
    assert llama_vim(None, {"t_max_predict_ms": 900}).predict_ms == 250  # the first request's own, since 1175c8d
    assert copilot(None, {"completionsDebounce": 75}).debounce == Debounce("fixed", 75.0)
