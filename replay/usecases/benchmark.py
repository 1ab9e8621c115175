"""Benchmark items from real code: named corpora (npm packages, local folders) and the items
(prefix, middle, suffix) cut from them."""

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

__all__ = ["MODES", "EvalgenOptions", "add_corpus", "corpus_info", "evalgen", "list_corpora"]


def evalgen(store: Store, corpora: Sequence[str], output: Path, opts: EvalgenOptions, exts: Sequence[str] = ("sol",),
            workers: int | None = None, warn: Say | None = None, new_code_only: bool = False,
            newer_than: str | None = None) -> dict[str, Any]:
    """Cut items from the files of `corpora` (folders, files or corpus names), write them to
    `output` as JSONL and add them to the store. Items of a stored corpus carry its version's
    date; `new_code_only` places middles only in the lines the corpus's version added since the
    older one it was made against (files without any are left out). Files that cannot be read
    go to the rejects file beside the output; files with fewer usable spots than asked are told
    to `warn`. `newer_than` (a date, or a model the cutoff table knows) keeps only the items whose
    middle was written after it (replay.cutoffs.item_date: new code of a dated corpus); the rest
    are counted, not written. Returns the summary `--json` prints."""
    from replay.corpus.evalgen import collect_files, generate, iter_jsonl
    from replay.corpus.sources import corpus_of, item_fields, resolve_corpus_arg

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
        dating.append((root, *(item_fields(corpus, new_code_only) if corpus else ({}, None))))
    files, n_old = _dated(files, dating)
    if not files:
        raise UsageError(f"{corpora[0]}: no new code in any file")
    bound = _newer_than(newer_than) if newer_than else None
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
        summary.update(n_items=len(items), n_not_newer=len(result.items) - len(items),
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


def _dated(files: list[SourceFile], dating: list[tuple[Path, dict[str, Any], dict[str, Any] | None]]) -> tuple[list[SourceFile], int]:
    """Each file with its corpus's item fields and new line ranges; files of a new-code corpus
    with no new line are dropped (and counted)."""
    out, dropped = [], 0
    for f in files:
        root, stamp, lines = next(((r, s, ln) for r, s, ln in dating if f.path == r or f.path.is_relative_to(r)), (f.path, {}, None))
        allowed = None
        if lines is not None:
            allowed = lines.get(f.path.relative_to(root).as_posix() if f.path != root else f.path.name)
            if not allowed:
                dropped += 1
                continue
        out.append(dataclasses.replace(f, allowed=allowed, stamp=stamp))
    return out, dropped


def corpus_info(corpus: Corpus) -> dict[str, Any]:
    """A corpus as `corpus add` and `corpus list` show it: its source, package, hashes, root."""
    m = corpus.manifest
    keep = ("name", "source", "kind", "package", "version", "tarball", "tarball_sha256", "integrity", "path", "published")
    info = {**{k: m[k] for k in keep if k in m}, "root": str(corpus.root), "n_files": len(m.get("files", {}))}
    if m.get("new_code"):
        info["new_code"] = {k: v for k, v in m["new_code"].items() if k != "lines"}
    return info


def add_corpus(spec: str, name: str | None = None, exts: Sequence[str] = ("sol",), force: bool = False,
               date: str | None = None, since: str | None = None, since_date: str | None = None) -> dict[str, Any]:
    """Make a named corpus from `npm:NAME@VERSION` (unpacked with `npm pack`), an `npm pack`
    tarball or a local folder, dated from every source it has; `since` (a spec) or `since_date`
    (the newest version published before that day) records which of its lines are new code.
    A failure of npm is the work failing; a bad spec or folder is bad usage."""
    from replay.corpus import sources

    try:
        return corpus_info(sources.add_corpus(spec, name, exts=tuple(exts), force=force, date=date, since=since,
                                              since_date=since_date))
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
