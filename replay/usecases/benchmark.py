"""Benchmark items: from real code (named corpora: npm packages, local folders, and the items
cut from them), or read from a public benchmark's file (`evalgen_from`)."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from pathlib import Path
from typing import Any, get_args

from replay.corpus.evalgen import EvalgenOptions, Mode, SourceFile
from replay.corpus.sources import Corpus, CorpusError
from replay.errors import UsageError, WorkError
from replay.rejects import Rejects, beside
from replay.store import Store
from replay.usecases.base import Say

MODES: tuple[str, ...] = get_args(Mode)

__all__ = ["MODES", "EvalgenOptions", "add_corpus", "benchmark_formats", "corpus_info", "evalgen", "evalgen_from",
           "list_corpora"]


def benchmark_formats() -> tuple[str, ...]:
    """The public benchmark layouts `evalgen_from` reads (replay.benchmarks.formats)."""
    from replay.benchmarks.formats import NAMES

    return NAMES


def evalgen_from(store: Store, path: Path, fmt: str, output: Path, warn: Say | None = None) -> dict[str, Any]:
    """Read a public benchmark's file (`fmt`, one of benchmark_formats) as items, write them to
    `output` as JSONL and add them to the store. Rows that cannot be items go to the rejects
    file beside the output (told to `warn`), the rest are read; a file of another layout is
    one UsageError naming file:line. Returns the summary `--json` prints."""
    from replay.benchmarks.formats import benchmark_format
    from replay.benchmarks.reader import read_benchmark
    from replay.corpus.evalgen import iter_jsonl

    layout = benchmark_format(fmt)
    with Rejects(beside(output), echo=warn) as rejects:
        read = read_benchmark(path, layout, rejects)
    output.parent.mkdir(parents=True, exist_ok=True)
    with output.open("wb") as f:
        f.writelines(iter_jsonl(read.items))
    new, dup = store.add_items(read.items)
    summary: dict[str, Any] = {
        "format": layout.name, "input": str(path), "input_sha256": read.sha256, "n_rows": read.n_rows,
        "n_items": len(read.items), "n_files": len({it.file for it in read.items}), "n_rejects": len(rejects),
        "output": str(output), "stored_new": new, "stored_existing": dup}
    if rejects:
        summary["rejects_file"] = rejects.file
    return summary


def evalgen(store: Store, corpora: Sequence[str], output: Path, opts: EvalgenOptions, exts: Sequence[str] = ("sol",),
            workers: int | None = None, warn: Say | None = None, new_code_only: bool = False,
            newer_than: str | None = None) -> dict[str, Any]:
    """Cut items from the files of `corpora` (folders, files or corpus names), write them to
    `output` as JSONL and add them to the store. Items of a stored corpus carry its version's
    date; `new_code_only` places middles only in the lines the corpus's version added since the
    older one it was made against (files without any are left out). Files that cannot be read
    go to the rejects file beside the output; files with fewer usable spots than asked are told
    to `warn`. `newer_than` (a date, or a model the cutoff table knows) keeps only the items whose
    middle was written after it (replay.cutoffs.item_date): in a corpus dated line by line (git
    blame) middles are placed only in lines all newer, and the files and lines left out are
    counted; of other corpora (new code of a dated version) the items not newer are counted, not
    written. Returns the summary `--json` prints."""
    from replay.corpus.evalgen import collect_files, generate, iter_jsonl
    from replay.corpus.sources import corpus_of, item_fields, line_dates, resolve_corpus_arg

    roots = [resolve_corpus_arg(c) for c in corpora]
    if opts.max_middle and opts.max_middle < opts.min_middle:
        raise UsageError(f"--max-middle {opts.max_middle} is below --min-middle {opts.min_middle}")
    files = collect_files(roots, tuple(exts))
    if not files:
        raise UsageError(f"{corpora[0]}: no files with extension {', '.join(exts)}")
    dating = []
    for arg, root in zip(corpora, roots):
        corpus = corpus_of(arg)
        if corpus is None and new_code_only:
            raise UsageError(f"{arg}: new code is known only for a stored corpus (`corpus add SPEC --since OLD`)")
        dating.append((root, *(item_fields(corpus, new_code_only) if corpus else ({}, None)),
                       line_dates(corpus) if corpus else None))
    files, n_old = _dated(files, dating)
    if not files:
        raise UsageError(f"{corpora[0]}: no new code in any file")
    bound = _newer_than(newer_than) if newer_than else None
    left_out: dict[str, int] = {}
    if bound is not None:
        files, left_out = _newer_lines(files, bound.date)
    result = generate(files, opts, workers=workers)
    items = result.items
    if bound is not None:
        from replay.cutoffs import item_date

        items = [it for it in items if (day := item_date(it)) is not None and day > bound.date]
    output.parent.mkdir(parents=True, exist_ok=True)
    with output.open("wb") as f:
        f.writelines(iter_jsonl(items))
    new, dup = store.add_items(items)
    summary = result.summary(opts)
    if bound is not None:
        summary.update(n_items=len(items), n_not_newer=len(result.items) - len(items), **left_out,
                       newer_than={"date": bound.date.isoformat(), "model": bound.model, "source": bound.source})
    for s in summary["short"]:  # type: ignore[union-attr]
        if warn is not None:
            warn(f"{s['file']}: only {s['got']} usable spots of {s['wanted']} wanted")
    with Rejects(beside(output), echo=warn) as rejects:
        for s in summary["skipped"]:  # type: ignore[union-attr]
            if str(s["reason"]).startswith("unreadable"):
                rejects.at(s["file"], 0, str(s["reason"]))
    if rejects:
        summary["rejects_file"] = rejects.file
    summary.update(output=str(output), stored_new=new, stored_existing=dup, n_rejects=len(rejects))
    if new_code_only:
        summary["n_files_without_new_code"] = n_old
    return summary


Dating = tuple[Path, dict[str, Any], dict[str, Any] | None, dict[str, Any] | None]  # root, stamp, new lines, line dates


def _dated(files: list[SourceFile], dating: list[Dating]) -> tuple[list[SourceFile], int]:
    """Each file with its corpus's item fields, new line ranges and line dates; files of a
    new-code corpus with no new line are dropped (and counted)."""
    out, dropped = [], 0
    for f in files:
        root, stamp, lines, dates = next((d for d in dating if f.path == d[0] or f.path.is_relative_to(d[0])),
                                         (f.path, {}, None, None))
        rel = f.path.relative_to(root).as_posix() if f.path != root else f.path.name
        allowed = None
        if lines is not None:
            allowed = lines.get(rel)
            if not allowed:
                dropped += 1
                continue
        out.append(dataclasses.replace(f, allowed=allowed, stamp=stamp, dates=(dates or {}).get(rel)))
    return out, dropped


def _newer_lines(files: list[SourceFile], day: Any) -> tuple[list[SourceFile], dict[str, int]]:
    """The files dated line by line with their middles allowed only in lines newer than `day`
    (and in their new code, if asked); files with none are left out. Files without line dates
    are kept as they are (their items are filtered by date once cut). Returns the counts left out."""
    from replay.corpus.linedates import intersect, n_lines, newer_ranges

    out, n_files, n_lines_out = [], 0, 0
    for f in files:
        if f.dates is None:
            out.append(f)
            continue
        newer = newer_ranges(f.dates, day)
        allowed = newer if f.allowed is None else intersect(f.allowed, newer)
        n_lines_out += n_lines(f.dates) - sum(b - a for a, b in newer)
        if not allowed:
            n_files += 1
            continue
        out.append(dataclasses.replace(f, allowed=allowed))
    return out, {"n_files_not_newer": n_files, "n_lines_not_newer": n_lines_out}


def corpus_info(corpus: Corpus) -> dict[str, Any]:
    """A corpus as `corpus add` and `corpus list` show it: its source, package, hashes, root."""
    m = corpus.manifest
    keep = ("name", "source", "kind", "package", "version", "tarball", "tarball_sha256", "integrity", "path", "published",
            "url", "ref", "commit", "committed", "blame")
    info = {**{k: m[k] for k in keep if k in m}, "root": str(corpus.root), "n_files": len(m.get("files", {}))}
    if m.get("new_code"):
        info["new_code"] = {k: v for k, v in m["new_code"].items() if k != "lines"}
    return info


def add_corpus(spec: str, name: str | None = None, exts: Sequence[str] = ("sol",), force: bool = False,
               date: str | None = None, since: str | None = None, since_date: str | None = None,
               progress: Say | None = None) -> dict[str, Any]:
    """Make a named corpus from `npm:NAME@VERSION` (unpacked with `npm pack`), an `npm pack`
    tarball or a local folder, dated from every source it has; `since` (a spec) or `since_date`
    (the newest version published before that day) records which of its lines are new code.
    `git:URL[@REF]` and a folder in a git work tree date every line by git blame, telling
    `progress` how far it is. A failure of npm or git is the work failing; a bad spec, folder
    or REF is bad usage."""
    from replay.corpus import sources

    try:
        return corpus_info(sources.add_corpus(spec, name, exts=tuple(exts), force=force, date=date, since=since,
                                              since_date=since_date, progress=progress))
    except CorpusError as exc:
        if spec.startswith("npm:"):
            raise WorkError(str(exc)) from exc
        raise


def list_corpora() -> list[dict[str, Any]]:
    from replay.corpus import sources

    return [corpus_info(c) for c in sources.list_corpora()]


def _newer_than(spec: str) -> Any:
    """`--newer-than`: a date (YYYY-MM-DD) or a model whose training-data cutoff the table knows."""
    from replay.cutoffs import find_cutoff

    if spec[:4].isdigit():
        return find_cutoff([], spec)
    found = find_cutoff([spec])
    if found is None:
        raise UsageError(f"--newer-than {spec!r}: not a date, and no known cutoff for that model (give the date)")
    return found
