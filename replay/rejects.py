"""Inputs a task could not use: one record of why (`Reject`) and one rejects file (`Rejects`).

Nothing is dropped silently. A capture line the importer cannot parse, a render input with a
bad field, a benchmark line without an id, a completion with no reference to score against:
each becomes a Reject saying where it was and why, is counted in the task's summary and is
written to the task's rejects file, one JSON object a line:

    {"where": "f.jsonl:3", "reason": "...", "raw": "...", "file": "f.jsonl", "line": 3}

`where` is always there (file:line, a whole file, or run:item); `raw` is the input as read,
credentials taken out (replay.secrets) before it is cut to RAW_KEEP_BYTES (`raw_truncated_from`
giving the full length); `file` and `line` when
the reject points into a file (line 0: the whole file). The file is created at the first
reject, so a clean task reports no rejects file.
"""

from __future__ import annotations

import bisect
import os
import re
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO

import msgspec

from replay import secrets

RAW_KEEP_BYTES = 4096  # how much of a rejected input the rejects file keeps
SHOWN_PER_SOURCE = 20  # rejects echoed (and held in memory) per source file; the rest are counted


class Reject(msgspec.Struct, frozen=True, omit_defaults=True):
    """Where an unusable input was and why it could not be used."""

    where: str
    reason: str
    raw: str = ""
    file: str | None = None
    line: int | None = None
    raw_truncated_from: int | None = None

    @classmethod
    def at(cls, file: str | Path, line: int, reason: str, raw: bytes | str = "", length: int | None = None) -> Reject:
        """A reject in a file (line 0: the file as a whole). `raw` is kept up to RAW_KEEP_BYTES
        (invalid UTF-8 as \\x escapes); `length` is the input's full size when `raw` was cut
        before (a line too long to hold)."""
        data = _as_bytes(raw)
        text = str(raw) if data is None else data.decode("utf-8", errors="backslashreplace")
        total = (len(data) if data is not None else len(text.encode("utf-8"))) if length is None else length
        kept = _cut(_scrub(text), total)
        file, reason = _escaped(str(file)), _escaped(reason)
        return cls(where=f"{file}:{line}" if line else file, reason=reason, raw=kept, file=file, line=line,
                   raw_truncated_from=total if total > RAW_KEEP_BYTES else None)

    def text(self) -> str:
        """`where: reason`, as the terminal shows a reject."""
        return f"{self.where}: {self.reason}"

    @property
    def source(self) -> str:
        """The file (or run) the reject came from: the unit the echo is capped per."""
        return self.file if self.file is not None else self.where.rpartition(":")[0] or self.where


def _as_bytes(raw: bytes | str) -> bytes | None:
    """The bytes of a rejected input whose text UTF-8 cannot hold (None: `raw` is such text).
    A line read with its bad bytes kept as lone surrogates ("surrogateescape": replay.jsonl)
    gets those bytes back; any other lone surrogate is kept as its UTF-8-like three bytes. Both
    are written \\x-escaped, so the rejects file stays JSON a reader can decode."""
    if isinstance(raw, bytes):
        return raw
    try:
        raw.encode("utf-8")
        return None
    except UnicodeEncodeError:
        pass
    try:
        return raw.encode("utf-8", errors="surrogateescape")
    except UnicodeEncodeError:
        return raw.encode("utf-8", errors="surrogatepass")


# What damage puts into a line: a byte that was not UTF-8 (\\x-escaped here), a control byte.
_DAMAGE = re.compile(r"\\x[0-9a-f]{2}|[\x00-\x08\x0e-\x1f\x7f]")


# A word that may be a credential (a token's characters, a key's length) and how far after a
# damaged spot one is taken out (see _scrub).
_TOKEN = re.compile(r"[A-Za-z0-9_\-+/=.~]{16,}")
_NEAR = 48


def _scrub(text: str) -> str:
    """`text` with its secrets taken out (replay.secrets), also where damage split a credential
    or the mark it is known by ("Beare\\xffr <token>", "sk-ab\\x00cd..."). Where the damage
    broke a mark ("Authorization: Beare\\xc3(r <token>"), nothing tells a credential from code
    any more: every token-like word within _NEAR characters after a damaged spot is taken out.
    A damaged text that holds a credential once read without its damage is kept without it
    (the reason still names the bad byte), so no piece of the credential is left on either side;
    any other keeps its bad bytes, escaped."""
    kept = secrets.scrub_text(text)
    if _DAMAGE.search(text) is None:
        return kept
    clean, spots = _undamaged(text)
    if secrets.scrub_text(clean) != clean:
        return secrets.scrub_text(_redact_near(clean, spots))
    return _redact_near(kept, [m.end() for m in _DAMAGE.finditer(kept)])


def _undamaged(text: str) -> tuple[str, list[int]]:
    """`text` without its damage, and where in it each damaged spot was."""
    pieces: list[str] = []
    spots: list[int] = []
    last = size = 0
    for m in _DAMAGE.finditer(text):
        pieces.append(text[last:m.start()])
        size += m.start() - last
        spots.append(size)
        last = m.end()
    pieces.append(text[last:])
    return "".join(pieces), spots


def _redact_near(text: str, spots: list[int]) -> str:
    """`text` with each token-like word that ends after, and starts within _NEAR characters of,
    a damaged spot taken out (`spots` in order: each word looks up the last spot before its end)."""
    out: list[str] = []
    last = 0
    for m in _TOKEN.finditer(text):
        i = bisect.bisect_right(spots, m.end()) - 1
        if i >= 0 and m.start() - spots[i] <= _NEAR:
            out += [text[last:m.start()], secrets.REDACTED]
            last = m.end()
    out.append(text[last:])
    return "".join(out)


def _escaped(text: str) -> str:
    """A name or reason with what UTF-8 cannot hold \\x-escaped (a file name that is not
    UTF-8 comes from the OS as lone surrogates)."""
    data = _as_bytes(text)
    return text if data is None else data.decode("utf-8", errors="backslashreplace")


def _cut(scrubbed: str, total: int) -> str:
    """A scrubbed input cut to RAW_KEEP_BYTES. The secrets rule was applied to the whole text
    first; where the text ends at a cut (here, or before by the caller: `total` longer than
    it), the word the cut runs through is dropped too, so that a cut cannot leave the head
    of a credential whose shape the rule needs whole to recognise."""
    data = scrubbed.encode("utf-8", errors="surrogatepass")
    if len(data) <= RAW_KEEP_BYTES and total <= len(data):
        return scrubbed
    kept = data[:RAW_KEEP_BYTES].decode("utf-8", errors="ignore")
    return _PARTIAL_WORD.sub("", kept)


# The tail of a cut text that may be the start of a key: a word of the characters keys and
# tokens are made of, up to a key's length (a longer word is code or data, kept as it is).
_PARTIAL_WORD = re.compile(r"(?<![A-Za-z0-9_\-+/=.~:])[A-Za-z0-9_\-+/=.~:]{1,256}$")


class _StoreFolder:
    """The folder of the store the running command works on (`--db`): rejects of its tasks go
    beside it. Process-wide, not a context variable: the tasks' worker threads (a run's, the
    TUI's) make rejects files too."""

    folder: Path | None = None


@contextmanager
def beside_store(store_path: Path | str) -> Iterator[None]:
    """While a command works on the store at `store_path`, the rejects files of its tasks that
    were given none go to `rejects/` beside that store: a store kept apart (`--db`) keeps its
    rejects apart too, and the default store's are the data dir's as before."""
    before = _StoreFolder.folder
    _StoreFolder.folder = Path(store_path).parent
    try:
        yield
    finally:
        _StoreFolder.folder = before


def default_path(name: str, folder: Path | None = None) -> Path:
    """The rejects file of a task that was given none: `rejects/<name>.jsonl` beside the store
    the command works on (`folder`, else the one beside_store names), else in the data dir."""
    from replay.paths import data_dir

    base = folder or _StoreFolder.folder or data_dir()
    return base / "rejects" / f"{name}.jsonl"


def beside(output: Path) -> Path:
    """The rejects file that goes with an output file: OUT.rejects.jsonl."""
    return output.with_name(output.name + ".rejects.jsonl")


def stamped(task: str) -> str:
    """A rejects file name unique to this start of `task` (UTC time and process id)."""
    return f"{task}-{time.strftime('%Y%m%dT%H%M%S', time.gmtime())}-{os.getpid()}"


class Rejects:
    """The rejects of one task: counted, written as they come, and echoed.

    `path` None means `default_path(name)` (`name` None: a stamped `rejects-...`); with `append`
    an existing file is added to (a watch started again), else it is written anew. `echo`, when
    given, receives one line per reject (`where: reason`) up to SHOWN_PER_SOURCE per source file,
    then one line saying where the rest are kept, so a file of a million bad lines cannot flood
    a terminal; every reject is still in the file. The same first rejects per source are held
    for the task's report (iterating a Rejects gives them); `len()` counts all. Thread-safe.
    """

    def __init__(self, path: Path | str | None = None, *, name: str | None = None,
                 echo: Callable[[str], None] | None = None, append: bool = False,
                 shown_per_source: int = SHOWN_PER_SOURCE) -> None:
        self.path: Path | None = Path(path) if path is not None else None
        self.append = append
        self.name = name
        self.echo = echo
        self.shown_per_source = shown_per_source
        self.store_folder = _StoreFolder.folder  # read now: the first reject may come after the command
        self.count = 0
        self._held: list[Reject] = []
        self._per_source: dict[str, int] = {}
        self._fh: IO[bytes] | None = None
        self._lock = threading.Lock()

    def add(self, reject: Reject) -> None:
        with self._lock:
            self.count += 1
            if self._fh is None:
                if self.path is None:
                    self.path = default_path(self.name or stamped("rejects"), self.store_folder)
                self.path.parent.mkdir(parents=True, exist_ok=True)
                self._fh = open(self.path, "ab" if self.append else "wb")  # noqa: SIM115 - closed by close()
            self._fh.write(msgspec.json.encode(reject) + b"\n")
            self._fh.flush()
            seen = self._per_source.get(reject.source, 0) + 1
            self._per_source[reject.source] = seen
            if seen <= self.shown_per_source:
                self._held.append(reject)
                if self.echo is not None:
                    self.echo(reject.text())
            elif seen == self.shown_per_source + 1 and self.echo is not None:
                self.echo(f"{reject.source}: more rejects, all kept in {self.path}")

    def at(self, file: str | Path, line: int, reason: str, raw: bytes | str = "", length: int | None = None) -> None:
        """Add a reject in a file (Reject.at)."""
        self.add(Reject.at(file, line, reason, raw, length))

    @property
    def file(self) -> str | None:
        """The rejects file, once there was a reject (None: nothing was rejected)."""
        return str(self.path) if self.count else None

    def __len__(self) -> int:
        return self.count

    def __iter__(self) -> Iterator[Reject]:
        return iter(list(self._held))

    def __bool__(self) -> bool:
        return self.count > 0

    def close(self) -> None:
        with self._lock:
            if self._fh is not None:
                self._fh.close()
                self._fh = None

    def __enter__(self) -> Rejects:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
