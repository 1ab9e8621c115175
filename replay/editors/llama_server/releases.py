"""llama-server releases whose /infill rules differ, by build tag (`bNNNN`, ggml-org/llama.cpp's
release tags), and the version spec a llama client profile takes (`CLIENT,server=bNNNN`).

A replay names a build and gets the rules of the newest change at or before it; no build: the
newest rules.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from replay.editors.inputs import BadInputLine


@dataclass(frozen=True)
class ServerRules:
    """What one stretch of releases does with an /infill body."""

    since: int  # the first build (bNNNN) with these rules
    why: str  # the change, with its source
    exceed_type: bool = True  # refusal as exceed_context_size_error with the counts (else invalid_request_error)

    @property
    def label(self) -> str:
        return f"b{self.since}"


# Newest last. Each row: the build that changed a rule, and what changed (cited).
ERAS: tuple[ServerRules, ...] = (
    ServerRules(0, "the newest rules", exceed_type=True),
)


def parse_build(text: str) -> int:
    """`b5000` or `5000` -> 5000."""
    match = re.fullmatch(r"b?(\d+)", text.strip())
    if not match:
        raise BadInputLine(f"not a llama.cpp build tag: {text!r} (expected e.g. b5000)")
    return int(match[1])


def server_rules(version: str | None) -> ServerRules:
    """The rules of build `version` (None: the newest)."""
    if not version:
        return ERAS[-1]
    build = parse_build(version)
    chosen = ERAS[0]
    for era in ERAS:
        if era.since <= build:
            chosen = era
    return chosen


def split_version(version: str | None) -> tuple[str | None, str | None]:
    """`"v0.0.40,server=b5000"` -> ("v0.0.40", "b5000"); `"server=b5000"` -> (None, "b5000");
    the client part is the client's own (a llama.vscode tag, a llama.vim date or sha); None: newest."""
    if not version:
        return None, None
    client: str | None = None
    server: str | None = None
    for part in (p.strip() for p in version.split(",")):
        if part.startswith("server="):
            server = part[len("server="):] or None
            if server is not None:
                parse_build(server)
        elif part:
            if client is not None:
                raise BadInputLine(f"two client versions in {version!r}")
            client = part
    return client, server
