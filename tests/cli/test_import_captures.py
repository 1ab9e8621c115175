"""`fimreplay import` / `captures` end to end, and every kind of bad input."""

from __future__ import annotations

import json
from pathlib import Path

from replay.importers.common import MAX_LINE_BYTES, iter_lines
from replay.rejects import Rejects
from replay.importers.importer import Importer
from replay.store import Store
from tests.conftest import CAPTURES

GOOD = [str(CAPTURES / "tabby"), str(CAPTURES / "continue"), str(CAPTURES / "jetbrains")]
VIEW = b'{"user":null,"ts":1732200000100,"event":{"view":{"completion_id":"c1","choice_index":0}}}'
COMPLETION = (b'{"user":null,"ts":1732200000000,"event":{"completion":{"completion_id":"c1","language":"python",'
              b'"prompt":"x = ","choices":[{"index":0,"text":"1"}],"user_agent":null}}}')


def _rejects(path: str) -> list[dict]:
    return [json.loads(x) for x in Path(path).read_text(encoding="utf-8").splitlines()]


def test_import_samples_json_and_idempotent(cli, tmp_path: Path) -> None:
    db = str(tmp_path / "s.db")
    out = cli("import", *GOOD, "--db", db, "--json")
    assert out.returncode == 0, out.stderr
    got = json.loads(out.stdout)
    assert set(got) >= {"imported", "duplicates", "outcomes", "ignored", "rejected", "rejects_file", "by_format"}
    assert (got["imported"], got["outcomes"], got["ignored"], got["rejected"], got["rejects_file"]) == (26, 14, 5, 0, None)
    again = json.loads(cli("import", *GOOD, "--db", db, "--json").stdout)
    assert (again["imported"], again["outcomes"], again["duplicates"]) == (0, 0, 40)
    rows = [json.loads(x) for x in cli("captures", "--db", db, "--json").stdout.splitlines()]
    assert len(rows) == 26
    assert set(rows[0]) == {"id", "completion_id", "editor", "editor_version", "model", "language", "filepath", "outcome",
                            "source", "reference"}
    assert all((row["reference"] is None) == ("reference_why" in row) for row in rows)
    assert rows[0]["source"].endswith("2023-05-31.json:1") and rows[0]["outcome"] == "accepted"
    text = cli("captures", "--db", db).stdout
    assert "accepted_line" in text and "continue" in text


def test_bad_samples_counted_kept_and_never_stop_the_rest(cli, tmp_path: Path) -> None:
    rejects = tmp_path / "rej.jsonl"
    out = cli("import", str(CAPTURES / "bad"), str(CAPTURES / "tabby" / "events" / "2023-05-31.json"),
              "--db", str(tmp_path / "s.db"), "--rejects", str(rejects), "--json")
    assert out.returncode == 0
    got = json.loads(out.stdout)
    assert (got["imported"], got["rejected"], got["rejects_file"]) == (2, 5, str(rejects))
    assert got["by_format"]["empty"]["files"] == 1  # an empty file is counted, not an error
    reasons = {(Path(r["file"]).name, r["line"]): r["reason"] for r in _rejects(str(rejects))}
    assert reasons[("2024-11-21.json", 2)].startswith("invalid JSON")
    assert reasons[("2024-11-21.json", 3)].startswith("wrong field type") and "$.ts" in reasons[("2024-11-21.json", 3)]
    assert reasons[("2024-11-21.json", 4)].startswith("invalid UTF-8")
    assert reasons[("2024-11-21.json", 5)].startswith("truncated last line")
    assert ("empty.json", 0) not in reasons
    assert reasons[("binary.json", 0)].startswith("binary file")
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 5 and all(line.startswith("fimreplay: ") for line in lines)
    assert any("2024-11-21.json:3: wrong field type" in line for line in lines)


def test_raw_of_invalid_utf8_is_kept_escaped(tmp_path: Path) -> None:
    f = tmp_path / "2024-01-01.json"
    f.write_bytes(COMPLETION.replace(b"x = ", b"caf\xe9") + b"\n")
    log = Rejects(tmp_path / "r.jsonl")
    with Store(tmp_path / "s.db") as store:
        imp = Importer(store, log)
        s = imp.import_paths([f])
    log.close()
    assert s.rejected == 1
    assert "caf\\xe9" in _rejects(str(tmp_path / "r.jsonl"))[0]["raw"]


def test_a_100_mb_line_is_rejected_without_holding_it(tmp_path: Path) -> None:
    f = tmp_path / "2024-01-02.json"
    with open(f, "wb") as fh:
        fh.write(COMPLETION + b"\n")
        fh.write(b'{"user":null,"ts":1,"event":{"completion":{"prompt":"')
        chunk = b"a" * (1 << 20)
        for _ in range(100):
            fh.write(chunk)
        fh.write(b'"}}}\n')
        fh.write(VIEW + b"\n")
    log = Rejects(tmp_path / "r.jsonl")
    with Store(tmp_path / "s.db") as store:
        imp = Importer(store, log)
        s = imp.import_paths([f])
        assert (s.imported, s.outcomes, s.rejected) == (1, 1, 1)
        assert next(store.captures())[2] == "viewed"  # the line after the huge one was read
    log.close()
    (rej,) = _rejects(str(tmp_path / "r.jsonl"))
    assert rej["line"] == 2 and rej["reason"].startswith(f"line longer than {MAX_LINE_BYTES} bytes")
    assert rej["raw_truncated_from"] > 100 * (1 << 20) and len(rej["raw"]) == 4096


def test_iter_lines_offsets_across_a_long_line(tmp_path: Path) -> None:
    data = b"ab\n" + b"x" * 50 + b"\ncd\nef"
    with open(tmp_path / "f", "wb") as fh:
        fh.write(data)
    with open(tmp_path / "f", "rb") as fh:
        got = list(iter_lines(fh, max_line=10))
    assert [(ln.number, ln.offset, ln.complete, ln.too_long) for ln in got] == [(1, 0, True, False), (2, 3, True, True), (3, 54, True, False), (4, 57, False, False)]
    assert got[1].length == 50 and got[2].data == b"cd" and got[3].data == b"ef"


def test_missing_path_exits_2_with_one_line(cli, tmp_path: Path) -> None:
    out = cli("import", str(CAPTURES / "tabby"), str(tmp_path / "nope.json"), "--db", str(tmp_path / "s.db"))
    assert out.returncode == 2
    assert out.stderr.strip() == f"fimreplay: {tmp_path / 'nope.json'}: no such file or directory"
    assert json.loads(cli("import", str(CAPTURES / "tabby"), "--db", str(tmp_path / "s.db"), "--json").stdout)["imported"] == 9


def test_format_forced_and_default_rejects_dir(cli, tmp_path: Path) -> None:
    odd = tmp_path / "events.log"  # Tabby lines with a leading blank line and unusual key order
    odd.write_bytes(b"\n" + COMPLETION.replace(b'{"user":null,"ts":1732200000000,', b'{"ts":1732200000000,"user":null,') + b"\n")
    db = str(tmp_path / "s.db")
    out = json.loads(cli("import", str(odd), "--db", db, "--json", "--format", "tabby").stdout)
    assert out["imported"] == 1 and out["by_format"]["tabby"]["files"] == 1
    bad = tmp_path / "bad.json"
    bad.write_bytes(b"{not json}\n")
    out = json.loads(cli("import", str(bad), "--db", db, "--json", "--format", "tabby").stdout)
    assert out["rejected"] == 1 and out["rejects_file"].startswith(str(tmp_path / "rejects"))  # beside the store
    out = json.loads(cli("import", str(CAPTURES / "bad" / "empty.json"), "--db", db, "--json", "--format", "tabby").stdout)
    assert out["rejected"] == 0 and out["by_format"]["empty"]["files"] == 1  # counted, not an error, forced or not


def test_unrecognized_and_corrupt_files_are_rejected_with_reasons(tmp_path: Path) -> None:
    d = tmp_path / "in"
    d.mkdir()
    (d / "notes.txt").write_text("just some notes\n", encoding="utf-8")
    (d / "other.jsonl").write_text('{"level":"info","msg":"hello"}\n', encoding="utf-8")
    (d / "2024-01-03.json.gz").write_bytes(b"\x1f\x8b\x08\x00not really gzip")
    (d / "2024-01-04.json").write_bytes(COMPLETION + b"\n")
    log = Rejects(tmp_path / "r.jsonl")
    with Store(tmp_path / "s.db") as store:
        imp = Importer(store, log)
        s = imp.import_paths([d])
    log.close()
    assert (s.imported, s.rejected, s.by_format["unrecognized"]["files"]) == (1, 3, 3)
    reasons = {Path(r["file"]).name: r["reason"] for r in _rejects(str(tmp_path / "r.jsonl"))}
    assert reasons["notes.txt"].startswith("format not recognized")
    assert reasons["other.jsonl"].startswith("JSON lines of an unknown log")
    assert reasons["2024-01-03.json.gz"].startswith("cannot read")


def test_records_before_a_cut_gz_are_kept(tmp_path: Path) -> None:
    import gzip

    body = gzip.compress(b"".join(COMPLETION.replace(b'"c1"', b'"c%d"' % i) + b"\n" for i in range(200)))
    f = tmp_path / "2024-01-05.json.gz"
    f.write_bytes(body[: len(body) * 2 // 3])
    log = Rejects(tmp_path / "r.jsonl")
    with Store(tmp_path / "s.db") as store:
        imp = Importer(store, log)
        s = imp.import_paths([f])
        assert s.rejected == 1 and s.imported == store.count_captures() > 0
    log.close()
    assert _rejects(str(tmp_path / "r.jsonl"))[0]["reason"].startswith("cannot read")


def test_captures_piped_into_head_ends_quietly(home: Path, tmp_path: Path) -> None:
    """A reader that closes the pipe early (`captures --json | head -1`) is no failure: exit 0,
    nothing on stderr, as `cat` ends. The listing is far larger than a pipe's buffer, so the
    command is still writing when the pipe closes."""
    import os
    import subprocess
    import sys

    from tests.conftest import ROOT

    log = tmp_path / "2024-11-21.json"
    log.write_bytes(b"".join(COMPLETION.replace(b'"c1"', f'"c{n}"'.encode()) + b"\n" for n in range(3000)))
    db = str(tmp_path / "s.db")
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    subprocess.run([sys.executable, "-m", "replay", "import", str(log), "--db", db], check=True, env=env, capture_output=True)
    proc = subprocess.Popen([sys.executable, "-m", "replay", "captures", "--db", db, "--json"], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert proc.stdout is not None and proc.stderr is not None
    assert json.loads(proc.stdout.readline())["completion_id"] == "c0"
    proc.stdout.close()
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=60) == 0, err
    assert err == ""
