"""Continue's prompt rules at each release boundary: the last release without a rule and the first
with it (continuedev/continue, the files named in replay/editors/continue_/releases.py and
prompt08.py, read at the tags), the version forms `--editor-version` takes, the rule table
`fimreplay editors continue --history` prints, and what `verify` says of a mismatch."""

from __future__ import annotations

import json

import pytest

from replay.editors import explain_mismatch
from replay.editors.continue_.profile import render
from replay.editors.continue_ import tokens as ct
from replay.editors.continue_.profile import counting_model
from replay.editors.continue_.ranking08 import jaccard, rank_and_fill, symbols
from replay.editors.continue_.releases import era_for
from replay.editors.rulebook import UnknownRelease
from replay.editors.continue_.uri import shortest_relative_paths
from replay.records import CaptureRecord, EditorInput, Segments, Snippet, Source

# A file long enough that 500 and 1024 prompt tokens cut it at different lines.
BODY = "".join(f"    uint256 public value{i} = {i};  // slot {i}\n" for i in range(200))
SOL = EditorInput(prefix="contract A {\n" + BODY + "    function f() public {\n        ", suffix="\n    }\n}\n",
                  filepath="/ws/contracts/A.sol", workspace="/ws",
                  snippets=(Snippet(filepath="/ws/contracts/B.sol", content="contract B {\n    function g() public {}\n}"),))


def with_options(inp: EditorInput, **opts: object) -> EditorInput:
    return EditorInput(prefix=inp.prefix, suffix=inp.suffix, filepath=inp.filepath, workspace=inp.workspace,
                       snippets=inp.snippets, options=opts)


@pytest.mark.parametrize(("version", "label"), [
    ("v0.8.55-vscode", "0.8.55-vscode"), ("0.8.55", "0.8.55-vscode"), ("v0.0.85-jetbrains", "0.0.85-jetbrains"),
    ("0.0.85-jetbrains", "0.0.85-jetbrains"), ("2024-10-01", ""), ("2025-05-01T10:00:00Z", ""),
])
def test_editor_version_forms(version: str, label: str) -> None:
    era = era_for(version)
    assert era.label == label
    if version.startswith("2024"):
        assert era.pre_rewrite and era.codestral == "plain"


def test_capture_release_from_the_user_agent() -> None:
    from replay.editors.continue_.releases import capture_release

    assert capture_release("1.0.10", "PyCharm/2024.3.1 (Continue/1.0.10)") == "1.0.10-jetbrains"
    assert capture_release("1.0.10", "Visual Studio Code/1.97.2 (Continue/1.0.10)") == "1.0.10"
    assert capture_release("1.0.10", None) == "1.0.10"


def test_capture_picks_its_release_or_its_day() -> None:
    import datetime as dt

    from replay.editors import capture_version

    def at(day: str, **kw: object) -> str | None:
        ts = dt.datetime.fromisoformat(day).replace(tzinfo=dt.timezone.utc).timestamp()
        return capture_version(CaptureRecord(source=Source(file="f"), editor="continue", format="x", ts=ts, **kw))

    assert at("2024-10-01") == "2024-10-01" and era_for(at("2024-10-01")).pre_rewrite
    assert at("2024-01-01") is None  # before the first dated profile: the newest rules
    assert at("2024-10-01", editor_version="1.0.10", user_agent="GoLand/2025.1 (Continue/1.0.10)") == "1.0.10-jetbrains"


def test_unknown_version_is_a_usage_error() -> None:
    with pytest.raises(UnknownRelease, match="unknown Continue version"):
        era_for("v9.9.9-vscode")


def test_pre_rewrite_pipeline_ends_at_0_9_226() -> None:
    """0.9.226: constructPrompt.ts + completionProvider.ts (local providers get 500 tokens, '//
    Path:' snippet comments, inline stops); 0.9.227: templating/ (1024 x 0.85 for everyone,
    getStopTokens; the snippets still ranked and commented as before, until 0.9.235 gives them
    formatSnippets' header)."""
    local = with_options(SOL, provider="ollama")
    old = render(local, "starcoder2:3b", "0.9.226")
    new = render(local, "starcoder2:3b", "0.9.227")
    assert old.text.startswith("<fim_prefix>// Path: B.sol\n// contract B {\n//     function g() public {}\n// }\n//\n\n")
    assert new.text.startswith("<fim_prefix>// Path: B.sol\n// contract B {")
    assert render(local, "starcoder2:3b", "0.9.235").text.startswith("<fim_prefix>// Path: contracts/B.sol\n// contract B {")
    assert ct.count_tokens(old.prefix_sent, "starcoder2:3b", False) < 500 < ct.count_tokens(new.prefix_sent, "starcoder2:3b", False)
    assert old.stop[7:16] == ("\n\n", "\r\n\r\n", "/src/", "#- coding: utf-8", "```", "t.", "\nt", "<file_sep>", "\ncontract")
    assert "\n\n" not in new.stop and "\ncontract" not in new.stop


def test_pre_rewrite_budget_only_for_local_providers_without_a_setting() -> None:
    remote = render(with_options(SOL, provider="openai"), "starcoder2:3b", "0.8.55")
    local = render(with_options(SOL, provider="ollama"), "starcoder2:3b", "0.8.55")
    chosen = render(with_options(SOL, provider="ollama", maxPromptTokens=1024), "starcoder2:3b", "0.8.55")
    assert len(local.prefix_sent) < len(remote.prefix_sent) == len(chosen.prefix_sent)


def test_pre_rewrite_snippets_ranked_by_jaccard_ascending_within_the_share() -> None:
    assert symbols("a.b(c_d) [e]") == {"a", "b", "c", "d", "e"}
    assert jaccard("foo bar", "bar baz") == pytest.approx(1 / 3) and jaccard("", "") == 0
    era = era_for("0.8.55")
    near = Snippet(filepath="/ws/x.ts", content="alpha beta gamma")
    far = Snippet(filepath="/ws/y.ts", content="zeta eta")
    assert rank_and_fill([near, far], "alpha beta", 100, "starcoder2", era) == [far, near]
    big = Snippet(filepath="/ws/z.ts", content="word " * 400)
    assert rank_and_fill([big, far], "zeta", 60, "starcoder2", era) == [far]  # too big: skipped, not stopped at


def test_pre_rewrite_blank_file_gets_the_path_comment() -> None:
    blank = EditorInput(prefix="", suffix="", filepath="/ws/src/app/main.py", workspace="/ws")
    assert render(blank, "starcoder2:3b", "0.8.55").text == "<fim_prefix># app/main.py\n<fim_suffix><fim_middle>"


def test_shortest_relative_paths_needs_two_others_to_call_a_name_duplicated() -> None:
    assert shortest_relative_paths(["/a/x/i.ts", "/a/y/i.ts"]) == ["i.ts", "i.ts"]
    assert shortest_relative_paths(["/a/x/i.ts", "/a/y/i.ts", "/a/z/i.ts", "/a/m.ts"]) == ["x/i.ts", "y/i.ts", "z/i.ts", "m.ts"]


@pytest.mark.parametrize(("before", "after", "old_header", "new_header"), [
    ("0.9.246", "0.9.247", "+++++ B.sol\ncontract B", "+++++ [object Object]\ncontract B"),
    ("0.0.84-jetbrains", "0.0.85-jetbrains", "+++++ [object Object]\ncontract B", "+++++ file:///ws/contracts/B.sol \ncontract B"),
    ("0.0.89-jetbrains", "0.0.90-jetbrains", "+++++ file:///ws/contracts/B.sol \ncontract B", "+++++ B.sol \ncontract B"),
])
def test_codestral_headers_by_release(before: str, after: str, old_header: str, new_header: str) -> None:
    old, new = render(SOL, "codestral-latest", before), render(SOL, "codestral-latest", after)
    assert old.prefix_sent.startswith(old_header) and new.prefix_sent.startswith(new_header)
    has_stop = ["\n+++++ " in r.stop for r in (old, new)]
    assert has_stop == [False, after == "0.0.90-jetbrains"]


@pytest.mark.parametrize(("model", "before", "after"), [
    ("codestral-latest", "0.8.35", "0.8.37"), ("grok-code", "0.9.225", "0.9.226"), ("o3-mini", "1.1.51", "1.1.56"),
])
def test_names_counted_with_tiktoken_from_their_autodetect_release(model: str, before: str, after: str) -> None:
    """Before autodetect.ts named them, these models counted with the Llama tokenizer."""
    assert ct.counting_tokenizer(counting_model(model, era_for(before))) == "llama"
    assert ct.counting_tokenizer(counting_model(model, era_for(after))) == "cl100k_base"


def test_early_template_choice() -> None:
    """gptAutocompleteTemplate until the hole filler (57ca9f1dd7); no codestral template before
    e65b002d71, then codestralFimTemplate until 83731642aa; no codegeex before d6c2e36814."""
    blank = EditorInput(prefix="a", suffix="b", filepath="/ws/m.ts", workspace="/ws")
    assert render(blank, "gpt-4o", "0.8.26").text.startswith("```\na[BLANK]b\n```\n\nFill in the blank")
    assert "The 4th {{FILL_HERE}}" in render(blank, "gpt-4o", "0.8.35").text
    assert "The 5th {{FILL_HERE}}" in render(blank, "gpt-4o", "0.8.46").text
    assert render(blank, "codestral-latest", "0.8.35").text == "<fim_prefix>a<fim_suffix>b<fim_middle>"
    assert render(blank, "codestral-latest", "0.8.37").text == "[SUFFIX]b[PREFIX]a"
    assert render(blank, "codegeex4", "0.8.41").family == "starcoder"
    assert render(blank, "codegeex4", "0.8.44").family == "codegeex"


def test_mercury_counting_and_fim_prefix_by_release() -> None:
    """autodetect.ts gained "mercury" in 1.1.29 (tiktoken counts); 1.1.30..1.3.25 prepend
    <|fim_prefix|> to the prefix; 1.3.26 / JetBrains 1.0.53 no longer do."""
    assert ct.counting_tokenizer(counting_model("mercury-coder", era_for("1.0.7"))) == "llama"
    assert ct.counting_tokenizer(counting_model("mercury-coder", era_for("1.1.29"))) == "cl100k_base"
    pre = {v: render(SOL, "mercury-coder", v).prefix_sent for v in ("1.1.29", "1.1.30", "1.0.52-jetbrains", "1.0.53-jetbrains")}
    assert [p.startswith("<|fim_prefix|>") for p in pre.values()] == [False, True, True, False]


@pytest.mark.parametrize(("version", "stops"), [
    ("0.9.164", ("<fim_prefix>", "<fim_suffix>", "<fim_middle>", "<|endoftext|>")),
    ("0.9.165", ("<fim_prefix>", "<fim_suffix>", "<fim_middle>", "<|endoftext|>", "<file_sep>")),
    ("0.9.168", ("<fim_prefix>", "<fim_suffix>", "<fim_middle>", "<|endoftext|>", "<file_sep>", "</fim_middle>", "</code>")),
    ("0.9.198", ("<fim_prefix>", "<fim_suffix>", "<fim_middle>", "<file_sep>", "<|endoftext|>", "</fim_middle>", "</code>")),
    ("2024-06-20", ("<fim_prefix>", "<fim_suffix>", "<fim_middle>", "<|endoftext|>", "\n\n")),
    ("2024-06-21", ("<fim_prefix>", "<fim_suffix>", "<fim_middle>", "<|endoftext|>", "<file_sep>", "\n\n")),
    ("2024-08-21", ("<fim_prefix>", "<fim_suffix>", "<fim_middle>", "<file_sep>", "<|endoftext|>", "</fim_middle>", "</code>")),
])
def test_stable_code_stop_list_by_release(version: str, stops: tuple[str, ...]) -> None:
    assert render(SOL, "starcoder2:3b", version).stop[:len(stops)] == stops


def test_history_cli(cli) -> None:
    done = cli("editors", "continue", "--history", "--json")
    assert done.returncode == 0, done.stderr
    rows = {r["commit"]: r for r in json.loads(done.stdout)["history"]}
    assert rows["911256bad1"]["first_release"] == "0.9.227-vscode" and rows["911256bad1"]["last_without"] == "0.9.226-vscode"
    assert rows["dc6827aca4"]["first_release"] == "1.1.30-vscode"
    text = cli("editors", "continue", "--history")
    assert "2025-02-01  d92a7e08b9" in text.stdout
    assert cli("editors", "standard", "--history").returncode == 2  # the benchmark setting has no releases


def test_verify_names_the_rule_and_the_nearest_release_that_matches() -> None:
    """granite3 models got the hole-filler template in 0.9.234 (3934e8d81f): a prompt logged by
    0.9.233 but stamped 0.9.234 is rebuilt by the wrong rule, and the verify note says so."""
    logged = "<fim_prefix>a<fim_suffix>b<fim_middle>"
    record = CaptureRecord(source=Source(file="autocomplete.jsonl", line=1), editor="continue", format="continue-devdata",
                           model="granite3-dense:8b", editor_version="0.9.234", filepath="file:///ws/a.ts",
                           segments=Segments(prefix="a", suffix="b"), logged_prompt=logged)
    why = explain_mismatch(record)
    assert why["release"] == "continue@0.9.234-vscode" and why["rule"] == "template holeFillerTemplate"
    matched = era_for(why["matches"].removeprefix("continue@"))
    assert not matched.granite3_hole_filler and "granite3_hole_filler" in why["differing_rules"].split(", ")
    assert abs((matched.since - era_for("0.9.234").since).days) <= 3
    odd = CaptureRecord(source=record.source, editor="continue", format="continue-devdata", model="granite3-dense:8b",
                        editor_version="0.9.234", segments=Segments(prefix="a", suffix="b"), logged_prompt="nothing like it")
    assert "matches" not in explain_mismatch(odd)
