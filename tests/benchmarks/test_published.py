"""The Qwen2.5-Coder harness's reading of a HumanEval single-line generation (hm_fim/humaneval_fim.py
evaluate_results), rule by rule."""

from __future__ import annotations

import pytest

from replay.benchmarks.published import edit_similarity, exact_match, executed_middle, kept_line, line_settled


@pytest.mark.parametrize(("generation", "line"), [
    ("    return x\n    y = 1\n", "    return x"),  # the first line
    ("\n    return x\nmore", "    return x"),  # an opening empty line is skipped
    (" \n    return x\n", "    return x"),  # so is an opening line of one space
    ("\n\n    return x\n", ""),  # but only one: the second line is read, empty or not
    ("  \n    return x\n", "  "),  # two spaces are not the harness's " \n": the first line is read
    ("    return x", "    return x"),  # no line break at all
    ("", ""),
    ("\n", ""),
])
def test_kept_line_is_the_first_line_or_the_second_after_an_opening_break(generation: str, line: str) -> None:
    assert kept_line(generation) == line


def test_exact_match_compares_the_kept_line_and_the_middle_stripped() -> None:
    assert exact_match("  return x  \n    y = 2\n", "    return x\n")
    assert exact_match("\n    return x\n", "    return x\n")
    assert not exact_match("    return y\n", "    return x\n")
    assert not exact_match("\n\n    return x\n", "    return x\n")  # the harness reads the empty second line


@pytest.mark.parametrize(("generation", "settled"), [
    ("    return x", False),  # the line may go on with more tokens
    ("    return x\n", True),
    ("\n", False),  # the opening break is skipped: the kept line has not started
    ("\n    return x", False),
    ("\n    return x\n", True),
    (" \n", False),
    ("", False),
])
def test_line_settled_when_a_break_ends_the_kept_line(generation: str, settled: bool) -> None:
    assert line_settled(generation) is settled


def test_a_settled_line_reads_the_same_whatever_follows() -> None:
    cut = "\n    total += x\n"
    assert line_settled(cut)
    for more in ("", "    return total\n", "garbage that a longer budget adds"):
        assert kept_line(cut + more) == kept_line(cut)


def test_executed_middle_keeps_the_indentation_and_ends_the_line() -> None:
    assert executed_middle("        return x\nfoo") == "        return x\n"
    assert executed_middle("\n    return x") == "    return x\n"


def test_edit_similarity_is_on_the_stripped_texts() -> None:
    assert edit_similarity("   return x \n", "    return x\n") == 100.0
    assert edit_similarity("", "    return x\n") == 0.0
