"""llama-server's /infill assembly, budgets and refusal, on the demo model's real vocabulary
(its expected answers are what llama-server itself answered; tests/data/golden/llama-server
holds many more)."""

from __future__ import annotations

import pytest

from replay.assets import DEMO_MODEL, asset_path
from replay.editors.llama_server import InfillRefused, render_body, server_settings, split_version
from replay.editors.llama_server.releases import server_rules
from replay.editors.inputs import BadInputLine


@pytest.fixture(scope="module")
def gguf() -> str:
    return str(asset_path(DEMO_MODEL.name))


SMALL = {"server.n_ctx": 512, "server.n_batch": 128}


def test_repo_level_pattern_with_fim_rep_and_fim_sep(gguf: str) -> None:
    body = {"input_prefix": "def f(x):\n    return ", "prompt": "", "input_suffix": "\n\nprint(f(2))\n", "n_predict": 4,
            "input_extra": [{"text": "x = 1\n", "filename": "a.py"}]}
    r = render_body(body, gguf, SMALL)
    assert r.text == ("<|repo_name|>myproject\n<|file_sep|>a.py\nx = 1\n<|file_sep|>filename\n"
                      "<|fim_prefix|>def f(x):\n    return <|fim_suffix|>\n\nprint(f(2))\n<|fim_middle|>")
    assert len(r.token_ids) == 32  # tokens_evaluated of the real server
    assert r.max_new_tokens == 4 and r.request == body


def test_extra_context_keeps_its_tail(gguf: str) -> None:
    body = {"input_prefix": "def f(x):\n", "input_suffix": "", "input_extra": [{"text": "x = 1\n" * 400, "filename": "a.py"}]}
    r = render_body(body, gguf, SMALL)
    assert len(r.token_ids) == 393  # 512 - 128 + 2 extra tokens (server n_predict -1) + the FIM part
    assert not r.text.startswith("<|repo_name|>") and r.text.endswith("<|file_sep|>filename\n<|fim_prefix|>def f(x):\n<|fim_suffix|><|fim_middle|>")


def test_a_prompt_over_the_context_is_refused_with_the_servers_words(gguf: str) -> None:
    body = {"input_prefix": "def f(x):\n", "prompt": "x = 1\n" * 400, "input_suffix": ""}
    with pytest.raises(InfillRefused, match=r"request \(2014 tokens\) exceeds the available context size \(512 tokens\)") as err:
        render_body(body, gguf, SMALL)
    assert err.value.kind == "exceed_context_size_error" and isinstance(err.value, BadInputLine)


def test_a_body_without_input_prefix_is_refused(gguf: str) -> None:
    with pytest.raises(InfillRefused, match="key 'input_prefix' not found"):
        render_body({"input_suffix": ""}, gguf, SMALL)


def test_a_prompt_that_is_not_a_string_is_read_as_empty(gguf: str) -> None:
    body = {"input_prefix": "a", "input_suffix": "b"}
    assert render_body({**body, "prompt": 3}, gguf, SMALL).text == render_body(body, gguf, SMALL).text


def test_a_vocabulary_without_fim_tokens_is_not_supported() -> None:
    with pytest.raises(InfillRefused, match="Infill is not supported by this model: prefix token is missing") as err:
        render_body({"input_prefix": "a", "input_suffix": "b"}, str(asset_path("vocab-gpt-2")), {"server.n_ctx": 512})
    assert (err.value.kind, err.value.status) == ("not_supported_error", 501)


def test_server_options_and_presets() -> None:
    assert server_settings({"server.n_ctx": 8192, "n_prefix": 3}).n_ctx == 8192
    preset = server_settings({"server.preset": "fim-qwen-1.5b-default", "server.n_ctx": 2048})
    assert (preset.n_batch, preset.n_ctx) == (1024, 2048)
    with pytest.raises(BadInputLine, match="unknown server option server.nctx"):
        server_settings({"server.nctx": 1})


def test_split_version() -> None:
    assert split_version("v0.0.40,server=b5000") == ("v0.0.40", "b5000")
    assert split_version("server=b5000") == (None, "b5000")
    assert split_version(None) == (None, None)
    with pytest.raises(BadInputLine):
        split_version("v0.0.40,v0.0.41")


def test_server_versions_by_day_or_known_build() -> None:
    assert server_rules(None).since == server_rules("b11549").since == server_rules("2026-11-01").since
    assert server_rules("2025-08-20").refusal_type == "invalid_request_error"
    assert server_rules("b6301").refusal_type == "invalid_request_error"  # pinned by 2025-08-28, before #15780
    assert server_rules("b6451").refusal_type == "exceed_context_size_error"
    assert not server_rules("2025-06-01").refuses
    for bad in ("b5000", "latest", "2024-01-01", "2025-02-30"):
        with pytest.raises(BadInputLine):
            server_rules(bad)


def test_before_context_shift_was_off_an_oversized_prompt_is_truncated(gguf: str) -> None:
    body = {"input_prefix": "def f(x):\n", "prompt": "x = 1\n" * 400, "input_suffix": ""}
    whole = len(render_body(body, gguf, {"server.n_ctx": 4096}).token_ids)
    cut = render_body(body, gguf, SMALL, server_version="2025-06-01").token_ids
    block = 512 // 2
    assert len(cut) == whole - (whole - block) // block * block < 512


def test_without_fim_sep_each_chunk_follows_a_snippet_separator() -> None:
    starcoder = str(asset_path("vocab-starcoder"))  # StarCoder2: FIM tokens, no <|file_sep|> for llama.cpp
    body = {"input_prefix": "a = 1\n", "input_suffix": "\n", "input_extra": [{"text": "x = 1\n"}, {"text": "y = 2\n"}]}
    r = render_body(body, starcoder, {"server.n_ctx": 512, "server.n_batch": 128})
    assert r.text == ("\n\n--- snippet ---\n\nx = 1\n\n\n--- snippet ---\n\ny = 2\n"
                      "<fim_prefix>a = 1\n<fim_suffix>\n<fim_middle>")


def test_spm_infill_puts_the_suffix_first(gguf: str) -> None:
    r = render_body({"input_prefix": "a", "input_suffix": "b", "prompt": "c"}, gguf, {**SMALL, "server.spm_infill": True})
    assert r.text == "<|repo_name|>myproject\n<|file_sep|>filename\n<|fim_suffix|>b<|fim_prefix|>ac<|fim_middle|>"


def test_between_two_fixes_the_prompt_had_its_own_bos() -> None:
    body = {"input_prefix": "a", "input_suffix": "b", "prompt": "c"}
    opts = {"server.n_ctx": 512, "server.n_batch": 128}
    now = render_body(body, "codellama", opts).token_ids  # CodeLlama adds BOS; no FIM_REP/FIM_SEP
    then = render_body(body, "codellama", opts, "2024-12-20").token_ids
    assert now[0] == 1 and now[1] == 32007 and now[-1] == 32009  # <s> ▁<PRE> ... ▁<MID>
    bos_at = then.index(1, 1)
    assert list(then[:bos_at]) + list(then[bos_at + 1:]) == list(now) and then[bos_at - 1] != 32008
    starcoder = str(asset_path("vocab-starcoder"))  # adds no BOS: nothing changes
    assert render_body(body, starcoder, opts, "2024-12-20").token_ids == render_body(body, starcoder, opts).token_ids


def test_the_answer_budget_is_the_bodys_within_the_servers_and_the_slots(gguf: str) -> None:
    body = {"input_prefix": "a", "input_suffix": "b"}
    assert render_body({**body, "n_predict": 128}, gguf, SMALL).max_new_tokens == 128
    assert render_body({**body, "n_predict": 128}, gguf, {**SMALL, "server.n_predict": 64}).max_new_tokens == 64
    assert render_body(body, gguf, {**SMALL, "server.n_predict": 64}).max_new_tokens == 64
    whole = render_body(body, gguf, SMALL)
    assert whole.max_new_tokens == 512 - len(whole.token_ids)


def test_more_completions_than_slots_are_refused(gguf: str) -> None:
    body = {"input_prefix": "a", "input_suffix": "b", "n_cmpl": 3}  # llama.vscode asks for 3
    with pytest.raises(InfillRefused, match=r"Field 'n_cmpl': Value must be between 1 <= value <= 1, but got 3"):
        render_body(body, gguf, SMALL)
    four = {**SMALL, "server.n_parallel": 4, "server.kv_unified": True}
    assert render_body(body, gguf, four).token_ids == render_body({**body, "n_cmpl": 1}, gguf, SMALL).token_ids
    assert render_body(body, gguf, SMALL, server_version="2025-09-10").token_ids  # before the request schema



def test_numbers_outside_the_request_schemas_limits_are_refused(gguf: str) -> None:
    body = {"input_prefix": "a", "input_suffix": "b"}
    with pytest.raises(InfillRefused, match=r"Field 'max_tokens': Value must be between -1 <= value <= 2147483647, but got -5"):
        render_body({**body, "max_tokens": -5}, gguf, SMALL)
    with pytest.raises(InfillRefused, match=r"Field 'n_indent': Value must be between 0 <= value"):
        render_body({**body, "n_indent": -1}, gguf, SMALL)
    assert render_body({**body, "n_predict": -1, "t_max_predict_ms": -1, "n_keep": -1}, gguf, SMALL).token_ids
