"""Quality against latency: one mark per model (or run) at its median time to the whole answer,
its p90 as a whisker to the right, and the frontier of the marks no other beats on both (at least
as good and at most as slow, better in one). Drawn as inline SVG for the HTML pages (no script)
and as text with plotext for the terminal."""

from __future__ import annotations

import html
from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class Point:
    """One model's mark: its label, its quality (a metric's mean, 0..1) and its median and 90th
    percentile seconds to the whole answer."""

    label: str
    quality: float
    p50_s: float
    p90_s: float


def frontier(points: Sequence[tuple[float, float]]) -> list[int]:
    """The indexes of the (quality, seconds) points no other beats: none has at least their
    quality in at most their time and is better in one of the two."""
    return [i for i, (q, t) in enumerate(points)
            if not any(q2 >= q and t2 <= t and (q2 > q or t2 < t) for q2, t2 in points)]


def on_frontier(points: Sequence[Point]) -> list[int]:
    """frontier() of the points by quality and median time, in order of that time (the path drawn)."""
    best = frontier([(p.quality, p.p50_s) for p in points])
    return sorted(best, key=lambda i: (points[i].p50_s, -points[i].quality))


def _top_ms(points: Sequence[Point]) -> float:
    """The right end of the time axis: past every p90, rounded up to a whole step."""
    top = max(max(p.p90_s, p.p50_s) for p in points) * 1000 * 1.05 or 1.0
    step = 10 ** max(0, len(str(int(top))) - 1)
    return float(-(-top // step) * step)


def svg_quality_latency(points: Sequence[Point], metric: str) -> str:
    """The quality-latency plot as inline SVG: axes with their labels and ticks, each point's p50
    dot and p90 whisker, the frontier's dots filled and joined by a dashed path."""
    if not points:
        return ""
    w, h, pad = 460, 280, 48
    top = _top_ms(points)
    x = (lambda s: pad + (w - 2 * pad) * s * 1000 / top)  # noqa: E731
    y = (lambda q: h - pad - (h - 2 * pad) * max(0.0, min(1.0, q)))  # noqa: E731
    best = on_frontier(points)
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" role="img" '
             f'aria-label="{html.escape(metric)} against latency">',
             f'<line x1="{pad}" y1="{h - pad}" x2="{w - pad}" y2="{h - pad}" stroke="#888"/>',
             f'<line x1="{pad}" y1="{pad}" x2="{pad}" y2="{h - pad}" stroke="#888"/>']
    for frac in (0, 0.5, 1):
        parts.append(f'<text x="{x(frac * top / 1000):.1f}" y="{h - pad + 14}" font-size="10" text-anchor="middle">'
                     f'{frac * top:.0f}</text>')
        parts.append(f'<text x="{pad - 4}" y="{y(frac) + 4:.1f}" font-size="10" text-anchor="end">{frac:g}</text>')
    parts.append(f'<text x="{w / 2:.0f}" y="{h - 12}" font-size="11" text-anchor="middle">ms to the whole answer: '
                 'p50 (dot), p90 (whisker)</text>')
    parts.append(f'<text x="14" y="{h / 2:.0f}" font-size="11" transform="rotate(-90 14 {h / 2:.0f})" '
                 f'text-anchor="middle">{html.escape(metric)} mean</text>')
    if len(best) > 1:
        path = " ".join(f"{x(points[i].p50_s):.1f},{y(points[i].quality):.1f}" for i in best)
        parts.append(f'<polyline class="frontier" points="{path}" fill="none" stroke="#4e79a7" stroke-dasharray="4 3"/>')
    for i, p in enumerate(points):
        cx, cy = x(p.p50_s), y(p.quality)
        parts.append(f'<line class="p90" x1="{cx:.1f}" y1="{cy:.1f}" x2="{x(p.p90_s):.1f}" y2="{cy:.1f}" stroke="#4e79a7"/>')
        parts.append(f'<circle cx="{cx:.1f}" cy="{cy:.1f}" r="4" fill="{"#4e79a7" if i in best else "none"}" stroke="#4e79a7">'
                     f'<title>{html.escape(p.label)}: {metric} {p.quality:.4f}, p50 {p.p50_s * 1000:.0f} ms, '
                     f'p90 {p.p90_s * 1000:.0f} ms</title></circle>')
        parts.append(f'<text x="{cx + 6:.1f}" y="{cy - 6:.1f}" font-size="11">{html.escape(p.label)}</text>')
    parts.append("</svg>")
    return "".join(parts)


def text_quality_latency(points: Sequence[Point], metric: str, width: int = 72, height: int = 18) -> str:
    """The quality-latency plot as text (plotext, no colour): each point's label at its p50 (in
    seconds: plotext's ticks of milliseconds are written with exponents) and
    quality (`* label`, or `label *` right of the middle), `*` on the frontier and `o` off it, its p90 as a whisker of dashes, the frontier
    joined; quality from 0 to 1 and time from 0, as the SVG has them; the same size every time,
    so that the same figures draw the same text."""
    import plotext

    if not points:
        return ""
    fig = plotext.figure
    fig.clear()
    fig.plot_size(width, height)
    fig.theme("colorless")
    fig.legend(active=False)
    fig.ruler("y").lim(0, 1)
    top = _top_ms(points) / 1000
    fig.ruler("x").lim(0, top)
    best = on_frontier(points)
    for p in points:
        fig.draw(fig.segment([p.p50_s, p.p90_s], [p.quality, p.quality], marker="-"))
    if len(best) > 1:
        fig.draw(fig.signal([points[i].p50_s for i in best], [points[i].quality for i in best], marker=".").lines(True))
    for i, p in enumerate(points):
        mark = "*" if i in best else "o"
        # a label right of the middle ends at its mark (one that ran past the frame would not be drawn)
        right = p.p50_s > top / 2
        fig.draw(fig.text(p.p50_s, p.quality, f"{p.label} {mark}" if right else f"{mark} {p.label}",
                          alignment="right" if right else "left"))
    fig.label("seconds to the whole answer: p50 at the mark, p90 at the dashes' end", "x")
    fig.title(f"{metric} mean against latency (* not beaten on both, joined by dots)")
    page = fig.build().string(colorless=True)
    fig.clear()
    return "\n".join(line.rstrip() for line in page.splitlines()) + "\n"
