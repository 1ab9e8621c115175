"""The Tabby server's prompt: snippets as comments, default suffix, CRLF -> LF, template,
the logged prompt, clipping, stop words.

TabbyML/tabby crates/tabby/src/services/completion.rs and completion/completion_prompt.rs,
crates/tabby-inference/src/code.rs and lib.rs, crates/tabby-common/src/languages.rs and
assets/languages.toml, crates/tabby-common/src/config.rs. Rules are versioned by Tabby release
(`git tag --contains` on the commit that changed each rule); `TabbyRules.for_version` gives the
rules in force in any release from 0.12.0 on (the first with today's default stop words),
newest by default.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from replay.editors.tabby.languages import get_language
from replay.editors.tabby.options import SERVER_DEFAULTS, TabbyInputError
from replay.editors.templates import FIM_TOKEN, Family
from replay.editors.versions import Release

NEWEST = "0.32.0"  # newest Tabby release tag in TabbyML/tabby (2026-01-26)
OLDEST = "0.12.0"


ClipMode = Literal["none", "chars", "bytes"]

# Tabby release -> the rule it introduced.
CRLF_TO_LF_SINCE = "0.20.0"  # completion.rs contains_crlf/override_prompt, commit 0e75cb296 (2024-10-28)
OPENED_SNIPPETS_SINCE = "0.19.0"  # completion_prompt.rs recently opened files, commit 42e1cedc1 (2024-10-05)
BYTE_CLIP_SINCE = "0.25.0"  # tabby-inference lib.rs clip_prompt, commit 863b78854 (2025-02-11)
# On main between commit a8a63b453 (2025-02-10) and 863b78854 (2025-02-11) code.rs kept the last
# max_input_length CHARACTERS; no release carried it. Profile "tabby@0.25.0-dev.20250210" replays it.
CHAR_CLIP_BUILD = "0.25.0-dev.20250210"


# Release dates (`git log -1 --format=%ad <tag>`) of the releases where a modelled rule changed,
# to pick the rules of a capture that carries a date but no version (Tabby logs no version).
RELEASE_DATES: dict[str, str] = {OLDEST: "2024-06-06", OPENED_SNIPPETS_SINCE: "2024-10-31",
                                 CRLF_TO_LF_SINCE: "2024-11-09", BYTE_CLIP_SINCE: "2025-02-20"}


@dataclass(frozen=True)
class TabbyRules:
    """The server rules in force in one Tabby release."""

    release: Release
    label: str
    crlf_to_lf: bool
    opened_snippets: bool
    clip: ClipMode

    @classmethod
    def for_version(cls, version: str | None = None) -> TabbyRules:
        label = (version or NEWEST).strip().removeprefix("tabby@").removeprefix("v")
        if label == CHAR_CLIP_BUILD:
            return cls(Release.parse("0.25.0"), label, True, True, "chars")
        release = Release.parse(label)
        if release < Release.parse(OLDEST):
            raise TabbyInputError(f"Tabby {release} is older than the oldest modelled release {OLDEST}")
        return cls(
            release=release,
            label=str(release),
            crlf_to_lf=release >= Release.parse(CRLF_TO_LF_SINCE),
            opened_snippets=release >= Release.parse(OPENED_SNIPPETS_SINCE),
            clip="bytes" if release >= Release.parse(BYTE_CLIP_SINCE) else "none",
        )

    @classmethod
    def for_date(cls, date: str) -> TabbyRules:
        """The rules of the newest modelled release out on `date` (ISO, UTC). Captures older than
        0.12.0 get its rules: the parts that shape the logged prompt (template, default suffix,
        snippet comments, no CRLF change) are the same back to v0.8.0 (completion_prompt.rs)."""
        out = [version for version, released in RELEASE_DATES.items() if released <= date[:10]]
        return cls.for_version(max(out, key=Release.parse) if out else OLDEST)


# crates/tabby-common/src/languages.rs DEFAULT stop words (unchanged since v0.12.0).
DEFAULT_STOP_WORDS: tuple[str, ...] = (
    "\n\n", "\n\n  ", "\n\n    ", "\n\n      ", "\n\n        ", "\n\n          ", "\n\n            ", "\n\n              ",
    "\n\n\t", "\n\n\t\t", "\n\n\t\t\t", "\n\n\t\t\t\t", "\n\n\t\t\t\t\t", "\n\n\t\t\t\t\t\t", "\n\n\t\t\t\t\t\t\t",
    "<fim_prefix>", "<fim_suffix>", "<fim_middle>", "<file_sep>",
    " <EOT>",
    "<|fim_prefix|>", "<|fim_suffix|>", "<|fim_middle|>", "<|file_separator|>",
    "<|system|>", "<|user|>", "<|end|>", "<|assistant|>",
)

SNIPPET_BUDGET = 768  # completion_prompt.rs collect: max_snippets_chars_in_prompt (bytes: String::len)


def stop_words(language: str, rules: TabbyRules) -> tuple[str, ...]:
    """languages.rs Language::get_stop_words: DEFAULT, "\\n" + line comment, "\\n" + each
    top-level keyword (duplicates dropped: the stop trie is a set)."""
    lang = get_language(language, rules.release)
    words = list(DEFAULT_STOP_WORDS)
    if lang.line_comment is not None:
        words.append("\n" + lang.line_comment)
    words.extend("\n" + keyword for keyword in lang.top_level_keywords)
    return tuple(dict.fromkeys(words))


def _select_snippets(segments: Mapping[str, Any], rules: TabbyRules) -> list[tuple[str, str]]:
    """completion_prompt.rs extract_snippets_from_segments: declarations, then changed-file
    snippets, then (since 0.19) opened-file snippets, within 768 bytes of body; within a group
    the selection stops at the first that does not fit."""
    groups = ["declarations", "relevant_snippets_from_changed_files"]
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
    comment = get_language(language, rules.release).line_comment
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
    last max_length characters; earlier releases did not clip (code.rs). 0 disables it."""
    if mode == "none" or max_length <= 0:
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


def _contains_crlf(segments: Mapping[str, Any]) -> bool:
    """completion.rs contains_crlf: only prefix and suffix are looked at."""
    return "\r\n" in segments.get("prefix", "") or "\r\n" in (segments.get("suffix") or "")


def build_server_prompt(segments: Mapping[str, Any], language: str | None, family: Family,
                        rules: TabbyRules, max_input_length: int = SERVER_DEFAULTS["completion.max_input_length"],
                        template_date: str | None = None) -> ServerPrompt:
    """completion.rs CompletionService::generate for a segments request (no code search: it
    needs an indexed repository matching git_url, which a replay does not have)."""
    lang = language or "unknown"  # completion.rs language_or_unknown
    prefix = build_prefix(lang, segments["prefix"], _select_snippets(segments, rules), rules)
    suffix = segments.get("suffix") or "\n"  # completion_prompt.rs get_default_suffix
    prompt = family.render(prefix, suffix, date=template_date)
    if rules.crlf_to_lf and _contains_crlf(segments):
        prompt = prompt.replace("\r\n", "\n")
        prefix, suffix = prefix.replace("\r\n", "\n"), suffix.replace("\r\n", "\n")
    return ServerPrompt(logged_prompt=prompt, engine_prompt=clip_prompt(prompt, max_input_length, rules.clip),
                        prefix=prefix, suffix=suffix)


def split_fim_prompt(prompt: str) -> tuple[str, str | None]:
    """crates/http-api-bindings/src/completion/mod.rs split_fim_prompt: splitn(2, "<|FIM|>")."""
    head, sep, tail = prompt.partition(FIM_TOKEN)
    return head, (tail if sep else None)


