"""The Tabby profile: what tabby-agent sends, and the prompt the Tabby server builds from it.

Two stages, each rule citing where it is in TabbyML/tabby:

Client (tabby-agent 1.5.0, the npm release; clients/tabby-agent/src/TabbyAgent.ts
`createSegments` and src/utils.ts `splitLines`, src/CompletionContext.ts, src/AgentConfig.ts at
commit 3c12cc135 "bump tabby-agent ... to 1.5.0"): the request body `{"language", "segments"}`.
The same line rules are in HEAD's clients/tabby-agent/src/codeCompletion/buildRequest.ts.

Server (crates/tabby/src/services/completion.rs and completion/completion_prompt.rs,
crates/tabby-inference/src/code.rs and lib.rs, crates/tabby-common/src/languages.rs and
assets/languages.toml, crates/tabby-common/src/config.rs): snippets as comments, the default
suffix, CRLF -> LF, the template, the logged prompt, clipping, stop words, max new tokens.

Server rules are versioned by Tabby release (`git tag --contains` on the commit that changed
each rule); `TabbyRules.for_version` gives the rules in force in any release from 0.12.0 on
(the first with today's default stop words), newest by default.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from replay.editors.tabby_languages import get_language
from replay.editors.templates import FIM_TOKEN, Family, family_for_model, get_family
from replay.editors.versions import Release
from replay.records import EditorInput, RenderedPrompt, Segments

AGENT_VERSION = "1.5.0"
NEWEST = "0.32.0"  # newest Tabby release tag in TabbyML/tabby (2026-01-26)
OLDEST = "0.12.0"

# --- client stage: tabby-agent ------------------------------------------------------------

# clients/tabby-agent/src/AgentConfig.ts defaultAgentConfig (1.5.0), keyed by the agent's own
# config paths (as in ~/.tabby-client/agent/config.toml). Only the keys createSegments reads.
AGENT_DEFAULTS: dict[str, Any] = {
    "completion.prompt.experimentalStripAutoClosingCharacters": False,
    "completion.prompt.maxPrefixLines": 20,
    "completion.prompt.maxSuffixLines": 20,
    "completion.prompt.clipboard.minChars": 3,
    "completion.prompt.clipboard.maxChars": 2000,
}

# Tabby server settings (crates/tabby-common/src/config.rs CompletionConfig, config.toml
# [completion]): max_input_length 1024 + 512, max_decoding_tokens 64 (hard-coded 64 before v0.15).
SERVER_DEFAULTS: dict[str, Any] = {
    "completion.max_input_length": 1024 + 512,
    "completion.max_decoding_tokens": 64,
}

# ECMAScript WhiteSpace + LineTerminator: what String.prototype.trim/trimEnd remove. Python's
# str.strip differs (it strips \x1c-\x1f and \x85, and keeps \ufeff).
_JS_WHITESPACE = "\t\n\v\f\r \u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a" \
                 "\u2028\u2029\u202f\u205f\u3000\ufeff"

# src/utils.ts splitLines: input.match(/.*(?:$|\r?\n)/g). In JS `.` excludes \n, \r, \u2028
# and \u2029, and `$` (no m flag) is the end of the input: text before a lone \r or a
# \u2028 that is not followed by a newline is not matched at all, so the agent drops it.
_JS_LINE = re.compile("[^\n\r\u2028\u2029]*(?:\\Z|\r?\n)")

# src/utils.ts regOnlyAutoClosingCloseChars = /^([)\]}>"'`]|(\/>))*$/g
_ONLY_AUTO_CLOSING = re.compile(r"(?:[)\]}>\"'`]|/>)*")


class TabbyInputError(ValueError):
    """An option or input the Tabby profile cannot use (bad key, bad value)."""


def split_lines(text: str) -> list[str]:
    """tabby-agent splitLines: pieces that keep their line endings, plus a last "" after a
    trailing "\\n" (so at column 0 the cursor line counts as an empty line)."""
    lines = [m for m in _JS_LINE.findall(text) if m]
    if lines and lines[-1].endswith("\n"):
        lines.append("")
    return lines


def js_trim_end(text: str) -> str:
    return text.rstrip(_JS_WHITESPACE)


def js_is_blank(text: str) -> bool:
    """src/utils.ts isBlank: input.trim().length === 0."""
    return text.strip(_JS_WHITESPACE) == ""


def _options(options: Mapping[str, Any] | None, defaults: Mapping[str, Any]) -> dict[str, Any]:
    """Merge dotted-key (or nested) overrides into defaults; unknown keys are errors, not ignored."""
    flat: dict[str, Any] = {}

    def walk(prefix: str, value: Any) -> None:
        if isinstance(value, Mapping):
            for key, sub in value.items():
                walk(f"{prefix}.{key}" if prefix else str(key), sub)
        else:
            flat[prefix] = value

    walk("", options or {})
    known = {**AGENT_DEFAULTS, **SERVER_DEFAULTS}
    for key, value in flat.items():
        if key not in known:
            raise TabbyInputError(f"unknown Tabby option {key!r} (known: {', '.join(sorted(known))})")
        if type(value) is not type(known[key]):
            raise TabbyInputError(f"Tabby option {key!r} must be {type(known[key]).__name__}, got {value!r}")
    return {key: flat.get(key, default) for key, default in defaults.items()}


def _node_path_relative(root: str, target: str) -> str:
    """Node's path.relative (POSIX): both are resolved against the cwd first, so URIs such as
    file:///ws work as paths ("file:/ws"); equal paths give ""."""
    cwd = "/__cwd__"
    rel = posixpath.relpath(posixpath.join(cwd, target), posixpath.join(cwd, root))
    return "" if rel == "." else rel


def build_request(inp: EditorInput, config: Mapping[str, Any] | None = None) -> dict[str, Any] | None:
    """The exact HTTP body tabby-agent 1.5.0 POSTs to /v1/completions, or None when it sends
    nothing (a blank prefix: TabbyAgent.ts createSegments returns null).

    Rules (TabbyAgent.ts createSegments, CompletionContext.ts):
    - prefix: the last maxPrefixLines (20) pieces of splitLines(text before the cursor), joined;
      suffix: the first maxSuffixLines (20) pieces of splitLines(text after it). CRLF is kept.
    - experimentalStripAutoClosingCharacters (off by default): when the rest of the cursor line,
      trimEnd'ed, is only auto-closing characters ``)]}>"'` `` or "/>" (mode "default"), the
      suffix is "\\n" + pieces 1..maxSuffixLines-1.
    - filepath only with a workspace: path.relative(workspace, document uri or path); snippets
      of kind "declaration"/"snippet" become `declarations`, "changed" become
      `relevant_snippets_from_changed_files` (score 1, the order given), "opened" become
      `relevant_snippets_from_recently_opened_files` (the field newer agents add); a
      "clipboard" snippet becomes `clipboard` when 3 <= trimmed length <= 2000.
    Options are the agent's config paths; `config` overrides `inp.options`.
    """
    opts = _options({**inp.options, **(config or {})}, AGENT_DEFAULTS)
    max_prefix = opts["completion.prompt.maxPrefixLines"]
    max_suffix = opts["completion.prompt.maxSuffixLines"]
    prefix_lines = split_lines(inp.prefix)
    suffix_lines = split_lines(inp.suffix)
    prefix = "".join(prefix_lines[max(len(prefix_lines) - max_prefix, 0):])
    line_end = _ONLY_AUTO_CLOSING.fullmatch(js_trim_end(suffix_lines[0] if suffix_lines else "")) is not None
    if opts["completion.prompt.experimentalStripAutoClosingCharacters"] and line_end:
        suffix = "\n" + "".join(suffix_lines[1:max_suffix])
    else:
        suffix = "".join(suffix_lines[:max_suffix])
    if js_is_blank(prefix):
        return None

    segments: dict[str, Any] = {"prefix": prefix, "suffix": suffix}
    root = inp.workspace
    if root and inp.filepath:
        segments["filepath"] = _node_path_relative(root, inp.filepath)

    def rel(path: str) -> str:
        return _node_path_relative(root, path) if root and path.startswith(root) else path

    declarations = [{"filepath": rel(s.filepath), "body": s.content} for s in inp.snippets if s.kind in ("declaration", "snippet")]
    changed = [{"filepath": rel(s.filepath), "body": s.content, "score": 1} for s in inp.snippets if s.kind == "changed"]
    opened = [{"filepath": rel(s.filepath), "body": s.content, "score": 1} for s in inp.snippets if s.kind == "opened"]
    if declarations:
        segments["declarations"] = declarations
    if changed:
        segments["relevant_snippets_from_changed_files"] = changed
    if opened:
        segments["relevant_snippets_from_recently_opened_files"] = opened
    for snippet in inp.snippets:
        if snippet.kind == "clipboard":
            clip = snippet.content.strip(_JS_WHITESPACE)
            if opts["completion.prompt.clipboard.minChars"] <= len(clip) <= opts["completion.prompt.clipboard.maxChars"]:
                segments["clipboard"] = clip
    body: dict[str, Any] = {"language": inp.language, "segments": segments}
    if inp.language is None:
        del body["language"]
    return body


# --- server stage ---------------------------------------------------------------------------

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


def resolve_family(model: str) -> Family:
    family = family_for_model(model)
    if family is None:
        raise TabbyInputError(f"no FIM template known for model {model!r}; name a registry model or a family")
    return family


def render(inp: EditorInput, model: str, version: str | None = None) -> RenderedPrompt:
    """The whole Tabby path for one cursor: agent body, server prompt, engine prompt, stops.

    `model` is a Tabby registry id, HF/GGUF name, a family name, or a Tabby HTTP kind
    (`openai/completion`: the `<|FIM|>` template, prefix and suffix sent apart: route "fim").
    prefix_sent/suffix_sent: what went into the template (route "raw"), or the two parts the
    HTTP engine sends (route "fim"). A blank prefix gives route "raw" with an empty text and no
    request, as the agent sends nothing.
    """
    rules = TabbyRules.for_version(version)
    family = _family(model)
    opts = _options(inp.options, SERVER_DEFAULTS)
    profile = f"tabby@{rules.label}"
    request = build_request(inp)
    max_new = opts["completion.max_decoding_tokens"]
    if request is None:
        return RenderedPrompt(profile=profile, family=family.name, text="", prefix_sent="", suffix_sent="",
                              route="raw", stop=(), max_new_tokens=max_new, request=None, item_id=inp.item_id)
    server = build_server_prompt(request["segments"], request.get("language"), family, rules,
                                 opts["completion.max_input_length"])
    stop = stop_words(request.get("language") or "unknown", rules)
    if family.name == "tabby-http":
        head, tail = split_fim_prompt(server.engine_prompt)
        return RenderedPrompt(profile=profile, family=family.name, text=server.engine_prompt, prefix_sent=head,
                              suffix_sent=tail or "", route="fim" if tail is not None else "raw", stop=stop,
                              max_new_tokens=max_new, request=request, item_id=inp.item_id,
                              logged_prompt=server.logged_prompt)
    return RenderedPrompt(profile=profile, family=family.name, text=server.engine_prompt, prefix_sent=server.prefix,
                          suffix_sent=server.suffix, route="raw", stop=stop, max_new_tokens=max_new,
                          request=request, item_id=inp.item_id, logged_prompt=server.logged_prompt)


def _family(model: str) -> Family:
    try:
        return get_family(model)
    except KeyError:
        return resolve_family(model)


def segments_to_request(segments: Segments) -> dict[str, Any]:
    """A logged Tabby `segments` (the event log keeps prefix, suffix and declarations) as the
    request segments the server built the prompt from."""
    out: dict[str, Any] = {"prefix": segments.prefix, "suffix": segments.suffix}
    declarations = [{"filepath": s.filepath, "body": s.content} for s in segments.snippets if s.kind == "declaration"]
    if declarations:
        out["declarations"] = declarations
    return out


# Leading sentinels of the families Tabby's registry uses, to tell a logged prompt's template
# when the capture does not name its model (Tabby's event log does not).
_LEADS: tuple[tuple[str, str], ...] = (
    ("<fim_prefix>", "starcoder"), ("<|fim_prefix|>", "qwen2.5-coder"), ("<PRE> ", "codellama"),
    ("<｜fim▁begin｜>", "deepseek-coder"), ("[SUFFIX]", "codestral"),
)


def guess_family(logged_prompt: str) -> Family:
    """The template family a logged prompt was built with, from its sentinels (the log names no
    model): the first sentinel found in the prompt; `<|FIM|>` for HTTP kinds; else no template."""
    hits = [(logged_prompt.find(lead), name) for lead, name in _LEADS if lead in logged_prompt]
    if hits:
        return get_family(min(hits)[1])
    if FIM_TOKEN in logged_prompt:
        return get_family("tabby-http")
    return get_family("none")


def logged_prompt(segments: Segments, language: str | None, model: str | None = None,
                  version: str | None = None, reference: str | None = None, date: str | None = None) -> str:
    """Rebuild the `prompt` Tabby logged (before clipping) from a capture's segments.

    The family comes from `model` when given, else from the sentinels of `reference` (the
    logged prompt being checked); the release decides CRLF handling. Snippets from changed or
    opened files are not in Tabby's log, so a prompt that had them cannot be rebuilt. Without
    a version the capture's `date` picks the release (TabbyRules.for_date), else the newest.
    """
    rules = TabbyRules.for_date(date) if version is None and date else TabbyRules.for_version(version)
    if model:
        family = _family(model)
    elif reference is not None:
        family = guess_family(reference)
    else:
        raise TabbyInputError("a model (or the logged prompt) is needed to know the template")
    return build_server_prompt(segments_to_request(segments), language, family, rules).logged_prompt
