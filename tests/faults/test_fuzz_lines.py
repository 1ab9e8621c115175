"""Property-based fuzz of every reader of lines: the importers (each format, each era of the real
logs in captures/) and the line commands (render, postprocess, score FILE), fed real lines with
byte-level damage (tests/support/mutations.py: cut mid-character, bad UTF-8, lone surrogates
escaped and raw, BOM, CRLF, NUL, cut lines, lines written twice, huge lines).

What must hold, whatever the damage: nothing raises but fimreplay's own one-line errors; every
line a reader must take (decided from UTF-8 and JSON alone, not by the code under test) is
taken once and only once; every other line is rejected once, named by file:line, its bytes
kept in the rejects file, no exception's name in its reason; a credential planted in a rejected
line reaches no file written. Hypothesis runs derandomized (the same examples every run), a
few hundred in all; bench/faults/fuzz_lines.py runs the same checks over 100,000+ lines.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from replay.editors import render
from replay.editors.inputs import output_row, parse_line
from replay.importers.importer import Importer
from replay.rejects import Rejects
from replay.scoring.pairs_file import jsonl_pairs
from replay.store import Store
from replay.usecases.postprocess_file import postprocess_line
from replay.usecases.render_file import RenderFailure, map_file
from tests.conftest import CAPTURES, run_cli
from tests.support.mutations import EXCEPTION_NAME, MUTATIONS, SECRETS, Built, build_file

FUZZ = settings(max_examples=60, derandomize=True, deadline=None, database=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture, HealthCheck.data_too_large])

# A file: up to 8 seed lines, each left alone ("") or mutated by name; and the mutations' seed.
_PICKS = st.lists(st.tuples(st.integers(0, 99), st.sampled_from(["", "", *MUTATIONS])), min_size=1, max_size=8)
_SEED = st.integers(0, 2**32 - 1)


def _fresh(tmp_path: Path, name: str) -> Path:
    """A new folder per example (Hypothesis runs many in one test's tmp_path)."""
    folder = tmp_path / f"{name}-{len(list(tmp_path.iterdir()))}"
    folder.mkdir()
    return folder


def _check_rejects(path: str | None, file: Path, built: Built) -> list[dict[str, Any]]:
    """The rejects file names exactly the lines a reader must reject, once each, with their
    bytes and a reason that names no exception; no planted credential is in it."""
    rows = [json.loads(x) for x in Path(path).read_text(encoding="utf-8").splitlines()] if path else []
    bad = sorted(n for n, ok in built.valid.items() if not ok)
    assert sorted(r["line"] for r in rows) == bad, (rows, built.mutation)
    for r in rows:
        assert r["where"] == f"{file}:{r['line']}" and r["raw"], r
        assert not EXCEPTION_NAME.search(r["reason"]) and "Traceback" not in r["reason"], r["reason"]
    if path:
        text = Path(path).read_text(encoding="utf-8")
        assert not any(s in text for s in SECRETS), "a planted credential in the rejects file"
    return rows


def _expected_duplicates(built: Built) -> int:
    """Valid lines whose record was already read (the second copy of a line written twice):
    the duplicates an import counts, but for records it ignores (not stored, not compared)."""
    seen: set[bytes] = set()
    dup = 0
    for n, line in enumerate(built.data.split(b"\n")[:-1], start=1):
        if not built.valid[n]:
            continue
        key = line.removesuffix(b"\r").removeprefix(b"\xef\xbb\xbf" if n == 1 else b"")
        dup += key in seen
        seen.add(key)
    return dup


@pytest.mark.parametrize("fmt", ["tabby", "continue-devdata"])
@FUZZ
@given(picks=_PICKS, seed=_SEED)
def test_an_import_takes_every_valid_line_once_and_rejects_each_bad_one_alone(tmp_path: Path, fmt: str,
                                                                               picks: list[tuple[int, str]], seed: int) -> None:
    work = _fresh(tmp_path, fmt)
    built = build_file(fmt, picks, random.Random(seed), plant=lambda n, m: n % 2 == 1)
    log = work / "log.jsonl"
    log.write_bytes(built.data)
    with Store(work / "s.db") as store, Rejects(work / "rejects.jsonl") as rejects:
        summary = Importer(store, rejects, fmt=fmt).import_file(log)
        stored = list(store.captures())
    _check_rejects(summary.rejects_file, log, built)
    valid = sum(built.valid.values())
    assert summary.rejected == len(built.valid) - valid
    assert summary.imported + summary.outcomes + summary.ignored + summary.duplicates == valid, summary.to_json()
    assert summary.duplicates <= _expected_duplicates(built)  # a record not stored (a chat event) is ignored twice
    assert len(stored) == summary.imported
    assert len({(r.completion_id, r.logged_prompt, r.completion, r.raw) for _, r, _ in stored}) == len(stored)  # none twice
    # a lone surrogate escape: kept as U+FFFD and marked lossy where JavaScript wrote it, else rejected
    lone = sum(ok and built.mutation[n] == "lone_surrogate_escaped" for n, ok in built.valid.items())
    assert sum(rec.lossy for _, rec, _ in stored) == lone
    assert all(rec.extra.get("replaced_surrogates", 0) > 0 for _, rec, _ in stored if rec.lossy)
    assert not any(s.encode() in (work / "s.db").read_bytes() for s in SECRETS)


def _convert(command: str) -> Any:
    """The per-line conversion the command's CLI runs (replay.usecases): render with the
    standard profile; postprocess --received with Tabby's client stage (no model)."""
    if command == "render":
        return lambda line, n: output_row(render("standard", parse_line(line), "qwen2.5-coder", None), n)
    sessions: dict[str, Any] = {}
    return lambda line, n: postprocess_line(line, "tabby", None, "1.8.0", False, True, sessions)


@pytest.mark.parametrize("command", ["render", "postprocess"])
@FUZZ
@given(picks=_PICKS, seed=_SEED)
def test_a_line_command_with_keep_going_never_stops_and_rejects_each_bad_line(tmp_path: Path, command: str,
                                                                               picks: list[tuple[int, str]], seed: int) -> None:
    work = _fresh(tmp_path, command)
    built = build_file(command, picks, random.Random(seed), plant=lambda n, m: True)
    src = work / "in.jsonl"
    src.write_bytes(built.data)
    out = work / "out.jsonl"
    summary = map_file(src, out, True, command, f"{command}ed", _convert(command))
    _check_rejects(summary.rejects_file, src, built)
    assert summary.done == sum(built.valid.values()) == len(out.read_bytes().splitlines())
    assert not any(s in out.read_text(encoding="utf-8") for s in SECRETS)
    bad = [n for n, ok in built.valid.items() if not ok]
    if bad:  # without --keep-going the first bad line stops the run, named
        with pytest.raises(RenderFailure) as stop:
            map_file(src, work / "stop.jsonl", False, command, f"{command}ed", _convert(command))
        assert stop.value.usage and str(stop.value).startswith(f"{src}:{bad[0]}: ")
        assert not EXCEPTION_NAME.search(str(stop.value))


@FUZZ
@given(picks=_PICKS, seed=_SEED)
def test_score_pairs_reject_each_bad_line_alone(tmp_path: Path, picks: list[tuple[int, str]], seed: int) -> None:
    work = _fresh(tmp_path, "score")
    built = build_file("score", picks, random.Random(seed), plant=lambda n, m: True)
    src = work / "pairs.jsonl"
    src.write_bytes(built.data)
    pairs, rejects, _ = jsonl_pairs(src)
    with Rejects(work / "rejects.jsonl") as kept:
        for r in rejects:
            kept.add(r)
    _check_rejects(kept.file, src, built)
    assert len(pairs) == sum(built.valid.values())


_TEXT_LOGS = sorted([*(CAPTURES / "continue" / "console").iterdir(), *(CAPTURES / "jetbrains").iterdir()])


@FUZZ
@given(log=st.sampled_from(_TEXT_LOGS), mutation=st.sampled_from(sorted(set(MUTATIONS) - {"duplicate"})),
       at=st.integers(0, 10_000), seed=_SEED)
def test_a_text_log_with_one_damaged_line_loses_at_most_its_entry(tmp_path: Path, log: Path, mutation: str, at: int,
                                                                  seed: int) -> None:
    """Continue's output channel copies and prompt.log: a damaged line costs its entry (the
    entries around it may hold it too: a broken separator joins two), never the file."""
    work = _fresh(tmp_path, "text")
    lines = log.read_bytes().split(b"\n")
    n = at % len(lines)
    if len(lines[n]) < 2:
        lines[n] = lines[n] + b"x = 1"
    lines[n] = MUTATIONS[mutation](lines[n], random.Random(seed))
    damaged = work / log.name
    damaged.write_bytes(b"\n".join(lines))
    with Store(work / "clean.db") as store, Rejects(work / "clean.jsonl") as rejects:
        clean = Importer(store, rejects).import_file(log)
    with Store(work / "s.db") as store, Rejects(work / "rejects.jsonl") as rejects:
        summary = Importer(store, rejects, fmt=next(iter(clean.by_format))).import_file(damaged)
        stored = [rec for _, rec, _ in store.captures()]
    assert summary.imported >= clean.imported - 2, (summary.to_json(), clean.to_json())
    for rec in stored:
        assert "\udcff" not in rec.raw and rec.raw.encode("utf-8")  # no bad byte reached the store
    for r in ([json.loads(x) for x in Path(summary.rejects_file).read_text(encoding="utf-8").splitlines()]
              if summary.rejects_file else []):
        assert r["where"].startswith(str(damaged)) and not EXCEPTION_NAME.search(r["reason"]), r


def test_each_command_from_the_shell_names_bad_lines_and_never_an_exception(tmp_path: Path, home: Path) -> None:
    """The same through the real CLI, one file per reader holding every mutation: exit codes
    in 0/1/2, stderr lines all `fimreplay: `, no traceback, no exception's name."""
    rng = random.Random(7)
    picks = [(i, name) for i, name in enumerate(["", *MUTATIONS, ""])]
    runs = []
    for kind, args in (("tabby", ["import", "SRC", "--format", "tabby", "--json", "--db", "DB"]),
                       ("continue-devdata", ["import", "SRC", "--format", "continue-devdata", "--json", "--db", "DB"]),
                       ("render", ["render", "SRC", "--editor", "standard", "--model", "qwen2.5-coder", "--keep-going", "-o", "OUT"]),
                       ("render", ["render", "SRC", "--editor", "standard", "--model", "qwen2.5-coder", "-o", "OUT"]),
                       ("postprocess", ["postprocess", "SRC", "--editor", "tabby", "--received", "--keep-going", "-o", "OUT"]),
                       ("score", ["score", "SRC", "--json", "--db", "DB"])):
        built = build_file(kind, picks, rng, plant=lambda n, m: True)
        src = tmp_path / f"{kind}-{len(runs)}.jsonl"
        src.write_bytes(built.data)
        names = {"SRC": str(src), "DB": str(tmp_path / "s.db"), "OUT": str(tmp_path / f"out-{len(runs)}.jsonl")}
        args = [names.get(a, a) for a in args]
        proc = run_cli(*args)
        runs.append((args[0], proc))
        assert proc.returncode in (0, 1, 2), proc.stderr
        assert "Traceback" not in proc.stderr and not EXCEPTION_NAME.search(proc.stderr), proc.stderr
        assert all(line.startswith("fimreplay: ") for line in proc.stderr.splitlines()), proc.stderr
        assert not any(s in proc.stdout + proc.stderr for s in SECRETS)
    codes = [p.returncode for _, p in runs]
    assert codes == [0, 0, 0, 2, 0, 0], [(c, p.stderr[-300:]) for c, p in runs]
