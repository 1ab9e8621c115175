"""Pairs from a JSONL file of completions beside their references, for `fimreplay score FILE`."""

from __future__ import annotations

from pathlib import Path

from replay.rejects import Reject


def jsonl_pairs(path: str | Path) -> tuple[list[tuple[str, str, str, str, str]], list[Reject], dict[str, int]]:
    """Pairs from a JSONL file whose lines hold `file`, `reference`, `completion` (optional:
    `id`, `language` (default from the file's extension), `stop` (a list: the completion is cut
    at the earliest one before scoring)). Bad lines are rejected with file:line and reason."""

    from replay.corpus.evalgen import language_of
    from replay.editors.stage import apply_stop
    from replay.jsonl import json_lines, loads

    path = Path(path)
    pairs, rejects = [], []
    counts = {"n_stop_cut": 0}
    for no, line in json_lines(path.read_bytes()):
        try:
            obj = loads(line)
        except ValueError as exc:
            rejects.append(Reject.at(path, no, f"not JSON: {exc}", line))
            continue
        if not isinstance(obj, dict):
            rejects.append(Reject.at(path, no, "not a JSON object", line))
            continue
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

