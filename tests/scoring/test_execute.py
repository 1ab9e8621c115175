"""The pass@1 metric: the benchmark's own tests run with the completion in place, each program in
a contained process (replay.scoring.sandbox), on HumanEval single-line infilling."""

from __future__ import annotations

import json
import random
import socket
import time
from math import comb
from pathlib import Path

import pytest

from replay.records import FimItem
from replay.scoring import execute, sandbox
from replay.scoring.sandbox import Limits
from replay.store import Store
from tests.support.humaneval import cases, item, problems
from tests.support.scores import half_right_run

# Every containment this machine gives: the guards everywhere, the namespaces where they run.
MODES = ["guards"] + (["namespaces"] if sandbox.isolation() == "namespaces" else [])


def _programs(completion) -> list[tuple[str, str]]:
    return [("python", execute.program("python", c["prefix"], c["completion"], c["suffix"], c["test"], c["entry_point"]))
            for c in cases(completion)]


def test_the_program_is_laid_out_as_the_harness_does() -> None:
    # human_eval_infilling/execution.py: prompt + completion + suffix + "\n" + test + "\n" + check(entry_point)
    assert execute.program("python", "P", "C", "S", "T", "f") == "PCS\nT\ncheck(f)"
    assert execute.program("javascript", "P", "C", "S", "T", "f") == "PCS\nT"


def test_canonical_middles_pass_and_empty_ones_do_not(tmp_path: Path) -> None:
    records = problems()
    assert len(records) == 1033 and len({r["task_id"] for r in records}) == 1033
    canonical = execute.execute_many(_programs(lambda r: r["canonical_solution"]), cache=tmp_path / "x.sqlite")
    assert [o.status for o in canonical] == ["passed"] * 1033
    # Left empty (a seeded fifth of the items: some loop forever without their line, and a
    # timeout costs seconds): the few whose line is redundant pass, most fail.
    sample = random.Random(0).sample(_programs(lambda r: ""), 200)
    empty = execute.execute_many(sample, Limits(seconds=1.0), cache=tmp_path / "x.sqlite")
    assert sum(o.passed for o in empty) < 0.05 * len(sample)
    assert sum(o.status == "failed" for o in empty) > 0.9 * len(sample)


def test_results_are_cached_by_content_except_timeouts(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    cache = tmp_path / "x.sqlite"
    programs = [("python", "assert True"), ("python", "assert False"), ("python", "while True: pass")]
    first = execute.execute_many(programs, Limits(seconds=0.5), cache=cache)
    assert [o.status for o in first] == ["passed", "failed", "timed out"]
    ran: list[int] = []
    real = execute.run_programs
    monkeypatch.setattr(execute, "run_programs", lambda todo, *a: ran.append(len(todo)) or real(todo, *a))
    again = execute.execute_many(programs + programs[:1], Limits(seconds=0.5), cache=cache)
    assert [o.status for o in again] == ["passed", "failed", "timed out", "passed"]
    assert ran == [1]  # only the one that timed out ran again


@pytest.mark.parametrize("how", MODES)
def test_a_program_that_never_ends_is_timed_out(how: str) -> None:
    start = time.monotonic()
    out = sandbox.run_programs([("python", "while True: pass"), ("python", "import time\ntime.sleep(60)"),
                                ("javascript", "while (true) {}")], Limits(seconds=0.5), workers=3, how=how)
    assert [o.status for o in out] == ["timed out"] * 3
    assert time.monotonic() - start < 10


@pytest.mark.parametrize("how", MODES)
def test_a_write_outside_the_sandbox_is_contained(how: str, tmp_path: Path) -> None:
    target = tmp_path / "escaped.txt"
    program = f"open({str(target)!r}, 'w').write('x')\nopen('inside.txt', 'w').write('y')"
    out = sandbox.run_programs([("python", program), ("python", f"import os\nos.remove({str(tmp_path)!r})")], how=how)
    assert not target.exists() and tmp_path.is_dir()
    assert [o.status for o in out] == ["failed", "failed"]


@pytest.mark.parametrize("how", MODES)
def test_a_socket_reaches_nothing(how: str) -> None:
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen()
        server.settimeout(0.2)
        port = server.getsockname()[1]
        program = f"import socket\nsocket.create_connection(('127.0.0.1', {port}), timeout=1).sendall(b'x')"
        out = sandbox.run_programs([("python", program)], how=how)
        with pytest.raises(TimeoutError):
            server.accept()
    assert out[0].status == "failed"


def _alive(name: str) -> bool:
    """Whether a process of this name runs (a zombie, killed and waiting for init to reap it, does not)."""
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text()
        except OSError:
            continue
        comm, _, rest = fields.partition("(")[2].rpartition(")")
        if comm == name and rest.split()[0] != "Z":
            return True
    return False


@pytest.mark.parametrize("how", MODES)
def test_a_forked_process_does_not_outlive_its_program(how: str) -> None:
    name = f"fimleak{how[:4]}"
    # os.fork is guarded (the harness's guard); libc's fork through ctypes is not: the child
    # names itself and spins, the parent ends at once.
    program = ("import ctypes\nlibc = ctypes.CDLL(None)\n"
               f"if libc.fork() == 0:\n    libc.prctl(15, b'{name}', 0, 0, 0)\n    while True: pass\n")
    guarded = sandbox.run_programs([("python", "import os\nos.fork()"), ("python", program)], Limits(seconds=1), how=how)
    assert guarded[0].status == "failed" and "NoneType" in guarded[0].detail
    time.sleep(0.2)
    assert not _alive(name)


def test_a_program_that_exits_early_does_not_pass() -> None:
    out = sandbox.run_programs([("python", "import os\nos._exit(0)"), ("javascript", "process.exit(0)"),
                                ("javascript", "const assert = require('assert');\nassert.equal(1, 1);"),
                                ("javascript", "Promise.reject(new Error('late'))")])
    assert [o.status for o in out] == ["failed", "failed", "passed", "failed"]
    assert out[3].detail == "failed: Error: late"


def test_pass_at_k_is_the_unbiased_estimator() -> None:
    for n, c, k in [(10, 3, 1), (10, 3, 5), (20, 0, 10), (5, 5, 1), (100, 37, 10)]:
        assert execute.pass_at_k(n, c, k) == pytest.approx(1 - comb(n - c, k) / comb(n, k))
    assert execute.pass_at_ks({"a": [True, False], "b": [False, False]}) == {"pass@1": 0.25}
    assert execute.pass_at_ks({"a": [True] + [False] * 9, "b": [False] * 10}, ks=(1, 10)) == pytest.approx({"pass@1": 0.05, "pass@10": 0.5})


def _write(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def test_score_execute_on_a_file_gives_pass_at_k_beside_indel(tmp_path: Path, cli) -> None:
    some = cases(lambda r: r["canonical_solution"])[:6]
    rows = some + [{**c, "completion": "    pass\n"} for c in some]  # two samples of each item
    res = cli("score", str(_write(tmp_path / "c.jsonl", rows)), "--execute", "--json")
    assert res.returncode == 0, res.stderr
    out = json.loads(res.stdout)
    assert out["pass_at_k"] == {"pass@1": 0.5} and out["mean"]["pass@1"] == 0.5
    assert out["n_items"] == 12 and "indel" in out["mean"] and out["contained_by"] in ("namespaces", "guards")
    table = cli("score", str(tmp_path / "c.jsonl"), "--execute").stdout
    assert "pass@1" in table.splitlines()[0] and "pass@1 0.5000" in table


def test_pass_at_k_is_given_per_file_and_overall_for_k_samples(tmp_path: Path, cli) -> None:
    # Ten samples of each of four items of two problems (files): HumanEval/0's items pass in one
    # sample of ten, HumanEval/1's in none.
    some = [c for c in cases(lambda r: r["canonical_solution"]) if c["file"] in ("HumanEval/0.py", "HumanEval/1.py")]
    picked = [c for c in some if c["file"] == "HumanEval/0.py"][:2] + [c for c in some if c["file"] == "HumanEval/1.py"][:2]
    rows = []
    for c in picked:
        good = c["file"] == "HumanEval/0.py"
        rows += [{**c, "completion": c["completion"] if good and n == 0 else "    pass\n"} for n in range(10)]
    out = json.loads(cli("score", str(_write(tmp_path / "k.jsonl", rows)), "--execute", "--json").stdout)
    assert out["pass_at_k"] == pytest.approx({"pass@1": 0.05, "pass@10": 0.5})
    per_file = out["pass_at_k_per_file"]
    assert sorted(per_file) == ["HumanEval/0.py", "HumanEval/1.py"]
    assert per_file["HumanEval/0.py"] == pytest.approx({"pass@1": 0.1, "pass@10": 1.0})
    assert per_file["HumanEval/1.py"] == pytest.approx({"pass@1": 0.0, "pass@10": 0.0})
    table = cli("score", str(tmp_path / "k.jsonl"), "--execute").stdout
    assert "pass@10 0.5000" in table and "HumanEval/0.py: pass@1 0.1000, pass@10 1.0000" in table


def test_a_file_of_the_wrong_format_is_one_clear_line(tmp_path: Path, cli) -> None:
    pairs = _write(tmp_path / "pairs.jsonl", [{"file": "a.py", "reference": "x", "completion": "x"}])
    res = cli("score", str(pairs), "--execute")
    assert res.returncode != 0 and len(res.stderr.strip().splitlines()) == 1
    assert f"{pairs}:1: not an item with a completion: no id, prefix, middle, suffix" in res.stderr
    assert "Traceback" not in res.stderr and "Error" not in res.stderr
    mixed = _write(tmp_path / "mixed.jsonl", cases(lambda r: r["canonical_solution"])[:1] + [{"id": 1}])
    res = cli("score", str(mixed), "--execute", "--json")
    assert res.returncode == 0 and json.loads(res.stdout)["n_rejects"] == 1
    assert f"{mixed}:2: not an item with a completion: no prefix, middle, suffix, completion" in res.stderr


def test_score_execute_on_a_run_is_kept_in_the_store(tmp_path: Path, cli) -> None:
    items = [FimItem(**item(r)) for r in problems()[:4]]
    db = tmp_path / "s.db"
    half_right_run(db, items, "    return None\n")
    plain = json.loads(cli("score", "r", "--json", "--db", str(db)).stdout)
    assert "pass@1" not in plain["mean"]  # opt-in
    res = cli("score", "r", "--execute", "--json", "--db", str(db))
    assert res.returncode == 0, res.stderr
    assert json.loads(res.stdout)["mean"]["pass@1"] == 0.5
    with Store(db) as store:
        kept = store.score_sets("r")["shown:execute:lines=auto"].entries
    assert {i: v["pass@1"] for i, (_, v) in kept.items()} == {it.id: float(k % 2) for k, it in enumerate(items)}
    again = json.loads(cli("score", "r", "--json", "--db", str(db)).stdout)  # kept: shown without asking
    assert again["mean"]["pass@1"] == 0.5


def test_the_text_run_is_cut_to_the_line_window_with_its_line_ends() -> None:
    assert execute.executed_text("a\n", "x\ny\nz", "auto") == "x\n"
    assert execute.executed_text("a\nb\n", "x\ny\nz", "auto") == "x\ny\n"
    assert execute.executed_text("a\n", "x", "auto") == "x"  # no line end given: none added
    assert execute.executed_text("a\n", "x\ny", "all") == "x\ny"
    assert execute.executed_text("a\n", "x\ny\nz", 2) == "x\ny\n"


def test_a_generation_past_the_line_is_run_as_the_single_line_benchmark_cuts_it(tmp_path: Path, cli) -> None:
    # The canonical line followed by more than the middle (a model that runs on into the suffix).
    rows = [{**c, "completion": c["middle"] + "    return 42\n"} for c in cases(lambda r: r["canonical_solution"])[:3]]
    path = _write(tmp_path / "c.jsonl", rows)
    cut = json.loads(cli("score", str(path), "--execute", "--json").stdout)
    whole = json.loads(cli("score", str(path), "--execute", "--json", "--lines", "all").stdout)
    assert cut["mean"]["pass@1"] == 1.0 and whole["mean"]["pass@1"] < 1.0


def test_a_program_past_its_memory_limit_fails() -> None:
    out = sandbox.run_programs([("python", "x = bytearray(600 * 2**20)"), ("python", "x = bytearray(50 * 2**20)")],
                               Limits(memory_mb=512))
    assert [o.status for o in out] == ["failed", "passed"] and "MemoryError" in out[0].detail
