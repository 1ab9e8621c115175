"""SantaCoder-FIM: the fill-in-the-middle task of the SantaCoder paper (arXiv 2301.03988), single
lines of HumanEval's solutions in Python, JavaScript and Java (MultiPL-E's translations).

Only on a model hub (bigcode/santacoder-fim-task, 4,792 rows; its card's features: name,
language, prompt, suffix, canonical_solution, tests), exported as JSON Lines. Its harness
(bigcode-project/bigcode-evaluation-harness bigcode_eval/tasks/santacoder_fim.py) sends
prefix `prompt`, suffix `suffix`, and counts a generation equal to `canonical_solution` as exact,
per `language` ("py", "js", "java"). Rows carry no id and several rows share a problem's `name`:
the id is "<language>/<name>/<n>", n counting that name's rows from 0 in file order; the per-file
unit is "<language>/<name>"; `tests` (MultiPL-E's test program) is kept as the item's `test`.
"""

from __future__ import annotations

from replay.benchmarks.rows import BadRow, Row, item
from replay.records import FimItem

FORMAT = "santacoder-fim"
REQUIRED = ("name", "language", "prompt", "suffix", "canonical_solution")
CHECKER = ("test",)  # MultiPL-E's test program calls its own checks

LANGUAGES = {"py": "python", "js": "javascript", "java": "java"}


def parse(row: Row) -> FimItem:
    name, language = row.text("name"), row.text("language")
    if language not in LANGUAGES:
        raise BadRow(f"language {language!r} is not one of {', '.join(LANGUAGES)}")
    if not name:
        raise BadRow("empty name")
    test = row.text("tests") if "tests" in row.obj else ""
    unit = f"{language}/{name}"
    return item(f"{unit}/{row.numbered(unit)}", unit, row.text("prompt"), row.text("canonical_solution"),
                row.text("suffix"), benchmark=FORMAT, mode="single-line", language=LANGUAGES[language], test=test)
