"""Benchmark items from raw code, reproducibly.

The seed's generator (trailofbits/CompChomper src/generate_eval_from_raw_code.py) drops files
with fewer than 3 lines or 10 characters, drops duplicates by whitespace-stripped content,
chunks each file into pieces of `chars_per_token * tokens_to_chunk` characters ("faketokens",
1 faketoken = 2 characters by default), and then draws (prefix, middle, suffix) splits from
random chunks with numpy's global RNG until it has N distinct ones. That draw depends on the
order files reach each worker (files are split across `cpu_count()` processes and a `set` of
chunks is sampled, whose order follows PYTHONHASHSEED), and a file with too few usable spots
loops until a bound that is not always reached.

Here every file is handled on its own, by a pure function of (its text, its relative path, the
options): its RNG is seeded from sha256(seed, sha256 of the file's content), the usable spots
are counted exactly and N of them are drawn without replacement (`random.Random.sample` over
an index range, never a rejection loop), and files are processed in sorted relative-path order.
So the output does not depend on PYTHONHASHSEED, the worker count or the order on disk, and a
file with fewer usable spots than N gives all it has and is reported as short.

Rules kept from the seed: files below 3 lines or 10 characters are skipped; duplicates (the same
content once whitespace is removed) are skipped, keeping the first in path order; the prefix
and the suffix are never empty (the seed draws split points from range(1, len - 1)); a middle
is never whitespace-only; in line mode the first masked line is not blank; in span mode the
middle has at least `min_middle` characters (seed: `minimum_split_length`, 3).
Changed on purpose: chunks end at line ends (a single line longer than the budget is cut at
the budget), without overlap; lines keep their own endings (CRLF included), so
prefix + middle + suffix is exactly the chunk, which the seed's "\\n".join did not keep.
"""

from __future__ import annotations

import hashlib
import random
import threading
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, NamedTuple

from replay.cores import usable_cores
from replay.corpus import spots as _spots
from replay.corpus.comments import comment_mask
from replay.corpus.linedates import FileDates, Runs
from replay.corpus.newcode import LineRanges, char_ranges
from replay.corpus.lines import split_lines
from replay.languages import EXTENSION_LANGUAGES
from replay.records import FimItem

Mode = Literal["line", "span"]




@dataclass(frozen=True)
class EvalgenOptions:
    """The knobs of `fimreplay evalgen`; defaults are the seed's (CompChomper) defaults."""

    per_file: int = 3
    mode: Mode = "line"
    lines: int = 1  # lines masked in line mode (seed: lines_to_mask = 1)
    min_middle: int = 3  # span mode: fewest characters in a middle (seed: minimum_split_length)
    max_middle: int = 0  # span mode: most characters in a middle (0: no limit, as the seed)
    chars_per_token: float = 2.0
    chunk_tokens: int = 1024
    seed: int = 42
    min_lines: int = 3
    min_chars: int = 10
    code_only: bool = False  # every middle holds code, not only comments (replay.corpus.comments)

    @property
    def chunk_chars(self) -> int:
        return max(1, int(self.chars_per_token * self.chunk_tokens))


@dataclass
class FileResult:
    """What one file gave: its items, or why it gave none or fewer than asked."""

    file: str
    items: list[FimItem] = field(default_factory=list)
    usable: int = 0  # how many distinct usable spots the file has
    skipped: str | None = None  # reason the file gave no items (tiny, duplicate, unreadable)


@dataclass
class EvalgenResult:
    items: list[FimItem]
    files: list[FileResult]

    def summary(self, opts: EvalgenOptions) -> dict[str, object]:
        used = [f for f in self.files if f.skipped is None]
        short = [f for f in used if len(f.items) < opts.per_file]
        return {
            "n_files_seen": len(self.files),
            "n_files_used": len(used),
            "n_items": len(self.items),
            "skipped": [{"file": f.file, "reason": f.skipped} for f in self.files if f.skipped],
            "short": [{"file": f.file, "wanted": opts.per_file, "got": len(f.items)} for f in short],
        }


def stable_int(*parts: str | int) -> int:
    """A 64-bit integer from sha256 of the parts: unlike hash(), the same in every process."""
    h = hashlib.sha256("\0".join(str(p) for p in parts).encode("utf-8")).digest()
    return int.from_bytes(h[:8], "big")


def language_of(path: str | Path) -> str:
    """The item's language: its file's language id (replay.languages), else its extension, else "text"."""
    extension = Path(path).suffix.lstrip(".").lower()
    return EXTENSION_LANGUAGES.get(extension, extension or "text")


def chunk_text(text: str, size: int) -> list[tuple[int, str]]:
    """Cut text into (offset, chunk) pieces of at most `size` characters, ending at line ends.

    Lines keep their endings. A line longer than `size` is cut into `size`-character pieces.
    The pieces, joined, are the text.
    """
    chunks: list[tuple[int, str]] = []
    start = 0
    current = 0  # length of the chunk being built, from `start`
    for line in split_lines(text):
        if current and current + len(line) > size:
            chunks.append((start, text[start : start + current]))
            start += current
            current = 0
        while len(line) > size:
            chunks.append((start, line[:size]))
            start += size
            line = line[size:]
        current += len(line)
    if current:
        chunks.append((start, text[start : start + current]))
    return chunks


def items_for_text(text: str, rel: str, opts: EvalgenOptions, allowed: LineRanges | None = None,
                   stamp: Mapping[str, Any] | None = None, dates: Runs | None = None) -> FileResult:
    """The items of one file: a pure function of its text, its relative path and the options.

    `allowed`: the line ranges a middle must lie in (new code only, lines newer than a day);
    `stamp`: FimItem fields every item of the file carries (its version's date, new code and
    since when); `dates`: its lines' dates (git blame), each item dated by its middle's newest."""
    return _build(text, rel, opts, _plan(text, opts, allowed, language_of(rel)), stamp or {}, dates)


class _Plan(NamedTuple):
    """Where one file's middles go: (chunk start, chunk end, middle start, middle end) in file
    offsets, by middle start. Small to send from a worker, unlike the items' texts."""

    skipped: str | None
    usable: int
    digest: str
    picks: list[tuple[int, int, int, int]]


def _plan(text: str, opts: EvalgenOptions, allowed: LineRanges | None, language: str | None) -> _Plan:
    if len(text) < opts.min_chars or len(text.splitlines()) < opts.min_lines:  # the seed counts with splitlines()
        return _Plan(f"tiny (fewer than {opts.min_lines} lines or {opts.min_chars} characters)", 0, "", [])
    comments = None
    if opts.code_only:
        comments = comment_mask(text, language) if language else None
        if comments is None:
            return _Plan(f"no {language or 'known'} grammar to tell comments from code (--code-only)", 0, "", [])
    digest = hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()
    chunks = chunk_text(text, opts.chunk_chars)
    inside = None if allowed is None else char_ranges(text, allowed)
    spots: _spots.LineSpots | _spots.SpanSpots
    if opts.mode == "line":
        code = None if comments is None else _spots.code_before(text, comments)
        spots = _spots.LineSpots(chunks, opts.lines, inside, code)
    else:
        spots = _spots.SpanSpots(text, chunks, opts.min_middle, opts.max_middle, inside, comments)
    rng = random.Random(stable_int(opts.seed, digest))
    picks = []
    for index in rng.sample(range(spots.count), min(opts.per_file, spots.count)):
        c, start, end = spots.spot(index)
        chunk_start, chunk = chunks[c]
        picks.append((chunk_start, chunk_start + len(chunk), start, end))
    picks.sort(key=lambda p: (p[2], p[3]))
    return _Plan(None, spots.count, digest, picks)


def _build(text: str, rel: str, opts: EvalgenOptions, plan: _Plan, stamp: Mapping[str, Any],
           dates: Runs | None = None) -> FileResult:
    result = FileResult(file=rel, usable=plan.usable, skipped=plan.skipped)
    language, digest = language_of(rel), plan.digest
    lines = FileDates(text, dates) if dates and plan.picks else None
    for chunk_start, chunk_end, start, end in plan.picks:
        item_id = hashlib.sha256(f"{rel}\0{digest}\0{opts.mode}\0{start}\0{end}".encode()).hexdigest()[:16]
        result.items.append(FimItem(
            id=item_id, file=rel, prefix=text[chunk_start:start], middle=text[start:end], suffix=text[end:chunk_end],
            mode=opts.mode, language=language, start=start, end=end, chunk_start=chunk_start, corpus_hash=digest,
            **stamp, **(lines.item_fields(start, end) if lines else {}),
        ))
    return result


@dataclass(frozen=True)
class SourceFile:
    """A file to cut items from; `allowed`, `stamp` and `dates` as items_for_text takes them."""

    path: Path
    rel: str
    allowed: LineRanges | None = None
    stamp: Mapping[str, Any] = field(default_factory=dict)
    dates: Runs | None = None


def collect_files(roots: Sequence[Path], exts: Sequence[str]) -> list[SourceFile]:
    """Files under the roots with one of the extensions, sorted by relative path.

    A root that is a file is taken as is (named by its file name). With several roots the
    relative path starts with the root's folder name, so two corpora cannot collide.
    """
    wanted = {e.lower().lstrip(".") for e in exts}
    found: dict[str, SourceFile] = {}
    for root in roots:
        if root.is_file():
            found.setdefault(root.name, SourceFile(root, root.name))
            continue
        for path in root.rglob("*"):
            if path.is_file() and path.suffix.lstrip(".").lower() in wanted:
                rel = path.relative_to(root).as_posix()
                if len(roots) > 1:
                    rel = f"{root.name}/{rel}"
                found.setdefault(rel, SourceFile(path, rel))
    return [found[k] for k in sorted(found)]


def _squeeze(text: str) -> str:
    """The text without any whitespace: what duplicates are compared on. str.split() drops the
    same characters as re.sub(r"\\s+", "", text) (both are str.isspace), several times faster."""
    return "".join(text.split())


def _read(path: Path) -> str:
    """The file's text with its line endings as they are (no newline translation)."""
    return path.read_bytes().decode("utf-8")


# Less source than this is cut by this process alone (the default worker count): starting a
# pool and sending the texts back cost more than the planning shared saves. Measured on 2
# cores (bench/speed/all.py, bench/speed/evalgen.py): solady 0.1.26 (2.4 MB, 107 files) takes about
# 0.1 s of planning, and 2 workers were 0.98-1.05x one; ten copies of it (24 MB), 1.4-1.7x.
PARALLEL_MIN_BYTES = 8 * 1024 * 1024


def default_workers(files: Sequence[SourceFile]) -> int:
    """1 below PARALLEL_MIN_BYTES of source, else every usable core; 1 as well when this
    process runs other threads (the TUI): the workers are forks, and a fork copies only the
    forking thread, with any lock another one held."""
    if threading.active_count() > 1:
        return 1
    size = 0
    for f in files:
        try:
            size += f.path.stat().st_size
        except OSError:
            continue  # unreadable: reported when it is read
    return 1 if size < PARALLEL_MIN_BYTES else usable_cores()


def generate(files: Sequence[SourceFile], opts: EvalgenOptions, workers: int | None = None) -> EvalgenResult:
    """Items for the files, in the files' order; duplicates (whitespace-stripped content) skipped,
    the first in path order kept. `workers` processes plan the files (None: default_workers).

    Each worker reads its files, keys them for the duplicate check and plans their middles; this
    process skips duplicates and builds the items from the plans. (Reading every text here first
    left the workers too little to share, and workers that built the items spent longer sending
    their prefixes and suffixes back than cutting them: two workers were slower than one.) The
    few duplicates are planned for nothing; the items are the same whatever the worker count.
    """
    jobs = [(f.path, opts, f.allowed) for f in files]
    if workers is None:
        workers = default_workers(files)
    if workers > 1 and len(jobs) > 1:
        from concurrent.futures import ProcessPoolExecutor

        if opts.mode == "span":
            _spots.warm()  # numpy imported once, here, not in every worker
        with ProcessPoolExecutor(max_workers=workers) as pool:
            # Items are built here from each plan as it arrives, while the workers plan the rest.
            return _collect(files, opts, pool.map(_file_job, jobs, chunksize=max(1, len(jobs) // (workers * 8))))
    return _collect(files, opts, map(_file_job, jobs))


def _collect(files: Sequence[SourceFile], opts: EvalgenOptions,
             done: Iterable[tuple[str | None, str, _Plan]]) -> EvalgenResult:
    seen: dict[str, str] = {}
    ordered = []
    for f, (key, text, plan) in zip(files, done):
        if key is not None and key in seen:
            res = FileResult(file=f.rel, skipped=f"duplicate of {seen[key]}")
        else:
            if key is not None:
                seen[key] = f.rel
            res = _build(text, f.rel, opts, plan, f.stamp, f.dates)
        ordered.append(res)
    return EvalgenResult(items=[it for r in ordered for it in r.items], files=ordered)


def _file_job(job: tuple[Path, EvalgenOptions, LineRanges | None]) -> tuple[str | None, str, _Plan]:
    """(the file's duplicate key, its text, its plan); no key when it cannot be read."""
    path, opts, allowed = job
    try:
        text = _read(path)
    except OSError as exc:
        return None, "", _Plan(f"unreadable: {exc.strerror or exc}", 0, "", [])
    except UnicodeDecodeError as exc:
        return None, "", _Plan(f"unreadable: not UTF-8 text: byte 0x{exc.object[exc.start]:02x} at byte {exc.start + 1}", 0, "", [])
    key = hashlib.sha256(_squeeze(text).encode("utf-8", "surrogatepass")).hexdigest()
    return key, text, _plan(text, opts, allowed, language_of(path.name))


def iter_jsonl(items: Iterable[FimItem]) -> Iterator[bytes]:
    """One JSON line per item with every field written out. (FimItem omits defaults, and msgspec
    decides "is the default" by identity for strings, so an item that crossed a process boundary
    would otherwise be written differently from one made in this process.) The fields of a dated
    corpus and of a public benchmark are left out unless set, so that items cut from raw code
    are written as before they existed."""
    import msgspec

    for item in items:
        fields = msgspec.structs.asdict(item)
        for key in _UNLESS_SET:
            if not fields[key]:
                del fields[key]
        yield msgspec.json.encode(fields) + b"\n"


# The FimItem fields of a dated corpus, new code and line dates (replay.corpus.dates, newcode,
# linedates), and those of an item read from a public benchmark (replay.benchmarks).
_UNLESS_SET = ("published", "published_source", "new_code", "since", "since_date", "middle_date", "middle_date_source",
               "middle_commit", "benchmark", "filepath", "snippets", "test", "entry_point", "eval_prompt", "unit_tests")
