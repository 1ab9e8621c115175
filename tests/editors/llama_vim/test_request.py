"""llama.vim's request rules (ggml-org/llama.vim autoload/llama.vim `llama#fim`, `s:fim_ctx_local`),
each at the commit it holds from (replay/editors/llama_vim/releases.py)."""

from __future__ import annotations

import pytest

from replay.editors.llama_vim.body import client_body
from replay.editors.llama_vim.releases import UnknownRelease, resolve, rules_at
from replay.editors.llama_vim.request import RESPONSE_FIELDS, Buffer, NoRequest, local_context, vim_time
from replay.editors.llama_vim.settings import BadSetting
from replay.records import EditorInput, ExtraChunk

HEAD = rules_at(None)


def body(prefix: str, suffix: str, version: str | None = None, **kw: object) -> dict:
    return client_body(EditorInput(prefix=prefix, suffix=suffix, **kw), rules_at(version))  # type: ignore[arg-type]


def test_versions_are_days_or_shas() -> None:
    assert rules_at("2025-03-09").sha == "3fb05d3"  # the last commit on or before the day
    assert rules_at("2025-03-10").sha == "7ed2617"  # a day with several commits: its last
    assert rules_at("1175c8d").sha == "1175c8d" and rules_at("1175c8d0").sha == "1175c8d"
    assert resolve(None) == resolve("a1c8e6e")
    with pytest.raises(UnknownRelease):
        rules_at("2024-10-01")
    with pytest.raises(UnknownRelease):
        rules_at("v0.0.40")


def test_head_body_has_every_field_the_plugin_sends() -> None:
    b = body("def f():\n    ret", "\n")
    assert b == {"id_slot": 0, "input_prefix": "def f():\n", "input_suffix": "\n\n", "input_extra": [],
                 "prompt": "    ret", "n_predict": 128, "stop": [], "n_indent": 4, "top_k": 40, "top_p": 0.90,
                 "samplers": ["top_k", "top_p", "infill"], "stream": False, "cache_prompt": True,
                 "t_max_prompt_ms": 500, "t_max_predict_ms": 250, "response_fields": list(RESPONSE_FIELDS),
                 "model": ""}


def test_first_commit_body() -> None:
    b = body("a\n  b", "c\n", "292b5a4")
    assert b == {"input_prefix": "a\n", "input_suffix": "c\n\n", "input_extra": [], "prompt": "  b", "n_predict": 128,
                 "n_indent": 2, "top_k": 40, "top_p": 0.99, "samplers": ["top_k", "top_p", "infill"], "stream": False,
                 "cache_prompt": True, "t_max_prompt_ms": 500, "t_max_predict_ms": 3000}


@pytest.mark.parametrize(("version", "fields"), [
    ("9f5cadd", {"response_fields"}),  # 2025-01-15 (#24)
    ("ddb92f0", {"response_fields", "stop"}),  # 2025-05-07 (#65)
    ("c31cd09", {"response_fields", "stop", "model"}),  # 2025-08-31 (#81)
    ("8e7d1d0", {"response_fields", "stop", "model", "id_slot"}),  # 2025-12-27 (#93)
])
def test_fields_added_by_commit(version: str, fields: set[str]) -> None:
    base = set(body("x", "", "292b5a4"))
    assert set(body("x", "", version)) - base == fields


def test_model_is_always_sent_and_read_from_its_setting_of_the_time() -> None:
    assert body("x", "", "c31cd09", options={"model": "m"})["model"] == "m"
    assert body("x", "", "c0deb6e", options={"model_fim": "m"})["model"] == "m"
    assert body("x", "", "c0deb6e", options={"model": "old"})["model"] == "old"  # s:renames
    assert body("x", "", "c0deb6e")["model"] == ""


def test_t_max_predict_ms_by_commit() -> None:
    assert body("x", "", "f4d2ba2")["t_max_predict_ms"] == 2000
    assert body("x", "", "a4b3ef2")["t_max_predict_ms"] == 500
    assert body("x", "", "2d5a1fe")["t_max_predict_ms"] == 1500
    assert body("x", "", "1175c8d")["t_max_predict_ms"] == 250  # the first request; the follow-up: 1000
    assert body("x", "", "3fb05d3", options={"t_max_predict_ms": 700})["t_max_predict_ms"] == 700
    assert body("x", "", None, options={"t_max_predict_ms": 700})["t_max_predict_ms"] == 250


def test_first_line_prefix_is_a_lone_newline_and_last_line_suffix_ends_twice() -> None:
    b = body("ab", "c\nd\n")
    assert b["input_prefix"] == "\n" and b["input_suffix"] == "c\nd\n"
    b = body("a\nb", "c\n")
    assert b["input_prefix"] == "a\n" and b["input_suffix"] == "c\n\n"


def test_n_prefix_and_n_suffix_count_lines() -> None:
    b = body("1\n2\n3\n4\nx", "y\n5\n6\n7\n", options={"n_prefix": 2, "n_suffix": 1})
    assert b["input_prefix"] == "3\n4\n" and b["input_suffix"] == "y\n5\n"


def test_whitespace_only_line_by_commit() -> None:
    # since 2d5a1fe: prompt "", no rest of line, n_indent 0
    b = body("a\n    ", "  \n")
    assert (b["prompt"], b["input_suffix"], b["n_indent"]) == ("", "\n\n", 0)
    b = body("a\n    ", "  \n", "3fb05d3")
    assert (b["prompt"], b["input_suffix"], b["n_indent"]) == ("    ", "  \n\n", 4)


def test_n_indent_of_the_line_since_1175c8d() -> None:
    assert body("a\n  ", "  x\n")["n_indent"] == 4
    assert body("a\n  ", "  x\n", "057225f")["n_indent"] == 2


def test_auto_trigger_skipped_over_max_line_suffix_bytes() -> None:
    body("a", "12345678\n")  # 8 bytes: sent
    with pytest.raises(NoRequest, match="max_line_suffix"):
        body("a", "1234567é\n")  # 9 bytes
    assert body("a", "123456789\n", trigger="manual")["input_suffix"] == "123456789\n\n"
    assert body("a", "123456789\n", options={"max_line_suffix": 9})["prompt"] == "a"


def test_prompt_and_rest_of_line_cut_on_bytes() -> None:
    b = body("é", "ü\n")
    assert (b["prompt"], b["input_suffix"]) == ("é", "ü\n\n")


def test_extra_chunks_time_is_vims_reltime() -> None:
    assert vim_time(1795649905.446848) == [1795649905, 446848]
    assert vim_time(0.0) == [0, 0]
    b = body("x", "", extra=(ExtraChunk(text="a\nb\nc\n", time=12.5, filename="b.py"),))
    assert b["input_extra"] == [{"text": "a\nb\nc\n", "time": [12, 500000], "filename": "b.py"}]


def test_settings_are_checked() -> None:
    with pytest.raises(BadSetting, match="n_prefixx"):
        body("x", "", options={"n_prefixx": 1})
    with pytest.raises(BadSetting, match="n_predict"):
        body("x", "", options={"n_predict": "10"})
    body("x", "", options={"server.n_ctx": 512, "keymap_fim_trigger": "<C-F>", "replay.seed": 3})


def test_buffer_keeps_an_empty_last_line_only_under_the_cursor() -> None:
    assert Buffer.of("a\n", "b\n").lines == ("a", "b")
    assert Buffer.of("a\n", "").lines == ("a", "")
    ctx = local_context(Buffer.of("a\n", ""), HEAD, 256, 64)
    assert (ctx.prefix, ctx.middle, ctx.suffix) == ("a\n", "", "\n\n")


def test_follow_up_builds_on_the_whole_line_as_if_accepted() -> None:
    # one line: appended to the whole cursor line, rest of line included (the shown line ends with it)
    b = body("x = f(", ")\nz\n", options={"replay.follow_up_of": "a"})
    assert (b["input_prefix"], b["prompt"], b["input_suffix"]) == ("\n", "x = f()a)", "\nz\n")
    assert b["t_max_predict_ms"] == 1000 and b["n_indent"] == 0
    # several lines: the cursor line and the middle lines join the prefix, the last is the prompt
    b = body("  p(", "\n", options={"replay.follow_up_of": "1,\n  2,\n  3)"})
    assert (b["input_prefix"], b["prompt"], b["n_indent"]) == ("  p(1,\n  2,\n", "  3)", 2)
    with pytest.raises(BadSetting, match="no follow-up"):
        body("x", "", "057225f", options={"replay.follow_up_of": "a"})


def test_extra_as_the_plugin_sends_it_reads_back_the_same() -> None:
    from replay.editors.inputs import parse_object

    chunk = {"text": "a\nb\nc\n", "time": [1795649905, 446848], "filename": "b.py"}
    inp = parse_object({"document": "x\n", "cursor": 1, "extra": [chunk]})
    assert client_body(inp, HEAD)["input_extra"] == [chunk]
