"""Reports say what they hold: a run killed with SIGKILL mid-run (a real subprocess) is said to be
"N of M items (interrupted)" on every page, Markdown, HTML, CSV and JSON; and two runs that share
no item get no paired section (a verdict over no pair says nothing)."""

from __future__ import annotations

import csv
import io
import json
import os
import signal
import subprocess
import sys
import time
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any

from replay.store import Store
from tests.cli.test_leaderboard_until_decided import write_items
from tests.conftest import ROOT, run_cli
from tests.faults.test_run import completions, fault_server, ok, send, wait_for
from tests.support.processes import spawned


def slow_items_server(delay: float) -> Any:
    """Every completion is "x" after `delay` seconds: a run long enough to be killed mid-way."""

    def answer(h: BaseHTTPRequestHandler, body: dict[str, Any]) -> None:
        time.sleep(delay)
        send(h, ok("x"))

    return fault_server(answer)


def test_a_run_killed_with_sigkill_says_how_incomplete_on_every_page(tmp_path: Path, home: Path) -> None:
    path, items = write_items(tmp_path, files=8)
    db = tmp_path / "s.db"
    with Store(db) as store:
        store.add_items(items)  # the references (as evalgen keeps them)
    with slow_items_server(0.15) as url:
        with spawned([sys.executable, "-m", "replay", "run", str(path), "--backend", "openai", "--model", "qwen2.5-coder-m",
                      "--endpoint", url, "--db", str(db), "--run-id", "r1", "--concurrency", "1", "--json"],
                     cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)}, stdout=subprocess.PIPE,
                     stderr=subprocess.PIPE, text=True) as proc:
            wait_for(db, "r1", 3)
            proc.send_signal(signal.SIGKILL)
            proc.communicate(timeout=60)
    assert proc.returncode == -9
    done = len(completions(db, "r1"))
    assert 3 <= done < len(items)
    said = f"{done} of {len(items)} items (interrupted)"
    pages = {fmt: run_cli("report", "r1", "--format", fmt, "--db", str(db)) for fmt in ("md", "html", "csv", "json")}
    for fmt, page in pages.items():
        assert page.returncode == 0, (fmt, page.stderr)
        assert said in page.stdout, fmt
    assert "<b>Incomplete:</b> run r1 holds " + said in pages["html"].stdout
    rows = list(csv.DictReader(io.StringIO(pages["csv"].stdout)))
    assert rows and {r["coverage"] for r in rows} == {said} and {r["n_items"] for r in rows if r["file"] == "*"} == {str(done)}
    run = json.loads(pages["json"].stdout)["runs"][0]
    assert (run["status"], run["items_done"], run["items_total"], run["coverage"]) == ("interrupted", done, len(items), said)
    # Resumed to the end, the pages hold every item and say nothing of the kind.
    with slow_items_server(0.0) as url:
        resumed = run_cli("run", "r1", "--endpoint", url, "--db", str(db))
        assert resumed.returncode == 0, resumed.stderr
    page = run_cli("report", "r1", "--format", "html", "--db", str(db)).stdout
    assert "Incomplete" not in page and "(interrupted)" not in page
    rows = list(csv.DictReader(io.StringIO(run_cli("report", "r1", "--format", "csv", "--db", str(db)).stdout)))
    assert {r["coverage"] for r in rows} == {"complete"}


def test_runs_that_share_no_item_are_not_paired(tmp_path: Path, home: Path) -> None:
    path, items = write_items(tmp_path, files=4)
    lines = path.read_text().splitlines(keepends=True)
    (tmp_path / "one.jsonl").write_text("".join(lines[: len(lines) // 2]))
    (tmp_path / "two.jsonl").write_text("".join(lines[len(lines) // 2 :]))
    db = tmp_path / "s.db"
    with Store(db) as store:
        store.add_items(items)
    with slow_items_server(0.0) as url:
        for name in ("one", "two"):
            res = run_cli("run", str(tmp_path / f"{name}.jsonl"), "--backend", "openai", "--model", "qwen2.5-coder-m", "--endpoint", url,
                          "--db", str(db), "--run-id", name)
            assert res.returncode == 0, res.stderr
        shared = run_cli("run", str(path), "--backend", "openai", "--model", "qwen2.5-coder-m", "--endpoint", url, "--db", str(db),
                         "--run-id", "all")
        assert shared.returncode == 0, shared.stderr
    apart = {fmt: run_cli("report", "one", "two", "--format", fmt, "--db", str(db)).stdout for fmt in ("md", "html", "json")}
    assert "Paired" not in apart["md"] and "Paired" not in apart["html"] and json.loads(apart["json"])["paired"] is None
    together = run_cli("report", "one", "all", "--db", str(db)).stdout
    assert "## Paired: all − one" in together and f"of {len(lines) // 2} items" in together
