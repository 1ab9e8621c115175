"""The Tabby server's prompt: snippets as comments, default suffix, CRLF -> LF, template,
the logged prompt, clipping, stop words, by Tabby release from 0.0.1 on.

TabbyML/tabby crates/tabby/src/services/completion.rs and completion/completion_prompt.rs
(before 0.6.0 crates/tabby/src/serve/completions.rs and completions/prompt.rs),
crates/tabby-inference/src/code.rs, lib.rs and decoding.rs, crates/tabby-common/src/languages.rs
and assets/languages.toml (before 0.4.0 crates/tabby/src/serve/completions/languages.rs),
crates/tabby-common/src/config.rs. Rules are versioned by Tabby release (`git tag --contains` on
the commit that changed each rule; server_rules.py lists them): `TabbyRules.for_version` gives the
rules in force in any release from 0.0.1 on (the first release; the event log it writes dates
from commit f3b37b253, 2023-05-30, before any release), newest by default, and in its release
candidates (RC_LACKS); `TabbyRules.for_date` those of the newest tag out on a day
(server_releases.py). Templates by release and day: registry.py.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from replay.editors.rulebook import UnknownRelease
from replay.editors.tabby import server_releases
from replay.editors.tabby.languages import TOML_SINCE, get_language, legacy_stop_words
from replay.editors.tabby.options import SERVER_DEFAULTS
from replay.editors.templates import FIM_TOKEN, Family
from replay.editors.versions import Release

NEWEST = "0.32.0"  # newest Tabby release tag in TabbyML/tabby (2026-01-26)
OLDEST = "0.0.1"  # the first release (2023-08-31)


ClipMode = Literal["none", "tokens", "chars", "bytes"]

# Tabby release -> the rule it introduced.
DEFAULT_SUFFIX_SINCE = "0.1.0"  # prompt.rs get_default_suffix: "" -> "\n" too, commit d85cd8113 (2023-09-05)
STOPS_SEE_PROMPT_SINCE = "0.2.0"  # decoding.rs seeded with the prompt, commit 486e50707 (2023-09-29)
TOKEN_CLIP_SINCE = "0.1.0"  # engine keeps the last 1536 tokens, commit 87b6b3412 (2023-09-08)
SEGMENTS_LOGGED_SINCE = "0.3.0"  # event.rs Completion.segments, commit 1ad871e1f (2023-10-12)
REGISTRY_TEMPLATE_SINCE = "0.5.0"  # tabby-common registry.rs, commit 0e4a2d2a1 (2023-11-02)
SEGMENT_SNIPPETS_SINCE = "0.10.0"  # declarations 938797138 (2024-04-08), changed files 9af64efcb (2024-04-11)
DECODING_64_SINCE = "0.11.0"  # max_decoding_tokens 128 -> 64, commit b76a10144 (2024-04-28)
NO_TOKEN_CLIP_SINCE = "0.12.0"  # llama.cpp's server binary instead of in-process bindings, commit b674eb792 (2024-05-13)
OPENED_SNIPPETS_SINCE = "0.19.0"  # completion_prompt.rs recently opened files, commit 42e1cedc1 (2024-10-05)
CRLF_TO_LF_SINCE = "0.20.0"  # completion.rs contains_crlf/override_prompt, commit 0e75cb296 (2024-10-28)
BYTE_CLIP_SINCE = "0.25.0"  # tabby-inference lib.rs clip_prompt, commit 863b78854 (2025-02-11)
# On main between commit a8a63b453 (2025-02-10) and 863b78854 (2025-02-11) code.rs kept the last
# max_input_length CHARACTERS; no release carried it. Profile "tabby@0.25.0-dev.20250210" replays it.
CHAR_CLIP_BUILD = "0.25.0-dev.20250210"
# Stop-word defaults (languages.rs DEFAULT): model sentinels joined the list.
SENTINEL_STOPS_SINCE = "0.11.0"  # " <EOT>", CodeGemma and ChatML sentinels, commit d0e813bc1 (2024-05-04)
STARCODER_STOPS_SINCE = "0.12.0"  # StarCoder sentinels, commit 268fa56d8 (2024-05-31)
STOPS_DEFAULT_FIRST_SINCE = "0.11.0"  # DEFAULT before the language's words, commit 9c96e5fa8 (2024-04-22)

MAX_INPUT_TOKENS = 1024 + 512  # completions.rs / completion.rs .max_input_length(1024 + 512)


# Day of every final release (`git log -1 --format=%ad <tag>`), from server_releases.py.
RELEASE_DATES: dict[str, str] = {t.tag: t.day for t in server_releases.finals()}

# Release candidates whose rules differ from their release's: the SERVER_RULES of that release
# whose commit the candidate does not contain (`git merge-base --is-ancestor <commit> <tag>`), and
# the one rule only candidates had. 0.3.0-rc.0/rc.1 (2023-10-13) built the prompt with commit
# 1ad871e1f (2023-10-12): a missing or blank (trim_end) suffix gave no template at all, the prompt
# being the prefix; 0.3.0 itself went back to the "\n" suffix (commit 00c918548, 2023-10-14).
RC_LACKS: dict[str, frozenset[str]] = {
    **dict.fromkeys(("0.3.0-rc.0", "0.3.0-rc.1"), frozenset({"stop-words-revisited"})),
    "0.10.0-rc.0": frozenset({"segment-snippets", "changed-file-snippets"}),
    **dict.fromkeys(("0.10.0-rc.1", "0.10.0-rc.2"), frozenset({"changed-file-snippets"})),
    **dict.fromkeys((f"0.11.0-rc.{n}" for n in range(6)), frozenset({"languages-dart-r", "sentinel-stop-words"})),
    **dict.fromkeys((f"0.12.0-rc.{n}" for n in range(4)), frozenset({"starcoder-stop-words"})),
}
BLANK_SUFFIX_PREFIX_ONLY = frozenset({"0.3.0-rc.0", "0.3.0-rc.1"})


@dataclass(frozen=True)
class TabbyRules:
    """The server rules in force in one Tabby release."""

    release: Release
    label: str
    crlf_to_lf: bool
    opened_snippets: bool
    clip: ClipMode
    segment_snippets: bool = True  # declarations + changed-file snippets from the request (0.10.0)
    empty_suffix_newline: bool = True  # "" -> "\n" as well as a missing suffix (0.1.0)
    segments_logged: bool = True  # the event log has segments to rebuild from (0.3.0)
    template_source: Literal["model-repo", "registry"] = "registry"
    max_decoding_tokens: int = 64  # the server's built-in value (later config.rs [completion], options.py)
    stops_see_prompt: bool = True  # stop words matched on prompt + output (0.2.0), else output alone
    lacks: frozenset[str] = frozenset()  # SERVER_RULES names a release candidate did not have yet
    blank_suffix_prefix_only: bool = False  # 0.3.0-rc.0/rc.1: blank suffix -> no template

    def has(self, rule: str) -> bool:
        """False for a rule of this release that its candidate lacked (RC_LACKS)."""
        return rule not in self.lacks

    @classmethod
    def for_version(cls, version: str | None = None) -> TabbyRules:
        label = (version or NEWEST).strip().removeprefix("tabby@").removeprefix("v")
        if label == CHAR_CLIP_BUILD:
            return cls(Release.parse("0.25.0"), label, True, True, "chars")
        tag = server_releases.find(label) if "-" in label else None
        release = server_releases.semver(tag) if tag is not None else Release.parse(label)
        lacks: frozenset[str] = frozenset()
        if tag is not None:
            label = tag.tag  # a release candidate: the rules of the release it precedes, but RC_LACKS
            lacks = RC_LACKS.get(label, frozenset())
        elif release < Release.parse(OLDEST):
            raise UnknownRelease(f"Tabby {release} is older than the oldest modelled release {OLDEST}")
        else:
            label = str(release)

        def since(first: str) -> bool:
            return release >= Release.parse(first)

        if since(BYTE_CLIP_SINCE):
            clip: ClipMode = "bytes"
        elif since(TOKEN_CLIP_SINCE) and not since(NO_TOKEN_CLIP_SINCE):
            clip = "tokens"
        else:
            clip = "none"
        return cls(
            release=release,
            label=label,
            crlf_to_lf=since(CRLF_TO_LF_SINCE),
            opened_snippets=since(OPENED_SNIPPETS_SINCE),
            clip=clip,
            segment_snippets=since(SEGMENT_SNIPPETS_SINCE) and "segment-snippets" not in lacks,
            empty_suffix_newline=since(DEFAULT_SUFFIX_SINCE),
            segments_logged=since(SEGMENTS_LOGGED_SINCE),
            template_source="registry" if since(REGISTRY_TEMPLATE_SINCE) else "model-repo",
            max_decoding_tokens=64 if since(DECODING_64_SINCE) else 128,
            stops_see_prompt=since(STOPS_SEE_PROMPT_SINCE),
            lacks=lacks,
            blank_suffix_prefix_only=label in BLANK_SUFFIX_PREFIX_ONLY,
        )

    @classmethod
    def for_date(cls, date: str) -> TabbyRules:
        """The rules of the newest release tag out on `date` (ISO, UTC), a release candidate
        standing for its release (server_releases.newest_on). Before the first tag (2023-08-30)
        servers were builds of main; no event log of theirs carries segments (logged from 0.3.0
        on), and they get the rules of the first release, 0.0.1."""
        tag = server_releases.newest_on(date)
        return cls.for_version(tag.tag if tag is not None else OLDEST)

    @property
    def max_input_tokens(self) -> int | None:
        """The engine's own truncation to the last tokens (0.1.0 .. 0.11.x), else None."""
        return MAX_INPUT_TOKENS if self.clip == "tokens" else None


# crates/tabby-common/src/languages.rs DEFAULT stop words (unchanged since v0.12.0). The first 15
# are the DEFAULT of every release before 0.11.0; 0.11.0 added " <EOT>" and the CodeGemma and ChatML
# sentinels (commit d0e813bc1), 0.12.0 the StarCoder ones (commit 268fa56d8).
DEFAULT_STOP_WORDS: tuple[str, ...] = (
    "\n\n", "\n\n  ", "\n\n    ", "\n\n      ", "\n\n        ", "\n\n          ", "\n\n            ", "\n\n              ",
    "\n\n\t", "\n\n\t\t", "\n\n\t\t\t", "\n\n\t\t\t\t", "\n\n\t\t\t\t\t", "\n\n\t\t\t\t\t\t", "\n\n\t\t\t\t\t\t\t",
    "<fim_prefix>", "<fim_suffix>", "<fim_middle>", "<file_sep>",
    " <EOT>",
    "<|fim_prefix|>", "<|fim_suffix|>", "<|fim_middle|>", "<|file_separator|>",
    "<|system|>", "<|user|>", "<|end|>", "<|assistant|>",
)
_STARCODER_STOPS = ("<fim_prefix>", "<fim_suffix>", "<fim_middle>", "<file_sep>")

SNIPPET_BUDGET = 768  # completion_prompt.rs collect: max_snippets_chars_in_prompt (bytes: String::len)


def default_stop_words(rules: TabbyRules) -> tuple[str, ...]:
    """languages.rs DEFAULT as of the release (see DEFAULT_STOP_WORDS)."""
    if rules.release >= Release.parse(STARCODER_STOPS_SINCE) and rules.has("starcoder-stop-words"):
        return DEFAULT_STOP_WORDS
    if rules.release >= Release.parse(SENTINEL_STOPS_SINCE) and rules.has("sentinel-stop-words"):
        return tuple(w for w in DEFAULT_STOP_WORDS if w not in _STARCODER_STOPS)
    return DEFAULT_STOP_WORDS[:15]


def stop_words(language: str, rules: TabbyRules) -> tuple[str, ...]:
    """languages.rs Language::get_stop_words: DEFAULT, "\\n" + line comment, "\\n" + each
    top-level keyword (duplicates dropped: the stop trie is a set). 0.4.0 .. 0.10.x put the
    language's words first and DEFAULT last, with every language (unknown: "") having a line
    comment; before 0.4.0 a fixed list per language id (languages.legacy_stop_words)."""
    if rules.release < Release.parse(TOML_SINCE):
        # 0.3.0's candidates still had the lists of 0.2.x
        era = rules.release if rules.has("stop-words-revisited") else Release.parse("0.2.2")
        return legacy_stop_words(language, era)
    lang = get_language(language, rules.release, rules.lacks)
    own = ([] if lang.line_comment is None else ["\n" + lang.line_comment]) + ["\n" + k for k in lang.top_level_keywords]
    defaults = list(default_stop_words(rules))
    words = defaults + own if rules.release >= Release.parse(STOPS_DEFAULT_FIRST_SINCE) else own + defaults
    return tuple(dict.fromkeys(words))


def _select_snippets(segments: Mapping[str, Any], rules: TabbyRules) -> list[tuple[str, str]]:
    """completion_prompt.rs extract_snippets_from_segments: declarations, then changed-file
    snippets, then (since 0.19) opened-file snippets, within 768 bytes of body; within a group
    the selection stops at the first that does not fit. Before 0.10.0 the server read no
    snippets from the request (only its own code index gave any)."""
    if not rules.segment_snippets:
        return []
    groups = ["declarations"]
    if rules.has("changed-file-snippets"):
        groups.append("relevant_snippets_from_changed_files")
    if rules.opened_snippets:
        groups.append("relevant_snippets_from_recently_opened_files")
    used = 0
    chosen: list[tuple[str, str]] = []
    for group in groups:
        for snippet in segments.get(group) or ():
            size = len(snippet["body"].encode("utf-8"))
            if used + size > SNIPPET_BUDGET:
                break
            used += size
            chosen.append((snippet["filepath"], snippet["body"]))
    return chosen


def _rust_lines(text: str) -> list[str]:
    """Rust str::lines: split on "\\n", drop one "\\r" before it, no empty last line."""
    if not text:
        return []
    parts = text.split("\n")
    if parts[-1] == "":
        parts.pop()
    return [p[:-1] if p.endswith("\r") else p for p in parts]


def build_prefix(language: str, prefix: str, snippets: list[tuple[str, str]], rules: TabbyRules) -> str:
    """completion_prompt.rs build_prefix: each snippet as `Path: {filepath}` then its lines,
    snippets separated by an empty line, every line commented (`{c} {line}`, `{c}` alone for an
    empty one), joined by "\\n", then "\\n" and the prefix. A language without a line comment
    gets no snippets; an unknown language's comment is "" (lines become " Path: ...")."""
    comment = get_language(language, rules.release, rules.lacks).line_comment
    if not snippets or comment is None:
        return prefix
    lines: list[str] = []
    for index, (filepath, body) in enumerate(snippets):
        lines.append(f"Path: {filepath}")
        lines.extend(_rust_lines(body))
        if index < len(snippets) - 1:
            lines.append("")
    commented = [comment if not line else f"{comment} {line}" for line in lines]
    return "\n".join(commented) + "\n" + prefix


def clip_prompt(prompt: str, max_length: int, mode: ClipMode) -> str:
    """crates/tabby-inference/src/lib.rs clip_prompt: keep the LAST max_length bytes, moving
    the cut forward to a character boundary (bytes, since 0.25.0); the 2025-02-10 build kept the
    last max_length characters; 0.12.0 .. 0.24.x did not clip (code.rs). 0.1.0 .. 0.11.x left the
    text whole and the engine kept the last max_length TOKENS ("tokens": returned unchanged here,
    as cutting needs the model's tokenizer; ServerPrompt.engine_token_limit carries the limit).
    0 disables it."""
    if mode in ("none", "tokens") or max_length <= 0:
        return prompt
    if mode == "chars":
        return prompt[-max_length:] if len(prompt) > max_length else prompt
    data = prompt.encode("utf-8")
    if len(data) <= max_length:
        return prompt
    start = len(data) - max_length
    while start < len(data) and (data[start] & 0xC0) == 0x80:
        start += 1
    return data[start:].decode("utf-8")


@dataclass(frozen=True)
class ServerPrompt:
    """What the Tabby server made of one request."""

    logged_prompt: str  # the event log's `prompt`: after snippets and CRLF -> LF, before clipping
    engine_prompt: str  # after clipping: what the engine gets (split on <|FIM|> for HTTP kinds)
    prefix: str  # the prefix that went into the template (snippet comments included)
    suffix: str  # the suffix that went into the template ("\n" when empty)
    engine_token_limit: int | None = None  # 0.1.0 .. 0.11.x: the engine kept only this many last tokens


def _contains_crlf(segments: Mapping[str, Any]) -> bool:
    """completion.rs contains_crlf: only prefix and suffix are looked at."""
    return "\r\n" in segments.get("prefix", "") or "\r\n" in (segments.get("suffix") or "")


def build_server_prompt(segments: Mapping[str, Any], language: str | None, family: Family,
                        rules: TabbyRules, max_input_length: int = SERVER_DEFAULTS["completion.max_input_length"]
                        ) -> ServerPrompt:
    """completion.rs CompletionService::generate for a segments request (no code search: it
    needs an indexed repository matching git_url, which a replay does not have). `family` is
    the model's template as the server had it (profile.py picks it: the registry entry of that
    exact model on the server's day, registry.py, else the family's own)."""
    lang = language or "unknown"  # completion.rs language_or_unknown
    prefix = build_prefix(lang, segments["prefix"], _select_snippets(segments, rules), rules)
    suffix = segments.get("suffix")
    if rules.empty_suffix_newline:
        suffix = suffix or "\n"  # completion_prompt.rs get_default_suffix
    elif suffix is None:
        suffix = "\n"  # 0.0.1 prompt.rs build: only a missing suffix became "\n"
    if rules.blank_suffix_prefix_only and not suffix.rstrip():
        prompt = prefix  # 0.3.0-rc.0/rc.1 prompt.rs build_prompt(prefix, None)
    else:
        prompt = family.render(prefix, suffix)
    if rules.crlf_to_lf and _contains_crlf(segments):
        prompt = prompt.replace("\r\n", "\n")
        prefix, suffix = prefix.replace("\r\n", "\n"), suffix.replace("\r\n", "\n")
    return ServerPrompt(logged_prompt=prompt, engine_prompt=clip_prompt(prompt, max_input_length, rules.clip),
                        prefix=prefix, suffix=suffix,
                        engine_token_limit=max_input_length if rules.clip == "tokens" and max_input_length > 0 else None)


def split_fim_prompt(prompt: str) -> tuple[str, str | None]:
    """crates/http-api-bindings/src/completion/mod.rs split_fim_prompt: splitn(2, "<|FIM|>")."""
    head, sep, tail = prompt.partition(FIM_TOKEN)
    return head, (tail if sep else None)
