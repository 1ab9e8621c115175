"""Every Tabby rule, with golden cases transcribed from TabbyML/tabby's own unit tests.

Goldens: crates/tabby/src/services/completion/completion_prompt.rs (test_prompt_template,
test_no_prompt_template, test_build_prefix_readable, it_extract_snippets_from_segments),
crates/tabby-inference/src/lib.rs (test_clip_prompt), crates/http-api-bindings/src/completion/
mod.rs (test_split_fim_prompt_no_fim), crates/tabby-inference/src/decoding.rs (test_trie_works).
"""

from __future__ import annotations

import pytest

from replay.editors.tabby import profile as tabby
from replay.editors.tabby import server
from replay.editors.tabby.client import build_request, split_lines
from replay.editors.tabby.releases import agent_state
from replay.editors.tabby.errors import TabbyInputError
from replay.editors.rulebook import UnknownRelease
from replay.editors.tabby.profile import guess_family, logged_prompt
from replay.editors.tabby.server import (
    TabbyRules,
    build_prefix,
    build_server_prompt,
    clip_prompt,
    split_fim_prompt,
    stop_words,
)
from replay.editors.templates import get_family
from replay.records import EditorInput, Segments, Snippet

NEWEST = TabbyRules.for_version()
CODELLAMA = get_family("codellama")


# --- completion_prompt.rs test_prompt_template / test_no_prompt_template ---------------------

@pytest.mark.parametrize(("prefix", "suffix", "with_template", "without_template"), [
    ("this is some prefix", "this is some suffix", "<PRE> this is some prefix <SUF>this is some suffix <MID>", "this is some prefix"),
    ("this is some prefix", None, "<PRE> this is some prefix <SUF>\n <MID>", "this is some prefix"),
    ("this is some prefix", "", "<PRE> this is some prefix <SUF>\n <MID>", "this is some prefix"),
    ("", "this is some suffix", "<PRE>  <SUF>this is some suffix <MID>", ""),
    ("", None, "<PRE>  <SUF>\n <MID>", ""),
    ("", "", "<PRE>  <SUF>\n <MID>", ""),
])
def test_prompt_template_goldens(prefix: str, suffix: str | None, with_template: str, without_template: str) -> None:
    segments = {"prefix": prefix, "suffix": suffix}
    assert build_server_prompt(segments, "python", CODELLAMA, NEWEST).logged_prompt == with_template
    assert build_server_prompt(segments, "python", get_family("none"), NEWEST).logged_prompt == without_template


def test_build_prefix_readable_golden() -> None:
    snippets = [("a1.py", "res_1 = invoke_function_1(n)"), ("a2.py", "res_2 = invoke_function_2(n)"),
                ("a3.py", "res_3 = invoke_function_3(n)")]
    prefix = "'''\nUse some invoke_function to do some job.\n'''\ndef this_is_prefix():\n"
    expected = ("# Path: a1.py\n# res_1 = invoke_function_1(n)\n#\n# Path: a2.py\n# res_2 = invoke_function_2(n)\n#\n"
                "# Path: a3.py\n# res_3 = invoke_function_3(n)\n" + prefix)
    assert build_prefix("python", prefix, snippets, NEWEST) == expected


def test_extract_snippets_from_segments_golden() -> None:
    segments = {
        "prefix": "def fib(n):\n    ", "suffix": "\n        return fib(n - 1) + fib(n - 2)",
        "declarations": [{"filepath": "file:///path/to/file.py", "body": "def fib(n):\n    return n if n <= 1 else fib(n - 1) + fib(n - 2)"}],
        "relevant_snippets_from_changed_files": [{"filepath": "a1.py", "body": "res_1 = invoke_function_1(n)", "score": 1.0}],
        "relevant_snippets_from_recently_opened_files": [{"filepath": "b1.py", "body": "res_1 = invoke_function_1(n)", "score": 1.0}],
    }
    assert len(server._select_snippets(segments, NEWEST)) == 3
    assert server._select_snippets({"prefix": "x"}, NEWEST) == []
    # Before 0.19.0 the server had no opened-file snippets.
    assert len(server._select_snippets(segments, TabbyRules.for_version("0.18.0"))) == 2


# --- lib.rs test_clip_prompt ------------------------------------------------------------------

@pytest.mark.parametrize(("prompt", "n", "expected"), [
    ("hello", 5, "hello"), ("hello", 3, "llo"),
    ("1é2", 1, "2"), ("1é2", 2, "2"), ("1é2", 3, "é2"), ("1é2", 4, "1é2"),
    ("1世2", 1, "2"), ("1世2", 2, "2"), ("1世2", 3, "2"), ("1世2", 4, "世2"), ("1世2", 5, "1世2"),
    ("1😀2", 1, "2"), ("1😀2", 2, "2"), ("1😀2", 3, "2"), ("1😀2", 4, "2"), ("1😀2", 5, "😀2"), ("1😀2", 6, "1😀2"),
])
def test_clip_prompt_golden(prompt: str, n: int, expected: str) -> None:
    assert clip_prompt(prompt, n, "bytes") == expected


def test_clip_modes_by_release() -> None:
    assert TabbyRules.for_version("0.24.0").clip == "none"
    assert TabbyRules.for_version("0.25.0").clip == "bytes"
    assert TabbyRules.for_version("tabby@0.25.0-dev.20250210").clip == "chars"
    assert clip_prompt("1世2", 2, "chars") == "世2"
    assert clip_prompt("abc", 2, "none") == "abc"
    assert clip_prompt("abc", 0, "bytes") == "abc"


def test_byte_clipping_cuts_the_leading_sentinel() -> None:
    long_prefix = "x" * 2000
    out = build_server_prompt({"prefix": long_prefix, "suffix": "}"}, "solidity", get_family("starcoder"), NEWEST)
    assert out.logged_prompt.startswith("<fim_prefix>")
    assert len(out.engine_prompt.encode()) == 1536
    assert not out.engine_prompt.startswith("<fim_prefix>")
    assert out.engine_prompt.endswith("<fim_suffix>}<fim_middle>")
    old = build_server_prompt({"prefix": long_prefix, "suffix": "}"}, "solidity", get_family("starcoder"), TabbyRules.for_version("0.24"))
    assert old.engine_prompt == old.logged_prompt


# --- http-api-bindings split_fim_prompt --------------------------------------------------------

@pytest.mark.parametrize(("prompt", "expected"), [
    ("prefix<|FIM|>suffix", ("prefix", "suffix")), ("prefix<|FIM|>", ("prefix", "")),
    ("<|FIM|>suffix", ("", "suffix")), ("<|FIM|>", ("", "")), ("prefix", ("prefix", None)),
])
def test_split_fim_prompt_golden(prompt: str, expected: tuple[str, str | None]) -> None:
    assert split_fim_prompt(prompt) == expected


# --- CRLF, snippets, budget, comments -------------------------------------------------------------

def test_crlf_becomes_lf_since_0_20_only_when_prefix_or_suffix_has_crlf() -> None:
    qwen = get_family("qwen2.5-coder")
    crlf = {"prefix": "a\r\nb", "suffix": "c\r\n", "declarations": [{"filepath": "d.sol", "body": "x\r\ny"}]}
    new = build_server_prompt(crlf, "solidity", qwen, NEWEST).logged_prompt
    assert "\r" not in new
    old = build_server_prompt(crlf, "solidity", qwen, TabbyRules.for_version("0.19.0")).logged_prompt
    assert "a\r\nb" in old
    # CRLF only inside a snippet body: Rust's str::lines drops the \r, the prompt has none anyway.
    only_snippet = {"prefix": "a\nb", "suffix": "c", "declarations": [{"filepath": "d.sol", "body": "x\r\ny\rz"}]}
    assert build_server_prompt(only_snippet, "solidity", qwen, NEWEST).logged_prompt == \
        "<|fim_prefix|>// Path: d.sol\n// x\n// y\rz\na\nb<|fim_suffix|>c<|fim_middle|>"


def test_snippet_budget_is_768_bytes_and_stops_at_first_misfit_per_group() -> None:
    big, small = "é" * 300, "s" * 100  # 600 bytes, 100 bytes
    segments = {"prefix": "p", "declarations": [{"filepath": "a", "body": big}, {"filepath": "b", "body": big},
                                                 {"filepath": "c", "body": small}],
                "relevant_snippets_from_changed_files": [{"filepath": "d", "body": small}, {"filepath": "e", "body": "t" * 60}]}
    chosen = [path for path, _ in server._select_snippets(segments, NEWEST)]
    # b does not fit, so c is never looked at; the next group starts over: d fits (700), e does not (760 <= 768 fits)
    assert chosen == ["a", "d", "e"]


def test_snippets_need_a_line_comment_and_unknown_language_uses_empty_comment() -> None:
    snippets = [("a.css", "x {}\n\ny")]
    assert build_prefix("css", "P", snippets, NEWEST) == "P"  # css has no line_comment
    assert build_prefix("no-such-lang", "P", snippets, NEWEST) == " Path: a.css\n x {}\n\n y\nP"
    assert build_prefix("solidity", "P", snippets, NEWEST) == "// Path: a.css\n// x {}\n//\n// y\nP"


def test_stop_words_per_language() -> None:
    sol = stop_words("solidity", NEWEST)
    assert sol[:2] == ("\n\n", "\n\n  ")
    assert "\n//" in sol and "\ncontract" in sol and "\nfunction" in sol and "\nlibrary" in sol
    assert "<｜fim▁begin｜>" not in sol  # not in languages.rs DEFAULT
    assert stop_words("unknown", NEWEST)[-1] == "\n"
    assert "\n" not in stop_words("css", NEWEST)
    rust = stop_words("rust", NEWEST)
    assert rust.count("\ntrait") == 1
    # decoding.rs test_trie_works: "\nvoid" and qwen's <|file_sep|> are model/language words, not defaults
    assert "<|file_sep|>" not in sol


def test_language_entries_by_release() -> None:
    assert "\n--" in stop_words("lua", TabbyRules.for_version("0.14.0"))
    assert "\n--" not in stop_words("lua", TabbyRules.for_version("0.13.0"))
    assert stop_words("gdscript", TabbyRules.for_version("0.24.0"))[-1] == "\n"  # unknown before 0.25
    assert "\nfunc" in stop_words("gdscript", TabbyRules.for_version("0.25.0"))
    assert "\n//" in stop_words("scala", NEWEST) and "\n//" not in stop_words("scala", TabbyRules.for_version("0.28.0"))


def test_unknown_or_too_old_version() -> None:
    with pytest.raises(UnknownRelease):
        TabbyRules.for_version("0.0.0")  # before the first release, 0.0.1
    with pytest.raises(UnknownRelease):
        TabbyRules.for_version("latest-ish")


V150 = agent_state("1.5.0")


# --- client stage: tabby-agent ----------------------------------------------------------------------

@pytest.mark.parametrize(("text", "expected"), [
    ("", []), ("a", ["a"]), ("a\n", ["a\n", ""]), ("a\r\nb", ["a\r\n", "b"]), ("\n\n", ["\n", "\n", ""]),
    ("a\rb\u2028c\nd", ["c\n", "d"]),  # JS `.` stops at \r and \u2028: that text is dropped
])
def test_split_lines_as_javascript(text: str, expected: list[str]) -> None:
    assert split_lines(text) == expected


def test_twenty_prefix_and_suffix_lines() -> None:
    text = "".join(f"l{i}\n" for i in range(50))
    cursor = text.index("l30")
    body = build_request(EditorInput(prefix=text[:cursor], suffix=text[cursor:], language="solidity"), state=V150)
    assert body is not None
    assert body["segments"]["prefix"] == "".join(f"l{i}\n" for i in range(11, 30))  # 19 lines + "" at column 0
    assert body["segments"]["suffix"] == "".join(f"l{i}\n" for i in range(30, 50))
    assert list(body) == ["language", "segments"]


def test_auto_closing_option() -> None:
    on = {"completion.prompt.experimentalStripAutoClosingCharacters": True}
    body = build_request(EditorInput(prefix="f(", suffix=")]} \r\nnext\r\n", language="solidity", options=on), state=V150)
    assert body and body["segments"]["suffix"] == "\nnext\r\n"
    kept = build_request(EditorInput(prefix="f(", suffix=");\nnext\n", language="solidity", options=on), state=V150)
    assert kept and kept["segments"]["suffix"] == ");\nnext\n"  # ';' is not auto-closing
    off = build_request(EditorInput(prefix="f(", suffix=")\nnext\n", language="solidity"), state=V150)
    assert off and off["segments"]["suffix"] == ")\nnext\n"


def test_blank_prefix_sends_nothing_and_renders_empty() -> None:
    assert build_request(EditorInput(prefix=" \n\t\ufeff", suffix="x"), state=V150) is None
    # render() runs the newest agent, which sends even a blank prefix (codeCompletion/index.ts, 309edd172)
    rendered = tabby.render(EditorInput(prefix="\n", suffix="x", language="solidity"), "TabbyML/StarCoder2-3B")
    assert rendered.request == {"language": "solidity", "segments": {"prefix": "\n", "suffix": "x"}}


def test_workspace_relative_filepath_and_snippets() -> None:
    inp = EditorInput(prefix="a", suffix="b", filepath="file:///ws/src/A.sol", workspace="file:///ws", language="solidity",
                      snippets=(Snippet("file:///ws/lib/L.sol", "library L {}", "declaration"), Snippet("/other/X.sol", "x", "changed"),
                                Snippet("", "copied text", "clipboard")))
    body = build_request(inp, state=V150)
    assert body is not None
    assert body["segments"]["filepath"] == "src/A.sol"
    assert body["segments"]["declarations"] == [{"filepath": "lib/L.sol", "body": "library L {}"}]
    assert body["segments"]["relevant_snippets_from_changed_files"] == [{"filepath": "/other/X.sol", "body": "x", "score": 1}]
    assert body["segments"]["clipboard"] == "copied text"


def test_bad_options_are_errors() -> None:
    with pytest.raises(TabbyInputError):
        build_request(EditorInput(prefix="a", suffix="", options={"completion.prompt.maxPrefixLine": 3}), state=V150)
    with pytest.raises(TabbyInputError):
        build_request(EditorInput(prefix="a", suffix="", options={"completion.prompt.maxPrefixLines": "3"}), state=V150)


# --- render, logged prompt, verify helpers -----------------------------------------------------------

def test_render_raw_and_fim_routes() -> None:
    inp = EditorInput(prefix="contract A {\n  ", suffix="\n}\n", language="solidity",
                      options={"completion.max_decoding_tokens": 32})
    raw = tabby.render(inp, "TabbyML/Qwen2.5-Coder-1.5B", "0.25")
    assert raw.profile == "tabby@agent=1.9.0-dev@2025-02-20,server=0.25.0" and raw.route == "raw" and raw.max_new_tokens == 32
    assert raw.text == "<|fim_prefix|>contract A {\n  <|fim_suffix|>\n}\n<|fim_middle|>" == raw.logged_prompt
    fim = tabby.render(inp, "openai/completion")
    assert fim.route == "fim" and fim.prefix_sent == "contract A {\n  " and fim.suffix_sent == "\n}\n"


def test_logged_prompt_from_capture_segments() -> None:
    segments = Segments(prefix="a\r\nb", suffix=None, snippets=(Snippet("d.py", "x = 1", "declaration"),))
    expected = "<fim_prefix># Path: d.py\n# x = 1\na\nb<fim_suffix>\n<fim_middle>"
    assert logged_prompt(segments, "python", model="TabbyML/StarCoder-1B") == expected
    assert logged_prompt(segments, "python", reference=expected) == expected
    assert guess_family("<|fim_prefix|>x<fim_prefix>").name == "qwen2.5-coder"
    assert guess_family("a<|FIM|>b").name == "tabby-http"
    assert guess_family("plain").name == "none"
