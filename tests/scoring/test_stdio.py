"""ExecEval's judge rule for a whole program's output (SAFIM's unit tests), rule by rule."""

from __future__ import annotations

import pytest

from replay.scoring.stdio import accepted, outputs_match


@pytest.mark.parametrize(("expected", "got", "match"), [
    ("0 3 2 2", "0 3 2 2\n", True),  # the outputs are stripped
    ("1\n2", "  1  \n2   ", True),  # each line stripped
    ("1\n2", "1\n\n2", True),  # an extra blank line: the lines differ, the tokens agree
    ("1 2", "1  2", True),  # lines differ (inner spaces), tokens agree
    ("0.5", "0.500000000000", True),  # numbers within 1e-12
    ("0.5", "0.5000000001", False),
    ("1073741823 0", "1073741823 0.0000000000001", True),
    ("YES", "yes", True),  # yes/no/true/false in any case
    ("Yes", "yEs", True),
    ("abc", "ABC", False),  # other words as they are
    ("1 2 3", "1 2", False),  # token counts differ
    ("nan", "nan", True),  # not a finite number: compared as text
])
def test_outputs_match_by_lines_then_tokens(expected: str, got: str, match: bool) -> None:
    assert outputs_match(expected, got) is match


def test_any_accepted_output_will_do() -> None:
    assert accepted(("1", "2"), "2\n")
    assert not accepted(("1", "2"), "3")
    assert not accepted((), "1")
