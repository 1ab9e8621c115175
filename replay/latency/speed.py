"""A stated speed (`--speed prefill=TOK/s,decode=TOK/s,overhead=MS`): one machine's run projected
onto the user's hardware from its token counts, where the measured seconds are this machine's."""

from __future__ import annotations

from dataclasses import dataclass

from replay.errors import UsageError
from replay.reading import TimedCompletion

_KEYS = {"prefill": "prefill_tps", "decode": "decode_tps", "overhead": "overhead_ms"}


@dataclass(frozen=True)
class Speed:
    """Prompt tokens read per second, tokens generated per second, and the fixed cost of a request
    (milliseconds: the client, the network, the server's scheduling)."""

    prefill_tps: float
    decode_tps: float
    overhead_ms: float = 0.0

    def project(self, done: TimedCompletion) -> tuple[float, float]:
        """(seconds to the first token, seconds to the whole answer) at this speed: the overhead
        and the prompt read, then the first token; every further token at the decode speed."""
        first = self.overhead_ms / 1000 + done.prompt_tokens / self.prefill_tps + min(done.gen_tokens, 1) / self.decode_tps
        return first, first + max(done.gen_tokens - 1, 0) / self.decode_tps

    def label(self) -> str:
        return f"prefill={self.prefill_tps:g},decode={self.decode_tps:g},overhead={self.overhead_ms:g}"


def parse_speed(text: str) -> Speed:
    """`prefill=TOK/s,decode=TOK/s[,overhead=MS]` (a `TOK/s` or `ms` unit may be written after a
    number) -> Speed; a UsageError naming what is wrong otherwise."""
    values: dict[str, float] = {}
    for part in (p.strip() for p in text.split(",") if p.strip()):
        key, eq, value = part.partition("=")
        if not eq or key.strip() not in _KEYS:
            raise UsageError(f"--speed {text!r}: {part!r} is not prefill=TOK/s, decode=TOK/s or overhead=MS")
        number = value.strip().lower().removesuffix("tok/s").removesuffix("ms").strip()
        try:
            values[_KEYS[key.strip()]] = float(number)
        except ValueError:
            raise UsageError(f"--speed {text!r}: {key.strip()} {value.strip()!r} is not a number") from None
    missing = [k for k in ("prefill", "decode") if _KEYS[k] not in values]
    if missing:
        raise UsageError(f"--speed {text!r}: {' and '.join(missing)} missing (prefill=TOK/s,decode=TOK/s,overhead=MS)")
    if values["prefill_tps"] <= 0 or values["decode_tps"] <= 0 or values.get("overhead_ms", 0.0) < 0:
        raise UsageError(f"--speed {text!r}: speeds must be above 0 and the overhead not below 0")
    return Speed(**values)
