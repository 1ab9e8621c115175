"""Proxy captures of llama.vscode and llama.vim (a stub llama-server behind the proxy) in the
views of the store: `captures`, `verify` (skipped: neither client logs a prompt) and the TUI's
captures table, item view and audit, none of which may fail on a capture with no logged prompt."""

from __future__ import annotations

import json
from pathlib import Path

import httpx
import pytest
from textual.widgets import Static

from replay.store import Store
from tests.support.proxy_helpers import running_proxy
from tests.support.proxy_upstream import ShapeUpstream
from tests.support.tui_data import settle
from tui.app import create_app
from tui.widgets.capture_table import CaptureTable

VSCODE = {"id_slot": 0, "input_prefix": "def f(x):\n", "input_suffix": "t\n", "input_extra": [], "prompt": "    re",
          "n_predict": 128, "n_cmpl": 3, "n_indent": 4}  # llama.vscode's shape (src/llama-server.ts createRequestPayload)
VIM = {"input_prefix": "def f(x):\n", "input_suffix": "\n", "prompt": "", "n_indent": 0, "response_fields": ["content"],
       "stop": [], "model": ""}  # llama.vim's shape (autoload/llama.vim llama#fim)


@pytest.fixture()
def db(tmp_path: Path) -> Path:
    path = tmp_path / "s.db"
    with ShapeUpstream() as up, running_proxy(path, up.url) as proxy:
        httpx.post(f"http://{proxy.address}/infill", json=VSCODE, headers={"User-Agent": "axios/1.8.4"})
        httpx.post(f"http://{proxy.address}/infill", json=VIM, headers={"User-Agent": "curl/8.5.0"})
    return path


def test_listed_and_skipped_by_verify_with_the_reason(cli, db: Path) -> None:
    listed = cli("captures", "--json", "--full", "--db", str(db))
    assert listed.returncode == 0, listed.stderr
    rows = [json.loads(line) for line in listed.stdout.splitlines()]
    assert sorted(row["editor"] for row in rows) == ["llama.vim", "llama.vscode"]
    assert cli("captures", "--db", str(db)).returncode == 0
    verified = cli("verify", "--db", str(db))
    assert verified.returncode == 0, verified.stderr
    assert "1 llama.vscode logs no prompt" in verified.stdout and "1 llama.vim logs no prompt" in verified.stdout


@pytest.mark.anyio
async def test_the_tui_opens_and_audits_them(db: Path) -> None:
    store = Store(db)
    try:
        app = create_app(store=store)
        async with app.run_test(size=(120, 40)) as pilot:
            await settle(pilot)
            table = app.screen.query_one(CaptureTable)
            assert sorted(table.row(i).editor for i in range(table.count)) == ["llama.vim", "llama.vscode"]
            for row in range(table.count):
                await pilot.press("home", *["down"] * row, "enter")
                await settle(pilot)
                assert type(app.screen).__name__ == "ItemScreen"
                title = str(app.screen.query_one("#item-prompt-title", Static).render())
                assert title == f"Prompt: none logged by {table.row(row).editor}"
                await pilot.press("escape")
                await settle(pilot)
                await pilot.press("a")
                await settle(pilot)
                assert type(app.screen).__name__ == "AuditScreen"
                assert str(app.screen.query_one("#audit-status", Static).render()) == "0 findings"
                await pilot.press("escape")
                await settle(pilot)
    finally:
        store.close()
