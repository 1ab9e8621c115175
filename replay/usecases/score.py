"""Scores and reports: score a run or a file of pairs, the side-by-side report of runs, the
runs listing and its comparison (the TUI's Runs screen), and the scores a run gets while it goes
(the replay dashboard)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import msgspec

from replay import secrets
from replay.errors import UsageError, WorkError
from replay.latency import LatencySummary, Speed, parse_speed, summarize
from replay.latency.summary import columns as latency_columns
from replay.latency.summary import line as latency_line
from replay.records import Completion, FimItem
from replay.rejects import Reject, Rejects, beside
from replay.reports.report import RENDERERS, RunReport
from replay.scoring import HEADLINE, METRIC_NAMES, REFERENCE_KINDS, TEXTS, Lines, ReferenceKind, RunScore, ScoredItem, Summary, Text, parse_lines
from replay.store import Store
from replay.usecases.base import Say

REPORT_FORMATS = tuple(RENDERERS)

__all__ = ["REFERENCE_KINDS", "REPORT_FORMATS", "TEXTS", "Comparison", "FileScore", "LiveScores", "NothingScored", "RunRow",
           "Speed", "compare_runs", "export_comparison", "latency_columns", "latency_line", "list_runs", "parse_lines", "parse_speed", "report",
           "run_latency", "score_file", "score_result", "score_stored_run", "score_table"]


class NothingScored(WorkError):
    """A score, report or comparison that had no item to judge: its output says why, and the
    command exits 1 (the work asked for could not be done)."""


class FileScore(Summary, frozen=True):
    """What `fimreplay score FILE --json` prints: the pairs' aggregate (Summary's fields first),
    what was scored, the completions cut at a stop word, the lines not scored (`n_rejects`) and
    the file they were kept in (left out when every line was good), why they were not scored
    (`unscored`) and, when no line was, the sentence saying so (`nothing_scored`)."""

    source: str
    run: None
    text: str  # "given": the file's completion text
    lines: Lines
    scored: str
    n_stop_cut: int
    n_rejects: int
    rejects_file: str | msgspec.UnsetType = msgspec.UNSET
    unscored: dict[str, int] = {}
    nothing_scored: str | None = None
    # With --execute: pass@k over the items' samples, and how each program was contained
    # (replay.scoring.sandbox.isolation).
    pass_at_k: dict[str, float] | msgspec.UnsetType = msgspec.UNSET
    pass_at_k_per_file: dict[str, dict[str, float]] | msgspec.UnsetType = msgspec.UNSET
    contained_by: str | msgspec.UnsetType = msgspec.UNSET


def score_result(store: Store, source: str, lines: Lines = "auto", text: Text = "shown", seed: int = 0,
                 warn: Say | None = None, workers: int | None = None, compiles: bool = False,
                 reference: ReferenceKind = "typed", execute: bool = False) -> RunScore | FileScore:
    """Score a run of the store, or a JSONL file of {file, reference, completion} lines (with
    `execute`: of items with a `completion`, their tests run). What cannot be scored goes to the
    rejects file (beside the file, or the data dir's rejects/score-RUN.jsonl), each told to
    `warn`. `workers`: processes for a large batch (None: every core; the numbers are the same).
    A replayed capture is scored against `reference`: what the user typed at its cursor (else
    the accepted text), or the accepted text only."""
    path = Path(source)
    if path.is_file():
        return executed_file(source, lines, seed, warn, workers) if execute else score_file(source, lines, seed, warn, workers)
    if store.run(source) is not None:
        return score_stored_run(store, source, lines, text, seed, warn, workers, compiles, reference, execute)
    raise UsageError(f"{source}: neither a JSONL file nor a run in {store.path}")


def score_stored_run(store: Store, run_id: str, lines: Lines = "auto", text: Text = "shown", seed: int = 0,
                     warn: Say | None = None, workers: int | None = None, compiles: bool = False,
                     reference: ReferenceKind = "typed", execute: bool = False) -> RunScore:
    """score_result of a run of the store: told to `warn` when the run is not finished."""
    from replay.scoring import scored_run

    scored = scored_run(store, run_id, text, lines, seed, workers, compiles, reference, execute)
    _, total, note = progress(store, run_id, scored.scores.n_done)
    if note and warn is not None:
        warn(note)
    with Rejects(name=f"score-{run_id}", echo=warn) as rejects:
        for reject in scored.scores.rejects:
            rejects.add(reject)
    result = scored.result(total)
    return msgspec.structs.replace(result, rejects_file=rejects.file) if rejects.file else result


def run_latency(store: Store, run_id: str, speed: Speed | None = None) -> LatencySummary:
    """A stored run's time (replay.latency): measured, or projected at `speed`."""
    return summarize(store.timed_completions(run_id), speed)


def score_file(source: str, lines: Lines = "auto", seed: int = 0, warn: Say | None = None,
               workers: int | None = None) -> FileScore:
    """score_result of a JSONL file of pairs (`source`, its path as given)."""
    from replay.scoring import aggregate, nothing_scored, unscored_reasons

    rows, counts, rejects_file, found = file_rows(Path(source), lines, warn, workers)
    reasons = unscored_reasons(found)
    summary = aggregate(rows, seed=seed)
    result = FileScore(**msgspec.structs.asdict(summary), source=source, run=None, text="given", lines=lines,
                       scored=FILE_SCORED, **counts, unscored=reasons,
                       nothing_scored=nothing_scored(summary.n_items, reasons, "lines"))
    return msgspec.structs.replace(result, rejects_file=rejects_file) if rejects_file else result


FILE_SCORED = "the file's completion text (cut at its stop words)"


def executed_file(source: str, lines: Lines = "auto", seed: int = 0, warn: Say | None = None,
                  workers: int | None = None) -> FileScore:
    """score_result of a JSONL file of items with a `completion` (replay.scoring.execute.jsonl_cases),
    each judged by its benchmark's checker (replay.benchmarks.formats); a file with no such line
    is a UsageError naming its first bad line."""
    from replay.benchmarks.formats import checkers
    from replay.scoring import aggregate
    from replay.scoring.execute import case_rows, jsonl_cases
    from replay.scoring.sandbox import isolation

    path = Path(source)
    cases, found = jsonl_cases(path, checkers())
    if not cases:
        first = found[0].text() if found else f"{source}: no line"
        raise UsageError(f"{first} (score --execute reads items as evalgen --from writes them, each with a completion)")
    with Rejects(beside(path), echo=warn) as rejects:
        for reject in found:
            rejects.add(reject)
    rows, pass_at, per_file = case_rows(cases, lines, workers)
    result = FileScore(**msgspec.structs.asdict(aggregate(rows, seed=seed)), source=source, run=None, text="given",
                       lines=lines, scored="the file's completion text; its tests run with it in place of the middle",
                       n_stop_cut=0, n_rejects=len(found), pass_at_k=pass_at, pass_at_k_per_file=per_file,
                       contained_by=isolation())
    return msgspec.structs.replace(result, rejects_file=rejects.file) if rejects.file else result


def file_rows(path: Path, lines: Lines, warn: Say | None = None, workers: int | None = None
              ) -> tuple[list[ScoredItem], dict[str, int], str | None, list[Reject]]:
    """The scored pairs of a JSONL file of {id, file, reference, completion} lines, the counts
    (`n_stop_cut`, `n_rejects`), the rejects file its bad lines went to (beside it; None when
    every line was good), each bad line told to `warn`, and the lines not scored."""
    from replay.scoring import jsonl_pairs, score_rows

    pairs, found, counts = jsonl_pairs(path)
    with Rejects(beside(path), echo=warn) as rejects:
        for reject in found:
            rejects.add(reject)
    return score_rows(pairs, lines, workers), {**counts, "n_rejects": len(found)}, rejects.file, found


def score_table(result: RunScore | FileScore) -> str:
    """The plain-text table of a `score` result."""
    from replay.reports.score_table import score_table as table

    page = table(result, result.n_rejects, result.nothing_scored, result.unscored,
                 result.reference_sources if isinstance(result, RunScore) else None)
    if isinstance(result, FileScore) and result.pass_at_k:
        page += "\n" + ", ".join(f"{k} {v:.4f}" for k, v in result.pass_at_k.items())  # type: ignore[union-attr]
        page += f" (tests run contained by {result.contained_by})"
        if len(result.pass_at_k) > 1 and result.pass_at_k_per_file:  # type: ignore[arg-type]
            page += "".join(f"\n  {f}: " + ", ".join(f"{k} {v:.4f}" for k, v in ks.items())
                            for f, ks in result.pass_at_k_per_file.items())  # type: ignore[union-attr]
    return page


def write_page(output: Path, page: str) -> None:
    """A report's page written to `output` (its folder made), or a usage error naming the file."""
    try:
        output.parent.mkdir(parents=True, exist_ok=True)
        output.write_text(page, encoding="utf-8")
    except OSError as exc:
        raise UsageError(f"{output}: the report cannot be written ({exc.strerror or exc})") from None


def progress(store: Store, run_id: str, done: int | None = None) -> tuple[int, int, str | None]:
    """(items with a good completion (`done` when the caller counted them already), items the
    run was started with, a note when the run is not finished). A run killed or stopped is
    "interrupted" (replay.store.runs): its scores cover only part of its items, which the
    reader must be told, and the note says how to resume it."""
    run = store.run(run_id)
    done = len(store.good_item_ids(run_id)) if done is None else done
    total = store.count_run_prompts(run_id)
    if run is None or run.status not in ("running", "interrupted"):
        return done, total, None
    return done, total, (f"run {run_id} is {run.status}: {done} of {total} items have a completion; "
                         f"the scores cover those (resume it with `fimreplay run {run_id}`)")


@dataclass(frozen=True)
class Report:
    page: str  # the whole report in its format
    output: Path | None  # where it was written (None: the caller shows `page`)
    notes: tuple[str, ...] = ()  # what the reader must know beside the page (a run not finished)
    nothing_scored: str | None = None  # no run has a scored item: why (the command exits 1)


def report(store: Store, runs: Sequence[str], fmt: str = "md", output: Path | None = None, lines: Lines = "auto",
           text: Text = "shown", seed: int = 0, workers: int | None = None, cutoff: str | None = None,
           speed: Speed | None = None, reference: ReferenceKind = "typed", budget_ms: float | None = None) -> Report:
    """The side-by-side report of stored runs in one of REPORT_FORMATS, written to `output` when
    given. Completions not scored yet are scored (and the scores stored). Two runs are compared
    pair by pair too; `cutoff` is the models' training-data cutoff when the known table has none; the
    runs' time is measured, or projected at `speed`, and judged by `budget_ms` or the editors' rules."""
    from replay.reports.report import load_run
    from replay.usecases.timing import check_budget

    check_budget(budget_ms)
    missing = [r for r in runs if store.run(r) is None]
    if missing:
        raise UsageError(f"{store.path}: no run {missing[0]!r} (of {len(runs)} asked)")
    if fmt not in RENDERERS:
        raise UsageError(f"unknown report format {fmt!r} (one of {', '.join(REPORT_FORMATS)})")
    # What the report quotes came from servers and logs: the secrets rule applies to it too.
    loaded = [load_run(store, r, lines=lines, seed=seed, text=text, workers=workers, cutoff=cutoff, speed=speed,
                       reference=reference, budget_ms=budget_ms) for r in runs]
    page = secrets.scrub_text(RENDERERS[fmt](loaded))
    notes = tuple(note for r in runs if (note := progress(store, r)[2]))
    if fmt == "md" and notes:
        page += "".join(f"\n> {note}\n" for note in notes)
    if output is not None:
        write_page(output, page)
    nothing = None if any(r.summary.n_items for r in loaded) else "; ".join(f"run {r.run_id}: {r.nothing_scored}" for r in loaded)
    return Report(page, output, notes, nothing)


# -- the Runs screen ------------------------------------------------------------------------------
@dataclass(frozen=True)
class RunRow:
    id: str
    status: str
    model: str | None
    backend: str | None
    editor: str | None
    completions: int


def list_runs(store: Store) -> list[RunRow]:
    """Every run, oldest first, with how many completions it holds."""
    counts = store.completion_counts()
    return [RunRow(run.id, run.status, run.model, run.backend, run.editor, counts.get(run.id, 0)) for run in store.runs()]


@dataclass(frozen=True)
class Comparison:
    """Runs side by side: the report's runs table turned sideways (one row per field, one
    column per run), and the same comparison as JSONL, CSV and Markdown; two runs also pair by
    pair."""

    reports: list[RunReport]

    @property
    def run_ids(self) -> list[str]:
        return [r.run_id for r in self.reports]

    def paired_line(self) -> str:
        """Two runs: the second against the first, pair by pair (replay.reports.compare), in one line;
        otherwise "" (a paired comparison needs exactly two runs)."""
        from replay.reports.report import pair_of

        pair = pair_of(self.reports)
        return "" if pair is None else pair.summary(*self.run_ids)

    def rows(self) -> list[list[str]]:
        reports = self.reports
        metrics = [m for m in METRIC_NAMES if any(m in r.summary.mean for r in reports)]
        rows = [["model", *[r.model for r in reports]], ["profile", *[r.profile for r in reports]],
                ["backend", *[r.backend for r in reports]], ["items", *[str(r.summary.n_items) for r in reports]],
                ["files", *[str(r.summary.n_files) for r in reports]]]
        for m in metrics:
            cells = []
            for r in reports:
                mean, (low, high) = r.summary.mean.get(m), r.summary.ci95.get(m, (None, None))
                cells.append("-" if mean is None else f"{mean:.4f} [{low:.4f}, {high:.4f}]")
            rows.append([f"{m} mean [95%]", *cells])
            rows.append([f"{m} total", *["-" if m not in r.summary.total else f"{r.summary.total[m]:.4f}" for r in reports]])
        timed = [latency_columns(r.latency) if r.latency is not None and r.latency.n else None for r in reports]
        if any(timed):  # runs with their time: it goes beside their quality
            rows += [[head, *[cells[head] if cells else "-" for cells in timed]] for head in ("p50 ms", "p90 ms", "in time")]
            rows.append([f"in-time {HEADLINE} [95%]", *[r.in_time.cell() if r.in_time else "-" for r in reports]])
        return rows

    def to_jsonl(self) -> str:
        """One JSON object per run: report.to_dict's run entries, one per line."""
        from replay.reports.report import to_dict

        return "".join(json.dumps(run, ensure_ascii=False) + "\n" for run in to_dict(self.reports)["runs"])

    def to_csv(self) -> str:
        from replay.reports.report import to_csv

        return to_csv(self.reports)

    def to_markdown(self) -> str:
        from replay.reports.report import to_markdown

        return to_markdown(self.reports)


def compare_runs(store: Store, run_ids: Sequence[str]) -> Comparison:
    """Score what is not scored yet (and store the scores) and compare the runs."""
    from replay.reports.report import load_run

    return Comparison([load_run(store, r) for r in run_ids])


def export_comparison(comparison: Comparison, folder: Path | None = None) -> list[Path]:
    """Write the comparison as compare.jsonl, compare.csv and compare.md to `folder` (default:
    the data dir's exports/); return the files written."""
    from replay.paths import data_dir

    folder = folder or data_dir() / "exports"
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for name, text in (("compare.jsonl", comparison.to_jsonl()), ("compare.csv", comparison.to_csv()),
                       ("compare.md", comparison.to_markdown())):
        path = folder / name
        path.write_text(text, encoding="utf-8")
        written.append(path)
    return written


# -- the replay dashboard -------------------------------------------------------------------------
class LiveScores:
    """(Indel, exact) of each completion as it arrives, as `score` computes them by default (the
    shown text, as many lines as the reference). The reference is a benchmark item's middle, or
    for a replayed capture the text the user accepted, read as each completion arrives
    (replay.scoring.capture_reference); a completion without one, or that failed, gets None."""

    def __init__(self, store: Store, source: str) -> None:
        from replay.run.inputs import capture_references

        self.store = store
        self.middles: dict[str, str] = {} if source == "captures" else _middles(Path(source))
        self.captures = capture_references(store) if source == "captures" else {}

    def reference(self, item_id: str) -> str | None:
        from replay.scoring import capture_reference

        if item_id in self.middles:
            return self.middles[item_id]
        ref = self.captures.get(item_id)
        if ref is None:
            return None
        found, _ = capture_reference(self.store, ref.capture_id)
        return found[2] if found is not None else None

    def __call__(self, completion: Completion) -> tuple[float, float] | None:
        from replay.scoring import live_scores

        if completion.error is not None:
            return None
        reference = self.reference(completion.item_id)
        return None if reference is None else live_scores(reference, completion)


def _middles(path: Path) -> dict[str, str]:
    """Item id -> middle of the benchmark items in an input file."""
    return {item.id: item.middle for item in file_items(path)}


def file_items(path: Path) -> list[FimItem]:
    """The benchmark items of an input file (other lines are not items: rendered prompts, or
    rejects the runner reports itself)."""
    import msgspec

    from replay.jsonl import json_lines

    try:
        data = path.read_bytes()
    except OSError:
        return []  # the run reports the file itself
    items = []
    for _, line in json_lines(data):
        try:
            items.append(msgspec.json.decode(line, type=FimItem))
        except (msgspec.DecodeError, RecursionError, UnicodeEncodeError):  # not an item (nested too deeply, not UTF-8: neither)
            continue
    return items
