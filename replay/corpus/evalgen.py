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

import bisect
import hashlib
import random
import re
from collections.abc import Iterable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from replay.records import FimItem

Mode = Literal["line", "span"]

# Extension -> language name (the names CodeBLEU and the editors' language ids use).
LANGUAGES: dict[str, str] = {
    "sol": "solidity", "py": "python", "js": "javascript", "ts": "typescript", "java": "java",
    "go": "go", "rs": "rust", "rb": "ruby", "php": "php", "c": "c", "h": "c", "cpp": "cpp",
    "cc": "cpp", "hpp": "cpp", "cs": "c_sharp",
}

_WHITESPACE = re.compile(r"\s+")
_LINE = re.compile(r"[^\n]*\n|[^\n]+")


def split_lines(text: str) -> list[str]:
    """Lines ending at "\n" only, each keeping its ending ("\r\n" stays whole). Unlike
    str.splitlines, a form feed or U+2028 inside a comment or string does not end a line."""
    return _LINE.findall(text)


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
    return LANGUAGES.get(Path(path).suffix.lstrip(".").lower(), Path(path).suffix.lstrip(".").lower() or "text")


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


class _Spots:
    """The usable spots of one chunk, counted exactly, addressable by index 0..count-1."""

    def __init__(self, chunk: str, opts: EvalgenOptions) -> None:
        self.chunk = chunk
        self.mode = opts.mode
        self.count = 0
        if opts.mode == "line":
            self.lines = split_lines(chunk)
            self.offsets = [0]
            for line in self.lines:
                self.offsets.append(self.offsets[-1] + len(line))
            n = opts.lines
            # First masked line index i: 1 <= i, i + n <= len(lines) - 1 (prefix and suffix
            # keep at least one line), and line i is not blank.
            self.starts = [i for i in range(1, len(self.lines) - n) if self.lines[i].strip()]
            self.n = n
            self.count = len(self.starts)
        else:
            length = len(chunk)
            lo_min, hi_max = opts.min_middle, opts.max_middle
            # next_nonws[k]: the first index >= k holding a non-whitespace character.
            next_nonws = [length] * (length + 1)
            for k in range(length - 1, -1, -1):
                next_nonws[k] = k if not chunk[k].isspace() else next_nonws[k + 1]
            # Middle = chunk[s:e] with 1 <= s, e <= length - 1 (non-empty prefix and suffix),
            # e - s >= min_middle, e - s <= max_middle (if set), and a non-whitespace character
            # inside: e > next_nonws[s]. For each s the usable e form one interval [lo, hi].
            self.span_starts: list[int] = []
            self.span_lo: list[int] = []
            self.cumulative: list[int] = []
            total = 0
            for s in range(1, length):
                lo = max(s + max(1, lo_min), next_nonws[s] + 1)
                hi = length - 1 if not hi_max else min(length - 1, s + hi_max)
                if lo <= hi:
                    self.span_starts.append(s)
                    self.span_lo.append(lo)
                    total += hi - lo + 1
                    self.cumulative.append(total)
            self.count = total

    def spot(self, index: int) -> tuple[int, int]:
        """(start, end) of the middle within the chunk for spot number `index`."""
        if self.mode == "line":
            i = self.starts[index]
            return self.offsets[i], self.offsets[i + self.n]
        k = bisect.bisect_right(self.cumulative, index)
        before = self.cumulative[k - 1] if k else 0
        return self.span_starts[k], self.span_lo[k] + (index - before)


def items_for_text(text: str, rel: str, opts: EvalgenOptions) -> FileResult:
    """The items of one file: a pure function of its text, its relative path and the options."""
    result = FileResult(file=rel)
    if len(text) < opts.min_chars or len(text.splitlines()) < opts.min_lines:  # the seed counts with splitlines()
        result.skipped = f"tiny (fewer than {opts.min_lines} lines or {opts.min_chars} characters)"
        return result
    digest = hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()
    chunks = chunk_text(text, opts.chunk_chars)
    spots = [_Spots(chunk, opts) for _, chunk in chunks]
    bounds = []
    total = 0
    for sp in spots:
        total += sp.count
        bounds.append(total)
    result.usable = total
    rng = random.Random(stable_int(opts.seed, digest))
    chosen = sorted(rng.sample(range(total), min(opts.per_file, total)))
    language = language_of(rel)
    for index in chosen:
        c = bisect.bisect_right(bounds, index)
        local = index - (bounds[c - 1] if c else 0)
        chunk_start, chunk = chunks[c]
        s, e = spots[c].spot(local)
        start, end = chunk_start + s, chunk_start + e
        item_id = hashlib.sha256(f"{rel}\0{digest}\0{opts.mode}\0{start}\0{end}".encode()).hexdigest()[:16]
        result.items.append(FimItem(
            id=item_id, file=rel, prefix=chunk[:s], middle=chunk[s:e], suffix=chunk[e:], mode=opts.mode,
            language=language, start=start, end=end, chunk_start=chunk_start, corpus_hash=digest,
        ))
    result.items.sort(key=lambda it: (it.start, it.end))
    return result


@dataclass(frozen=True)
class SourceFile:
    path: Path
    rel: str


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


def _read(path: Path) -> str:
    """The file's text with its line endings as they are (no newline translation)."""
    return path.read_bytes().decode("utf-8")


def generate(files: Sequence[SourceFile], opts: EvalgenOptions, workers: int = 1) -> EvalgenResult:
    """Items for the files, in the files' order; duplicates (whitespace-stripped content) skipped.

    Duplicate detection needs every text first; it is cheap next to the splitting, which is
    what the workers share.
    """
    texts: list[str | None] = []
    reasons: dict[int, str] = {}
    seen: dict[str, str] = {}
    for i, f in enumerate(files):
        try:
            text = _read(f.path)
        except (OSError, UnicodeDecodeError) as exc:
            texts.append(None)
            reasons[i] = f"unreadable: {exc}"
            continue
        texts.append(text)
        key = hashlib.sha256(_WHITESPACE.sub("", text).encode("utf-8", "surrogatepass")).hexdigest()
        if key in seen:
            reasons[i] = f"duplicate of {seen[key]}"
        else:
            seen[key] = f.rel
    jobs = [(i, texts[i], f.rel) for i, f in enumerate(files) if i not in reasons]
    results: dict[int, FileResult] = {i: FileResult(file=files[i].rel, skipped=r) for i, r in reasons.items()}
    if workers > 1 and len(jobs) > 1:
        with ProcessPoolExecutor(max_workers=workers) as pool:
            done = pool.map(_from_text, [(t, rel, opts) for _, t, rel in jobs], chunksize=max(1, len(jobs) // (workers * 4)))
            for (i, _, _), res in zip(jobs, done):
                results[i] = res
    else:
        for i, t, rel in jobs:
            results[i] = items_for_text(t, rel, opts)  # type: ignore[arg-type]
    ordered = [results[i] for i in range(len(files))]
    return EvalgenResult(items=[it for r in ordered for it in r.items], files=ordered)


def _from_text(args: tuple[str, str, EvalgenOptions]) -> FileResult:
    return items_for_text(*args)


def iter_jsonl(items: Iterable[FimItem]) -> Iterator[bytes]:
    """One JSON line per item with every field written out. (FimItem omits defaults, and msgspec
    decides "is the default" by identity for strings, so an item that crossed a process boundary
    would otherwise be written differently from one made in this process.)"""
    import msgspec

    for item in items:
        yield msgspec.json.encode(msgspec.structs.asdict(item)) + b"\n"
