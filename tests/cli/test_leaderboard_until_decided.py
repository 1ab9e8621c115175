"""`fimreplay leaderboard --until-decided` end to end: two cheap engines behind a real HTTP server
on loopback (a stub), replayed file by file in the seeded order until their sequential comparison
is decided; the runs stop early, are marked so, and a second start replays nothing."""

from __future__ import annotations

import json
from pathlib import Path

import msgspec
import pytest

from replay.corpus.evalgen import EvalgenOptions, collect_files, generate
from replay.records import FimItem
from replay.reports.sequential import file_order
from tests.corpus.test_evalgen import write_corpus
from tests.support.backend_stubs import Reply, Request, StubServer, openai_reply, sse_reply


def write_items(tmp_path: Path, files: int = 24) -> tuple[Path, list[FimItem]]:
    root = write_corpus(tmp_path / "c", n=files)
    items = generate(collect_files([root], ["sol"]), EvalgenOptions(per_file=2, mode="line")).items
    path = tmp_path / "items.jsonl"
    path.write_bytes(b"".join(msgspec.json.encode(it) + b"\n" for it in items))
    return path, items


def test_replayed_until_decided_then_resumed(cli, tmp_path: Path, home: Path) -> None:
    path, items = write_items(tmp_path)
    asked: list[str] = []

    def answer(r: Request) -> Reply:
        # "good" completes every item with its middle, "bad" with nothing useful.
        item = next(it for it in items if r.body["prompt"].split("<|fim_suffix|>")[0].endswith(it.prefix[-200:]))
        asked.append(item.id)
        text = (item.middle if "good" in r.body["model"] else "x") + "\n\n"
        return sse_reply([text]) if r.body.get("stream") else openai_reply(text)

    db = str(tmp_path / "s.db")
    with StubServer(answer) as srv:
        args = ("leaderboard", str(path), "--backend", "openai", "--endpoint", srv.url, "--concurrency", "1",
                "--model", "qwen2.5-coder-bad", "--model", "qwen2.5-coder-good", "--until-decided", "--seed", "3", "--db", db)
        res = cli(*args, "--format", "json")
        assert res.returncode == 0, res.stderr
        calls = len(asked)
        again = cli(*args, "--format", "json")  # the same request: the same runs, nothing replayed
        assert again.returncode == 0, again.stderr
        assert len(asked) == calls
        text = cli(*args)
    board = json.loads(res.stdout)
    assert board["until_decided"] and board["method"].startswith("asymptotic confidence sequence")
    best, second = board["standings"]
    assert (best["model"], best["rank"]) == ("qwen2.5-coder-good", 1)
    seq = best["sequential"]
    assert seq["vs"] == "qwen2.5-coder-bad" and seq["verdict"] == "B better" and seq["interval"][0] > 0
    assert seq["unit"] == "file" and seq["seed"] == 3 and seq["n_items"] == len(items)
    # Both models replayed the same files, the first ones in the seeded order, and no more.
    order = file_order((it.file for it in items), 3)
    used_files = order[: seq["units_used"]]
    used = {it.id for it in items if it.file in used_files}
    assert seq["items_used"] == len(used) < len(items) / 2
    assert best["n_replayed"] == second["n_replayed"] == len(used) and calls == 2 * len(used)
    assert second["model"] == "qwen2.5-coder-bad" and "sequential" not in second
    assert json.loads(again.stdout)["standings"][0]["sequential"] == seq
    assert "items used" in text.stdout and f"{len(used)} of {len(items)}" in text.stdout and "first best" in text.stdout
    from replay.store import Store

    with Store(db) as store:
        assert {r.status for r in store.runs()} == {"decided"}
        assert {store.count_run_prompts(r.id) for r in store.runs()} == {len(items)}
        assert all(store.done_item_ids(r.id) == used for r in store.runs())
    report = cli("report", best["run"], "--format", "html", "--db", db)
    assert f"{len(used)} of {len(items)} items (stopped when its comparison was decided)" in report.stdout


def test_bad_settings_are_refused(cli, tmp_path: Path) -> None:
    path, _ = write_items(tmp_path, files=2)
    res = cli("leaderboard", str(path), "--model", "a", "--model", "b", "--until-decided", "--alpha", "1.5",
              "--db", str(tmp_path / "s.db"))
    assert res.returncode == 2 and "--alpha" in res.stderr
    res = cli("leaderboard", str(path), "--model", "a", "--model", "b", "--until-decided", "--method", "bootstrap",
              "--db", str(tmp_path / "s.db"))
    assert res.returncode == 2 and "--method" in res.stderr and "asymptotic" in res.stderr


@pytest.mark.parametrize("method", ["betting", "asymptotic"])
def test_three_models_each_against_the_best_so_far(cli, tmp_path: Path, home: Path, method: str) -> None:
    """bad, good, then good's twin: good beats bad and becomes the best; the twin, compared with
    good, is found within the margin; good's run is extended as far as the second comparison needs.
    Either confidence sequence, named in the table's JSON."""
    path, items = write_items(tmp_path)

    def answer(r: Request) -> Reply:
        item = next(it for it in items if r.body["prompt"].split("<|fim_suffix|>")[0].endswith(it.prefix[-200:]))
        text = (item.middle if "good" in r.body["model"] else "x") + "\n\n"
        return sse_reply([text]) if r.body.get("stream") else openai_reply(text)

    with StubServer(answer) as srv:
        res = cli("leaderboard", str(path), "--backend", "openai", "--endpoint", srv.url, "--concurrency", "1",
                  "--model", "qwen2.5-coder-bad", "--model", "qwen2.5-coder-good", "--model", "qwen2.5-coder-good-twin",
                  "--until-decided", "--margin", "0.5", "--method", method, "--format", "json", "--db", str(tmp_path / "s.db"))
    assert res.returncode == 0, res.stderr
    table = json.loads(res.stdout)
    by_model = {s["model"]: s for s in table["standings"]}
    assert table["method"].startswith(method) and by_model["qwen2.5-coder-good"]["sequential"]["method"] == method
    good, twin, bad = by_model["qwen2.5-coder-good"], by_model["qwen2.5-coder-good-twin"], by_model["qwen2.5-coder-bad"]
    assert good["rank"] == 1 and good["sequential"]["verdict"] == "B better"
    assert twin["sequential"]["vs"] == "qwen2.5-coder-good" and twin["sequential"]["verdict"] == "no difference beyond ±M"
    assert -0.5 < twin["sequential"]["interval"][0] <= 0 <= twin["sequential"]["interval"][1] < 0.5
    assert "sequential" not in bad and bad["rank"] == 3
    needed = {"qwen2.5-coder-good": max(good["sequential"]["items_used"], twin["sequential"]["items_used"]),
              "qwen2.5-coder-good-twin": twin["sequential"]["items_used"], "qwen2.5-coder-bad": good["sequential"]["items_used"]}
    for model, used in needed.items():
        assert by_model[model]["n_replayed"] == used, model


def test_an_undecided_comparison_says_why(cli, tmp_path: Path, home: Path) -> None:
    """Two models that answer alike, no margin: every file is replayed, the comparison ends
    undecided, and the table says why (a mean difference of 0: no number of files decides a
    side) in its text and JSON."""
    path, items = write_items(tmp_path, files=8)

    def answer(r: Request) -> Reply:
        item = next(it for it in items if r.body["prompt"].split("<|fim_suffix|>")[0].endswith(it.prefix[-200:]))
        return openai_reply(item.middle[: len(item.middle) // 2] + "\n\n")

    with StubServer(answer) as srv:
        args = ("leaderboard", str(path), "--backend", "openai", "--endpoint", srv.url, "--concurrency", "1", "--model",
                "qwen2.5-coder-a", "--model", "qwen2.5-coder-b", "--until-decided", "--db", str(tmp_path / "s.db"))
        res = cli(*args, "--format", "json")
        text = cli(*args)
    assert res.returncode == 0 and text.returncode == 0, res.stderr + text.stderr
    seq = {s["model"]: s for s in json.loads(res.stdout)["standings"]}["qwen2.5-coder-b"]["sequential"]
    assert seq["verdict"] == "undecided" and seq["method"] == "asymptotic" and seq["units_used"] == seq["n_units"] == 8
    why = seq["why_undecided"]
    assert why["files_needed"] is None and "no number of files decides a side" in why["reason"]
    assert f"qwen2.5-coder-b: undecided against qwen2.5-coder-a: {why['reason']}" in text.stdout


def counted_opens(monkeypatch) -> tuple[list[str], list[str]]:
    """The seam where engines are opened: each open and each close of a backend, by model name."""
    import replay.backends

    opened: list[str] = []
    closed: list[str] = []
    real = replay.backends.open_backend

    def open_backend(kind, ref, **kw):  # type: ignore[no-untyped-def]
        backend = real(kind, ref, **kw)
        opened.append(ref.name)
        close = backend.close

        def counted_close() -> None:
            closed.append(ref.name)
            close()

        backend.close = counted_close  # type: ignore[method-assign]
        return backend

    monkeypatch.setattr(replay.backends, "open_backend", open_backend)
    return opened, closed


def test_each_engine_is_opened_once_for_the_whole_comparison(tmp_path: Path, home: Path, monkeypatch) -> None:
    """Replayed file by file (many short runs), each model's engine is opened once, kept open
    between the files, and closed at the end."""
    from replay.store import Store
    from replay.usecases.leaderboard import LeaderboardRequest, leaderboard

    path, items = write_items(tmp_path)
    opened, closed = counted_opens(monkeypatch)

    def answer(r: Request) -> Reply:
        item = next(it for it in items if r.body["prompt"].split("<|fim_suffix|>")[0].endswith(it.prefix[-200:]))
        text = (item.middle if "good" in r.body["model"] else "x") + "\n\n"
        return sse_reply([text]) if r.body.get("stream") else openai_reply(text)

    with StubServer(answer) as srv, Store(tmp_path / "s.db") as store:
        board = leaderboard(store, LeaderboardRequest(str(path), ["qwen2.5-coder-bad", "qwen2.5-coder-good"], backend="openai",
                                                      endpoints=[srv.url], until_decided=True, seed=3))
    assert board.standings[0].sequential is not None and board.standings[0].sequential.units_used > 1  # several runs each
    assert sorted(opened) == sorted(closed) == ["qwen2.5-coder-bad", "qwen2.5-coder-good"]


def test_engines_are_closed_when_interrupted(tmp_path: Path, home: Path, monkeypatch) -> None:
    """An interrupt in the middle of the comparison (Ctrl-C) still closes every engine it opened."""
    import pytest

    from replay.store import Store
    from replay.usecases.leaderboard import LeaderboardRequest, leaderboard

    path, items = write_items(tmp_path)
    opened, closed = counted_opens(monkeypatch)

    def answer(r: Request) -> Reply:
        return openai_reply("x\n\n")

    def progress(n: int, total: int, completion: object) -> None:
        if len(opened) == 2 and completion is not None:
            raise KeyboardInterrupt

    with StubServer(answer) as srv, Store(tmp_path / "s.db") as store, pytest.raises(KeyboardInterrupt):
        leaderboard(store, LeaderboardRequest(str(path), ["qwen2.5-coder-bad", "qwen2.5-coder-good"], backend="openai",
                                              endpoints=[srv.url], until_decided=True, seed=3), on_progress=progress)
    assert sorted(opened) == sorted(closed) == ["qwen2.5-coder-bad", "qwen2.5-coder-good"]
