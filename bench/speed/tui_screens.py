"""The Captures screen with 100k captures: time to first paint, per-frame time while scrolling
and while 1,000 new captures arrive from another process (target < 100 ms per frame).

Run: `python -m bench.speed.tui_screens [--captures 100000]` from the checkout root. It prints each
figure beside the same run's 1k-capture store (the cost must not grow with the store) and
beside the bare library (`Store.capture_rows`, one page) as ratios. A frame is one
`Screen._compositor_refresh` (Textual's paint of what changed), timed by wrapping it; the
input-to-frame latency adds the key's action (cursor, scroll, page reads from the store) and the wait for
the next frame to it.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import tempfile
import time
from pathlib import Path

from textual.screen import Screen

from replay.store import Store
from tests.support.tui_data import captures, make_store
from tui.app import create_app
from tui.widgets.capture_table import CaptureTable

FRAMES: list[float] = []
_refresh = Screen._compositor_refresh


def _timed_refresh(self: Screen) -> None:
    start = time.perf_counter()
    _refresh(self)
    FRAMES.append(time.perf_counter() - start)


Screen._compositor_refresh = _timed_refresh  # type: ignore[method-assign]


def ms(seconds: float) -> str:
    return f"{seconds * 1000:7.2f} ms"


async def next_frame(pilot, seen: int, timeout: float = 2.0) -> None:
    end = time.perf_counter() + timeout
    while len(FRAMES) == seen and time.perf_counter() < end:
        await asyncio.sleep(0.001)


async def measure(db: Path, arrivals: int) -> dict[str, float]:
    store = Store(db)
    n = store.count_capture_rows()
    FRAMES.clear()
    start = time.perf_counter()
    app = create_app(store=store, poll_interval=0.05)
    out: dict[str, float] = {}
    async with app.run_test(size=(120, 40)) as pilot:
        table = app.screen.query_one(CaptureTable)
        while table.count != n or not FRAMES:
            await asyncio.sleep(0.001)
        await next_frame(pilot, len(FRAMES) - 1)
        out["first_paint"] = time.perf_counter() - start
        # Scrolling: 200 page moves (down, and back up where the small store ends) then 200
        # row moves below the view, each a scroll and so a frame. The actions the keys are bound
        # to are called directly: Pilot's own waiting per key (~100 ms) is not the app's cost.
        page_rows = table.size.height - 1
        span = min(50, n // page_rows - 2)
        steps = ([("page", 1)] * span + [("page", -1)] * span) * (200 // (2 * span) + 1)
        table.action_cursor(page_rows)
        await next_frame(pilot, len(FRAMES))
        FRAMES.clear()
        latencies = []
        for action, step in steps[:200] + [("cursor", 1)] * 200:
            seen = len(FRAMES)
            t0 = time.perf_counter()
            getattr(table, f"action_{action}")(step)
            await next_frame(pilot, seen)
            latencies.append(time.perf_counter() - t0)
        out["scroll_frame_mean"] = statistics.mean(FRAMES)
        out["scroll_frame_max"] = max(FRAMES)
        out["scroll_latency_p95"] = statistics.quantiles(latencies, n=20)[18]
        out["scroll_latency_max"] = max(latencies)
        # Arrivals: another connection (as `fimreplay watch` is) commits 1,000 captures in
        # batches of 50, while the view stays where it is.
        FRAMES.clear()
        top = table.row(int(table.scroll_y)).id
        with Store(db) as writer:
            for start_i in range(10**7, 10**7 + arrivals, 50):
                writer.add_captures(captures(start_i, start_i + 50))
                await asyncio.sleep(0.02)
        while table.count != n + arrivals:
            await asyncio.sleep(0.005)
        await asyncio.sleep(0.1)
        out["arrival_frame_mean"] = statistics.mean(FRAMES)
        out["arrival_frame_max"] = max(FRAMES)
        out["arrival_frames"] = len(FRAMES)
        out["view_kept"] = float(table.row(int(table.scroll_y)).id == top)
        await pilot.press("q")
    # The bare library: one keyset page of the same size, deep in the listing.
    rows = store.capture_rows(offset=n // 2, limit=100)
    t0 = time.perf_counter()
    for _ in range(50):
        store.capture_rows(after=(rows[-1].sort_key, rows[-1].id), limit=100)
    out["library_page"] = (time.perf_counter() - t0) / 50
    store.close()
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--captures", type=int, default=100_000)
    parser.add_argument("--arrivals", type=int, default=1000)
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="fimreplay-tui-bench-"))
    results = {}
    for n in (1000, args.captures):
        t0 = time.perf_counter()
        make_store(folder / f"{n}.db", n).close()
        print(f"store with {n:,} captures built in {time.perf_counter() - t0:.1f} s", flush=True)
        results[n] = asyncio.run(measure(folder / f"{n}.db", args.arrivals))
    small, big = results[1000], results[args.captures]
    print(f"\n{'figure':<22}{'1k captures':>14}{f'{args.captures // 1000}k captures':>16}{'ratio':>8}")
    for key in ("first_paint", "scroll_frame_mean", "scroll_frame_max", "scroll_latency_p95", "scroll_latency_max",
                "arrival_frame_mean", "arrival_frame_max", "library_page"):
        print(f"{key:<22}{ms(small[key]):>14}{ms(big[key]):>16}{big[key] / small[key]:>8.2f}")
    print(f"{'arrival_frames':<22}{small['arrival_frames']:>14.0f}{big['arrival_frames']:>16.0f}")
    print(f"\nview kept its rows while {args.arrivals} captures arrived: {bool(big['view_kept'])}")
    print(f"per-frame vs one bare library page ({args.captures:,}): scrolling "
          f"{big['scroll_frame_mean'] / big['library_page']:.1f}x, arrivals {big['arrival_frame_mean'] / big['library_page']:.1f}x")
    worst = max(big["scroll_latency_max"], big["arrival_frame_max"], big["scroll_frame_max"])
    print(f"target < 100 ms per frame: {'met' if worst < 0.1 else 'MISSED'} (worst {worst * 1000:.1f} ms)")


if __name__ == "__main__":
    main()
