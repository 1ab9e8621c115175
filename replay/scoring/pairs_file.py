"""Pairs from a JSONL file of completions beside their references, for `fimreplay score FILE`."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from replay.rejects import Reject


def object_lines(path: Path, rejects: list[Reject]) -> Iterator[tuple[int, str, dict[str, Any]]]:
    """(line number, line, object) of each line of a JSONL file that holds a JSON object; a line
    that does not is added to `rejects` with file:line and why (the files `score` reads)."""
    from replay.jsonl import json_lines, loads

    for no, line in json_lines(path.read_bytes()):
        try:
            obj = loads(line)
        except ValueError as exc:
            rejects.append(Reject.at(path, no, f"not JSON: {exc}", line))
            continue
        if not isinstance(obj, dict):
            rejects.append(Reject.at(path, no, "not a JSON object", line))
            continue
        yield no, line, obj


def jsonl_pairs(path: str | Path) -> tuple[list[tuple[str, str, str, str, str]], list[Reject], dict[str, int]]:
    """Pairs from a JSONL file whose lines hold `file`, `reference`, `completion` (optional:
    `id`, `language` (default from the file's extension), `stop` (a list: the completion is cut
    at the earliest one before scoring)). Bad lines are rejected with file:line and reason."""

    from replay.corpus.evalgen import language_of
    from replay.editors.stage import apply_stop

    path = Path(path)
    pairs, rejects = [], []
    counts = {"n_stop_cut": 0}
    for no, line, obj in object_lines(path, rejects):
        missing = [k for k in ("file", "reference", "completion") if not isinstance(obj.get(k), str)]
        if missing:
            rejects.append(Reject.at(path, no, f"missing or not a string: {', '.join(missing)}", line))
            continue
        stop = obj.get("stop") or []
        if not isinstance(stop, list) or not all(isinstance(s, str) for s in stop):
            rejects.append(Reject.at(path, no, "stop is not a list of strings", line))
            continue
        completion = apply_stop(obj["completion"], stop)
        counts["n_stop_cut"] += int(completion != obj["completion"])
        language = obj.get("language") or language_of(obj["file"])
        pairs.append((str(obj.get("id", no)), obj["file"], language, obj["reference"], completion))
    return pairs, rejects, counts

