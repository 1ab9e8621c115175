"""Each line of a corpus file dated by `git blame`: the commit that last changed it.

`git blame --porcelain -w -M -C` (git-blame(1): git/git Documentation/git-blame.txt and
blame-options.txt, as of commit 03b91c8b; run here with git 2.39): `-w` ignores whitespace when
comparing a line with its parent's, so a reindent keeps the line's older commit; `-M` follows
lines moved or copied within the file, `-C` from other files changed in the same commit, so a
moved block keeps the commit that wrote it. The repository's `.git-blame-ignore-revs` (the
name GitHub reads it under: the repository's formatting-only commits) is passed with
`--ignore-revs-file`: those commits date nothing. A line's date is its commit's
`committer-time` (porcelain's seconds since the epoch), in UTC: when the line entered the
history that was published, not when its author first typed it. A work tree's lines that no
commit holds (git blame's commit 0000000…) are dated when the corpus is made, and flagged.

Blame of a file at a commit does not change, so it runs once per (commit, file, ignore list)
and is kept under the corpora folder (`.blame/`): a second `corpus add` of the same commit,
under any name or with --force, reads it back. Files are blamed in parallel (git does the work:
threads, one per usable core), with progress on stderr.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from replay.cores import usable_cores
from replay.corpus import git as _git
from replay.corpus.linedates import UNCOMMITTED, runs_of, uncommitted, utc_time

OPTIONS = ("-w", "-M", "-C")
Progress = Callable[[str], None]


def parse_porcelain(out: bytes) -> list[tuple[str, int]]:
    """(commit, committer time) of each line of the blamed file, in order, from `--porcelain`
    output (git-blame.txt, "THE PORCELAIN FORMAT"): a header `<commit> <orig line> <final line>
    [<lines in group>]`, the commit's `key value` lines the first time it appears (tags not
    known are skipped, as the format asks), then the line itself after a TAB. A commit id is 40
    hex digits (SHA-1) or 64 (a SHA-256 repository)."""
    times: dict[str, int] = {}
    lines: list[tuple[str, int]] = []
    commit = ""
    for raw in out.split(b"\n"):
        if raw.startswith(b"\t"):
            lines.append((commit, 0))
            continue
        head, _, rest = raw.partition(b" ")
        if len(head) in (40, 64) and rest[:1].isdigit():
            commit = head.decode()
        elif head == b"committer-time":
            times[commit] = int(rest)
    return [(c, times.get(c, 0)) for c, _ in lines]


def run_blame(args: list[str], cwd: Path | None = None) -> bytes:
    """One `git blame` (the seam tests count calls through)."""
    return _git.git(args, cwd=cwd, what="git blame")


class Blamer:
    """Blames the files of one commit (or of a work tree), with a cache keyed by what decides it."""

    def __init__(self, cache: Path, commit: str, ignore: bytes | None, *, repo: _git.Repo | None = None,
                 work_tree: Path | None = None, prefix: str = "") -> None:
        """`repo`: blame its `commit`; else `work_tree` as it is on disk (HEAD `commit`), its files
        named relative to a folder `prefix` inside it."""
        self.cache, self.commit, self.repo, self.work_tree, self.prefix = cache, commit, repo, work_tree, prefix
        cache.mkdir(parents=True, exist_ok=True)
        ignore, self.ignore_bad = _git.usable_revs(ignore or b"")
        self.ignore_key = hashlib.sha256(ignore).hexdigest()
        self.ignore_file: Path | None = None
        if ignore:
            fd, name = tempfile.mkstemp(prefix="ignore-revs.", dir=cache)
            os.write(fd, ignore)
            os.close(fd)
            self.ignore_file = Path(name)
        self.now = utc_time(int(time.time()))

    def close(self) -> None:
        if self.ignore_file is not None:
            self.ignore_file.unlink(missing_ok=True)

    def _key(self, rel: str, content: bytes) -> Path:
        parts = "\0".join((self.commit, rel, self.ignore_key, " ".join(OPTIONS), hashlib.sha256(content).hexdigest()))
        return self.cache / self.commit[:2] / f"{hashlib.sha256(parts.encode()).hexdigest()[:40]}.json"

    def file(self, rel: str, content: bytes) -> list[list[Any]]:
        """The runs of one file (replay.corpus.linedates), from the cache or one git blame."""
        rel = self.prefix + rel
        key = self._key(rel, content)
        try:
            return json.loads(key.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            pass
        lines = self._blame(rel)
        runs = runs_of([(self.now if uncommitted(c) else utc_time(t), c) for c, t in lines])
        if not any(uncommitted(c) for c, _ in lines):  # a work tree's edits are dated "now": not kept
            key.parent.mkdir(parents=True, exist_ok=True)
            tmp = key.with_name(f"{key.name}.{os.getpid()}.tmp")
            tmp.write_text(json.dumps(runs), encoding="utf-8")
            tmp.replace(key)
        return runs

    def _blame(self, rel: str) -> list[tuple[str, int]]:
        extra = ["--ignore-revs-file", str(self.ignore_file)] if self.ignore_file else []
        if self.repo is not None:
            args = ["--git-dir", str(self.repo.git_dir), "blame", "--porcelain", *OPTIONS, *extra, self.commit, "--", rel]
            return parse_porcelain(run_blame(args))
        assert self.work_tree is not None
        try:
            out = run_blame(["blame", "--porcelain", *OPTIONS, *extra, "--", rel], cwd=self.work_tree)
        except _git.GitFailed as exc:
            if "no such path" not in str(exc):
                raise
            text = (self.work_tree / rel).read_bytes()  # not tracked: every line is uncommitted
            return [(UNCOMMITTED, 0)] * (text.count(b"\n") + (0 if text.endswith(b"\n") or not text else 1))
        return parse_porcelain(out)


def blame_files(blamer: Blamer, files: Sequence[tuple[str, Path]], progress: Progress | None = None,
                workers: int | None = None) -> tuple[dict[str, list[list[Any]]], dict[str, str]]:
    """rel -> runs for every file (rel: its path in the repository or work tree; the Path: its
    copy in the corpus), and rel -> why for the files git could not blame."""
    done: dict[str, list[list[Any]]] = {}
    failed: dict[str, str] = {}
    step = max(1, len(files) // 10)

    def one(job: tuple[str, Path]) -> tuple[str, list[list[Any]] | None, str]:
        rel, path = job
        try:
            return rel, blamer.file(rel, path.read_bytes()), ""
        except (_git.GitFailed, OSError) as exc:
            return rel, None, str(exc)

    with ThreadPoolExecutor(max_workers=workers or usable_cores()) as pool:
        for n, (rel, runs, why) in enumerate(pool.map(one, files), 1):
            if runs is None:
                failed[rel] = why
            else:
                done[rel] = runs
            if progress is not None and (n % step == 0 or n == len(files)):
                progress(f"blame: {n}/{len(files)} files")
    return done, failed


def record(blamer: Blamer, files: Sequence[tuple[str, Path]], progress: Progress | None = None) -> dict[str, Any]:
    """The manifest's `line_dates` (rel -> runs) and `blame` (what was run, on what, and the
    files it could not date) for the corpus's files."""
    try:
        runs, failed = blame_files(blamer, files, progress)
    finally:
        blamer.close()
    times = [str(r[1]) for rs in runs.values() for r in rs if not uncommitted(r[2])]
    summary = {"commit": blamer.commit, "options": list(OPTIONS), "ignore_revs": blamer.ignore_file is not None,
               "ignore_revs_not_ids": blamer.ignore_bad,
               "n_files": len(runs), "n_lines": sum(int(r[0]) for rs in runs.values() for r in rs),
               "n_uncommitted": sum(int(r[0]) for rs in runs.values() for r in rs if uncommitted(r[2])),
               "oldest": min(times, default=None), "newest": max(times, default=None), "failed": failed}
    return {"line_dates": runs, "blame": summary}
