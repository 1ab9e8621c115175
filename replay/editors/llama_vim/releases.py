"""llama.vim's releases: the plugin has no tags, so a version is a commit (its short sha) or a day
(the plugin as it stood at the end of that day), and each rule holds from the commit that changed it.

Every change below was read in ggml-org/llama.vim autoload/llama.vim at the commit it names (the
body built in `llama#fim`, the context in `s:fim_ctx_local`, the chunks in `s:pick_chunk` /
`s:ring_update` / `s:chunk_sim`, what is shown in `s:fim_render`, the settings in
`s:default_config`). Commits that touched only the README, the docs, the instruction mode or the
debug pane change nothing here and only count as versions a user may name. Every commit is a
release of the plugin's rule book (replay/editors/rulebook.py), each rule in force from its commit.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from replay.editors.llama_server import releases as server_releases
from replay.editors.llama_server.releases import split_version
from replay.editors.rulebook import HistoryRow, InForce, Rule, RuleBook, UnknownRelease, releases_of

REPO = "ggml-org/llama.vim"
SOURCE = "ggml-org/llama.vim autoload/llama.vim"

# Every commit of the repository, oldest first (short sha, commit day, UTC).
COMMITS: tuple[tuple[str, str], ...] = (
    ("292b5a4", "2024-10-28"), ("f4d2ba2", "2024-10-28"), ("e06ff07", "2024-10-28"), ("7d33590", "2024-10-28"),
    ("206e98f", "2024-10-28"), ("bf10cde", "2024-10-28"), ("b6133ed", "2024-10-28"), ("d4e5bbb", "2024-10-29"),
    ("f075ffa", "2024-10-30"), ("9da966d", "2024-10-31"), ("e0ec223", "2024-10-31"), ("025f80d", "2024-11-02"),
    ("3666916", "2024-11-02"), ("2558c96", "2024-11-02"), ("6776979", "2024-11-02"), ("6f444c2", "2024-11-05"),
    ("16b41d8", "2024-11-15"), ("7beb70a", "2024-11-15"), ("a4b3ef2", "2024-11-17"), ("f25519d", "2024-11-19"),
    ("22f1ff9", "2024-12-16"), ("3a08e7d", "2024-12-30"), ("d13d932", "2025-01-04"), ("a0ca488", "2025-01-04"),
    ("3cc84b0", "2025-01-06"), ("3ffd252", "2025-01-10"), ("9f5cadd", "2025-01-15"), ("69e674d", "2025-01-22"),
    ("bd3af1b", "2025-01-22"), ("143fe91", "2025-01-23"), ("ed34b87", "2025-01-24"), ("81e6802", "2025-01-24"),
    ("70970eb", "2025-01-25"), ("b7e19d9", "2025-01-25"), ("c3d3cf9", "2025-01-25"), ("25a8082", "2025-01-26"),
    ("bf912b1", "2025-01-26"), ("dfb0fb9", "2025-01-26"), ("a0dd85c", "2025-01-27"), ("f2275c5", "2025-01-29"),
    ("9cf5ed3", "2025-01-30"), ("163c87d", "2025-02-07"), ("dd1c20f", "2025-02-12"), ("af312c6", "2025-02-13"),
    ("72c2ee2", "2025-02-13"), ("8911be7", "2025-02-20"), ("3fb05d3", "2025-03-02"), ("2d5a1fe", "2025-03-10"),
    ("057225f", "2025-03-10"), ("1175c8d", "2025-03-10"), ("17c49b3", "2025-03-10"), ("7ed2617", "2025-03-10"),
    ("5bc3598", "2025-03-11"), ("1f0809c", "2025-03-14"), ("dafa50a", "2025-03-14"), ("ddb92f0", "2025-05-07"),
    ("a3dfb42", "2025-05-11"), ("abbc684", "2025-05-22"), ("e67fcfc", "2025-06-10"), ("3c1248c", "2025-06-11"),
    ("f886bad", "2025-07-03"), ("ec87086", "2025-08-20"), ("d1961ad", "2025-08-20"), ("1b4a03f", "2025-08-20"),
    ("7202297", "2025-08-26"), ("6aff02a", "2025-08-29"), ("c31cd09", "2025-08-31"), ("12f9455", "2025-10-16"),
    ("59d3e7a", "2025-10-16"), ("ade8966", "2025-10-28"), ("8e7d1d0", "2025-12-27"), ("85952a6", "2026-01-11"),
    ("699a088", "2026-01-12"), ("c0deb6e", "2026-01-19"), ("85ec507", "2026-01-21"), ("4cdf1dd", "2026-01-24"),
    ("8087476", "2026-01-24"), ("0a811fb", "2026-01-26"), ("aaf3ca4", "2026-01-26"), ("a2eb12c", "2026-01-27"),
    ("9cd0bbb", "2026-01-28"), ("2972544", "2026-01-29"), ("bc7743b", "2026-01-29"), ("542fd3a", "2026-01-31"),
    ("a1c8e6e", "2026-01-31"),
)


@dataclass(frozen=True)
class Rules:
    """What llama.vim does at one commit, as far as a replay can see it."""

    sha: str
    day: str
    defaults: dict[str, Any] = field(default_factory=dict)  # s:default_config (the settings a body reads)
    renames: dict[str, str] = field(default_factory=dict)  # deprecated setting names (s:renames)
    top_p: float = 0.99
    response_fields: bool = False  # `response_fields` in the body
    blank_whitespace_line: bool = False  # a whitespace-only line: prompt "", rest of line "", n_indent 0
    indent_of_line: bool = False  # n_indent: the whole line's indentation (before: the text before the cursor)
    first_predict_ms: int | None = None  # t_max_predict_ms of the first request (the follow-up takes the setting)
    stop: bool = False  # `stop`: the setting stop_strings
    model_setting: str | None = None  # the setting sent as `model` (always sent, "" by default)
    id_slot: bool = False  # `id_slot`: 0
    evict_at_request: bool = False  # ring chunks > 0.5 similar to a window around the cursor dropped before sending
    token_dice: bool = False  # chunk similarity: token Dice (before: lines of one found in the other)
    trim_lead: bool = False  # shown: on a whitespace-only line the suggestion's indentation is trimmed to the line's
    shown_from_line: bool = False  # shown: the text before/after the cursor re-read from the (trimmed) line
    blank_not_accepted: bool = False  # shown: a suggestion of whitespace only cannot be accepted


RELEASES = releases_of((sha, sha, day) for sha, day in COMMITS)
_COMMIT = {release.tag: release for release in RELEASES}

_FIRST = {"n_prefix": 256, "n_suffix": 64, "n_predict": 128, "t_max_prompt_ms": 500, "t_max_predict_ms": 3000,
          "show_info": 2, "auto_fim": True, "max_line_suffix": 8, "ring_n_chunks": 64, "ring_chunk_size": 64,
          "ring_scope": 1024, "ring_update_ms": 1000, "endpoint": "http://127.0.0.1:8012/infill"}


FIRST_PREDICT_MS = 250  # t_max_predict_ms of the first request at a cursor since 1175c8d (`llama#fim`)


def _change(name: str, sha: str, summary: str, **sets: Any) -> Rule:
    """One rule of the plugin, in force from the commit `sha` that changed it. `sets` names the
    fields of Rules it sets; `defaults` the s:default_config entries it adds or changes,
    `renames` the deprecated setting names it adds (a default under an old name moves to the
    new one)."""
    since = _COMMIT[sha]
    return Rule(name, sha, since.day, SOURCE, summary, since=since, sets=sets)


# Applied in commit order on top of the rules before it.
RULES: tuple[Rule, ...] = (
    _change("the first body", "292b5a4", "moved from llama.cpp examples/llama.vim: the body input_prefix/input_suffix/"
            "input_extra/prompt, n_predict, n_indent, top_k 40, top_p 0.99, samplers, stream, cache_prompt, t_max_*_ms",
            defaults=_FIRST),
    _change("smaller ring, shorter predict", "f4d2ba2", "ring_n_chunks 64 -> 16, t_max_predict_ms 3000 -> 2000",
            defaults={"ring_n_chunks": 16, "t_max_predict_ms": 2000}),
    _change("api_key setting", "b6133ed", "api_key (an Authorization header, not in the body)", defaults={"api_key": ""}),
    _change("shorter predict time", "a4b3ef2", "t_max_predict_ms 2000 -> 500 (#12)", defaults={"t_max_predict_ms": 500}),
    _change("cache size setting", "3a08e7d", "max_cache_keys (#15)", defaults={"max_cache_keys": 250}),
    _change("only the fields it reads", "9f5cadd", "response_fields in the body (#24)", response_fields=True),
    _change("whitespace-only line", "2d5a1fe", "a whitespace-only line sends prompt \"\", no rest of line and n_indent 0; "
            "the shown suggestion's indentation is trimmed to the line's; t_max_predict_ms 500 -> 1500 (#51)",
            blank_whitespace_line=True, trim_lead=True, defaults={"t_max_predict_ms": 1500}),
    _change("lower top_p, line re-read", "057225f", "top_p 0.99 -> 0.90; the shown text re-reads the line (#52)", top_p=0.90,
            shown_from_line=True),
    _change("speculative follow-up", "1175c8d", "speculative follow-up: the first request t_max_predict_ms 250, the "
            "follow-up the setting (1500 -> 1000); n_indent of the whole line; ring chunks similar to the cursor's window "
            "dropped before sending; a whitespace-only suggestion cannot be accepted (#53)",
            first_predict_ms=FIRST_PREDICT_MS, indent_of_line=True, evict_at_request=True, blank_not_accepted=True,
            defaults={"t_max_predict_ms": 1000}),
    _change("stop strings", "ddb92f0", "stop = the setting stop_strings (#65)", stop=True, defaults={"stop_strings": []}),
    _change("no eviction at request", "ec87086", "ring chunks are no longer dropped for being similar to the cursor's "
            "window (#79)", evict_at_request=False),
    _change("enable at startup", "7202297", "enable_at_startup (#80)", defaults={"enable_at_startup": True}),
    _change("model sent", "c31cd09", "`model` = the setting model, always sent (\"\" by default: the test is len() of a string "
            "literal) (#81)", model_setting="model", defaults={"model": ""}),
    _change("fixed slot", "8e7d1d0", "id_slot 0 (#93)", id_slot=True),
    _change("keymaps renamed", "699a088", "keymap settings renamed (keymap_trigger -> keymap_fim_trigger, ...) (#97)",
            renames={"keymap_trigger": "keymap_fim_trigger", "keymap_accept_full": "keymap_fim_accept_full",
                     "keymap_accept_line": "keymap_fim_accept_line", "keymap_accept_word": "keymap_fim_accept_word",
                     "keymap_debug": "keymap_debug_toggle"}),
    _change("endpoint_fim, model_fim", "c0deb6e", "endpoint -> endpoint_fim, model -> model_fim (old names still read) (#96)",
            model_setting="model_fim", renames={"endpoint": "endpoint_fim", "model": "model_fim"},
            defaults={"endpoint_inst": "", "model_inst": ""}),
    _change("token Dice", "8087476", "chunk similarity by token Dice; ring chunks similar to the cursor's window dropped "
            "again (#100)", token_dice=True, evict_at_request=True),
)
BOOK = RuleBook("llama.vim", RELEASES, RULES)


def describe(rule: Rule) -> str:
    """A rule as `fimreplay editors llama.vim --history` words it: what changed, and where."""
    return f"{rule.summary} ({rule.source})"


_DAY = re.compile(r"\d{4}-\d{2}-\d{2}")
_SHA = re.compile(r"[0-9a-f]{7,40}")


def resolve(version: str | None) -> int:
    """A version (None: the newest commit; a day `2025-03-01`: the last commit on or before it; a
    sha of 7+ hex digits) -> its index in COMMITS."""
    if version is None or version in ("", "latest", "HEAD"):
        return len(COMMITS) - 1
    text = version.strip().lower()
    if _DAY.fullmatch(text):
        on_or_before = [n for n, (_, day) in enumerate(COMMITS) if day <= text]
        if not on_or_before:
            raise UnknownRelease(f"llama.vim {version!r}: before its first commit ({COMMITS[0][1]})")
        return on_or_before[-1]
    if _SHA.fullmatch(text):
        found = [n for n, (sha, _) in enumerate(COMMITS) if text.startswith(sha) or sha.startswith(text)]
        if len(found) == 1:
            return found[0]
    raise UnknownRelease(f"llama.vim {version!r} names no commit of {REPO} (give a day like 2025-03-01 or a "
                         f"sha like {COMMITS[-1][0]})")


def rules_at(version: str | None) -> Rules:
    """The rules in force at `version` (see resolve)."""
    return _RULES[resolve(version)]


def _apply(rules: Rules, sets: Mapping[str, Any]) -> Rules:
    """`rules` with one rule's `sets` applied (see _change)."""
    renames = sets.get("renames", {})
    defaults = {renames.get(key, key): value for key, value in rules.defaults.items()} | sets.get("defaults", {})
    fields = {key: value for key, value in sets.items() if key not in ("defaults", "renames")}
    return replace(rules, defaults=defaults, renames={**renames, **rules.renames}, **fields)


def _build() -> tuple[Rules, ...]:
    by_sha = {rule.commit: rule for rule in RULES}
    rules = Rules(sha=COMMITS[0][0], day=COMMITS[0][1])
    out = []
    for sha, day in COMMITS:
        if sha in by_sha:
            rules = _apply(rules, by_sha[sha].sets)
        out.append(replace(rules, sha=sha, day=day))
    return tuple(out)


_RULES = _build()

# Every setting name llama.vim has read at some commit (g:llama_config), body-relevant or not.
KNOWN_SETTINGS = frozenset({
    "endpoint", "endpoint_fim", "endpoint_inst", "model", "model_fim", "model_inst", "api_key", "n_prefix", "n_suffix",
    "n_predict", "stop_strings", "t_max_prompt_ms", "t_max_predict_ms", "show_info", "auto_fim", "max_line_suffix",
    "max_cache_keys", "ring_n_chunks", "ring_chunk_size", "ring_scope", "ring_update_ms", "enable_at_startup",
    "keymap_trigger", "keymap_accept_full", "keymap_accept_line", "keymap_accept_word", "keymap_debug",
    "keymap_fim_trigger", "keymap_fim_accept_full", "keymap_fim_accept_line", "keymap_fim_accept_word",
    "keymap_debug_toggle", "keymap_inst_trigger", "keymap_inst_rerun", "keymap_inst_continue", "keymap_inst_accept",
    "keymap_inst_cancel",
})


def in_force(version: str | None) -> tuple[InForce, InForce]:
    """The rules of both halves at `version` (`CLIENT,server=VERSION`, either part optional: the
    newest): the client's from its book, llama-server's from the server's."""
    client, server = split_version(version)
    rel = RELEASES[resolve(client)]
    return BOOK.in_force_at(rel, f"llama.vim {rel.tag} ({rel.day})"), server_releases.in_force(server)


def history() -> list[HistoryRow]:
    """The client's rules with llama-server's, the half both llama.cpp clients share, by day."""
    return sorted(BOOK.history(describe) + server_releases.history(), key=lambda row: row.date)
