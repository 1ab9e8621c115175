"""llama-server releases whose /infill rules differ, and the version spec a llama client profile
takes (`CLIENT,server=VERSION`).

A server version is the day its build was made (`2025-08-01`) or a build tag (`b6123`) this
table can date: the tags xllamacpp pinned (xorbitsai/xllamacpp, its commits "Update llama.cpp
to bNNNN", each tag dated by that commit: the tag existed by then) and b11549, the build the
golden data was recorded from. The rules of the newest change at or before that day apply; no
version: the newest rules. Builds before the repository-level assembly are not modelled.

The changes (ggml-org/llama.cpp pull requests, merge day):
- #9874, 2024-10-13: `input_extra` (first `extra_context`), the repository-level FIM pattern and
  the prefix/suffix/extra budgets of assemble.py (with #9798, 2024-10-10: FIM tokens detected
  from the vocabulary, prefix and suffix tokenized without parsing special tokens);
- #10724, 2024-12-08 (the format restored after the #10691 refactor): the request's `prompt` is
  tokenized with the vocabulary's BOS in front (for vocabularies that add one: an empty prompt
  is BOS alone), until #11106, 2025-01-06 ("fix extra BOS in infill endpoint");
- #15416, 2025-08-19: context shift off by default. Before it a prompt of n_ctx tokens or more
  was truncated, not refused: its first n_keep tokens (the body's, 0 by default) kept, then
  whole blocks of (n_ctx − n_keep)/2 tokens dropped after them until it fits. From it on, the
  request is refused (invalid_request_error, "the request exceeds the available context size.
  try increasing the context size or enable context shift");
- #15780, 2025-09-03: that refusal's type becomes exceed_context_size_error (same words);
- by b11549 (2026-10): the words are "request (N tokens) exceeds the available context size (M
  tokens), try increasing it", and the request schema refuses numbers outside its hard limits
  (n_cmpl above the server's slots, n_predict below -1, ...); since when, for both, is not
  established here.
"""

from __future__ import annotations

import datetime
import re
from dataclasses import dataclass
from typing import Any

from replay.editors.inputs import BadInputLine
from replay.editors.rulebook import HistoryRow, InForce, Release, Rule, RuleBook, UnknownRelease


@dataclass(frozen=True)
class ServerRules:
    """What one stretch of releases does with an /infill body that does not fit."""

    since: str  # the day of the change (YYYY-MM-DD)
    why: str  # the change and its source
    refuses: bool = True  # a prompt of n_ctx tokens or more is refused (else truncated)
    refusal_type: str = "exceed_context_size_error"
    refusal_words: str = "request ({n} tokens) exceeds the available context size ({n_ctx} tokens), try increasing it"
    prompt_bos: bool = False  # the request's prompt is tokenized with BOS in front
    schema: bool = False  # the request schema's hard limits (n_cmpl within the server's slots, ...)

    @property
    def label(self) -> str:
        return f"since {self.since}"


_OLD_WORDS = "the request exceeds the available context size. try increasing the context size or enable context shift"

_REPO = "ggml-org/llama.cpp tools/server"

# The rule changes, oldest first: each sets the fields of ServerRules it names, on top of the ones before.
RULES: tuple[Rule, ...] = (
    Rule("repository-level /infill", "", "2024-10-13", f"{_REPO} (#9874)", "repository-level /infill with input_extra "
         "(ggml-org/llama.cpp#9874); context shift on: an oversized prompt is truncated", sets={"refuses": False}),
    Rule("prompt with BOS", "", "2024-12-08", f"{_REPO} (#10724)",
         "the request's prompt tokenized with BOS (ggml-org/llama.cpp#10724)", sets={"prompt_bos": True}),
    Rule("prompt without BOS", "", "2025-01-06", f"{_REPO} (#11106)",
         "no BOS before the request's prompt (ggml-org/llama.cpp#11106)", sets={"prompt_bos": False}),
    Rule("context shift off", "", "2025-08-19", f"{_REPO} (#15416)",
         "context shift off by default: an oversized prompt is refused (ggml-org/llama.cpp#15416)",
         sets={"refuses": True, "refusal_type": "invalid_request_error", "refusal_words": _OLD_WORDS}),
    Rule("exceed_context_size_error", "", "2025-09-03", f"{_REPO} (#15780)",
         "exceed_context_size_error (ggml-org/llama.cpp#15780)", sets={"refusal_type": "exceed_context_size_error"}),
    Rule("b11549", "", "2026-10-10", f"{_REPO} (b11549)", "as llama.cpp b11549 answers (xllamacpp 2026.10.11549)",
         sets={"refusal_words": ServerRules.refusal_words, "schema": True}),
)
BOOK = RuleBook("llama-server", (), RULES, part="llama-server")


def _eras() -> tuple[ServerRules, ...]:
    """The rules of each stretch: every change applied in order on the newest defaults."""
    eras: list[ServerRules] = []
    sets: dict[str, Any] = {}
    for rule in RULES:
        sets |= rule.sets
        eras.append(ServerRules(rule.day, rule.summary, **sets))
    return tuple(eras)


# Oldest first.
ERAS = _eras()

# Build tags with the day they are known to exist by (see the module docstring).
KNOWN_BUILDS: dict[int, str] = {
    4034: "2024-11-05", 4079: "2024-11-14", 4102: "2024-11-17", 4242: "2024-12-03", 4260: "2024-12-04",
    4281: "2024-12-07", 4291: "2024-12-09", 4318: "2024-12-13", 4333: "2024-12-16", 4381: "2025-02-19",
    4798: "2025-03-01", 4933: "2025-03-21", 5036: "2025-04-03", 5129: "2025-04-14", 5217: "2025-04-29",
    5353: "2025-05-12", 5456: "2025-05-23", 5586: "2025-06-04", 5671: "2025-06-15", 5704: "2025-06-19",
    5772: "2025-06-28", 5835: "2025-07-07", 5937: "2025-07-20", 6123: "2025-08-10", 6255: "2025-08-23",
    6301: "2025-08-28", 6451: "2025-09-14", 6628: "2025-09-29", 6751: "2025-10-13", 6900: "2025-11-01",
    7079: "2025-11-19", 7376: "2025-12-15", 7551: "2025-12-27", 7710: "2026-01-13", 7827: "2026-01-27",
    7964: "2026-02-07", 8156: "2026-02-27", 8352: "2026-03-15", 8672: "2026-04-07", 8929: "2026-04-26",
    11549: "2026-10-10",
}


def server_day(version: str) -> str:
    """The day of a server version: a date as given, or a known build tag's day."""
    text = version.strip()
    if re.fullmatch(r"\d{4}-\d{2}-\d{2}", text):
        try:
            datetime.date.fromisoformat(text)
        except ValueError:
            raise UnknownRelease(f"not a date: {text!r}") from None
        return text
    match = re.fullmatch(r"b?(\d+)", text)
    if not match:
        raise UnknownRelease(f"not a llama.cpp server version: {text!r} (a build day YYYY-MM-DD or a build tag bNNNN)")
    build = int(match[1])
    if build in KNOWN_BUILDS:
        return KNOWN_BUILDS[build]
    if build > max(KNOWN_BUILDS):
        return KNOWN_BUILDS[max(KNOWN_BUILDS)]
    raise UnknownRelease(f"llama.cpp build b{build} cannot be dated here: give the day it was built (server=YYYY-MM-DD)")


def server_rules(version: str | None) -> ServerRules:
    """The rules of server `version` (None: the newest)."""
    if not version:
        return ERAS[-1]
    day = server_day(version)
    if day < ERAS[0].since:
        raise UnknownRelease(f"llama-server before {ERAS[0].since} (no input_extra, ggml-org/llama.cpp#9874) is not modelled")
    return [era for era in ERAS if era.since <= day][-1]


def split_version(version: str | None) -> tuple[str | None, str | None]:
    """`"v0.0.40,server=b5000"` -> ("v0.0.40", "b5000"); `"server=2025-03-01"` -> (None,
    "2025-03-01"); the client part is the client's own (a llama.vscode tag, a llama.vim date or
    sha); None: newest. The server part is checked when it is used (server_rules)."""
    if not version:
        return None, None
    client: str | None = None
    server: str | None = None
    for part in (p.strip() for p in version.split(",")):
        if part.startswith("server="):
            server = part[len("server="):] or None
        elif part:
            if client is not None:
                raise BadInputLine(f"two client versions in {version!r}")
            client = part
    return client, server


def in_force(version: str | None) -> InForce:
    """The server rules in force at server `version` (a build day or tag; None: the newest)."""
    day = server_day(version) if version else ERAS[-1].since
    why = f"llama-server {version}" + (f" (built by {day})" if day != version else "") if version else "the newest rules"
    server_rules(version)  # refuses a server older than the first rules modelled
    return BOOK.in_force_at(Release(f"server={version or day}", "", day, -1), why)


def history() -> list[HistoryRow]:
    """llama-server's /infill rule changes by day, each named as a version names it
    (`server=DAY`): the server rows of `fimreplay editors llama.vscode|llama.vim --history`."""
    return BOOK.history(lambda rule: f"{rule.summary} (ggml-org/llama.cpp tools/server)",
                        first=lambda rule: f"server={rule.day}")
