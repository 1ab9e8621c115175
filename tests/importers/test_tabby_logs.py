"""Tabby event logs: every schema era, outcomes joined across files and in either order, .gz."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from replay.importers.common import BadRecord, Ignored
from replay.rejects import Rejects
from replay.importers.importer import Importer
from replay.importers.tabby import parse_line
from replay.records import CaptureRecord, OutcomeEvent, Source
from replay.store import Store
from tests.conftest import CAPTURES

SRC = Source(file="t.json", line=1)
TABBY = CAPTURES / "tabby" / "events"


def _line(obj: dict) -> bytes:
    return json.dumps(obj, separators=(",", ":"), ensure_ascii=False).encode()


def _completion(**extra: object) -> dict:
    body = {"completion_id": "cmpl-1", "language": "python", "prompt": "<|fim_prefix|>x = <|fim_suffix|>\n<|fim_middle|>",
            "choices": [{"index": 0, "text": "1"}]}
    body.update(extra)
    return body


def test_first_era_selected_and_no_segments() -> None:
    rec = parse_line(_line({"ts": 1685525400123, "event": {"completion": _completion()}}), SRC)
    assert isinstance(rec, CaptureRecord)
    assert rec.segments is None and rec.completion == "1" and rec.ts == pytest.approx(1685525400.123)
    assert rec.extra["schema_since"] == "2023-05-30" and rec.user is None and rec.user_agent is None
    ev = parse_line(_line({"ts": 1, "event": {"selected": {"completion_id": "cmpl-1", "choice_index": 0}}}), SRC)
    assert isinstance(ev, OutcomeEvent) and ev.kind == "select" and ev.select_kind is None


def test_nested_user_and_line_select() -> None:
    rec = parse_line(_line({"ts": 1, "event": {"completion": _completion(user="dev@example.org")}}), SRC)
    assert rec.user == "dev@example.org" and rec.extra["schema_since"] == "2023-06-14"
    ev = parse_line(_line({"ts": 1, "event": {"select": {"completion_id": "c", "choice_index": 0, "kind": "line"}}}), SRC)
    assert ev.select_kind == "line"


def test_segments_clipboard_declarations_filepath_user_agent() -> None:
    seg = {"prefix": "a\r\n", "suffix": "b\r\n", "clipboard": "clip", "git_url": "https://g/x.git",
           "declarations": [{"filepath": "d.sol", "body": "library L {}"}], "filepath": "src/a.sol"}
    rec = parse_line(_line({"user": "u", "ts": 1, "event": {"completion": _completion(segments=seg, user_agent=None)}}), SRC)
    assert rec.segments.prefix == "a\r\n" and rec.segments.suffix == "b\r\n"  # segments keep CRLF
    assert rec.segments.clipboard == "clip" and rec.segments.git_url == "https://g/x.git"
    assert rec.segments.snippets[0].kind == "declaration" and rec.segments.snippets[0].content == "library L {}"
    assert rec.filepath == "src/a.sol" and rec.user == "u"
    assert rec.extra["schema_since"] == "2024-08-05"  # user_agent present (null) proves the era


@pytest.mark.parametrize("seg,since", [
    ({"prefix": "p", "suffix": "s"}, "2023-10-12"),
    ({"prefix": "p", "clipboard": "c"}, "2023-11-26"),
    ({"prefix": "p", "declarations": []}, "2024-04-08"),
    ({"prefix": "p", "filepath": "f.py"}, "2024-05-20"),
])
def test_era_of_segments(seg: dict, since: str) -> None:
    assert parse_line(_line({"ts": 1, "event": {"completion": _completion(segments=seg)}}), SRC).extra["schema_since"] == since


def test_top_level_user_era() -> None:
    rec = parse_line(_line({"user": None, "ts": 1, "event": {"completion": _completion()}}), SRC)
    assert rec.extra["schema_since"] == "2024-04-23" and rec.user is None


def test_dismiss_view_id_elapsed() -> None:
    ev = parse_line(_line({"ts": 5, "event": {"dismiss": {"completion_id": "c", "choice_index": 0, "view_id": "v", "elapsed": 90}}}), SRC)
    assert (ev.kind, ev.view_id, ev.elapsed, ev.ts) == ("dismiss", "v", 90, 0.005)


def test_chat_completion_old_and_empty_are_ignored() -> None:
    old = {"chat_completion": {"completion_id": "c", "input": [{"role": "user", "content": "hi"}], "output": {"role": "assistant", "content": "yo"}}}
    assert parse_line(_line({"ts": 1, "event": old}), SRC) == Ignored("chat_completion")
    assert parse_line(_line({"user": None, "ts": 1, "event": {"chat_completion": {}}}), SRC) == Ignored("chat_completion")


def test_unknown_kind_is_ignored_and_no_kind_rejected() -> None:
    assert isinstance(parse_line(_line({"ts": 1, "event": {"next_edit": {}}}), SRC), Ignored)
    with pytest.raises(BadRecord, match="no kind"):
        parse_line(_line({"ts": 1, "event": {}}), SRC)


def test_wrong_types_are_rejected_with_the_field() -> None:
    with pytest.raises(BadRecord, match=r"wrong field type.*\$\.event\.completion\.prompt"):
        parse_line(_line({"ts": 1, "event": {"completion": _completion(prompt=3)}}), SRC)


def _import(store: Store, tmp: Path, *paths: Path):
    imp = Importer(store, Rejects(tmp / "rejects.jsonl"))
    return imp.import_paths(paths)


def _outcomes(store: Store) -> dict[str, str]:
    return {rec.completion_id: outcome for _, rec, outcome in store.captures()}


EXPECTED = {
    "cmpl-4b7e2c1a-0d53-4f0e-9a51-6c1f0e2b9d01": "accepted",       # 2023 "selected"
    "cmpl-0f1e2d3c-4b5a-4697-8a8b-9c0d1e2f3a4b": "accepted_line",  # select.kind line
    "cmpl-8d9c0b1a-2e3f-4a5b-8c6d-7e8f9a0b1c2d": "viewed",         # view only
    "cmpl-1a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d": "unknown",        # no event
    "cmpl-2c3d4e5f-6a7b-4c8d-9e0f-1a2b3c4d5e6f": "dismissed",
    "cmpl-3d4e5f6a-7b8c-4d9e-8f0a-1b2c3d4e5f6a": "accepted",
    "cmpl-5f6a7b8c-9d0e-4f1a-8b2c-3d4e5f6a7b8c": "accepted",       # select in the next day's file
    "cmpl-6a7b8c9d-0e1f-4a2b-9c3d-4e5f6a7b8c9d": "dismissed",      # dismiss in the next day's file
    "cmpl-7b8c9d0e-1f2a-4b3c-8d4e-5f6a7b8c9d0e": "accepted_line",  # .gz
}


def test_sample_folder_outcomes_and_counts(tmp_path: Path) -> None:
    with Store(tmp_path / "s.db") as store:
        s = _import(store, tmp_path, TABBY)
        assert (s.imported, s.outcomes, s.ignored, s.rejected, s.duplicates) == (9, 14, 2, 0, 0)
        assert s.by_format["tabby"]["files"] == 8
        assert _outcomes(store) == EXPECTED
        again = _import(store, tmp_path, TABBY)
        assert (again.imported, again.outcomes, again.duplicates) == (0, 0, 23)
        assert store.count_captures() == 9


def test_events_before_their_completion(tmp_path: Path) -> None:
    """The next day's events imported first: the outcome is set when the completion arrives."""
    with Store(tmp_path / "s.db") as store:
        _import(store, tmp_path, TABBY / "2024-10-01.json")
        assert store.count_captures() == 0
        _import(store, tmp_path, TABBY / "2024-09-30.json")
        got = _outcomes(store)
        assert got["cmpl-5f6a7b8c-9d0e-4f1a-8b2c-3d4e5f6a7b8c"] == "accepted"
        assert got["cmpl-6a7b8c9d-0e1f-4a2b-9c3d-4e5f6a7b8c9d"] == "dismissed"


def test_accept_beats_dismiss_and_line_only_when_all_line(tmp_path: Path) -> None:
    lines = [
        {"ts": 1, "event": {"completion": _completion(completion_id="a")}},
        {"ts": 2, "event": {"dismiss": {"completion_id": "a", "choice_index": 0}}},
        {"ts": 3, "event": {"select": {"completion_id": "a", "choice_index": 0, "kind": "line"}}},
        {"ts": 4, "event": {"select": {"completion_id": "a", "choice_index": 0}}},
        {"ts": 5, "event": {"completion": _completion(completion_id="b")}},
        {"ts": 6, "event": {"select": {"completion_id": "b", "choice_index": 0, "kind": "line"}}},
        {"ts": 7, "event": {"select": {"completion_id": "b", "choice_index": 0, "kind": "line"}}},
    ]
    f = tmp_path / "2024-02-01.json"
    f.write_bytes(b"".join(_line(x) + b"\n" for x in lines))
    with Store(tmp_path / "s.db") as store:
        s = _import(store, tmp_path, f)
        assert _outcomes(store) == {"a": "accepted", "b": "accepted_line"}
        assert s.outcomes == 5


def test_same_event_in_a_copied_file_counts_once(tmp_path: Path) -> None:
    src = (TABBY / "2024-10-01.json").read_bytes()
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "2024-10-01.json").write_bytes(b"\n" + src)  # shifted by one line
    with Store(tmp_path / "s.db") as store:
        first = _import(store, tmp_path, TABBY / "2024-10-01.json")
        second = _import(store, tmp_path, tmp_path / "a")
        assert (first.outcomes, second.outcomes, second.duplicates) == (2, 0, 2)


def test_gz_and_logged_prompt_kept_exactly(tmp_path: Path) -> None:
    with gzip.open(TABBY / "2025-04-02.json.gz", "rb") as f:
        first = json.loads(f.readline())
    with Store(tmp_path / "s.db") as store:
        _import(store, tmp_path, TABBY / "2025-04-02.json.gz")
        rec = next(r for _, r, _ in store.captures())
    c = first["event"]["completion"]
    assert rec.logged_prompt == c["prompt"] and rec.completion == c["choices"][0]["text"]
    assert rec.user == "bob@example.org" and rec.user_agent == "Node.js/v20.18.0 tabby-agent/1.9.0-dev IntelliJ-IDEA/2024.3"
    assert json.loads(rec.raw) == first


def _first_completion(path: Path) -> dict:
    opener = gzip.open if path.name.endswith(".gz") else open
    with opener(path, "rb") as f:
        return json.loads(f.readline())["event"]["completion"]


def test_crlf_in_samples_follows_the_server_of_their_date() -> None:
    """completion.rs override_prompt (0e75cb296, 2024-10-28) logs CRLF sources with LF; before
    it the prompt kept the CRLF. Segments keep it always."""
    before = _first_completion(TABBY / "2024-09-30.json")
    assert "\r\n" in before["segments"]["prefix"] and "\r\n" in before["prompt"]
    after = _first_completion(TABBY / "2025-04-02.json.gz")
    assert "\r\n" in after["segments"]["prefix"] and "\r" not in after["prompt"]
    assert "\r\n" in after["choices"][0]["text"]  # override_generated_text
    # Tabby's 768-byte snippet budget: the second declaration does not fit and is left out
    assert "Path: src/libraries/FullMath.sol" in before["prompt"] and "TickMath" not in before["prompt"]


def test_a_line_serde_json_would_not_read_is_rejected_alone(tmp_path: Path) -> None:
    """Tabby's writer (serde_json from Rust strings) writes neither a byte that is not UTF-8 nor
    a lone surrogate escape, and serde_json reads neither: such a line is damage, rejected by
    file:line with its bytes kept escaped, wherever the bytes are (in a key msgspec skips unread
    too), and the file's other records are imported. So is an integer the store cannot keep."""
    good = [_line({"ts": 1732200000000 + n, "event": {"completion": _completion(completion_id=f"c{n}")}}) for n in range(3)]
    damaged = [
        b'{"ts":1732200000000,"event":{"vie\xc3(w":{"completion_id":"c0","choice_index":0}}}',  # an unknown kind, not UTF-8
        b'{"ts":1,"event":{"completion":{"completion_id":"c9","language":"python","prompt":"x\\ud83d","choices":[]}}}',
        b'{"ts":1,"event":{"view":{"completion_id":"c1","choice_index":0,"elapsed":18446744073709551616}}}',
    ]
    log = tmp_path / "2024-11-21.json"
    log.write_bytes(b"\n".join([good[0], *damaged, *good[1:]]) + b"\n")
    with Store(tmp_path / "s.db") as store, Rejects(tmp_path / "r.jsonl") as rejects:
        summary = Importer(store, rejects).import_file(log)
        ids = sorted(r.completion_id for _, r, _ in store.captures())
    assert ids == ["c0", "c1", "c2"] and summary.rejected == 3
    rows = [json.loads(x) for x in (tmp_path / "r.jsonl").read_text(encoding="utf-8").splitlines()]
    assert [r["line"] for r in rows] == [2, 3, 4]
    assert rows[0]["reason"] == "invalid UTF-8: byte 0xc3 at byte 34" and "\\xc3(" in rows[0]["raw"]
    assert rows[1]["reason"].startswith("lone UTF-16 surrogate escape at byte ") and "\\ud83d" in rows[1]["raw"]
    assert "elapsed" in rows[2]["reason"]
