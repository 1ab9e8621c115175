"""The Tabby server by release, 0.0.1 to today: rules per release and day, stop words per era,
prompts rebuilt from event-log lines as each era's server wrote them (crates/tabby-common/src/
events.rs, then api/event.rs and crates/tabby/src/services/event.rs), the registry's templates."""

from __future__ import annotations

import json
from datetime import datetime, timezone

import pytest

from replay.editors import rebuild_logged_prompt
from replay.editors.tabby import registry, server_releases
from replay.editors.tabby.languages import LEGACY_DEFAULT
from replay.editors.rulebook import UnknownRelease
from replay.editors.tabby.history import history
from replay.editors.tabby.server import DEFAULT_STOP_WORDS, TabbyRules, build_server_prompt, stop_words
from replay.editors.tabby.server_rules import SERVER_RULES
from replay.editors.templates import get_family
from replay.editors.versions import Release
from replay.importers.tabby import parse_line
from replay.records import CaptureRecord, Source

STARCODER = get_family("starcoder")
CODELLAMA = get_family("codellama")
SRC = Source(file="t.json", line=1)


def _ts(day: str) -> int:
    return int(datetime.fromisoformat(day).replace(tzinfo=timezone.utc).timestamp() * 1000) + 3_600_000


def _record(line: dict) -> CaptureRecord:
    rec = parse_line(json.dumps(line, separators=(",", ":"), ensure_ascii=False).encode(), SRC)
    assert isinstance(rec, CaptureRecord)
    return rec


# --- releases and days -----------------------------------------------------------------------------

def test_every_release_tag_has_rules() -> None:
    finals = server_releases.finals()
    assert finals[0].tag == "0.0.1" and finals[-1].tag == "0.32.0" and len(finals) == 59
    for tag in server_releases.tags():
        rules = TabbyRules.for_version(tag.tag)
        assert rules.release == server_releases.semver(tag) and rules.label == tag.tag
    assert TabbyRules.for_version("v0.5.1").label == "0.5.1"  # Tabby's own 0.5.1 tag is not in the mirror


def test_older_than_the_first_release_is_refused() -> None:
    with pytest.raises(UnknownRelease, match="older than the oldest modelled release 0.0.1"):
        TabbyRules.for_version("0.0.0")


@pytest.mark.parametrize(("day", "label"), [
    ("2023-05-31", "0.0.1"),  # main builds before the first tag: the first release's rules
    ("2023-08-31", "0.0.1"), ("2023-09-12", "0.1.0"), ("2023-10-14", "0.3.0"),
    ("2024-04-12", "0.10.0-rc.3"),  # candidates count: declarations were read from here on
    ("2024-04-22", "0.10.0"), ("2024-06-06", "0.12.0"), ("2025-02-20", "0.25.0"), ("2026-06-01", "0.32.0"),
])
def test_for_date_is_the_newest_tag_out(day: str, label: str) -> None:
    assert TabbyRules.for_date(day).label == label


def test_rules_by_release() -> None:
    r001, r010, r030, r0111, r012 = (TabbyRules.for_version(v) for v in ("0.0.1", "0.1.0", "0.3.0", "0.11.1", "0.12.0"))
    assert (r001.empty_suffix_newline, r010.empty_suffix_newline) == (False, True)
    assert (r001.clip, r010.clip, r0111.clip, r012.clip) == ("none", "tokens", "tokens", "none")
    assert r010.max_input_tokens == 1536 and r012.max_input_tokens is None
    assert (r001.segments_logged, r030.segments_logged) == (False, True)
    assert (r010.stops_see_prompt, TabbyRules.for_version("0.2.0").stops_see_prompt) == (False, True)
    assert TabbyRules.for_version("0.4.0").template_source == "model-repo"
    assert TabbyRules.for_version("0.5.0").template_source == "registry"
    assert TabbyRules.for_version("0.9.1").segment_snippets is False
    assert TabbyRules.for_version("0.10.0").segment_snippets is True
    assert TabbyRules.for_version("0.10.0").max_decoding_tokens == 128
    assert TabbyRules.for_version("0.11.0").max_decoding_tokens == 64


def test_server_rules_table() -> None:
    finals = {t.tag for t in server_releases.finals()}
    assert all(rule.since is not None and rule.since.tag in finals for rule in SERVER_RULES)
    order = [Release.parse(rule.since.tag) for rule in SERVER_RULES if rule.since is not None]
    assert order == sorted(order)
    rows = history()
    assert rows[0].first_release == "0.0.1" and rows[0].last_without == ""
    crlf = next(r for r in rows if r.commit == "0e75cb296")
    assert (crlf.first_release, crlf.last_without, crlf.date) == ("0.20.0", "0.19.0", "2024-10-28")


# --- the prompt by era ------------------------------------------------------------------------------

def test_empty_suffix_kept_by_0_0_1_only() -> None:
    seg = {"prefix": "def f():\n    ", "suffix": ""}
    assert build_server_prompt(seg, "python", CODELLAMA, TabbyRules.for_version("0.0.1")).logged_prompt == \
        "<PRE> def f():\n     <SUF> <MID>"
    assert build_server_prompt(seg, "python", CODELLAMA, TabbyRules.for_version("0.1.0")).logged_prompt == \
        "<PRE> def f():\n     <SUF>\n <MID>"
    missing = {"prefix": "x"}
    assert build_server_prompt(missing, "python", STARCODER, TabbyRules.for_version("0.0.1")).logged_prompt == \
        "<fim_prefix>x<fim_suffix>\n<fim_middle>"


def test_request_snippets_read_from_0_10_0() -> None:
    seg = {"prefix": "contract A {\n", "suffix": "}\n",
           "declarations": [{"filepath": "L.sol", "body": "library L {}"}],
           "relevant_snippets_from_changed_files": [{"filepath": "B.sol", "body": "contract B {}", "score": 1.0}]}
    old = build_server_prompt(seg, "solidity", STARCODER, TabbyRules.for_version("0.9.1")).logged_prompt
    assert old == "<fim_prefix>contract A {\n<fim_suffix>}\n<fim_middle>"
    new = build_server_prompt(seg, "solidity", STARCODER, TabbyRules.for_version("0.10.0")).logged_prompt
    assert new == ("<fim_prefix>// Path: L.sol\n// library L {}\n//\n// Path: B.sol\n// contract B {}\n"
                   "contract A {\n<fim_suffix>}\n<fim_middle>")


def test_comment_of_a_language_by_release() -> None:
    seg = {"prefix": "a {", "suffix": "}", "declarations": [{"filepath": "b.css", "body": "b {}"}]}
    # 0.10.x: css is not in languages.toml: unknown, comment "".
    assert build_server_prompt(seg, "css", STARCODER, TabbyRules.for_version("0.10.0")).prefix == " Path: b.css\n b {}\na {"
    # 0.11.0: css is listed without a line comment: no snippets.
    assert build_server_prompt(seg, "css", STARCODER, TabbyRules.for_version("0.11.0")).prefix == "a {"
    # solidity came in 0.10.0; java in 0.6.0.
    assert build_server_prompt(seg, "solidity", STARCODER, TabbyRules.for_version("0.10.0")).prefix.startswith("// Path")


def test_token_clip_leaves_the_text_to_the_engine() -> None:
    long = {"prefix": "x" * 5000, "suffix": "y"}
    out = build_server_prompt(long, "python", STARCODER, TabbyRules.for_version("0.8.0"))
    assert out.engine_prompt == out.logged_prompt and out.engine_token_limit == 1536
    assert build_server_prompt(long, "python", STARCODER, TabbyRules.for_version("0.12.0")).engine_token_limit is None


# --- event-log lines as each era wrote them, rebuilt --------------------------------------------------

ERA_LINES = [
    # 0.3.0 .. 0.5.x (crates/tabby-common/src/events.rs): segments {prefix, suffix}, user in the event.
    ("2023-10-20", {"event": {"completion": {
        "completion_id": "cmpl-a", "language": "python",
        "prompt": "<fim_prefix>def add(a, b):\n    <fim_suffix>\n<fim_middle>",
        "segments": {"prefix": "def add(a, b):\n    ", "suffix": None},
        "choices": [{"index": 0, "text": "return a + b"}], "user": None}}}),
    # 0.6.0 .. 0.7.x (api/event.rs): clipboard; an empty suffix became "\n".
    ("2023-12-20", {"event": {"completion": {
        "completion_id": "cmpl-b", "language": "rust",
        "prompt": "<PRE> fn main() {\n     <SUF>\n <MID>",
        "segments": {"prefix": "fn main() {\n    ", "suffix": "", "clipboard": "println!"},
        "choices": [{"index": 0, "text": "println!(\"hi\");"}], "user": "dev@example.org"}}}),
    # 0.10.0: declarations in the prompt; CRLF kept in the prompt (no CRLF rule before 0.20.0).
    ("2024-04-25", {"event": {"completion": {
        "completion_id": "cmpl-c", "language": "go",
        "prompt": "<fim_prefix>// Path: util/max.go\n// func Max(a, b int) int\npackage main\r\n\r\nfunc f() {\r\n\t"
                  "<fim_suffix>\r\n}\r\n<fim_middle>",
        "segments": {"prefix": "package main\r\n\r\nfunc f() {\r\n\t", "suffix": "\r\n}\r\n",
                     "declarations": [{"filepath": "util/max.go", "body": "func Max(a, b int) int"}]},
        "choices": [{"index": 0, "text": "x := Max(1, 2)"}], "user": None}}}),
    # 0.12.0 .. (user at the top level, filepath, user_agent): css has no comment, so no snippets.
    ("2024-08-10", {"user": None, "event": {"completion": {
        "completion_id": "cmpl-d", "language": "css",
        "prompt": "<|fim_prefix|>a {\n  <|fim_suffix|>\n}\n<|fim_middle|>",
        "segments": {"prefix": "a {\n  ", "suffix": "\n}\n", "filepath": "s.css",
                     "declarations": [{"filepath": "b.css", "body": "b { color: red; }"}]},
        "choices": [{"index": 0, "text": "color: blue;"}], "user_agent": None}}}),
    # 0.20.0 ..: CRLF in prefix or suffix: the logged prompt has LF only, segments keep CRLF.
    ("2024-12-01", {"user": None, "event": {"completion": {
        "completion_id": "cmpl-e", "language": "typescript",
        "prompt": "<|fim_prefix|>// Path: a.ts\n// export const A = 1;\nconst b = \n<|fim_suffix|>\n<|fim_middle|>",
        "segments": {"prefix": "const b = \r\n", "suffix": "",
                     "declarations": [{"filepath": "a.ts", "body": "export const A = 1;\r\n"}]},
        "choices": [{"index": 0, "text": "A"}], "user_agent": "tabby-agent/1.9.0-dev"}}}),
]


@pytest.mark.parametrize(("day", "line"), ERA_LINES, ids=[day for day, _ in ERA_LINES])
def test_logged_prompt_rebuilt_for_each_era(day: str, line: dict) -> None:
    record = _record({**line, "ts": _ts(day)})
    assert rebuild_logged_prompt(record) == record.logged_prompt


def test_logs_before_0_3_0_have_nothing_to_rebuild_from() -> None:
    """0.0.1 .. 0.2.x logged the prompt without the segments it was built from."""
    record = _record({"ts": _ts("2023-09-20"), "event": {"completion": {
        "completion_id": "cmpl-z", "language": "python", "prompt": "<fim_prefix>import os\n<fim_suffix>\n<fim_middle>",
        "choices": [{"index": 0, "text": "import sys"}], "user": None}}})
    assert not TabbyRules.for_date("2023-09-20").segments_logged
    assert rebuild_logged_prompt(record) is None


def test_a_pre_0_10_log_with_declarations_would_not_match() -> None:
    """The 0.10.0 line rebuilt as 0.9.1 would have built it: no declarations in the prompt."""
    day, line = ERA_LINES[2]
    record = _record({**line, "ts": _ts("2024-03-25")})
    assert rebuild_logged_prompt(record) != record.logged_prompt


# --- stop words by era --------------------------------------------------------------------------------

def test_stop_words_before_languages_toml() -> None:
    r001, r030 = TabbyRules.for_version("0.0.1"), TabbyRules.for_version("0.3.0")
    assert stop_words("javascript", r001) == ("\nfunction", "\n//", "\nimport", "\nclass")  # no DEFAULT
    assert stop_words("python", r001) == ("\ndef", "\n#", "\nfrom", "\nclass", *LEGACY_DEFAULT)
    assert "\nimport" in stop_words("python", r030) and "\nimport" not in stop_words("python", r001)
    assert stop_words("rust", r001) == LEGACY_DEFAULT and "\nfn" in stop_words("rust", r030)
    assert stop_words("javascript", r030)[-1] == LEGACY_DEFAULT[-1]
    assert stop_words("go", r030) == LEGACY_DEFAULT and "\n" not in stop_words("unknown", r030)


def test_stop_words_from_languages_toml() -> None:
    r040, r0111, r012 = (TabbyRules.for_version(v) for v in ("0.4.0", "0.11.1", "0.12.0"))
    assert stop_words("unknown", r040) == ("\n", *LEGACY_DEFAULT)  # comment "": "\n" stops, own words first
    assert stop_words("go", r040)[:2] == ("\n//", "\nfunc")
    assert stop_words("java", TabbyRules.for_version("0.5.0")) == ("\n", *LEGACY_DEFAULT)
    assert "\nabstract" in stop_words("java", TabbyRules.for_version("0.6.0"))
    old = stop_words("python", r0111)
    assert old[:15] == LEGACY_DEFAULT and " <EOT>" in old and "<fim_prefix>" not in old
    assert stop_words("python", r012)[:len(DEFAULT_STOP_WORDS)] == DEFAULT_STOP_WORDS
    assert stop_words("javascript-typescript", TabbyRules.for_version("0.10.0")) == ("\n", *LEGACY_DEFAULT)
    assert "\nlet" in stop_words("javascript-typescript", r0111)
    assert "\n" not in stop_words("css", r0111) and stop_words("css", TabbyRules.for_version("0.10.0"))[0] == "\n"


# --- the registry's templates ------------------------------------------------------------------------------

def template(model: str, day: str, release: str | None = None) -> str | None:
    return registry.served_template(model, day, Release.parse(release) if release else None).template


def test_templates_by_source_and_day() -> None:
    assert template("TabbyML/StarCoder-1B", "2023-10-01", "0.3.1") == registry.STARCODER
    assert template("TabbyML/J-350M", "2023-10-01", "0.3.1") is None
    with pytest.raises(registry.NoTemplateKnown):
        template("TabbyML/SantaCoder-1B", "2023-09-01", "0.0.1")
    assert template("DeepseekCoder-1.3B", "2024-06-01") == registry.DEEPSEEK
    with pytest.raises(registry.NoTemplateKnown):
        template("DeepseekCoder-1.3B", "2025-03-01")  # renamed DeepSeekCoder-1.3B (d57d6c6)
    assert template("Codestral-22B", "2024-06-01") == registry.CODESTRAL
    with pytest.raises(registry.NoTemplateKnown):
        template("CodeGemma-2B", "2024-04-01", "0.10.0")
    assert template("CodeGemma-2B", "2024-04-17", "0.10.0") == registry.PIPE_FIM  # merge 43000c6, that day


def test_the_registry_is_mains_models_json_day_by_day() -> None:
    """The server reads main's models.json: a pull request counts from its merge. PR #18's
    branch gave Qwen2.5-Coder-7B-Instruct the StarCoder sentinels (b522d7e, 2024-10-26) and
    fixed them (f7a78a1) before its merge 9fe0d5e (2024-10-29): no server read them."""
    with pytest.raises(registry.NoTemplateKnown, match="not a model of registry-tabby on 2024-10-27"):
        template("Qwen2.5-Coder-7B-Instruct", "2024-10-27")
    with pytest.raises(registry.NoTemplateKnown):
        template("Qwen2.5-Coder-7B-Instruct-GGUF", "2024-10-01")  # cee1907 lived only on that branch
    assert template("Qwen2.5-Coder-7B-Instruct", "2024-10-29") == registry.PIPE_FIM
    assert template("Qwen2.5-Coder-7B", "2024-11-09") == registry.PIPE_FIM  # renamed (750bec7) ...
    with pytest.raises(registry.NoTemplateKnown):
        template("Qwen2.5-Coder-7B", "2024-11-13")  # ... a chat entry again from c029427 to 01bdb3b
    assert template("Qwen2.5-Coder-7B-Instruct", "2024-11-20", "0.21.0") is None  # a chat entry: the prompt is the prefix
    assert template("Qwen2.5-Coder-0.5B", "2024-11-14") == registry.PIPE_FIM


def test_from_0_22_the_server_refuses_an_entry_without_a_template() -> None:
    """tabby-download validate_model_kind (0314db632, first in 0.22.0): "is not a completion model"."""
    assert template("Qwen2.5-Coder-7B-Instruct", "2025-01-10", "0.21.2") is None
    with pytest.raises(registry.NoTemplateKnown, match="refuses .*Qwen2.5-Coder-7B-Instruct"):
        template("Qwen2.5-Coder-7B-Instruct", "2025-01-10", "0.22.0")
    assert template("Qwen2.5-Coder-7B", "2025-01-10", "0.22.0") == registry.PIPE_FIM


def test_an_entry_is_found_by_its_exact_name_only() -> None:
    """registry.rs parse_model_id + get_model_info: `Name` or `TabbyML/Name`, `x.name == name`."""
    assert registry.entry_on("TabbyML/CodeQwen-7B", "2024-09-30").model == "CodeQwen-7B"
    for other in ("codeqwen-7b", "CodeQwen-7B-GGUF", "Qwen/CodeQwen-7B", "/models/TabbyML/CodeQwen-7B", "qwen2.5-coder",
                  "Qwen2.5-Coder-7B", "qwen2.5-coder-0.5b-instruct-q4_k_m.gguf"):
        assert registry.entry_on(other, "2024-09-30") is None, other
    with pytest.raises(registry.NoTemplateKnown, match=r"^qwen2.5-coder-0.5b-instruct-q4_k_m.gguf is not a TabbyML model"):
        template("/models/qwen2.5-coder-0.5b-instruct-q4_k_m.gguf", "2023-09-01", "0.3.0")


# --- release candidates --------------------------------------------------------------------------------

def test_release_candidates_lacking_rules_of_their_release() -> None:
    names = {rule.name for rule in SERVER_RULES}
    from replay.editors.tabby.server import RC_LACKS

    assert all(lacks <= names for lacks in RC_LACKS.values())
    rc0, final = TabbyRules.for_version("0.3.0-rc.0"), TabbyRules.for_version("0.3.0")
    assert "\nimport" not in stop_words("python", rc0) and "\nimport" in stop_words("python", final)
    blank = {"prefix": "x = 1\n", "suffix": "  \n"}
    assert build_server_prompt(blank, "python", STARCODER, rc0).logged_prompt == "x = 1\n"  # no template
    assert build_server_prompt(blank, "python", STARCODER, final).logged_prompt == "<fim_prefix>x = 1\n<fim_suffix>  \n<fim_middle>"
    seg = {"prefix": "a", "suffix": "b", "declarations": [{"filepath": "d.py", "body": "d = 1"}]}
    assert build_server_prompt(seg, "python", STARCODER, TabbyRules.for_version("0.10.0-rc.0")).prefix == "a"
    assert build_server_prompt(seg, "python", STARCODER, TabbyRules.for_version("0.10.0-rc.3")).prefix.startswith("# Path")
    seg["relevant_snippets_from_changed_files"] = [{"filepath": "c.py", "body": "c = 2", "score": 1.0}]
    assert "c.py" not in build_server_prompt(seg, "python", STARCODER, TabbyRules.for_version("0.10.0-rc.2")).prefix
    assert "c.py" in build_server_prompt(seg, "python", STARCODER, TabbyRules.for_version("0.10.0-rc.3")).prefix
    rc11 = TabbyRules.for_version("0.11.0-rc.5")
    assert stop_words("r", rc11)[-1] == "\n" and " <EOT>" not in stop_words("python", rc11)
    assert "\nlibrary" in stop_words("r", TabbyRules.for_version("0.11.0"))
    assert "<fim_prefix>" not in stop_words("python", TabbyRules.for_version("0.12.0-rc.3"))
    assert "<fim_prefix>" in stop_words("python", TabbyRules.for_version("0.12.0"))
