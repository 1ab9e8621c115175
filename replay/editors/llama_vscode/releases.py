"""llama.vscode's code by tag: which release a version names, and whether a rule of the
extension's history is in it.

The 63 tags of ggml-org/llama.vscode (v0.0.1, 2025-01-21 .. v0.0.63, 2026-08-19; the 62nd is
spelled `v.0.0.62` in the repository, `v0.0.62` is taken for it too) are points of one main
line, so a rule introduced by a commit is in every tag from the first that contains it
(`git tag --contains`). Days are committer days in UTC of the tagged commit. The rules' commits
and tags were read from `git log -- src/completion.ts src/utils.ts src/llama-server.ts
src/extra-context.ts src/configuration.ts package.json` (before v0.0.9 the completion code is
in src/architect.ts). The tags and the rules are one rule book (replay/editors/rulebook.py).
"""

from __future__ import annotations

import re

from replay.editors.llama_server import releases as server_releases
from replay.editors.llama_server.releases import split_version
from replay.editors.rulebook import HistoryRow, InForce, Release, Rule, RuleBook, UnknownRelease, releases_of

REPO = "ggml-org/llama.vscode "

# (tag, tagged commit, committer day UTC), oldest first.
TAGS: tuple[tuple[str, str, str], ...] = (
    ("v0.0.1", "1c1d020c10", "2025-01-21"), ("v0.0.2", "57f7f382b6", "2025-01-22"), ("v0.0.3", "28de776454", "2025-01-22"),
    ("v0.0.4", "9df435cea1", "2025-01-22"), ("v0.0.5", "7e6877bd65", "2025-01-23"), ("v0.0.6", "9407bdd5d3", "2025-01-31"),
    ("v0.0.7", "0e5371a54a", "2025-02-08"), ("v0.0.8", "55fa4548fa", "2025-02-08"), ("v0.0.9", "74da5804ce", "2025-03-10"),
    ("v0.0.10", "9e8dd8c1eb", "2025-05-09"), ("v0.0.11", "80808eb276", "2025-05-16"), ("v0.0.12", "4747c96149", "2025-05-20"),
    ("v0.0.13", "9b96928448", "2025-08-01"), ("v0.0.14", "5a04707518", "2025-08-07"), ("v0.0.15", "5fd0456cdb", "2025-08-11"),
    ("v0.0.16", "e3d30477c0", "2025-08-14"), ("v0.0.17", "0263b05bc7", "2025-08-15"), ("v0.0.18", "d9dbe5da15", "2025-08-16"),
    ("v0.0.19", "81b06d701e", "2025-08-18"), ("v0.0.20", "4c0596f33f", "2025-08-18"), ("v0.0.21", "dccad050d9", "2025-08-27"),
    ("v0.0.22", "d6d981f72d", "2025-08-28"), ("v0.0.23", "37dbc4b80b", "2025-09-04"), ("v0.0.24", "8fdab1ea1f", "2025-09-09"),
    ("v0.0.25", "c3969de8c1", "2025-09-15"), ("v0.0.26", "d8e00dd478", "2025-09-18"), ("v0.0.27", "d452ea706f", "2025-09-21"),
    ("v0.0.28", "a412fa7e53", "2025-09-30"), ("v0.0.29", "91d7414aa0", "2025-10-01"), ("v0.0.30", "74a24f8a7e", "2025-10-02"),
    ("v0.0.31", "7195812083", "2025-10-02"), ("v0.0.32", "ff415359dd", "2025-10-05"), ("v0.0.33", "889c5f6d57", "2025-10-08"),
    ("v0.0.34", "fab5072a1e", "2025-10-14"), ("v0.0.35", "bbba713e02", "2025-10-27"), ("v0.0.36", "69f059e7aa", "2025-11-04"),
    ("v0.0.37", "28519f8c66", "2025-11-18"), ("v0.0.38", "b8d0e1af8d", "2025-12-30"), ("v0.0.39", "7fb8190433", "2025-12-31"),
    ("v0.0.40", "bdbe2e31d5", "2026-01-05"), ("v0.0.41", "9d48f91b19", "2026-01-07"), ("v0.0.42", "3ba0632316", "2026-01-18"),
    ("v0.0.43", "15539816d3", "2026-02-18"), ("v0.0.44", "f8158d9e48", "2026-03-02"), ("v0.0.45", "63c25e6dc9", "2026-03-04"),
    ("v0.0.46", "29f6c9973b", "2026-04-29"), ("v0.0.47", "79b90ef999", "2026-05-04"), ("v0.0.48", "fef23f324c", "2026-05-31"),
    ("v0.0.49", "4a4cb08196", "2026-06-19"), ("v0.0.50", "c9162f0b82", "2026-06-26"), ("v0.0.51", "89f1212ce9", "2026-06-28"),
    ("v0.0.52", "76a8e2e5f7", "2026-07-12"), ("v0.0.53", "b2bc781e25", "2026-07-16"), ("v0.0.54", "27103929f4", "2026-07-19"),
    ("v0.0.55", "fce1bc610e", "2026-07-24"), ("v0.0.56", "ec34ae5966", "2026-07-27"), ("v0.0.57", "e5c2fe614f", "2026-07-30"),
    ("v0.0.58", "5445aec10a", "2026-08-03"), ("v0.0.59", "4b072966a4", "2026-08-07"), ("v0.0.60", "e97c59d4b2", "2026-08-15"),
    ("v0.0.61", "d030da6cdc", "2026-08-17"), ("v.0.0.62", "73a66c768a", "2026-08-18"), ("v0.0.63", "3938fb3568", "2026-08-19"),
)
RELEASES = releases_of(TAGS)
NEWEST = TAGS[-1][0]
_PLAIN = {re.sub(r"^v\.", "v", tag): n for n, (tag, _, _) in enumerate(TAGS)}


def tag_index(tag: str) -> int:
    index = _PLAIN.get(re.sub(r"^v\.", "v", tag))
    if index is None:
        raise UnknownRelease(f"unknown llama.vscode version {tag!r} (tags v0.0.1 .. {NEWEST})")
    return index


def _tag(tag: str) -> Release:
    return RELEASES[tag_index(tag)]


_SERVER = REPO + "src/llama-server.ts"
_COMPLETION = REPO + "src/completion.ts"
_ARCHITECT = REPO + "src/architect.ts"

# The /infill body (createRequestPayload; getLlamaCompletion before v0.0.7).
N_INDENT_IF_SET = Rule("n_indent only when not 0, after the sampling defaults", "f2fc58306a", "2025-02-08", _SERVER,
                       "`...(nindent && {n_indent})` after `...defaultRequestParams`; before, n_indent always, after `stream`",
                       since=_tag("v0.0.7"))
LORA = Rule("lora when lora_completion is set", "e439630a8a", "2025-03-20", _SERVER,
            "`lora: [{id: 0, scale: 0.5}]` after t_max_predict_ms when the setting lora_completion is not blank",
            since=_tag("v0.0.10"))
MODEL = Rule("model (the completion model's aiModel, else the setting ai_model)", "61d1de7a07", "2025-08-07", _SERVER,
             "`model` last, unless blank (getComplModelProperties); ai_model defaults to google/gemini-2.5-flash from v0.0.13",
             since=_tag("v0.0.14"))
N_CMPL = Rule("n_cmpl = max_parallel_completions", "8e42441edc", "2026-01-05", _SERVER, "after n_predict (#148)",
              since=_tag("v0.0.40"))
ID_SLOT = Rule("id_slot 0 first", "0182f4fa00", "2026-02-08", _SERVER, "a fixed slot for FIM requests (#155)",
               since=_tag("v0.0.43"))
BLANK_LINE_PROMPT = Rule("prompt \"\" when the line before the cursor is only spaces and tabs", "de06d78dc8", "2025-03-21",
                         _COMPLETION, "isOnlySpacesOrTabs; the shown text loses that many leading spaces (#48)",
                         since=_tag("v0.0.10"))

# What is shown (getCompletionItems, updateSuggestion, removeLeadingSpaces).
RAW_SHOWN = Rule("the received text shown whole (trailing blank lines kept)", "bf1b056921", "2025-01-31", _ARCHITECT,
                 "c49ecfd stopped re-joining the trimmed lines and bf1b056 disabled updateSuggestion",
                 since=_tag("v0.0.6"), until=_tag("v0.0.7"))
UPDATE_SUGGESTION = Rule("with text after the cursor: strip it from the end of line 1, or keep line 1 only", "f3ceafbfbc",
                         "2025-02-04", _ARCHITECT, "updateSuggestion(suggestionLines, lineSuffix) (#22)", since=_tag("v0.0.7"))
TABS_ALWAYS_REMOVED = Rule("removeLeadingSpaces also removes every leading tab", "019f8a52b5", "2025-05-27", _COMPLETION,
                           "`i < n && str[i] === ' ' || str[i] === '\\t'` (#73): the tab test ignores the count",
                           since=_tag("v0.0.13"))
CHARACTERS_AS_COMPLETIONS = Rule("a single answer is iterated character by character", "8e42441edc", "2026-01-05",
                                 _COMPLETION, "getComplFromContent returned `content` itself, not [content]; fixed by "
                                 "a035f96 (#150)", since=_tag("v0.0.40"), until=_tag("v0.0.41"))

# The ring buffer (src/extra-context.ts, src/architect.ts).
YANK_DELAY = Rule("a copied or cut selection is picked 1000 ms later", "f4d20d7786", "2025-01-29", _ARCHITECT,
                  "setTimeout(…, 1000) in the copy/cut intercepts (#14); before, 0 ms", since=_tag("v0.0.6"))

RING_NEEDS_EDITOR = Rule("the ring is not updated while no text editor is active", "4e4a5ccb68", "2025-05-20",
                         REPO + "src/extra-context.ts",
                         "periodicRingBufferUpdate returns without `window.activeTextEditor` (#67)", since=_tag("v0.0.12"))

RULES: tuple[Rule, ...] = (N_INDENT_IF_SET, LORA, MODEL, N_CMPL, ID_SLOT, BLANK_LINE_PROMPT, RAW_SHOWN,
                           UPDATE_SUGGESTION, TABS_ALWAYS_REMOVED, CHARACTERS_AS_COMPLETIONS, YANK_DELAY, RING_NEEDS_EDITOR)
BOOK = RuleBook("llama.vscode", RELEASES, RULES)


def describe(rule: Rule) -> str:
    """A rule as `fimreplay editors llama.vscode --history` words it: name, what, where."""
    return f"{rule.name}: {rule.summary} ({rule.source})"


def release(version: str | None) -> Release:
    """The tag `version` names: `v0.0.40` or `0.0.40`, or a day `2025-06-01` (the newest tag of
    that UTC day or before: what a user had then, for a capture that names no version); None: the
    newest."""
    text = (version or "").strip()
    if not text:
        return RELEASES[-1]
    if re.fullmatch(r"\d{4}-\d{2}-\d{2}", text):
        found = BOOK.on_day(text)
        if found is None:
            raise UnknownRelease(f"no llama.vscode tag on or before {text} (the first, v0.0.1, is of {TAGS[0][2]})")
        return found
    return RELEASES[tag_index(text if text.startswith("v") else "v" + text)]


def in_force(version: str | None) -> tuple[InForce, InForce]:
    """The rules of both halves at `version` (`CLIENT,server=VERSION`, either part optional: the
    newest): the client's from its book, llama-server's from the server's."""
    client, server = split_version(version)
    rel = release(client)
    return BOOK.in_force_at(rel, f"llama.vscode {rel.tag} ({rel.day})"), server_releases.in_force(server)


def history() -> list[HistoryRow]:
    """The client's rules with llama-server's, the half both llama.cpp clients share, by day."""
    return sorted(BOOK.history(describe) + server_releases.history(), key=lambda row: row.date)
