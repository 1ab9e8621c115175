"""The `compiles` metric: does the file still compile with the completion in place?

For one benchmark item (a FimItem) and the completion text scored (the whole text, not the line
window: what the user would insert), the file is rebuilt as file[:start] + completion +
file[end:] and judged against the original file:

- Solidity: both are compiled by the real compiler, solc-js 0.8.37 (the npm `solc` package, an
  offline asset; one compiler version per solc-js release, and 0.8.37 is the newest to be had
  here: it accepts every `pragma solidity ^0.8.x`). Only analysis is run (parsing, name
  resolution, type checking), imports are read from the corpus the file belongs to. The value is
  1.0 when the completed file has no compiler error the original does not have (so: it compiles
  when the original compiles; it fails only as the original did otherwise, e.g. on an import
  from outside the package), 0.0 when it has a new one. Errors are compared by (type, code,
  message), not by position, which the completion shifts. None (n/a) when the pinned compiler
  cannot compile the file at all (its pragma asks for another version).
- Other languages: a parse with the tree-sitter grammar CodeBLEU uses; 1.0 when the completed
  file has no more syntax errors (ERROR or MISSING nodes) than the original, else 0.0. None
  without a grammar.
- None also when the original file cannot be had: the item's chunk is the whole file (its sha256
  is the item's corpus_hash), or a stored corpus holds a file with that sha256.

Compiling is slow next to the other metrics (tens of milliseconds a file), so it is opt-in
(`score --compiles`); one node process keeps the compiler loaded for all items, and results are
cached by content hash (in memory and in `<data dir>/compiles.sqlite`), so a file's original is
compiled once and a second scoring compiles nothing.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from replay.assets import asset_path
from replay.errors import WorkError
from replay.paths import cache_dir, data_dir
from replay.reading import RunReader
from replay.records import FimItem
from replay.store.compiles import CompilerErrors, CompilerResults

SOLC = "solc"  # the asset; its version is the compiler's
SOLC_NEEDS = ("semver", "memorystream", "follow-redirects", "js-sha3")  # what solc-js's wrapper requires
_DRIVER = Path(__file__).resolve().parent.parent / "data" / "solc_driver.js"
_OTHER_VERSION = "5333"  # solc's "Source file requires different compiler version"


class CompilerUnavailable(WorkError):
    """node or the solc-js assets are missing."""


def _node_modules() -> Path:
    """A node_modules folder of links to the installed npm assets, as npm would lay them out."""
    modules = cache_dir() / "node" / f"{asset_path(SOLC).name}-node_modules"
    modules.mkdir(parents=True, exist_ok=True)
    for name in (SOLC, *SOLC_NEEDS):
        link = modules / name
        if not link.exists():
            link.symlink_to(asset_path(name) / "package", target_is_directory=True)
    return modules


class Solc:
    """solc-js in one long-lived node process, started on the first source not in the cache;
    `errors` compiles one source."""

    def __init__(self, cache: Path | None = None) -> None:
        self.version = asset_path(SOLC).name  # "solc-0.8.37": part of every cache key
        self._proc: subprocess.Popen[str] | None = None
        self._stderr: Any = None
        self._memo: dict[str, CompilerErrors] = {}
        self._results = CompilerResults(cache or data_dir() / "compiles.sqlite")

    def _started(self) -> subprocess.Popen[str]:
        if self._proc is None:
            node = shutil.which("node")
            if node is None:
                raise CompilerUnavailable("node is not installed (needed by the compiles metric for Solidity)")
            env = dict(os.environ, NODE_PATH=str(_node_modules()))
            self._stderr = tempfile.TemporaryFile()  # a file, not a pipe: node can never block on it
            self._proc = subprocess.Popen([node, "--preserve-symlinks", str(_DRIVER)], stdin=subprocess.PIPE,
                                          stdout=subprocess.PIPE, stderr=self._stderr, text=True, encoding="utf-8",
                                          env=env)
            self._answer()  # {"version"}: the compiler is loaded
        return self._proc

    def _answer(self) -> dict[str, Any]:
        assert self._proc is not None and self._proc.stdout is not None
        line = self._proc.stdout.readline()
        if not line:
            self._proc.wait()
            self._stderr.seek(0)
            tail = self._stderr.read().decode("utf-8", "replace").strip().splitlines()[-1:]
            raise CompilerUnavailable(f"solc-js stopped: {tail[0] if tail else 'no output'}")
        return json.loads(line)

    def errors(self, name: str, content: str, base: Path | None) -> CompilerErrors:
        """The compiler's errors of `content` as the source unit `name`, imports read under `base`."""
        key = hashlib.sha256("\0".join((self.version, name, str(base or ""), content)).encode("utf-8", "surrogatepass")).hexdigest()
        if key in self._memo:
            return self._memo[key]
        found = self._results.get(key)
        if found is None:
            found = self.compile(name, content, base)
            self._results.put(key, found)
        self._memo[key] = found
        return found

    def compile(self, name: str, content: str, base: Path | None) -> CompilerErrors:
        """The compiler's errors, always from the compiler (no cache)."""
        proc = self._started()
        assert proc.stdin is not None
        proc.stdin.write(json.dumps({"name": name, "content": content, "base": str(base) if base else None}) + "\n")
        proc.stdin.flush()
        return frozenset(tuple(e) for e in self._answer()["errors"])

    def close(self) -> None:
        proc, self._proc = self._proc, None
        if proc is not None:
            if proc.stdin is not None:
                proc.stdin.close()
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
            if proc.stdout is not None:
                proc.stdout.close()
            self._stderr.close()
        self._results.close()

    def __enter__(self) -> Solc:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def judge(original: CompilerErrors, completed: CompilerErrors) -> float | None:
    """1.0 when the completed file has no error the original lacks; None when the compiler could
    not judge the original (another compiler version asked for)."""
    if any(code == _OTHER_VERSION for _, code, _ in original):
        return None
    return 1.0 if completed <= original else 0.0


def syntax_errors(text: str, language: str) -> int | None:
    """ERROR and MISSING nodes of a tree-sitter parse of `text`; None without a grammar."""
    from replay.languages import parser_or_none

    parser = parser_or_none(language)
    if parser is None:
        return None
    count, stack = 0, [parser.parse(text.encode("utf-8", "surrogatepass")).root_node]
    while stack:
        node = stack.pop()
        if node.is_error or node.is_missing:
            count += 1
        if node.has_error:
            stack.extend(node.children)
    return count


@functools.lru_cache(maxsize=1)
def _corpus_files() -> dict[str, tuple[Path, Path, str]]:
    """sha256 -> (file, its corpus's files folder, relative path) over the stored corpora."""
    from replay.corpus.sources import list_corpora

    found: dict[str, tuple[Path, Path, str]] = {}
    for corpus in list_corpora():
        for rel, sha in corpus.manifest.get("files", {}).items():
            found.setdefault(sha, (corpus.root / rel, corpus.root, rel))
    return found


def original_file(item: FimItem) -> tuple[str, Path | None, str] | None:
    """(the item's whole file, the folder its imports are read from, its name there), or None."""
    chunk = item.prefix + item.middle + item.suffix
    if item.chunk_start == 0 and hashlib.sha256(chunk.encode("utf-8", "surrogatepass")).hexdigest() == item.corpus_hash:
        hit = _corpus_files().get(item.corpus_hash)
        return chunk, hit[1] if hit else None, hit[2] if hit else item.file
    hit = _corpus_files().get(item.corpus_hash)
    if hit is None or not hit[0].is_file():
        return None
    return hit[0].read_bytes().decode("utf-8"), hit[1], hit[2]


def compiles_many(cases: Iterable[tuple[FimItem, str]], cache: Path | None = None) -> list[float | None]:
    """The compiles value of each (item, completion text); see the module's docstring.
    `cache`: the results file (default `<data dir>/compiles.sqlite`)."""
    cases = list(cases)
    out: list[float | None] = []
    solc: Solc | None = None
    try:
        for item, completion in cases:
            found = original_file(item)
            if found is None:
                out.append(None)
                continue
            text, base, name = found
            completed = text[: item.start] + completion + text[item.end :]
            if item.language == "solidity":
                solc = solc or Solc(cache)
                out.append(judge(solc.errors(name, text, base), solc.errors(name, completed, base)))
                continue
            before, after = syntax_errors(text, item.language), syntax_errors(completed, item.language)
            out.append(None if before is None or after is None else float(after <= before))
    finally:
        if solc is not None:
            solc.close()
    return out


def add_compiles(store: RunReader, rows: Sequence[Any]) -> None:
    """Add `compiles` to the values of scored rows (scoring.ScoredItem) of benchmark items; rows
    of captures, and items whose value is n/a, get none (the mean is over the judged items)."""
    wanted = {r.item_id for r in rows}
    items = {it.id: it for it in store.items() if it.id in wanted}
    judged = [r for r in rows if r.item_id in items]
    for row, value in zip(judged, compiles_many((items[r.item_id], r.completion) for r in judged)):
        if value is not None:
            row.values["compiles"] = value
