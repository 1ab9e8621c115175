"""Whether a whole program's output is an accepted one: the judge rule SAFIM's ExecEval applies
(ntunlp/ExecEval execution_engine/execution_engine.py, init_validate_outputs).

1. The outputs, stripped, split in lines: the same number of lines, each equal once stripped.
2. Else, split in whitespace-separated tokens: the same number; two tokens that both read as
   numbers match when they differ by at most 1e-12 (ExecEval reads them as 129-bit floats; here
   as decimals, exact); others match when equal, "yes", "no", "true" and "false" in any case.
"""

from __future__ import annotations

from decimal import Decimal, InvalidOperation

_WORDS = {"yes", "no", "true", "false"}
PRECISION = Decimal("1e-12")


def _lines_match(expected: str, got: str) -> bool:
    a, b = expected.strip().split("\n"), got.strip().split("\n")
    return len(a) == len(b) and all(x.strip() == y.strip() for x, y in zip(a, b))


def _number(token: str) -> Decimal | None:
    try:
        value = Decimal(token)
    except (InvalidOperation, ValueError):
        return None
    return value if value.is_finite() else None


def _tokens_match(a: str, b: str) -> bool:
    x, y = _number(a), _number(b)
    if x is not None and y is not None:
        return abs(x - y) <= PRECISION
    fold = lambda t: t.lower() if t.lower() in _WORDS else t  # noqa: E731
    return fold(a) == fold(b)


def outputs_match(expected: str, got: str) -> bool:
    """ExecEval's validate_outputs(expected, got)."""
    if _lines_match(expected, got):
        return True
    a, b = expected.strip().split(), got.strip().split()
    return len(a) == len(b) and all(_tokens_match(x, y) for x, y in zip(a, b))


def accepted(outputs: tuple[str, ...], got: str) -> bool:
    """Whether `got` matches any of the accepted outputs (ExecEval: any(validate(o, result)))."""
    return any(outputs_match(o, got.strip()) for o in outputs)
