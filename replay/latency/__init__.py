"""Time beside quality: how long each replayed answer took (measured, or projected onto other
hardware with a stated speed), whether the editor would have shown it before the user typed on,
and a run's latency figures (median, p90, share shown in time)."""

from replay.latency.speed import Speed, parse_speed
from replay.latency.summary import LatencySummary, not_shown, summarize
from replay.latency.verdict import Verdict, verdict

__all__ = ["LatencySummary", "Speed", "Verdict", "not_shown", "parse_speed", "summarize", "verdict"]
