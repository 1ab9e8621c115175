"""`fimreplay tui --proxy URL`: the recording proxy beside the TUI; what an editor sends through
it shows up in the captures table as it happens (Pilot, a real loopback upstream, a real HTTP
client)."""

from __future__ import annotations

import asyncio
import time

import httpx
import pytest

from replay.usecases.proxy import ProxyOptions
from tests.conftest import free_port
from tests.support.proxy_upstream import ShapeUpstream
from tests.tui.test_captures_screen import SIZE, table_of
from tests.support.tui_data import make_store
from tui.app import create_app

pytestmark = pytest.mark.anyio


async def test_captures_arrive_live_through_the_tui_proxy(tmp_path) -> None:
    port = free_port()
    with ShapeUpstream() as up, make_store(tmp_path / "s.db", 3) as store:
        app = create_app(store=store, poll_interval=0.05, proxy=ProxyOptions(up.url, f"127.0.0.1:{port}"))
        async with app.run_test(size=SIZE) as pilot:
            table = await table_of(pilot)
            assert table.count == 3

            def post() -> int:
                for _ in range(100):
                    try:
                        return httpx.post(f"http://127.0.0.1:{port}/api/generate",
                                          json={"model": "qwen2.5-coder:1.5b", "prompt": "def f(", "suffix": ")"}).status_code
                    except httpx.ConnectError:  # the proxy's worker has not bound yet
                        time.sleep(0.05)
                raise AssertionError("the proxy did not listen")

            assert await asyncio.to_thread(post) == 200
            for _ in range(100):
                await pilot.pause(0.05)
                if table.count == 4:
                    break
            assert table.count == 4
