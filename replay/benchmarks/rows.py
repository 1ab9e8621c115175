"""What every benchmark layout shares: a row that cannot be an item (BadRow), where a row sits
in its file (Row), the typed reading of a row's fields, and the item made from the parts."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from replay.errors import UsageError
from replay.languages import language_of
from replay.records import FimItem, Snippet


class BadRow(UsageError):
    """A row of a benchmark file that cannot be an item; the message says why (the reader adds
    file:line and keeps the row in the rejects file)."""


@dataclass
class Row:
    """One row and where it is: `index` counts the file's rows from 0 (the order a benchmark's
    harness numbers them in when its rows carry no id), `stem` names the file (its name without
    .jsonl/.gz), `names` counts the rows seen per name (for layouts whose rows share a name)."""

    obj: dict[str, Any]
    index: int
    stem: str
    names: Counter[str] = field(default_factory=Counter)

    def text(self, key: str, within: dict[str, Any] | None = None, where: str = "") -> str:
        """The string at `key` (of `within`, named `where`, else of the row), or BadRow."""
        obj = self.obj if within is None else within
        if key not in obj:
            raise BadRow(f"no {where}{key!r}")
        value = obj[key]
        if not isinstance(value, str):
            raise BadRow(f"{where}{key!r} must be a string, got {type(value).__name__}")
        return value

    def mapping(self, key: str) -> dict[str, Any]:
        value = self.obj.get(key)
        if not isinstance(value, dict):
            raise BadRow(f"{key!r} must be an object, got {type(value).__name__}")
        return value

    def numbered(self, name: str) -> int:
        """How many rows named `name` came before this one (0 for the first)."""
        n = self.names[name]
        self.names[name] += 1
        return n


def item(row_id: str, file: str, prefix: str, middle: str, suffix: str, *, benchmark: str, mode: str,
         language: str, **checker: Any) -> FimItem:
    """The item of a row: the middle's offsets are those of prefix + middle + suffix, the
    program the benchmark puts together."""
    if not row_id:
        raise BadRow("empty id")
    return FimItem(id=row_id, file=file, prefix=prefix, middle=middle, suffix=suffix, mode=mode, language=language,
                   start=len(prefix), end=len(prefix) + len(middle), benchmark=benchmark, **checker)


def language_by_path(path: str) -> str:
    """A file's language id by its extension (replay.languages), or BadRow when unknown."""
    language = language_of(path)
    if language is None:
        raise BadRow(f"no language known for {path!r} (by its extension)")
    return language


def snippets(entries: Any, content: str, filepath: str, where: str) -> tuple[Snippet, ...]:
    """Cross-file context as snippets, in the benchmark's order: a list of objects, each with
    its text at `content` and its file at `filepath`."""
    if not isinstance(entries, list):
        raise BadRow(f"{where} must be a list, got {type(entries).__name__}")
    out = []
    for n, entry in enumerate(entries):
        if not isinstance(entry, dict) or not isinstance(entry.get(content), str) or not isinstance(entry.get(filepath), str):
            raise BadRow(f"{where}[{n}] must be an object with string {content!r} and {filepath!r}")
        out.append(Snippet(filepath=entry[filepath], content=entry[content], kind="snippet"))
    return tuple(out)
