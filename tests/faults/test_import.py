"""Import faults a real machine and real logs have, each named after its fault. Every case checks
the same four things (`_held`): the rows after are the rows before plus the good input, nothing
is stored twice, the exit code and a one-line message (never a traceback), and a planted key is
in no file the command wrote."""

from __future__ import annotations

import gzip
import json
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from replay.importers.importer import Importer
from replay.rejects import Rejects
from replay.store import Store
from tests.conftest import CAPTURES, ROOT, refuse_folders, run_cli
from tests.support.processes import spawned

SECRET = "sk-planted0123456789abcdefghijklmn"


def tabby_line(cid: str, prompt: str = "x = ") -> bytes:
    """One Tabby completion event, as crates/tabby-common/src/api/event.rs serializes it."""
    return json.dumps({"user": None, "ts": 1732200000000, "event": {"completion": {
        "completion_id": cid, "language": "python", "prompt": prompt, "choices": [{"index": 0, "text": "1"}],
        "user_agent": None}}}, separators=(",", ":")).encode()


def tabby_log(ids: list[str]) -> bytes:
    return b"".join(tabby_line(c) + b"\n" for c in ids)


BAD_WITH_SECRET = ('{"ts":1,"event":{"completion":{"api_key":"' + SECRET + '"').encode()  # cut: rejected, kept scrubbed


def _held(tmp_path: Path, db: Path, before: int, added: int, out: subprocess.CompletedProcess[str] | None = None,
          code: int = 0) -> None:
    """The fault suite's four checks."""
    with Store(db) as store:
        rows = [(r.completion_id, r.format, r.logged_prompt, r.completion) for _, r, _ in store.captures()]
    assert len(rows) == before + added, rows
    assert len(set(rows)) == len(rows), "a record stored twice"
    if out is not None:
        assert out.returncode == code, out.stderr
        assert "Traceback" not in out.stderr
        assert all(line.startswith("fimreplay: ") for line in out.stderr.strip().splitlines()), out.stderr
    for f in tmp_path.rglob("*"):
        if f.is_file() and "input" not in f.parts:
            assert SECRET.encode() not in f.read_bytes(), f"planted key in {f}"


def _inputs(tmp_path: Path) -> Path:
    d = tmp_path / "input"
    d.mkdir(exist_ok=True)
    return d


def test_fault_stdin_pipe_is_read_once(tmp_path: Path, home: Path) -> None:
    db = tmp_path / "s.db"
    data = tabby_log([f"p{i}" for i in range(50)]) + BAD_WITH_SECRET + b"\n"
    out = run_cli("import", "/dev/stdin", "--db", str(db), "--json", "--rejects", str(tmp_path / "r.jsonl"),
                  input=data.decode(), timeout=60)
    got = json.loads(out.stdout)
    assert (got["imported"], got["rejected"]) == (50, 1)
    _held(tmp_path, db, 0, 50, out)


def test_fault_fifo_does_not_hang(tmp_path: Path, home: Path) -> None:
    fifo = _inputs(tmp_path) / "events.json"
    os.mkfifo(fifo)
    data = tabby_log([f"f{i}" for i in range(2000)])  # more than the 64 KiB the format is told from

    def write() -> None:
        with open(fifo, "wb") as fh:
            fh.write(data)

    writer = threading.Thread(target=write)
    writer.start()
    db = tmp_path / "s.db"
    out = run_cli("import", str(fifo), "--db", str(db), "--json", timeout=60)
    writer.join(timeout=10)
    assert json.loads(out.stdout)["imported"] == 2000
    _held(tmp_path, db, 0, 2000, out)


def test_fault_bom_does_not_lose_the_first_record(tmp_path: Path) -> None:
    d = _inputs(tmp_path)
    (d / "2024-09-30.json").write_bytes(b"\xef\xbb\xbf" + tabby_log(["b1", "b2"]))
    dev = json.dumps({"prefix": "a", "suffix": "", "prompt": "a", "completion": "b", "completionId": "d1",
                      "modelProvider": "ollama", "modelName": "m"})
    (d / "autocomplete.jsonl").write_bytes(b"\xef\xbb\xbf" + dev.encode() + b"\n")
    db = tmp_path / "s.db"
    with Store(db) as store:
        s = Importer(store, Rejects(tmp_path / "r.jsonl")).import_paths([d])
    assert (s.imported, s.rejected) == (3, 0)
    _held(tmp_path, db, 0, 3)


def test_fault_crlf_copy_imports_nothing_again(tmp_path: Path) -> None:
    d = _inputs(tmp_path)
    originals = [CAPTURES / "tabby" / "events" / "2024-10-01.json", CAPTURES / "continue" / "dev_data" / "0.2.0" / "autocomplete.jsonl",
                 CAPTURES / "continue" / "console" / "llm-prompt-completion-2024-10.txt", CAPTURES / "jetbrains" / "prompt.log",
                 CAPTURES / "jetbrains" / "prompt-2025-01.log"]
    lf, crlf = d / "lf", d / "crlf"
    lf.mkdir()
    crlf.mkdir()
    for i, p in enumerate(originals):
        data = p.read_bytes()
        assert b"\r\n" not in data.replace(b"\\r\\n", b"")
        (lf / f"{i}-{p.name}").write_bytes(data)
        (crlf / f"{i}-{p.name}").write_bytes(data.replace(b"\n", b"\r\n"))
    db = tmp_path / "s.db"
    with Store(db) as store:
        first = Importer(store, Rejects(tmp_path / "r1.jsonl")).import_paths([lf])
        again = Importer(store, Rejects(tmp_path / "r2.jsonl")).import_paths([crlf])
    assert first.imported > 0 and first.rejected == 0
    assert (again.imported, again.rejected, again.duplicates) == (0, 0, first.imported + first.outcomes)
    _held(tmp_path, db, 0, first.imported)


def test_fault_store_made_before_the_identity_rule_gets_no_duplicates(tmp_path: Path) -> None:
    """tests/data/store-before-identity.db was written by the importer before records were
    identified by what they are (commit 6a4034d, `import captures/`): re-importing the same
    logs adds nothing."""
    db = tmp_path / "s.db"
    shutil.copy(ROOT / "tests" / "data" / "store-before-identity.db", db)
    with Store(db) as store:
        before = store.count_captures()
        then = [p for p in sorted(CAPTURES.rglob("*")) if p.is_file() and p.parent.name != "bad" and p.suffix != ".md"
                and p.name != "issue-3908-pasted.txt" and not p.name.startswith("formatter-")
                and "session" not in p.relative_to(CAPTURES).parts]  # the files of that commit (captures/session/ came later)
        then = [_as_at_identity_commit(p, tmp_path) for p in then]
        s = Importer(store, Rejects(tmp_path / "r.jsonl")).import_paths(then)
    assert before == 24 and s.imported == 0 and s.duplicates == 37
    _held(tmp_path, db, before, 0)


def _as_at_identity_commit(path: Path, tmp_path: Path) -> Path:
    """The capture file as the store's commit had it: the 2025-04-02 Tabby log's user agent was
    later written as tabby-agent writes it (it named a tabby-agent 1.10.0 never published)."""
    if path.name != "2025-04-02.json.gz":
        return path
    old = gzip.decompress(path.read_bytes()).replace(
        b'"user_agent":"Node.js/v20.18.0 tabby-agent/1.9.0-dev IntelliJ-IDEA/2024.3"',
        b'"user_agent":"tabby-agent/1.10.0 intellij/2024.3"')
    copy = tmp_path / "then" / path.name
    copy.parent.mkdir(exist_ok=True)
    copy.write_bytes(gzip.compress(old, mtime=0))
    return copy


def test_fault_one_invalid_utf8_byte_rejects_one_console_entry(tmp_path: Path, home: Path) -> None:
    src = (CAPTURES / "continue" / "console" / "llm-prompt-completion-2024-10.txt").read_bytes()
    d = _inputs(tmp_path)
    (d / "good.txt").write_bytes(src)
    bad = src.replace(b"def footer()", b"def f\xe9oter()", 1)
    assert bad != src
    (d / "bad.txt").write_bytes(bad)
    db = tmp_path / "s.db"
    out = run_cli("import", str(d / "bad.txt"), "--db", str(db), "--json", "--rejects", str(tmp_path / "r.jsonl"))
    got = json.loads(out.stdout)
    full = json.loads(run_cli("import", str(d / "good.txt"), "--db", str(tmp_path / "full.db"), "--json").stdout)
    assert got["rejected"] == 1 and got["imported"] == full["imported"] - 1
    (rej,) = [json.loads(x) for x in (tmp_path / "r.jsonl").read_text(encoding="utf-8").splitlines()]
    assert rej["line"] > 0 and "invalid UTF-8" in rej["reason"]
    assert len(out.stderr.strip().splitlines()) == 1
    (tmp_path / "full.db").unlink()
    _held(tmp_path, db, 0, full["imported"] - 1, out)


def test_fault_nul_bytes_in_the_first_64k_reject_one_tabby_line(tmp_path: Path) -> None:
    d = _inputs(tmp_path)
    (d / "2024-09-30.json").write_bytes(tabby_log(["n1"]) + b"\x00" * 4096 + b"\n" + b"\x00" * 100 + tabby_line("n2") + b"\n"
                                        + BAD_WITH_SECRET + b"\x00\n" + tabby_log(["n3"]))
    db = tmp_path / "s.db"
    with Store(db) as store:
        s = Importer(store, Rejects(tmp_path / "r.jsonl")).import_paths([d])
    assert (s.imported, s.rejected) == (3, 2)  # the NUL-only line and the cut one; n2 after its NUL run is kept
    _held(tmp_path, db, 0, 3)


def test_fault_json_nested_1000_deep_is_one_bad_line(tmp_path: Path, home: Path) -> None:
    deep = '{"a":' * 100_000 + "1" + "}" * 100_000
    d = _inputs(tmp_path)
    (d / "2024-09-30.json").write_text(tabby_log(["j1"]).decode() + '{"ts":1,"event":{"chat_completion":' + deep + "}}\n"
                                       + tabby_log(["j2"]).decode(), encoding="utf-8")
    (d / "autocomplete.jsonl").write_text('{"completionId":"x","modelProvider":"o","completionOptions":' + deep + "}\n",
                                          encoding="utf-8")
    sep = "=" * 74 + "\n" + "=" * 74 + "\n"
    (d / "channel.txt").write_text(sep + "##### Completion options #####\n" + deep + "\n\n##### Prompt #####\n<|fim_prefix|>a\n"
                                   + sep + "Completion:\nb\n\n", encoding="utf-8")
    db = tmp_path / "s.db"
    out = run_cli("import", str(d), "--db", str(db), "--json", "--rejects", str(tmp_path / "r.jsonl"))
    got = json.loads(out.stdout)
    assert (got["imported"], got["rejected"]) == (2, 3)
    reasons = [json.loads(x)["reason"] for x in (tmp_path / "r.jsonl").read_text(encoding="utf-8").splitlines()]
    assert all("nested too deeply" in r for r in reasons), reasons
    # the run's input reader: one bad line too (replay.jsonl)
    from replay.editors.inputs import BadInputLine, load_object

    with pytest.raises(BadInputLine, match="nested too deeply"):
        load_object(deep)
    _held(tmp_path, db, 0, 2, out)


def test_fault_unreadable_subfolder_is_named_and_counted(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """An unreadable folder (tests.conftest.refuse_folders) is named and counted, not skipped."""
    d = _inputs(tmp_path)
    (d / "ok").mkdir()
    (d / "ok" / "2024-09-30.json").write_bytes(tabby_log(["u1"]))
    (d / "locked").mkdir()
    (d / "locked" / "2024-09-30.json").write_bytes(tabby_log(["u2"]))
    refuse_folders(monkeypatch, "locked")
    db = tmp_path / "s.db"
    with Store(db) as store:
        s = Importer(store, Rejects(tmp_path / "r.jsonl")).import_paths([d])
    rej = [json.loads(x) for x in (tmp_path / "r.jsonl").read_text(encoding="utf-8").splitlines()]
    assert s.imported == 1 and s.by_format["unreadable"]["rejected"] == 1
    assert rej[0]["file"].endswith("locked") and "Permission denied" in rej[0]["reason"]
    _held(tmp_path, db, 0, 1)


def test_fault_import_leaves_no_process_running(tmp_path: Path, home: Path) -> None:
    """A file past the reader threshold is parsed in a child process: when the command returns,
    no process of its session is left (multiprocessing left a forkserver and a resource tracker)."""
    big = _inputs(tmp_path) / "2024-09-30.json"
    line_pad = "y" * 900
    with open(big, "wb") as fh:
        for i in range(19_000):
            fh.write(tabby_line(f"w{i}", prompt=line_pad) + b"\n")
    assert big.stat().st_size >= 16 * 1024 * 1024
    db = tmp_path / "s.db"
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    with spawned([sys.executable, "-m", "replay", "import", str(big), "--db", str(db), "--json"],
                 stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, start_new_session=True) as proc:
        stdout, stderr = proc.communicate(timeout=300)
    assert proc.returncode == 0, stderr
    left = [p for p in os.listdir("/proc") if p.isdigit() and _sid(p) == proc.pid]
    for p in left:
        os.kill(int(p), signal.SIGKILL)
    assert left == [], "processes left running after import returned"
    assert json.loads(stdout)["imported"] == 19_000
    _held(tmp_path, db, 0, 19_000)


def _sid(pid: str) -> int | None:
    try:
        return os.getsid(int(pid))
    except OSError:
        return None


def test_fault_reimport_after_the_file_grew_adds_only_the_new_records(tmp_path: Path) -> None:
    d = _inputs(tmp_path)
    f = d / "2024-09-30.json"
    f.write_bytes(tabby_log(["g1", "g2"]))
    db = tmp_path / "s.db"
    with Store(db) as store:
        Importer(store, Rejects(tmp_path / "r.jsonl")).import_paths([d])
        with open(f, "ab") as fh:
            fh.write(tabby_log(["g3"]))
        time.sleep(0.01)
        s = Importer(store, Rejects(tmp_path / "r2.jsonl")).import_paths([d])
    assert (s.imported, s.duplicates) == (1, 2)
    _held(tmp_path, db, 0, 3)


def test_fault_u2028_and_crlf_in_json_lines_split_on_newline_only(tmp_path: Path) -> None:
    """JSON allows U+2028, U+2029, U+0085 and form feeds unescaped in a string; str.splitlines
    cut such a record in two. Every JSON Lines reader splits on "\\n" only (replay.jsonl)."""
    from replay.editors.inputs import read_lines
    from replay.scoring import jsonl_pairs

    odd = "a\u2028b\u2029c\u0085d\x0ce"
    rows = [{"file": "x.py", "reference": odd, "completion": odd}, {"file": "y.py", "reference": "1", "completion": "2"}]
    text = "\ufeff" + "".join(json.dumps(r, ensure_ascii=False) + "\r\n" for r in rows)
    assert [n for n, _ in read_lines(text)] == [1, 2]
    f = _inputs(tmp_path) / "pairs.jsonl"
    f.write_text(text, encoding="utf-8")
    pairs, rejects, _ = jsonl_pairs(f)
    assert rejects == [] and [p[3] for p in pairs] == [odd, "1"]
