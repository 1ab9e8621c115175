"""The item and audit views through their keys, with the real tokenizers of the asset cache:
prompt tokens with the cursor, the completion diff, the three token diffs, audit jumps."""

from __future__ import annotations

import pytest
from textual.widgets import DataTable, Static

from replay.tokens.audit import Auditor, subject_from_capture
from replay.tokens.tokenizer import load_tokenizer
from tests.support.tui_data import add_runs, make_store, settle
from tui.app import create_app
from tui.screens.item import ItemScreen, cursor_offset
from tui.widgets.capture_table import CaptureTable

pytestmark = pytest.mark.anyio


@pytest.fixture()
def store(tmp_path):
    with make_store(tmp_path / "s.db", 230) as s:
        add_runs(s)
        yield s


def text_of(screen, selector: str) -> str:
    return str(screen.query_one(selector, Static).render())


async def test_item_view_shows_tokens_cursor_and_completion_diff(store) -> None:
    app = create_app(store=store)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("end", "enter")  # newest first: the last row is capture 1 (continue, qwen2.5-coder)
        await settle(pilot)
        item = app.screen
        assert isinstance(item, ItemScreen) and item.capture_id == 1
        capture = store.capture(1)
        tok = load_tokenizer("qwen2.5-coder")
        assert item.tokens is not None and item.tokens.ids == tok.encode(capture.logged_prompt)
        assert "".join(item.tokens.pieces) == capture.logged_prompt
        assert item.tokens.special[0] and item.tokens.pieces[0] == "<|fim_prefix|>"
        assert f"Prompt: {len(item.tokens.ids)} tokens (qwen2.5-coder)" in text_of(item, "#item-prompt-title")
        prompt = text_of(item, "#item-prompt")
        assert "uint·x·=·▮<|fim_suffix|>" in prompt and "{↵" in prompt
        # The cursor is where the logged prefix ends in the prompt.
        assert capture.logged_prompt[: cursor_offset(capture)].endswith(capture.segments.prefix)
        diff = text_of(item, "#item-diff")
        assert "run run-cap (qwen2.5-coder-0.5b), shown by tabby, vs editor's completion · Indel 0.800" in diff
        # Raw vs shown: the rule that cut the raw text, with its source, on the lines it removed.
        assert "Raw → shown: tabby · 24 → 5 characters" in text_of(item, "#item-stage-title")
        stage = text_of(item, "#item-stage")
        assert "1. trimMultiLineInSingleLineMode  TabbyML/tabby clients/tabby-agent/src/postprocess/" in stage
        assert "emit·Sum(0);" in stage and "⟵ trimMultiLineInSingleLineMode" in stage
        await pilot.press("y")
        assert app.clipboard == capture.logged_prompt
        await pilot.press("Y")
        assert app.clipboard == "--- run-cap\n+++ editor\n0 + 2\n0 + 1"


async def test_token_diff_modes_switch_with_one_key(store) -> None:
    app = create_app(store=store, compare_tokenizer="starcoder2")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("end", "up", "enter")  # capture 2: tabby, starcoder2
        await settle(pilot)
        item = app.screen
        titles = []
        for _ in range(3):
            await pilot.press("t")
            await settle(pilot)
            titles.append(text_of(item, "#item-token-diff-title"))
            body = text_of(item, "#item-token-diff")
            assert " tokens) vs " in body
        assert titles == [f"Token diff: {m} (t: next)" for m in ("logged vs rebuilt", "editor vs standard", "tokenizer A vs B")]
        assert body.startswith("starcoder2 (") and "identical" in body  # same tokenizer on both sides
        assert item.diff_text.startswith("diff starcoder2")


async def test_audit_lists_findings_and_jumps_to_the_token(store) -> None:
    app = create_app(store=store)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("end", "up", "up", "a")  # capture 3: deepseek-coder with qwen sentinels
        await settle(pilot)
        table = app.screen.query_one(DataTable)
        expected = Auditor(load_tokenizer("deepseek-coder")).audit(subject_from_capture(store.capture(3)))
        assert table.row_count == len(expected) > 0
        assert [str(c) for c in table.get_row_at(0)][2] == f"{expected[0].severity}: {expected[0].kind}"
        assert f"{len(expected)} findings" in text_of(app.screen, "#audit-status")
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, ItemScreen)
        assert app.screen.capture_id == 3 and app.screen.marked_token == expected[0].token


async def test_table_counts_prompt_tokens_and_gotchas(store) -> None:
    app = create_app(store=store)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        table = app.screen.query_one(CaptureTable)
        row = table.row(2)  # newest first: capture 228, a deepseek-coder one
        capture = store.capture(row.id)
        assert capture.model == "deepseek-coder-1.3b"
        tok = load_tokenizer("deepseek-coder")
        findings = Auditor(tok).audit(subject_from_capture(capture))
        assert (row.prompt_tokens, row.gotchas) == (len(tok.encode(capture.logged_prompt)), len(findings))
        assert store.query("SELECT tokenizer FROM capture_stats WHERE capture_id = ?", (row.id,))[0][0] == "deepseek-coder"


async def test_whole_set_audit_from_the_palette(store) -> None:
    app = create_app(store=store)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("ctrl+p", *"Audit all")
        await pilot.pause(0.3)
        await pilot.press("enter")
        await settle(pilot)
        table = app.screen.query_one(DataTable)
        captures = {int(str(table.get_row_at(i)[0])) for i in range(table.row_count)}
        assert captures == set(range(1, 231))  # more than one batch of 200
        assert f"{table.row_count} findings" == str(app.screen.query_one("#audit-status", Static).render())
