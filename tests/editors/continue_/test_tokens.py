"""Continue's token counting (continuedev/continue core/llm/countTokens.ts, autodetect.ts,
getAdjustedTokenCount.ts) against the real tokenizers and Continue's own test cases."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from replay.editors.continue_ import tokens as ct
from replay.assets import asset_path
from replay.paths import cache_dir

VOCAB = cache_dir() / "vocab"


@pytest.mark.parametrize(
    ("model", "tokenizer"),
    [
        ("gpt-4", "cl100k_base"), ("gpt-4o-mini", "cl100k_base"), ("claude-3-5-sonnet", "cl100k_base"),
        ("codestral-latest", "cl100k_base"), ("mercury-coder", "cl100k_base"), ("gemini-2.0-flash", "cl100k_base"),
        ("o3-mini", "cl100k_base"), ("grok-code", "cl100k_base"), ("kimi-k2", "cl100k_base"), ("glm-4.6", "cl100k_base"),
        ("nova-pro", "cl100k_base"),
        ("qwen2.5-coder:1.5b", "llama"), ("starcoder2:3b", "llama"), ("deepseek-coder:6.7b", "llama"),
        ("llama3.1:8b", "llama"), ("mistral-7b", "llama"), ("codellama-70b", "llama"), ("granite-4.0", "llama"),
        # a name that is both: the earlier rule wins, as in autodetectTemplateType
        ("llama-claude", "llama"), ("claude-llama", "llama"), ("gpt-llama", "cl100k_base"),
        ("pro1", "llama"),  # /^o\d/ only at the start
    ],
)
def test_counting_tokenizer_follows_autodetect(model: str, tokenizer: str) -> None:
    assert ct.counting_tokenizer(model) == tokenizer


def test_autodetect_order_details() -> None:
    assert ct.autodetect_template_type("codellama-70b-instruct") == "codellama-70b"
    assert ct.autodetect_template_type("CodeStral") == "none"
    assert ct.autodetect_template_type("mixtral-8x7b") == "llama2"
    assert ct.autodetect_template_type("some-model") == "chatml"
    assert ct.autodetect_template_type("codegemma") == "gemma"


def test_llama_counts_bos_and_leading_space() -> None:
    # llama-tokenizer-js encode(text) defaults: add_bos_token=true, add_preceding_space=true.
    assert ct.encode("hello world", "llama2") == [1, 22172, 3186]
    assert ct.encode(" hello", "llama2") == [1, 29871, 22172]
    assert ct.encode("", "llama2") == []  # `if (prompt.length === 0) return []`
    assert ct.encode("<s>", "llama2")[1:] == [529, 29879, 29958]  # never parsed as special
    assert ct.count_tokens("\n", "qwen2.5-coder") == 3  # BOS, "▁", <0x0A>


def test_llama_spm_reference_pairs() -> None:
    """The llama-spm vocabulary's own reference pairs (HF tokenizer ids, with the leading space,
    without BOS): all 47 must match."""
    inp = (VOCAB / "ggml-vocab-llama-spm.gguf.inp").read_text(encoding="utf-8").split("\n__ggml_vocab_test__\n")
    out = (VOCAB / "ggml-vocab-llama-spm.gguf.out").read_text(encoding="utf-8").split("\n")
    cases = [(text, [int(x) for x in ids.split()]) for text, ids in zip(inp, out, strict=False)]
    assert len(cases) >= 40
    good = sum(ct.encode(text, "llama2")[1:] == ids for text, ids in cases if text)
    assert good == sum(1 for text, _ in cases if text)


def test_cl100k_ranks_from_js_tiktoken() -> None:
    """The ranks come from the js-tiktoken asset and are OpenAI's file (checked on load)."""
    assert ct.encode("hello world", "gpt-4") == [15339, 1917]
    # encode(text, "all", []): special-token text is one special token
    assert ct.encode("a<|endoftext|>", "gpt-4") == [64, 100257]
    assert ct.cl100k().n_vocab == 100277


def test_altered_ranks_are_refused() -> None:
    source = (asset_path("js-tiktoken") / ct.JS_TIKTOKEN_RANKS).read_text(encoding="utf-8")
    ct.cl100k_from_js(source)  # the real file passes
    with pytest.raises(ct.BadRanks, match="sha256"):
        ct.cl100k_from_js(source.replace(" IQ== ", " Ig== ", 1))


@pytest.mark.parametrize(("model", "mult"), [("claude-3-haiku", 1.23), ("gemini-pro", 1.18), ("codestral", 1.26),
                                              ("devstral", 1.26), ("mixtral", 1.26), ("mistral-large", 1.26),
                                              ("gpt-4", 1.0), ("qwen2.5-coder", 1.0), ("claude-gemini", 1.23)])
def test_multipliers(model: str, mult: float) -> None:
    assert ct.token_multiplier(model) == mult
    assert ct.token_multiplier(model, multipliers=False) == 1.0


def test_count_rounds_up_after_the_multiplier() -> None:
    base = len(ct.encode("hello world", "claude-3"))  # cl100k, 2 tokens
    assert base == 2
    assert ct.count_tokens("hello world", "claude-3") == 3  # ceil(2 * 1.23)
    assert ct.count_tokens("hello world", "claude-3", multipliers=False) == 2


# Transcribed from continuedev/continue core/llm/countTokens.test.ts (pruneLinesFromTop/Bottom).
@pytest.mark.parametrize(
    ("prompt", "max_tokens", "top", "bottom"),
    [
        ("Line 1\nLine 2", 10, "Line 1\nLine 2", "Line 1\nLine 2"),
        ("Line 1\nLine 2\nLine 3\nLine 4", 0, "", ""),
        ("", 5, "", ""),
        ("This is a single long line that will exceed the token limit", 5, "", ""),
        ("L1\nL2\nL3\nL4", 5, "L3\nL4", "L1\nL2"),
    ],
)
def test_prune_lines_golden(prompt: str, max_tokens: int, top: str, bottom: str) -> None:
    assert ct.prune_lines_from_top(prompt, max_tokens, "gpt-4") == top
    assert ct.prune_lines_from_bottom(prompt, max_tokens, "gpt-4") == bottom


def test_prune_lines_fewer_lines() -> None:
    prompt = "Line 1\nLine 2\nLine 3\nLine 4"
    assert len(ct.prune_lines_from_top(prompt, 5, "gpt-4").split("\n")) < 4
    assert len(ct.prune_lines_from_bottom(prompt, 5, "gpt-4").split("\n")) < 4


def test_per_line_pruning_counts_each_newline_once() -> None:
    # llama counts: each line carries its own BOS + "▁"; "x" = [1, 921] -> 2 tokens, 3 lines +
    # 2 newlines = 8. The whole-text count (before 2025-04-23) is [1, 921, 13, 29916, 13, 29916]
    # = 6: a budget of 6 keeps everything in the old era and drops a line in the new one.
    text = "x\nx\nx"
    assert ct.count_tokens("x", "llama2") == 2
    assert ct.prune_lines_from_top(text, 6, "llama2") == "x\nx"
    assert ct.prune_lines_from_top(text, 6, "llama2", per_line=False) == text
    assert ct.prune_lines_from_bottom(text, 5, "llama2") == "x\nx"
    assert ct.prune_lines_from_bottom(text, 5, "llama2", per_line=False) == "x\nx"


def test_buffer_safety() -> None:
    assert ct.token_counting_buffer_safety(1000) == 20
    assert ct.token_counting_buffer_safety(200_000) == 1000


SAMPLES = [
    "", " ", "\t", "\n", "\r\n", "hello world", "  leading", "trailing  ", "ünïcode 🙂 日本語", "<s>x</s>",
    "a<|endoftext|>b", "function f(a, b) {\n  return a + b;\n}\n", "    def __init__(self):\n        pass",
    "pragma solidity ^0.8.20;\n\ncontract A { uint256 public x = 42; }", "a\u00a0b\u200bc", "'s 'll 're",
    "1234567 89", "\n\n\n    \n\t\t", "x" * 300,
]


@pytest.mark.skipif(shutil.which("node") is None, reason="node is needed to run Continue's JavaScript tokenizers")
def test_same_ids_as_continues_javascript_tokenizers(tmp_path: Path) -> None:
    """Run the npm packages Continue bundles (llama-tokenizer-js, whose copy is
    core/llm/llamaTokenizer.js, and js-tiktoken) under node and compare ids on every sample and
    on each line of this repository's Python sources."""
    lines = list(SAMPLES)
    for path in sorted(Path(__file__).resolve().parents[3].joinpath("replay").rglob("*.py"))[:8]:
        text = path.read_text(encoding="utf-8")
        lines += text.split("\n")[:150] + [text[:4000]]
    modules = tmp_path / "node_modules"
    modules.mkdir()
    for name in ("llama-tokenizer-js", "js-tiktoken", "base64-js"):  # npm assets, as npm would lay them out
        (modules / name).symlink_to(asset_path(name) / "package", target_is_directory=True)
    script = tmp_path / "ids.mjs"
    script.write_text(
        'import llama from "llama-tokenizer-js";\n'
        'import { Tiktoken } from "js-tiktoken/lite";\n'
        'import cl100k from "js-tiktoken/ranks/cl100k_base";\n'
        'import * as fs from "fs";\n'
        "const enc = new Tiktoken(cl100k);\n"
        'const strs = JSON.parse(fs.readFileSync(0, "utf8"));\n'
        "const cut = (ids) => ids.slice(0, Math.max(1, Math.floor(ids.length / 2)));\n"
        'process.stdout.write(JSON.stringify(strs.map((s) => { const l = llama.encode(s) ?? [], t = enc.encode(s, "all", []);'
        ' return [l, t, llama.decode(cut(l)), enc.decode(cut(t))]; })));\n'
    )
    done = subprocess.run(["node", "--preserve-symlinks", str(script)], input=json.dumps(lines), capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-2000:]
    results = json.loads(done.stdout)
    assert len(results) == len(lines) > 300
    for text, (llama_ids, cl_ids, llama_half, cl_half) in zip(lines, results, strict=True):
        assert ct.encode(text, "llama2") == llama_ids, text
        assert ct.encode(text, "gpt-4") == cl_ids, text
        # pruneStringFromBottom decodes a cut id list: the same text as Continue's decoders
        assert ct.decode(llama_ids[: max(1, len(llama_ids) // 2)], "llama2") == llama_half, text
        assert ct.decode(cl_ids[: max(1, len(cl_ids) // 2)], "gpt-4") == cl_half, text
