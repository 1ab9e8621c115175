"""A benchmark file (.jsonl, or gzip-compressed as human-eval-infilling ships it) to items.

The file's layout is judged on its first row: a first row that is not a JSON object, or lacks
a key every row of the asked format has, means the file is of another layout, and that is one
error naming file:line (and the layout it looks like, when it is one of FORMATS). After it,
a row that cannot be an item (not JSON, a missing or mistyped field, an id seen before) is
rejected on its own, its line kept in the rejects file, and the rest are read.
"""

from __future__ import annotations

import gzip
import hashlib
import zlib
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import msgspec

from replay.benchmarks.formats import BenchmarkFormat, layout_of
from replay.benchmarks.rows import BadRow, Row
from replay.errors import UsageError
from replay.jsonl import json_lines, loads
from replay.records import FimItem
from replay.rejects import Rejects

GZIP_MAGIC = b"\x1f\x8b"


class WrongFormat(UsageError):
    """A file that is not of the benchmark layout asked for (one line: file:line and why)."""


@dataclass
class BenchmarkRead:
    """What a file gave: its items in file order, how many rows were rejected, its sha256."""

    items: list[FimItem] = field(default_factory=list)
    n_rows: int = 0
    n_rejected: int = 0
    sha256: str = ""


def read_benchmark(path: Path, fmt: BenchmarkFormat, rejects: Rejects) -> BenchmarkRead:
    """The items of `path` read as `fmt`; bad rows go to `rejects`. WrongFormat for a file of
    another layout, UsageError for a file that cannot be read."""
    data = _data(path)
    out = BenchmarkRead(sha256=hashlib.sha256(data).hexdigest())
    stem = _stem(path)
    first_at: dict[str, int] = {}
    checked = False
    names: Counter[str] = Counter()  # shared by the rows: how many of each name came before
    for number, line in json_lines(data):
        index = out.n_rows  # a row's place among the file's rows, bad ones counted: later ids do not shift
        out.n_rows += 1
        try:
            obj = loads(line)
        except ValueError as exc:
            if not checked:
                raise WrongFormat(f"{path}:{number}: not a {fmt.name} file: not JSON Lines ({exc})") from None
            _reject(out, rejects, path, number, f"not JSON: {exc}", line)
            continue
        if not checked:
            _check_layout(path, number, obj, fmt)
            checked = True
        row = Row(obj, index, stem, names)
        if not isinstance(obj, dict):
            _reject(out, rejects, path, number, f"expected a JSON object, got {type(obj).__name__}", line)
            continue
        try:
            item = fmt.parse(row)
        except BadRow as exc:
            _reject(out, rejects, path, number, str(exc), line)
            continue
        if item.id in first_at:
            _reject(out, rejects, path, number, f"duplicate id {item.id!r} (first at line {first_at[item.id]})", line)
            continue
        first_at[item.id] = number
        out.items.append(msgspec.structs.replace(item, corpus_hash=out.sha256))
    if not checked:
        raise WrongFormat(f"{path}: not a {fmt.name} file: no rows")
    return out


def _check_layout(path: Path, number: int, obj: object, fmt: BenchmarkFormat) -> None:
    if not isinstance(obj, dict):
        raise WrongFormat(f"{path}:{number}: not a {fmt.name} file: its rows are not JSON objects")
    missing = [k for k in fmt.required if k not in obj]
    if missing:
        other = layout_of(set(obj))
        looks = f" (it looks like {other}: --from {other})" if other and other != fmt.name else ""
        raise WrongFormat(f"{path}:{number}: not a {fmt.name} file: its first row has no "
                          f"{', '.join(map(repr, missing))}{looks}")


def _reject(out: BenchmarkRead, rejects: Rejects, path: Path, number: int, reason: str, line: str) -> None:
    out.n_rejected += 1
    rejects.at(path, number, reason, line)


def _data(path: Path) -> bytes:
    """The file's bytes, gunzipped when it is gzip data (by its first bytes, whatever its name)."""
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise UsageError(f"{path}: cannot read: {exc.strerror or exc}") from None
    if data.startswith(GZIP_MAGIC):
        try:
            return gzip.decompress(data)
        except (OSError, EOFError, zlib.error) as exc:
            raise WrongFormat(f"{path}: gzip data that cannot be unpacked: {exc}") from None
    return data


def _stem(path: Path) -> str:
    """The file's name without .gz and .jsonl/.json (a RepoBench split's name)."""
    name = path.name
    for ext in (".gz", ".jsonl", ".json"):
        name = name.removesuffix(ext)
    return name
