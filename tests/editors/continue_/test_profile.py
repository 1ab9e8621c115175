"""The Continue profile (replay/editors/continue_/): one test per rule of continuedev/continue
core/autocomplete/templating/* , util/HelperVars.ts, util/parameters.ts, llm/llms/*.ts."""

from __future__ import annotations

import dataclasses
import datetime as dt
import hashlib

import msgspec
import pytest

from replay.editors import js
from replay.editors.continue_ import logs, releases, snippets, templates
from replay.editors.continue_ import profile as prompt
from replay.editors.continue_ import tokens as ct
from replay.editors.continue_.uri import InvalidUri
from replay.editors.rulebook import UnknownRelease
from replay.records import CaptureRecord, EditorInput, Segments, Snippet, Source


def inp(prefix: str = "def f(a):\n    return ", suffix: str = "\n\nprint(f(1))\n", **kw) -> EditorInput:
    kw.setdefault("filepath", "src/app/main.py")
    kw.setdefault("workspace", "/home/me/proj")
    return EditorInput(prefix=prefix, suffix=suffix, **kw)


@pytest.mark.parametrize(
    ("model", "template"),
    [
        ("qwen2.5-coder:1.5b", "qwenMultifileFimTemplate"),
        ("Qwen2.5-Coder-7B-Instruct", "qwenMultifileFimTemplate"),
        ("qwen3-coder-30b", "qwenMultifileFimTemplate"),
        ("qwen2:7b", "stableCodeFimTemplate"),  # "qwen" without "coder"
        ("codeqwen:7b", "stableCodeFimTemplate"),  # "code", not "coder"
        ("mercury-coder-small", "mercuryMultifileFimTemplate"),
        ("mercury-qwen-coder", "mercuryMultifileFimTemplate"),  # mercury is checked first
        ("granite-4.0-h-tiny", "granite4FimTemplate"),
        ("granite-34b-code-base", "granite4FimTemplate"),  # any "4" after "granite" matches
        ("granite-3.1-8b", "holeFillerTemplate"),
        ("granite3-dense:8b", "holeFillerTemplate"),
        ("granite-code:8b", "stableCodeFimTemplate"),
        ("seed-coder-8b-base", "seedCoderFimTemplate"),
        ("seed-oss", "stableCodeFimTemplate"),
        ("starcoder2:3b", "stableCodeFimTemplate"),
        ("stable-code-3b", "stableCodeFimTemplate"),
        ("octocoder", "stableCodeFimTemplate"),
        ("gpt-starcoder", "stableCodeFimTemplate"),  # starcoder before gpt
        ("codestral-latest", "codestralMultifileFimTemplate"),
        ("codegemma:2b", "codegemmaFimTemplate"),
        ("codellama:7b-code", "codeLlamaFimTemplate"),
        ("deepseek-coder:1.3b-base", "deepseekFimTemplate"),
        ("deepseek-qwen-coder", "qwenMultifileFimTemplate"),  # qwen+coder before deepseek
        ("codegeex4:9b", "codegeexFimTemplate"),
        ("gpt-4o", "holeFillerTemplate"),
        ("davinci-002", "holeFillerTemplate"),
        ("claude-3-5-sonnet", "holeFillerTemplate"),
        ("llama3.1:8b", "stableCodeFimTemplate"),  # the default
    ],
)
def test_template_order(model: str, template: str) -> None:
    assert templates.template_for_model(model).name == template


@pytest.mark.parametrize(
    ("model", "day", "template"),
    [
        ("qwen2.5-coder:1.5b", "2024-09-20", "stableCodeFimTemplate"),
        ("qwen2.5-coder:1.5b", "2024-09-21", "qwenCoderFimTemplate"),
        ("qwen2.5-coder:1.5b", "2026-03-24", "qwenCoderFimTemplate"),
        ("qwen2.5-coder:1.5b", "2026-03-25", "qwenMultifileFimTemplate"),
        ("granite-3.1-8b", "2024-11-20", "stableCodeFimTemplate"),
        ("granite-4.0-h-tiny", "2025-10-29", "stableCodeFimTemplate"),
        ("seed-coder-8b", "2025-05-10", "stableCodeFimTemplate"),
        ("mercury-coder", "2025-04-25", "stableCodeFimTemplate"),
        ("mercury-coder", "2025-04-26", "mercuryMultifileFimTemplate"),
    ],
)
def test_template_eras(model: str, day: str, template: str) -> None:
    assert templates.template_for_model(model, releases.era_for(day)).name == template


def test_option_eras() -> None:
    def defaults(day: str | None) -> tuple[int, float, float]:
        era = releases.era_for(day)
        return era.max_prompt_tokens, era.prefix_percentage, era.max_suffix_percentage

    assert defaults("2024-04-12") == (500, 0.85, 0.25)
    assert defaults("2024-05-23") == (500, 0.85, 0.25)
    assert defaults("2024-05-24") == (1024, 0.85, 0.25)
    assert defaults("2024-11-28") == (1024, 0.85, 0.25)
    assert defaults("2024-11-29") == (1024, 0.3, 0.2)
    assert defaults(None) == (1024, 0.3, 0.2)
    assert prompt.render(inp(), "starcoder2", "2024-05-26").profile == "continue@2024-05-24"
    assert prompt.render(inp(), "starcoder2").profile == f"continue@{releases.ERAS[-1].since}"
    with pytest.raises(UnknownRelease):
        releases.era_for("2024-01-01")
    with pytest.raises(UnknownRelease, match="unknown Continue version"):
        releases.era_for("9.9.9")


def test_release_table() -> None:
    """Releases carry the rules read from the source at their tag, not from their date."""
    era = releases.era_for("0.9.262")
    assert era.label == "0.9.262-vscode" and era.since.isoformat() == "2025-02-09"
    assert prompt.render(inp(), "starcoder2", "v0.9.262-vscode").profile == "continue@0.9.262-vscode"
    assert (era.max_prompt_tokens, era.prefix_percentage, era.qwen_coder, era.fim_log) == (1024, 0.3, "plain", "Prefix/Suffix")
    assert releases.era_for("0.8.40").qwen_coder == "stable" and releases.era_for("0.8.40").prefix_percentage == 0.85
    # 1.0.10 was cut from a release branch after 2025-04-23 without the per-line pruning change.
    assert releases.era_for("1.0.10").since > dt.date(2025, 4, 23) and not releases.era_for("1.0.10").per_line_pruning
    assert releases.era_for("2025-05-17").per_line_pruning
    assert releases.era_for("1.0.15-jetbrains").mercury
    # The newest release has exactly the rules of the newest source.
    newest = releases.era_for("2.1.0")
    fields = [f.name for f in dataclasses.fields(releases.Era) if f.name not in ("since", "label")]
    assert {f: getattr(newest, f) for f in fields} == {f: getattr(releases.ERAS[-1], f) for f in fields}


def _kept_lines(line_tokens: int, budget: float) -> int:
    """Lines of `line_tokens` each that fit a budget when every joining newline costs 1."""
    n = 0
    while (n + 1) * line_tokens + n <= budget:
        n += 1
    return n


@pytest.mark.parametrize("model", ["gpt-4", "starcoder2:3b", "claude-3-haiku"])
def test_prefix_and_suffix_budgets(model: str) -> None:
    line = "    total = total + compute(value, 42)"
    k = ct.count_tokens(line, model)
    prefix = "\n".join([line] * 400)
    suffix = "\n".join([line] * 400)
    r = prompt.render(inp(prefix=prefix, suffix=suffix, filepath="a.py", workspace=None), model)
    kept_prefix = _kept_lines(k, 1024 * 0.3)
    assert r.prefix_sent.endswith("\n" + "\n".join([line] * kept_prefix))
    assert r.prefix_sent.count(line) == kept_prefix
    prefix_tokens = kept_prefix * k + kept_prefix - 1
    assert r.suffix_sent.count(line) == _kept_lines(k, min(1024 - prefix_tokens, 0.2 * 1024))


def test_options_override_the_budget() -> None:
    line = "x = compute(1)"
    k = ct.count_tokens(line, "gpt-4")
    r = prompt.render(inp(prefix="\n".join([line] * 200), suffix="", filepath="a.py",
                     options={"maxPromptTokens": 100, "prefixPercentage": 0.5}), "gpt-4")
    assert r.prefix_sent.count(line) == _kept_lines(k, 50)


def test_empty_suffix_becomes_newline_since_2024_12_13() -> None:
    assert prompt.render(inp(suffix=""), "starcoder2").suffix_sent == "\n"
    assert prompt.render(inp(suffix=""), "starcoder2", "2024-12-12").suffix_sent == ""


def test_snippet_header_exact() -> None:
    s = Snippet(filepath="lib/util.py", content="def g():\n    return 1\n")
    r = prompt.render(inp(prefix="x = ", suffix="", snippets=(s,)), "starcoder2:3b")
    assert r.prefix_sent == "# Path: lib/util.py\n# def g():\n#     return 1\n# app/main.py\nx = "
    assert r.text == "<fim_prefix>" + r.prefix_sent + "<fim_suffix>\n<fim_middle>"
    # No snippets: the header is still there, led by an empty line.
    assert prompt.render(inp(prefix="x = ", suffix=""), "starcoder2").prefix_sent == "\n# app/main.py\nx = "
    # Comment marks come from the file's language; unknown extensions are TypeScript.
    assert prompt.render(inp(prefix="x", filepath="a/b/c.hs"), "starcoder2").prefix_sent == "\n-- b/c.hs\nx"
    assert prompt.render(inp(prefix="x", filepath="notes.txt", workspace=None), "starcoder2").prefix_sent == "\n// notes.txt\nx"


def test_snippet_selection() -> None:
    prefix = "import os\nvalue = 1\n"
    big = Snippet(filepath="lib/big.py", content="y = 2\n" * 2000)
    small = Snippet(filepath="lib/small.py", content="def small(): pass")
    inside = Snippet(filepath="lib/in.py", content="value = 1")  # already in the caret window
    blank = Snippet(filepath="lib/blank.py", content="  \n")
    dup = Snippet(filepath="lib/small.py", content="def other(): pass", kind="opened")
    r = prompt.render(inp(prefix=prefix, suffix="", snippets=(big, inside, blank, small)), "starcoder2")
    assert "lib/small.py" in r.prefix_sent and "lib/big.py" not in r.prefix_sent  # skipped, not stopped
    assert "lib/in.py" not in r.prefix_sent and "lib/blank.py" not in r.prefix_sent
    # Recently opened files come first (priority 2); the base snippet of the same file is then dropped.
    r = prompt.render(inp(prefix=prefix, suffix="", snippets=(small, dup)), "starcoder2")
    assert "def other(): pass" in r.prefix_sent and "def small(): pass" not in r.prefix_sent
    assert r.prefix_sent.index("def other") < r.prefix_sent.index("app/main.py")


def test_clipboard_default_changed_2025_09_11() -> None:
    clip = Snippet(filepath="", content="copied_text()", kind="clipboard")
    assert "copied_text" not in prompt.render(inp(snippets=(clip,)), "starcoder2").prefix_sent
    assert "copied_text" not in prompt.render(inp(snippets=(clip,)), "starcoder2", "2025-01-31").prefix_sent
    old = prompt.render(inp(snippets=(clip,)), "starcoder2", "2025-06-01").prefix_sent
    assert "# Path: Untitled.txt\n# copied_text()" in old
    on = prompt.render(inp(snippets=(clip,), options={"experimental_includeClipboard": True}), "starcoder2").prefix_sent
    assert "copied_text" in on


def test_qwen_multifile_exact() -> None:
    s = Snippet(filepath="lib/util.py", content="def g(): pass")
    r = prompt.render(inp(prefix="x = ", suffix="y\n", snippets=(s,)), "qwen2.5-coder:1.5b")
    assert r.text == "<|repo_name|>proj\n<|file_sep|>util.py\ndef g(): pass\n<|file_sep|>main.py\n<|fim_prefix|>x = <|fim_suffix|>y\n<|fim_middle|>"
    # Continue logs the compiled prefix with its internal separator.
    assert r.prefix_sent == "<|repo_name|>proj\n<|file_sep|>util.py\ndef g(): pass\n<|file_sep|>main.py<|system_separator_istruction_repository_level|>x = "
    plain = prompt.render(inp(prefix="x = ", suffix="y\n"), "qwen2.5-coder")
    assert plain.text == "<|fim_prefix|>x = <|fim_suffix|>y\n<|fim_middle|>" and plain.prefix_sent == "x = "
    # Same file names: the shortest unique trailing paths.
    two = prompt.render(inp(prefix="x", snippets=(Snippet(filepath="lib/main.py", content="z"),)), "qwen2.5-coder")
    assert "<|file_sep|>lib/main.py\nz\n<|file_sep|>app/main.py\n<|fim_prefix|>x" in two.text
    # A snippet without a file (a diff) makes Continue throw "Invalid uri".
    with pytest.raises(InvalidUri, match="Invalid uri"):
        prompt.render(inp(snippets=(Snippet(filepath="", content="+x", kind="diff"),)), "qwen2.5-coder")


def test_codestral_multifile_exact() -> None:
    s = Snippet(filepath="lib/util.py", content="def g(): pass")
    r = prompt.render(inp(prefix="x = ", suffix="y\n", snippets=(s,)), "codestral-latest")
    assert r.text == "[SUFFIX]y\n[PREFIX]+++++ util.py \ndef g(): pass\n\n+++++ main.py\nx = "
    assert r.stop[:3] == ("[PREFIX]", "[SUFFIX]", "\n+++++ ")
    blank = prompt.render(inp(prefix="  ", suffix=""), "codestral")
    assert blank.text == "[SUFFIX]\n[PREFIX]+++++ app/main.py\n  "


def test_mercury() -> None:
    s = Snippet(filepath="lib/util.py", content="def g(): pass")
    r = prompt.render(inp(prefix="x = ", suffix="y\n", snippets=(s,)), "mercury-coder")
    assert r.text == "x = <|fim_suffix|>y\n<|fim_middle|>"  # snippets dropped, no <|fim_prefix|>
    blank = prompt.render(inp(prefix="", suffix=""), "mercury-coder")
    assert blank.text == "<|file_sep|>app/main.py\n<|fim_prefix|><|fim_suffix|>\n<|fim_middle|>"
    assert blank.stop == prompt.COMMON_STOPS


def test_codegeex_object_path() -> None:
    r = prompt.render(inp(prefix="x", suffix="y"), "codegeex4")
    assert r.text == "<|user|>\n###PATH:[object Object]\n###LANGUAGE:Python\n###MODE:BLOCK\n<|code_suffix|>y<|code_prefix|>\n# app/main.py\nx<|code_middle|><|assistant|>\n"
    old = prompt.render(inp(prefix="x", suffix="y", snippets=(Snippet(filepath="lib/u.py", content="z"),)), "codegeex4", "2024-12-01")
    assert old.text.startswith("<|user|>\n###REFERENCE:\n###PATH:u.py\nz\n\n###PATH:main.py\n###LANGUAGE:Python\n")


@pytest.mark.parametrize(
    ("model", "text"),
    [
        ("codellama:7b", "<PRE> \n# app/main.py\nx <SUF>y <MID>"),
        ("deepseek-coder", "<｜fim▁begin｜>\n# app/main.py\nx<｜fim▁hole｜>y<｜fim▁end｜>"),
        ("codegemma", "<|fim_prefix|>\n# app/main.py\nx<|fim_suffix|>y<|fim_middle|>"),
        ("granite-4.0", "<|fim_prefix|>\n# app/main.py\nx<|fim_suffix|>y<|fim_middle|>"),
        ("seed-coder-8b", "<[fim-prefix]>\n# app/main.py\nx<[fim-suffix]>y<[fim-middle]>"),
        ("starcoder2", "<fim_prefix>\n# app/main.py\nx<fim_suffix>y<fim_middle>"),
    ],
)
def test_string_templates(model: str, text: str) -> None:
    assert prompt.render(inp(prefix="x", suffix="y"), model).text == text


def test_hole_filler_text() -> None:
    assert hashlib.sha256(templates.HOLE_FILLER_SYSTEM.encode()).hexdigest() == "7d1810e6b11be13c5015b85cdc041835d9a0ce5abaf5082bef5b0fdcb908eea5"
    r = prompt.render(inp(prefix="x", suffix="y"), "gpt-4o")
    assert r.text == templates.HOLE_FILLER_SYSTEM + "\n\n<QUERY>\n\n# app/main.py\nx{{FILL_HERE}}y\n</QUERY>\nTASK: Fill the {{FILL_HERE}} hole. Answer only with the CORRECT completion, and NOTHING ELSE. Do it now.\n<COMPLETION>"
    assert r.stop[0] == "</COMPLETION>" and r.route == "chat"


def test_stop_tokens() -> None:
    assert prompt.render(inp(), "starcoder2:3b").stop[-3:] == ("t.", "\nt", "<file_sep>")
    assert prompt.render(inp(), "starcoder:3b").stop[-3:] == prompt.COMMON_STOPS
    assert prompt.render(inp(), "deepseek-coder").stop == ("<｜fim▁begin｜>", "<｜fim▁hole｜>", "<｜fim▁end｜>", "//", "<｜end▁of▁sentence｜>") + prompt.COMMON_STOPS


def test_template_option_is_handlebars() -> None:
    opts = {"template": "{{prefix}}|{{{prefix}}}|{{ suffix }}|{{filename}}|{{reponame}}|{{language}}|{{nothing}}"}
    r = prompt.render(inp(prefix="a<b", suffix="c&d", snippets=(), options=opts), "starcoder2:3b")
    header = "\n# app/main.py\n"
    assert r.text == f"{header}a&lt;b|{header}a<b|c&amp;d|main.py|proj|Python|"
    assert r.family == "custom" and r.stop == prompt.COMMON_STOPS + prompt.STARCODER2_STOPS


@pytest.mark.parametrize(
    ("provider", "model", "opts", "route"),
    [
        ("mistral", "codestral-latest", {}, "fim"),
        ("deepseek", "deepseek-coder", {}, "fim"),
        ("vertexai", "codestral-2501", {}, "fim"),
        ("vertexai", "gemini-pro", {}, "raw"),
        ("ollama", "qwen2.5-coder:1.5b", {}, "raw"),
        ("ollama", "qwen2.5-coder:1.5b", {"supportsFim": True}, "fim"),
        ("openai", "gpt-4o", {}, "chat"),
        ("vllm", "starcoder2", {}, "raw"),
        (None, "starcoder2", {}, "raw"),
    ],
)
def test_routes(provider: str | None, model: str, opts: dict, route: str) -> None:
    options = dict(opts, **({"provider": provider} if provider else {}))
    assert prompt.render(inp(options=options), model).route == route


def test_max_tokens() -> None:
    assert prompt.render(inp(), "starcoder2").max_new_tokens == 4096
    assert prompt.render(inp(options={"maxTokens": 128}), "starcoder2").max_new_tokens == 128


def test_reprune_to_context_length() -> None:
    line = "value = compute(value, 42)"
    prefix = "\n".join([line] * 300)
    suffix = "\n".join([line] * 300)
    opts = {"contextLength": 300, "maxTokens": 100}
    full = prompt.render(inp(prefix=prefix, suffix=suffix), "starcoder2")
    small = prompt.render(inp(prefix=prefix, suffix=suffix, options=opts), "starcoder2")
    assert ct.count_tokens(full.text, "starcoder2") > 194
    assert small.prefix_sent.count(line) < full.prefix_sent.count(line)
    assert small.suffix_sent.count(line) < full.suffix_sent.count(line)
    assert small.prefix_sent.endswith(line) and small.suffix_sent.startswith(line)
    # Before 2025-07-30 there was no second pruning.
    before = prompt.render(inp(prefix=prefix, suffix=suffix, options=opts), "starcoder2", "2025-07-29")
    assert before.prefix_sent.count(line) == prompt.render(inp(prefix=prefix, suffix=suffix), "starcoder2", "2025-07-29").prefix_sent.count(line)


def _record(r, model: str, day: str = "2026-06-01", **extra) -> CaptureRecord:
    ts = dt.datetime.fromisoformat(day).replace(tzinfo=dt.timezone.utc).timestamp()
    return CaptureRecord(source=Source(file="autocomplete.jsonl", line=1), editor="continue", format="continue-devdata",
                         model=model, filepath="file:///home/me/proj/src/app/main.py", ts=ts,
                         segments=Segments(prefix=r.prefix_sent, suffix=r.suffix_sent), logged_prompt=r.text, extra=extra)


@pytest.mark.parametrize("model", ["qwen2.5-coder:1.5b", "codestral-latest", "starcoder2:3b", "gpt-4o", "mercury-coder",
                                   "codegeex4", "codellama", "deepseek-coder", "granite-4.0", "seed-coder"])
def test_rebuild_logged_prompt_round_trip(model: str) -> None:
    s = Snippet(filepath="lib/util.py", content="def g(): pass")
    r = prompt.render(inp(prefix="x = ", suffix="", snippets=(s,)), model)
    if model == "codegeex4":  # the reference block is built from snippets, which are not logged
        r = prompt.render(inp(prefix="x = ", suffix=""), model)
    assert logs.rebuild_logged_prompt(_record(r, model)) == r.text


def test_rebuild_uses_the_capture_date_and_logged_template() -> None:
    r = prompt.render(inp(prefix="x", suffix="y"), "qwen2.5-coder", "2024-10-01")
    assert logs.rebuild_logged_prompt(_record(r, "qwen2.5-coder", "2024-10-01")) == r.text
    assert logs.rebuild_logged_prompt(_record(r, "qwen2.5-coder", "2024-06-01")) != r.text  # StarCoder sentinels then
    opts = {"template": "<PRE>{{{prefix}}}<SUF>{{{suffix}}}"}
    r = prompt.render(inp(prefix="x", suffix="y", options=opts), "qwen2.5-coder")
    assert logs.rebuild_logged_prompt(_record(r, "qwen2.5-coder", options=opts)) == r.text
    assert logs.rebuild_logged_prompt(CaptureRecord(source=Source(file="f"), editor="continue", format="x")) is None


@pytest.mark.parametrize("template", [templates.STABLE_CODE, templates.QWEN_CODER, templates.QWEN_MULTIFILE, templates.GRANITE4, templates.SEED_CODER, templates.CODESTRAL,
                                      templates.CODEGEMMA, templates.CODELLAMA, templates.DEEPSEEK, templates.CODEGEEX, templates.MERCURY])
def test_templates_agree_with_the_shared_registry(template: templates.Template) -> None:
    """Every Continue template uses exactly the sentinels of its registry family, in its order."""
    from replay.editors.templates import get_family

    fam = get_family(template.family)
    ctx = templates.Ctx(filepath="file:///w/a.py", reponame="w", language="Python", snippets=(), workspaces=(), era=releases.ERAS[-1])
    text, _, _ = prompt._build(template, "PREFIX", "SUFFIX", ctx, "#")
    positions = [text.index(tok) for tok in fam.sentinels()]
    assert positions  # the family has sentinels and they all occur
    expected = {"PSM": fam.prefix_token or fam.suffix_token, "SPM": fam.suffix_token}[fam.order]
    assert min(positions) == text.index(expected)


def test_opened_files_kept_whole_when_they_fit() -> None:
    files = [Snippet(filepath=f"file:///w/f{i}.py", content=f"v{i} = {i}", kind="opened") for i in range(3)]
    assert snippets.format_opened_files(files, 500, "starcoder2", [], releases.ERAS[-1]) == files


def test_opened_files_ranked_and_trimmed() -> None:
    era = releases.ERAS[-1]
    body = "value = compute(value, 42)\n" * 200
    files = [Snippet(filepath=f"file:///w/f{i}.py", content=body, kind="opened") for i in range(7)]
    out = snippets.format_opened_files(files, 900, "starcoder2", [], era)
    # Same sizes: the size score is 0.5 for all, recency decides; only the best 5 are kept.
    assert [s.filepath for s in out] == [f"file:///w/f{i}.py" for i in range(5)]
    remaining = 900
    for n, s in zip(range(5, 0, -1), out, strict=True):
        limit = int(125 + 2 / (n + 1) * (remaining - 10 - n * 125))
        assert body.startswith(s.content) and len(ct.encode(s.content, "starcoder2")) <= limit + 1
        assert len(ct.encode(s.content, "starcoder2")) >= limit - 2
        remaining -= ct.count_tokens(s.content, "starcoder2")
    # A smaller, older file outranks a recent big one through the size score.
    mixed = files[:2] + [Snippet(filepath="file:///w/small.py", content="x = 1\n" * 30, kind="opened")]
    ranked = snippets.format_opened_files(mixed, 200, "starcoder2", [], era)
    assert ranked[0].filepath == "file:///w/small.py"
    # Not enough room for 125 tokens each: fewer files.
    assert len(snippets.format_opened_files(files, 300, "starcoder2", [], era)) == 2


def test_fim_route_sends_compiled_prefix_and_suffix() -> None:
    s = Snippet(filepath="lib/util.py", content="def g(): pass")
    r = prompt.render(inp(prefix="x = ", suffix="y\n", snippets=(s,), options={"provider": "mistral"}), "codestral-latest")
    assert r.route == "fim"
    assert r.prefix_sent == "+++++ util.py \ndef g(): pass\n\n+++++ main.py\nx = " and r.suffix_sent == "y\n"
    assert r.logged_prompt == r.text == "[SUFFIX]y\n[PREFIX]" + r.prefix_sent


def test_js_trim_is_not_python_strip() -> None:
    assert js.js_trim("\ufeff x \u0085") == "x \u0085"  # JS trims U+FEFF, keeps U+0085
    assert js.js_trim("\u3000y\u2029") == "y" and js.js_trim("y\x1c") == "y\x1c"
    # A snippet of only U+0085 is not blank for Continue: it is kept and commented.
    r = prompt.render(inp(prefix="x", snippets=(Snippet(filepath="lib/n.py", content="\u0085"),)), "starcoder2")
    assert "# Path: lib/n.py\n# \u0085\n# app/main.py\nx" in r.prefix_sent


def test_rebuild_uses_the_release_before_the_date() -> None:
    r = prompt.render(inp(prefix="x", suffix="y"), "qwen2.5-coder", "0.8.40")  # StarCoder sentinels then
    rec = msgspec.structs.replace(_record(r, "qwen2.5-coder", "2026-06-01"), editor_version="0.8.40")
    assert r.text.startswith("<fim_prefix>") and logs.rebuild_logged_prompt(rec) == r.text
    assert logs.rebuild_logged_prompt(msgspec.structs.replace(rec, editor_version=None)) != r.text


def test_rebuild_output_channel_fim_forms() -> None:
    seg = Segments(prefix="a\n", suffix="b\n")
    base = CaptureRecord(source=Source(file="ch.txt", line=3), editor="continue", format="continue-console", model="codestral",
                         segments=seg, logged_prompt="", extra={"route": "fim", "fim_rendering": "<FIM>"})
    assert logs.rebuild_logged_prompt(base) == "a\n<FIM>b\n"  # no date known: the form the importer saw
    assert logs.rebuild_logged_prompt(msgspec.structs.replace(base, editor_version="0.9.262")) == "Prefix: a\n\nSuffix: b\n"
    assert logs.rebuild_logged_prompt(msgspec.structs.replace(base, editor_version="0.8.40")) == "a\n<FIM>b\n"
    assert logs.rebuild_logged_prompt(msgspec.structs.replace(base, editor_version="2024-05-01")) is None
    assert logs.rebuild_logged_prompt(msgspec.structs.replace(base, lossy=True)) is None


def test_snippet_groups_follow_their_options() -> None:
    changed = Snippet(filepath="lib/edit.py", content="edited = True", kind="changed")
    opened = Snippet(filepath="lib/open.py", content="opened = True", kind="opened")
    both = (changed, opened)
    assert "edited = True" in prompt.render(inp(snippets=both), "starcoder2").prefix_sent
    off = prompt.render(inp(snippets=both, options={"experimental_includeRecentlyEditedRanges": False, "useRecentlyOpened": False}), "starcoder2")
    assert "edited = True" not in off.prefix_sent and "opened = True" not in off.prefix_sent
    # A number is a priority: edited ranges (default 4) before opened files (default 2).
    first = prompt.render(inp(snippets=both, options={"experimental_includeRecentlyEditedRanges": 1}), "starcoder2").prefix_sent
    assert first.index("edited = True") < first.index("opened = True")
    default = prompt.render(inp(snippets=both), "starcoder2").prefix_sent
    assert default.index("opened = True") < default.index("edited = True")


def _code(name: str, content: str) -> Snippet:
    return Snippet(filepath=name, content=content, kind="opened")


def test_opened_files_golden_cases() -> None:
    """Transcribed from continuedev/continue core/autocomplete/templating/__tests__/
    formatOpenedFilesContext.vitest.ts (model "test-model": Continue's Llama counting)."""
    era, m = releases.ERAS[-1], "test-model"
    assert snippets.format_opened_files([], 1000, m, [], era) == []
    assert snippets.format_opened_files([_code("file1.ts", "content of file 1"), _code("file2.ts", "content of file 2")], 0, m, [], era) == []
    assert len(snippets.format_opened_files([_code("empty1.ts", ""), _code("empty2.ts", "")], 1000, m, [], era)) == 2
    assert len(snippets.format_opened_files([_code(f"small{i}.ts", ch) for i, ch in enumerate("abc")], 1000, m, [], era)) == 3
    large = snippets.format_opened_files([_code("large.ts", "x" * 10000)], 200, m, [], era)
    assert len(large) == 1 and large[0].filepath == "large.ts" and len(large[0].content) < 10000
    recent = snippets.format_opened_files([_code("recent1.ts", "a" * 10), _code("recent2.ts", "b" * 10000), _code("recent3.ts", "c" * 10000)], 200, m, [], era)
    assert any(s.filepath == "recent1.ts" for s in recent)
    mixed = snippets.format_opened_files([_code("small1.ts", "a" * 10), _code("large1.ts", "b" * 5000), _code("small2.ts", "c" * 10),
                                   _code("large2.ts", "d" * 5000)], 500, m, [], era)
    assert any(s.filepath.startswith("small") for s in mixed)
    few = snippets.format_opened_files([_code("large1.ts", "a" * 5000), _code("large2.ts", "b" * 5000)], 150, m, [], era)
    assert len(few) <= 1 and all(len(s.content) < 5000 for s in few)
    # Files already added by an earlier group are not offered again (diff snippets do not count).
    already = [_code("file1.ts", "x"), Snippet(filepath="", content="diff", kind="diff")]
    assert [s.filepath for s in snippets.format_opened_files([_code("file1.ts", "a"), _code("file2.ts", "b")], 1000, m, already, era)] == ["file2.ts"]


@pytest.mark.parametrize("opts", [{"maxPromptTokens": "1024"}, {"prefixPercentage": True}, {"template": 3}, {"provider": ["x"]}])
def test_bad_option_types_are_named(opts: dict) -> None:
    with pytest.raises(releases.ContinueError, match=f"option {next(iter(opts))} must be"):
        prompt.render(inp(options=opts), "starcoder2")
