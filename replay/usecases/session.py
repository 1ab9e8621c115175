"""`fimreplay session`: typing sessions in (one a line), what the editor did in time out: the
requests it sent (bodies, outcomes), the items it showed and the document the accepts left.

Each session runs in virtual time (replay/session) against the client its editor's profile
gives (`live_client`: llama.vim's own loop, the others' from their timing rules). Bad lines are
treated as by `render` (replay/usecases/render_file.py): a bad line stops the run with its
file:line, or with keep_going is counted, told and kept in the rejects file beside the output.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import msgspec

from replay.backends.models import editor_model
from replay.editors import profile
from replay.session.format import parse_session
from replay.session.simulate import simulate
from replay.usecases.render_file import LineFileSummary, map_file


def session_file(input_path: Path, editor: str, version: str | None, model: str | None, output: Path | None,
                 keep_going: bool = False, echo: Callable[[str], None] | None = None) -> LineFileSummary:
    """Drive the editor through every session of `input_path`; one output line per session."""
    prof = profile(editor)[0]
    prof.timing(version)  # an editor whose timing is not modelled stops here (NoTiming says why)
    spec = editor if version is None else f"{editor}@{version}"
    resolved = None if model is None else editor_model(model)

    def convert(line: str, number: int) -> dict[str, Any]:
        session = parse_session(line)
        out = simulate(session, lambda host: prof.live_client(host, version, session.options, resolved,
                                                              session.filepath, session.language), spec)
        return msgspec.to_builtins(out)

    return map_file(input_path, output, keep_going, "session", "simulated", convert, echo)
