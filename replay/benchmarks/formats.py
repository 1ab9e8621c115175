"""The public benchmark layouts `evalgen --from` reads, registered once: every name list (the
CLI's choices, the guess of which layout a wrong file has) is derived from FORMATS."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from replay.benchmarks import crosscodeeval, humaneval, repobench, safim, santacoder
from replay.benchmarks.rows import Row
from replay.errors import UsageError
from replay.records import FimItem


@dataclass(frozen=True)
class BenchmarkFormat:
    name: str
    description: str
    required: tuple[str, ...]  # keys every row has: a file whose rows lack one is of another layout
    parse: Callable[[Row], FimItem]  # one row -> its item, or BadRow
    # The item's fields its checker runs a completion with, every one needed (`score --execute`
    # rejects an item without one); () where the benchmark's own judgement runs nothing.
    checker: tuple[str, ...] = ()


FORMATS: dict[str, BenchmarkFormat] = {f.name: f for f in (
    BenchmarkFormat(humaneval.FORMAT, "openai/human-eval-infilling: single-line, multi-line, random-span (.jsonl.gz)",
                    humaneval.REQUIRED, humaneval.parse, humaneval.CHECKER),
    BenchmarkFormat(santacoder.FORMAT, "bigcode/santacoder-fim-task exported as JSON Lines (Python, JavaScript, Java)",
                    santacoder.REQUIRED, santacoder.parse, santacoder.CHECKER),
    BenchmarkFormat(safim.FORMAT, "gonglinyuan/safim (block, control, api) exported as JSON Lines",
                    safim.REQUIRED, safim.parse, safim.CHECKER),
    BenchmarkFormat(crosscodeeval.FORMAT, "amazon-science/cceval's <language>/line_completion*.jsonl",
                    crosscodeeval.REQUIRED, crosscodeeval.parse),
    BenchmarkFormat(repobench.FORMAT, "tianyang/repobench_{python,java}_v1.1, one split exported as JSON Lines",
                    repobench.REQUIRED, repobench.parse),
)}
NAMES = tuple(FORMATS)


def benchmark_format(name: str) -> BenchmarkFormat:
    try:
        return FORMATS[name]
    except KeyError:
        raise UsageError(f"unknown benchmark format {name!r} (one of {', '.join(NAMES)})") from None


def checkers() -> dict[str, tuple[str, ...]]:
    """Each format's checker fields, by the name items carry as their `benchmark`."""
    return {f.name: f.checker for f in FORMATS.values()}


def layout_of(keys: set[str]) -> str | None:
    """The format whose rows have these keys, when one does."""
    return next((f.name for f in FORMATS.values() if set(f.required) <= keys), None)
