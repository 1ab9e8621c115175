"""The store's paging for the captures table: keyset pages equal offset pages, filters, sorts."""

from __future__ import annotations

import sqlite3

import msgspec
import pytest

from replay.store import Store
from tests.support.tui_data import capture, make_store


@pytest.fixture()
def store(tmp_path):
    with make_store(tmp_path / "s.db", 500) as s:
        yield s


@pytest.mark.parametrize("sort", ["id", "time", "editor", "model", "file", "outcome"])
@pytest.mark.parametrize("descending", [False, True])
def test_keyset_pages_equal_offset_pages(store: Store, sort: str, descending: bool) -> None:
    whole = [r.id for r in store.capture_rows(sort=sort, descending=descending, limit=1000)]
    assert len(whole) == 500 and len(set(whole)) == 500
    paged: list[int] = []
    after = None
    while True:
        page = store.capture_rows(sort=sort, descending=descending, after=after, limit=37)
        if not page:
            break
        paged.extend(r.id for r in page)
        after = (page[-1].sort_key, page[-1].id)
    assert paged == whole
    assert [r.id for r in store.capture_rows(sort=sort, descending=descending, offset=120, limit=10)] == whole[120:130]


def test_sort_orders_by_the_column_then_id(store: Store) -> None:
    rows = store.capture_rows(sort="model", limit=1000)
    assert [(r.model, r.id) for r in rows] == sorted((r.model, r.id) for r in rows)
    rows = store.capture_rows(sort="time", descending=True, limit=3)
    assert [r.id for r in rows] == [500, 499, 498]


def test_filter_terms_all_match_case_insensitively(store: Store) -> None:
    rows = store.capture_rows("QWEN c7.sol", limit=1000)
    assert rows and all("qwen" in r.model and r.filepath == "contracts/C7.sol" for r in rows)
    assert store.count_capture_rows("QWEN c7.sol") == len(rows)
    assert store.count_capture_rows("") == 500


def test_filter_wildcards_are_literal(store: Store) -> None:
    assert store.count_capture_rows("%") == 0
    assert store.count_capture_rows("_") == 0
    store.add_captures([msgspec.structs.replace(capture(9999), filepath="a_b%c.sol")])
    assert store.count_capture_rows("a_b%") == 1


def test_data_version_sees_other_connections_only(store: Store, tmp_path) -> None:
    before = store.data_version()
    store.add_captures([capture(1000)])
    assert store.data_version() == before
    with Store(tmp_path / "s.db") as other:
        other.add_captures([capture(1001)])
    assert store.data_version() != before


def test_capture_stats_join_into_rows(store: Store) -> None:
    store.set_capture_stats([(3, "qwen", 42, 2)])
    row = store.capture_rows(limit=3)[2]
    assert (row.id, row.prompt_tokens, row.gotchas) == (3, 42, 2)
    assert store.capture_rows(limit=1)[0].prompt_tokens is None


def test_tui_migration_indexes_are_used(store: Store) -> None:
    plan = store.query("EXPLAIN QUERY PLAN SELECT c.id FROM captures c WHERE COALESCE(c.model, '') >= ? "
                       "ORDER BY COALESCE(c.model, ''), c.id LIMIT 10", ("q",))
    assert "captures_sort_model" in " ".join(str(tuple(r)) for r in plan)
    con = sqlite3.connect(store.path)
    assert con.execute("SELECT COUNT(*) FROM capture_stats").fetchone()[0] == 0
