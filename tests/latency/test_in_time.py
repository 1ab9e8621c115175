"""Which answers were not shown in time (by the editor's rules or a latency budget), and the in-time
score: those answers scored as an empty text by the same scorers, the others as they were."""

from __future__ import annotations

from replay.latency import Speed, not_shown, summarize
from replay.latency.summary import budget_verdict, line
from replay.reading import TimedCompletion
from replay.scoring import ScoredItem, metric_values, nothing_shown, score_rows


def _timed(item: str, total: float, gap: float | None = None, stage: str = "tabby@1.3.0", answered: bool = True
           ) -> TimedCompletion:
    return TimedCompletion(item_id=item, ttft_s=total, total_s=total, prompt_tokens=100, gen_tokens=10, stage=stage,
                           answered=answered, gap_s=gap)


def test_a_budget_judges_the_whole_answer() -> None:
    assert budget_verdict(0.3, 300).outcome == "in_time"
    late = budget_verdict(0.301, 300)
    assert late.outcome == "late" and late.reason == "over the 300 ms budget"


def test_not_shown_are_the_late_and_timed_out_answers_only() -> None:
    timed = [_timed("fast", 0.2, 2.0), _timed("band", 1.5, 2.0), _timed("timeout", 5.0), _timed("no-gap", 0.5),
             _timed("error", 9.0, answered=False), _timed("late", 1.95, 2.0, stage="tabby@1.8.0")]
    # tabby 1.3.0 gives up after 4 s; 1.8.0's adaptive debounce: after 2.0 - 0.1 s is late; unknown is not counted
    assert not_shown(timed) == {"timeout", "late"}
    # a budget judges every answer, with or without a later keystroke, and none the editor never answered
    assert not_shown(timed, budget_ms=1000) == {"band", "timeout", "late"}
    # projected at a speed: 100 tokens at 1,000 tok/s and 10 at 100 tok/s = 0.19 s each
    assert not_shown(timed, Speed(1000, 100), budget_ms=200) == frozenset()


def test_the_summary_says_what_judged_it() -> None:
    timed = [_timed("a", 0.2), _timed("b", 0.8)]
    by_rules = summarize(timed)
    assert by_rules.budget_ms is None and by_rules.unknown == 2
    assert by_rules.judged_by == "the editor's timing rules against the user's next keystroke"
    assert line(by_rules).endswith("shown in time: none judged (2 unknown)")
    budget = summarize(timed, budget_ms=500)
    assert (budget.in_time, budget.late, budget.unknown, budget.shown_in_time) == (1, 1, 0, 0.5)
    assert budget.judged_by == "a 500 ms budget on the whole answer (instead of the editor's timing rules)"
    assert line(budget) == "latency: p50 200 ms, p90 800 ms (measured, 2 answers); shown in time within 500 ms: 50% of 2 judged (0 unknown)"


def test_an_answer_not_shown_is_scored_as_the_empty_text_by_the_same_scorers() -> None:
    rows = score_rows([("a", "f.py", "python", "x = 1\n", "x = 1\n"), ("b", "f.py", "python", "y = 2", "y = 3"),
                       ("c", "g.py", "python", "", "z")], lines="auto")
    seen = nothing_shown(rows, {"b", "c"}, lines="auto")
    assert seen[0] == rows[0]
    assert seen[1].completion == "" and seen[1].values == metric_values("y = 2", "", "python")
    assert seen[1].values["indel"] == 0.0 and seen[1].values["exact"] == 0.0
    # an empty reference and nothing shown: the scorers say the two texts are equal
    assert seen[2].values["exact"] == 1.0 and seen[2].values["indel"] == 1.0
    assert "codebleu" in seen[1].values or "codebleu" not in rows[1].values  # the language's metrics, as any pair
    assert nothing_shown(rows, set(), lines="auto") == rows


def test_the_reference_is_cut_to_its_window_as_any_pair() -> None:
    rows = score_rows([("a", "f.py", "python", "one\ntwo\nthree", "one")], lines=1)
    seen = nothing_shown(rows, {"a"}, lines=1)
    assert seen[0].values == metric_values("one", "", "python")


def test_whole_file_judgements_are_left_out_of_every_row() -> None:
    rows = [ScoredItem(item_id="a", file="f", values={"indel": 1.0, "compiles": 1.0}, reference="x", completion="x"),
            ScoredItem(item_id="b", file="f", values={"indel": 1.0, "compiles": 1.0}, reference="y", completion="y")]
    seen = nothing_shown(rows, {"b"}, lines="all")
    assert seen[0].values == {"indel": 1.0} and "compiles" not in seen[1].values and seen[1].values["indel"] == 0.0


def test_a_run_all_shown_in_time_keeps_its_own_aggregate() -> None:
    from replay.reports.timing import in_time
    from replay.scoring import aggregate

    rows = score_rows([("a", "f.py", "python", "x = 1", "x = 1"), ("b", "g.py", "python", "y = 2", "y = 3")], lines="auto")
    own = aggregate(rows, seed=0)
    timed = [_timed("a", 0.2), _timed("b", 0.3)]
    kept = in_time(rows, timed, summarize(timed), "auto", summary=own)
    assert kept.summary is own and kept.n_not_shown == 0
    late = in_time(rows, timed, summarize(timed, budget_ms=250), "auto", summary=own)
    assert late.n_not_shown == 1 and late.summary.mean["indel"] < own.mean["indel"]
    assert late.summary == aggregate(nothing_shown(rows, {"b"}, "auto"), seed=0)
