"""`fimreplay demo`: the main job end to end on the embedded defaults.

It imports the sample captures of this repository (captures/), checks that the editor profiles
rebuild each logged prompt byte for byte, audits the prompts with the demo model's own
tokenizer, cuts a small benchmark from a real Solidity package (npm), replays the benchmark
under the standardized profile (1024-token context, 128 new tokens) and the captures under
their own editor's profile against the default local model (Qwen2.5-Coder-0.5B GGUF in
llama.cpp), scores both (the captures against what the user typed, else the accepted text) and
prints the side-by-side report, then the acceptance report of the captures. Every step is the use case the
matching command calls, so the demo shows exactly what the commands do.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from replay.backends import GenParams
from replay.rejects import default_path
from replay.run.runner import ProgressFn
from replay.store import Store
from replay.usecases.base import Say, quiet

if TYPE_CHECKING:
    from replay.scoring import RunScore, Summary

# The assets the demo needs: the model (its vocabulary is the audit's tokenizer too) and the
# tokenizers Continue counts its budget with.
DEMO_ASSETS = ("qwen2.5-coder-0.5b-instruct-q4_k_m", "vocab-llama-spm", "js-tiktoken")
DEMO_TOKENIZER = "qwen2.5-coder"


def captures_dir() -> Path:
    """captures/ beside the package (an editable install or a checkout)."""
    return Path(__file__).resolve().parent.parent.parent / "captures"


# The demo's llama.cpp runs on one thread. The engine's threads meet at a barrier after every
# operation of the graph (an OpenMP barrier in the xllamacpp build, which spins before it sleeps):
# on 2 cores that another process also uses, a second thread spends its turn waiting for the
# first. Measured on the demo's prompts, 10 prompts x 64 tokens, load average 10 on 2 cores: one
# thread 31 s of CPU in 239 s; two threads over 213 s of CPU in 10 minutes, unfinished. One
# thread also gives the demo the same set-up, so the same answers, on every machine.
DEMO_THREADS = 1


@dataclass
class DemoOptions:
    files: int = 6  # Solidity files taken from the corpus (sorted by path)
    per_file: int = 2
    seed: int = 0
    model: str = "default"
    max_new_tokens: int | None = None  # None: each profile's own (128 standard, Tabby 64) ...
    cap_new_tokens: int = 128  # ... but never more than the standard 128 (Continue's own is 4096)
    corpus: str = ""  # "" = replay.corpus.sources.DEMO_CORPUS
    threads: int = DEMO_THREADS
    allow_foreign_sentinels: bool = False  # replay prompts whose sentinels the model reads as text (run's option)


@dataclass
class DemoResult:
    steps: dict[str, Any] = field(default_factory=dict)
    runs: list[str] = field(default_factory=list)
    report: str = ""

    def to_json(self) -> dict[str, Any]:
        return {"runs": self.runs, "steps": self.steps}


def stage_line(shown: RunScore, raw: Summary) -> str:
    """One line on how what the editor showed differs from what the engine gave, and what that
    does to the headline score (`raw` is the whole raw text, as runs were scored before)."""
    n = shown.n_items
    if not n or "indel" not in shown.mean:
        return "nothing scored"
    return (f"Indel {shown.mean['indel']:.3f} on what the editor showed, as many lines as the reference "
            f"({raw.mean['indel']:.3f} on the whole raw text); the editor changed {shown.n_changed} of {n} "
            f"completions (mean {shown.chars_removed / n:.1f} characters removed) and showed nothing for "
            f"{shown.n_nothing_shown}")


def run_demo(store: Store, opts: DemoOptions, say: Say = quiet, on_progress: ProgressFn | None = None) -> DemoResult:
    from replay.paths import data_dir
    from replay.reports.report import load_run, to_markdown

    result = DemoResult()
    work = data_dir() / "demo"
    work.mkdir(parents=True, exist_ok=True)
    _check_assets(result, say)
    _import_samples(store, result, say)
    _verify_prompts(store, result, say)
    _audit_prompts(store, result, say)
    items_path = _cut_benchmark(store, opts, work, result, say)
    for label, source, editor in (("benchmark", str(items_path), "standard"), ("captures", "captures", None)):
        run_id = _replay(store, opts, label, source, editor, result, say, on_progress)
        _score(store, label, run_id, result, say)
    result.report = to_markdown([load_run(store, r) for r in result.runs]) + "\n" + _acceptance(store, result, say)
    return result


def _acceptance(store: Store, result: DemoResult, say: Say) -> str:
    """The acceptance report of the imported captures (replay.usecases.acceptance): its page."""
    from replay.usecases.acceptance import acceptance_report

    done = acceptance_report(store)
    result.steps["acceptance"] = {k: done.data[k] for k in ("n_shown", "n_accepted", "n_with_typed_reference")}
    say(f"acceptance: {done.data['n_accepted']} of {done.data['n_shown']} shown completions accepted;"
        f" {done.data['n_with_typed_reference']} with a typed reference")
    return done.page


def _check_assets(result: DemoResult, say: Say) -> None:
    from replay.assets.installer import install

    say("assets: checking the demo model and tokenizers (sha256)")
    statuses = install(DEMO_ASSETS, log=say)
    result.steps["assets"] = {s.name: s.action for s in statuses}


def _import_samples(store: Store, result: DemoResult, say: Say) -> None:
    from replay.usecases.capture import import_captures

    src = captures_dir()
    # captures/bad holds the rejects samples; the demo imports the real formats only.
    folders = sorted(p for p in src.iterdir() if p.is_dir() and p.name != "bad")
    say(f"import: {', '.join(str(p) for p in folders)}")
    summary = import_captures(store, folders, rejects_path=default_path("demo-import"))
    result.steps["import"] = summary.to_json()
    say(f"import: {summary.imported} new captures, {summary.duplicates} already stored, {summary.outcomes} outcome events,"
        f" {summary.ignored} ignored, {summary.rejected} rejected")


def _verify_prompts(store: Store, result: DemoResult, say: Say) -> None:
    from replay.usecases.render import verify

    report = verify(store)
    result.steps["verify"] = report.as_dict()
    say(f"verify: {report.matched} of {report.checked} logged prompts rebuilt byte for byte")


def _audit_prompts(store: Store, result: DemoResult, say: Say) -> None:
    from replay.usecases.inspect import audit

    audited = audit(store, (), DEMO_TOKENIZER, engine="llama.cpp", ctx=1024, captures=True)
    s = audited.summary
    result.steps["audit"] = {**{k: v for k, v in s.items() if k not in ("tokenizer", "engine")},
                             "rejects_file": s.get("rejects_file")}
    kinds = ", ".join(f"{k} {n}" for k, n in s["by_kind"].items() if n)
    say(f"audit ({s['tokenizer']}): {s['findings']} findings in {s['subjects']} prompts ({kinds or 'none'});"
        f" {s['rejects']} captures without a logged prompt to audit")


def _cut_benchmark(store: Store, opts: DemoOptions, work: Path, result: DemoResult, say: Say) -> Path:
    """Benchmark items from the demo corpus, written to the demo folder and stored; their file."""
    from replay.corpus.evalgen import EvalgenOptions, collect_files, generate, iter_jsonl
    from replay.corpus.sources import DEMO_CORPUS, ensure_corpus

    spec = opts.corpus or DEMO_CORPUS
    say(f"evalgen: {spec}, {opts.files} files x {opts.per_file} items, seed {opts.seed}")
    root = ensure_corpus(spec)
    gen = generate(collect_files([root], ("sol",)), EvalgenOptions(per_file=opts.per_file, seed=opts.seed))
    # The first `files` files (in path order) that gave items: tiny files give none.
    keep = list(dict.fromkeys(item.file for item in gen.items))[: opts.files]
    items = [item for item in gen.items if item.file in keep]
    items_path = work / "items.jsonl"
    with items_path.open("wb") as f:
        f.writelines(iter_jsonl(items))
    store.add_items(items)
    result.steps["evalgen"] = {"items": len(items), "files": len(keep), "path": str(items_path)}
    return items_path


def _replay(store: Store, opts: DemoOptions, label: str, source: str, editor: str | None, result: DemoResult,
            say: Say, on_progress: ProgressFn | None) -> str:
    """One run against the default local model (`editor` None: each capture's own); its id.

    The run is named `demo-LABEL-DIGEST` of its prompts and settings (RunRequest.reuse_as): a
    demo started again on the same store takes up the run it made before, finished or not,
    instead of adding another with the same completions."""
    from replay.usecases.replay import RunRequest, run

    profile = editor or "each capture's own editor"
    say(f"run {label}: {profile} profile, llama.cpp, model {opts.model}")
    out = run(store, RunRequest(source, "llamacpp", model=opts.model, editor=editor,
                                params=GenParams(ctx=1024, max_new_tokens=opts.max_new_tokens,
                                                 cap_new_tokens=opts.cap_new_tokens),
                                backend_options={"n_threads": opts.threads},
                                allow_foreign_sentinels=opts.allow_foreign_sentinels, reuse_as=f"demo-{label}"),
              on_progress=on_progress)
    r = out.summary
    result.runs.append(r.run)
    result.steps[f"run_{label}"] = {"run": r.run, "items": r.items, "completed": r.completed, "cached": r.cached,
                                    "resumed": r.resumed, "errors": r.errors, "rejects": out.rejected, "wall_s": r.wall_s}
    done = f"{r.resumed} already done in this run, " if r.resumed else ""
    say(f"run {label}: {r.completed}/{r.items} completed ({done}{r.cached} from cache, {r.errors} errors) "
        f"in {r.wall_s:.1f} s")
    return r.run


def _score(store: Store, label: str, run_id: str, result: DemoResult, say: Say) -> None:
    from replay.scoring import scored_run
    from replay.usecases.score import score_stored_run
    from replay.usecases.timing import scored_run_time

    scored = score_stored_run(store, run_id)
    raw = scored_run(store, run_id, "raw", "all").summary
    result.steps[f"score_{label}"] = {"text": scored.text, "lines": scored.lines, "mean": scored.mean,
                                      "total": scored.total, "n_files": scored.n_files, "raw_mean": raw.mean,
                                      "unscored": scored.n_rejects, "rejects_file": scored.rejects_file or None,
                                      "n_items": scored.n_items, "n_changed": scored.n_changed,
                                      "n_nothing_shown": scored.n_nothing_shown,
                                      "chars_removed": scored.chars_removed, "n_stop_cut": scored.n_stop_cut,
                                      "reference_sources": scored.reference_sources, "why_unscored": scored.unscored}
    timed = scored_run_time(store, run_id)
    result.steps[f"score_{label}"].update(timed.to_json())
    say(f"score {label}: {stage_line(scored, raw)}")
    for line in timed.lines():
        say(f"score {label}: {line}")
    if scored.reference_sources:
        say(f"score {label}: scored against " + ", ".join(f"{source} {n}" for source, n in scored.reference_sources.items()))
    if scored.n_rejects:
        say(f"score {label}: {scored.n_rejects} not scored (no reference), kept in {scored.rejects_file}")


def closing(result: DemoResult, store_path: Path) -> str:
    """What the demo's numbers mean, where its runs are kept and what to try next: the lines the
    demo ends on, after the report, so a first run does not end on a table alone."""
    lines = ["", "What the numbers mean:"]
    for label, what in (("benchmark", "benchmark items cut from the demo corpus, replayed under the standard profile"),
                        ("captures", "captures replayed under each one's own editor release, scored against what "
                                     "the user typed at the cursor (else the text accepted)")):
        score = result.steps.get(f"score_{label}")
        if not score or "indel" not in score["mean"]:
            continue
        unscored = (f"; {score['unscored']} had neither a typed nor an accepted text and are counted, not scored"
                    if score["unscored"] else "")
        sources = ", ".join(f"{source} {n}" for source, n in score.get("reference_sources", {}).items())
        lines.append(f"  {label}: Indel {score['mean']['indel']:.3f} over {score['n_items']} {what}"
                     f"{f' ({sources})' if sources else ''}{unscored}")
        latency = score.get("latency") or {}
        if latency.get("n"):
            share = latency["shown_in_time"]
            lines.append(f"  {label}: p50 {latency['total_p50_s'] * 1000:.0f} ms, p90 {latency['total_p90_s'] * 1000:.0f} ms "
                         f"to the whole answer on this machine; shown in time: "
                         f"{'not judged (no later keystroke)' if share is None else f'{share:.0%} of those judged'}")
    lines += ["  Indel is 1 - the normalised insert/delete distance between what the editor showed (cut to as many",
              "  lines as the reference) and the reference: 1.0 is the reference exactly; the raw text's score is",
              "  beside it, and the gap is what the editor's own cuts and filters did. The in-time score counts an",
              "  answer the editor would not have shown in time (late, timed out) as nothing shown.",
              f"The runs ({', '.join(result.runs)}) are kept in {store_path}; again with",
              f"  fimreplay report {' '.join(result.runs)} --format html -o report.html",
              "Try next:",
              "  fimreplay demo --tui                                   the same, live in the terminal UI",
              "  fimreplay import ~/.tabby/events ~/.continue/dev_data  your own editor's logs, then `fimreplay run captures`",
              "  fimreplay render examples/cursors.jsonl --editor copilot --model default   one editor's exact prompt",
              f"  fimreplay leaderboard {result.steps.get('evalgen', {}).get('path', 'ITEMS.jsonl')} --model default "
              "--model qwen2.5-coder-1.5b   two models ranked, paired"]
    return "\n".join(lines) + "\n"


class DemoCancelled(Exception):
    """Raised from the demo's progress callback once the caller asked it to stop: the runner
    stops between two items, every finished completion already committed."""


def run_demo_beside(store_path: Path, opts: DemoOptions, say: Say = quiet,
                    on_progress: Callable[[int, int], None] | None = None,
                    cancelled: Callable[[], bool] = lambda: False) -> DemoResult | None:
    """The demo on a store connection of its own (for a UI's worker thread, while the UI reads
    the same store): its imports and completions reach the UI as commits. Returns None when
    `cancelled()` became true, checked after every replayed item."""

    def progress(done: int, total: int, completion: object) -> None:
        if cancelled():
            raise DemoCancelled()
        if on_progress is not None:
            on_progress(done, total)

    with Store(store_path) as store:
        try:
            return run_demo(store, opts, say=say, on_progress=progress)
        except DemoCancelled:
            return None
