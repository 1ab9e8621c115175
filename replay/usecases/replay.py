"""Replaying prompts against models: a run from items, rendered prompts or the captures; the
OpenAI batch file of a run's prompts (for `vllm run-batch`) and its results read back."""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import nullcontext
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import msgspec

from replay.backends import BACKENDS, Backend, GenParams, ModelRef, backend_kind
from replay.cutoffs import Overlap
from replay.editors import EDITORS, profile
from replay.errors import UsageError
from replay.latency import LatencySummary, Speed
from replay.reading import CAPTURES_OWN, RunConfig
from replay.records import RenderedPrompt
from replay.rejects import Rejects, default_path, stamped
from replay.run.runner import ProgressFn, RunSummary, new_run_id, versions
from replay.store import Store
from replay.usecases.base import Say

if TYPE_CHECKING:
    from replay.run.inputs import Inputs
    from replay.tokens.tokenizer import Tokenizer

EXPORT_FORMATS = ("openai-batch",)

__all__ = ["BACKENDS", "EDITORS", "EXPORT_FORMATS", "ExportResult", "ForeignSentinels", "GenParams", "ImportedResults", "OpenBackends",
           "RunRequest", "SourceRun", "export", "import_results", "new_run_id", "run"]


@dataclass(frozen=True)
class RunRequest:
    """What a run replays and how: `source` is a JSONL file (items, render inputs or rendered
    prompts) or `captures`; `editor` None means standard for items and each capture's own editor
    for captures. `backend_options` are the backend's own (timeout, retries, api_key_env,
    send_ids, n_threads)."""

    source: str
    backend: str = "llamacpp"
    model: str = "default"
    editor: str | None = None
    family: str | None = None
    params: GenParams = field(default_factory=GenParams)
    run_id: str | None = None
    endpoints: Sequence[str] = ()
    concurrency: int = 1
    use_cache: bool = True
    backend_options: dict[str, Any] = field(default_factory=dict)
    early_stop: bool = True
    editor_timing: bool = False
    cutoff: str | None = None  # the model's training-data cutoff (ISO date) when the table has none
    allow_foreign_sentinels: bool = False  # replay prompts whose sentinels the model reads as text
    speed: Speed | None = None  # the run's time projected at this speed (None: as measured)
    # A name for a run that is kept and taken up again: its id is NAME-DIGEST of what decides its
    # completions (`reused_run_id`), so the same replay asked again reuses that run, not a copy.
    reuse_as: str | None = None

    def check(self) -> None:
        """Bad usage found before anything is loaded or started."""
        from replay.cutoffs import parse_date

        if self.cutoff is not None:
            parse_date(self.cutoff)
        if self.source != "captures" and not Path(self.source).is_file():
            raise UsageError(f"{self.source}: no such file, nor a run in the store (give a JSONL file, `captures` or a run id)")
        if self.editor is not None:
            profile(self.editor)
        if backend_kind(self.backend).http and not self.endpoints:
            raise UsageError(f"--backend {self.backend} needs --endpoint URL")
        if self.backend_options.get("api_key_env"):
            from replay.backends.http import api_key

            api_key(self.backend_options["api_key_env"])  # set, and a secret before any input is read


@dataclass(frozen=True)
class SourceRun:
    """A run from an input file or the captures: the runner's summary and the inputs rejected."""

    summary: RunSummary
    rejected: int
    rejects_file: str | None = None
    overlap: Overlap | None = None  # the items that may be in the model's training data
    latency: LatencySummary | None = None  # its time, and the share the editor would have shown in time

    @property
    def all_failed(self) -> bool:
        return bool(self.summary.items) and self.summary.errors == self.summary.items

    def to_json(self) -> dict[str, Any]:
        s = self.summary
        return {"run": s.run, "items": s.items, "completed": s.completed, "cached": s.cached, "errors": s.errors,
                "resumed": s.resumed, "rejects": self.rejected, "rejects_file": self.rejects_file, "wall_s": s.wall_s,
                "training_overlap": self.overlap.to_json() if self.overlap else None,
                "latency": msgspec.to_builtins(self.latency) if self.latency else None}


def resumed(store: Store, req: RunRequest) -> RunRequest:
    """`req` as given, or, when its source names a stored run, that run resumed: its own input,
    backend, model, editor, endpoints and parameters (the items it has done are skipped). The
    API key variable is taken again only when it is set: the key itself is never stored."""
    import os

    if req.source == "captures" or Path(req.source).exists():
        return req
    stored = store.run(req.source)
    if stored is None:
        return req
    c = stored.config
    if not c.source:
        raise UsageError(f"run {stored.id}: its input is not recorded, so it cannot be resumed from here")
    options = {**req.backend_options}
    options["api_key_env"] = c.api_key_env if c.api_key_env and os.environ.get(c.api_key_env) else None
    return RunRequest(source=c.source, backend=c.backend or req.backend, model=c.model_spec or req.model,
                      editor=c.profile, family=c.family, params=msgspec.convert(c.params or {}, GenParams), run_id=stored.id,
                      endpoints=tuple(c.endpoints or req.endpoints), concurrency=req.concurrency,
                      use_cache=req.use_cache, backend_options=options,
                      early_stop=req.early_stop if c.early_stop is None else c.early_stop,
                      editor_timing=req.editor_timing if c.editor_timing is None else c.editor_timing,
                      allow_foreign_sentinels=req.allow_foreign_sentinels or bool(c.allow_foreign_sentinels))


class OpenBackends:
    """Backends kept open across several runs, one per engine, model, context and options: a
    caller that replays the same model in many short runs (a leaderboard replayed file by file)
    loads it once. Opened when first asked for, all closed on leaving the `with` (an error or an
    interrupt included)."""

    def __init__(self) -> None:
        self._open: dict[str, Backend] = {}

    def get(self, kind: str, ref: ModelRef, ctx: int, endpoints: Sequence[str], options: dict[str, Any]) -> Backend:
        from replay.backends import open_backend

        key = msgspec.json.encode([kind, ref, ctx, list(endpoints), repr(sorted(options.items()))]).decode()
        if key not in self._open:
            self._open[key] = open_backend(kind, ref, ctx=ctx, endpoints=list(endpoints), **options)
        return self._open[key]

    def close(self) -> None:
        while self._open:
            self._open.popitem()[1].close()

    def __enter__(self) -> OpenBackends:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def run(store: Store, req: RunRequest, on_progress: ProgressFn | None = None, warn: Say | None = None,
        backends: OpenBackends | None = None) -> SourceRun:
    """Resolve the model, read and render the inputs, replay them into a run (new, or resumed
    when `req.run_id` exists). Unusable input lines go to rejects/RUN.jsonl beside the store, each
    told to `warn`. The run config records what makes the run repeatable: backend, model and its
    sha256, family, editor profile, parameters, library versions and the input's hash; and the
    model's own name and `req.cutoff`, which say whether the items may be in its training data.
    With `backends` the engine is taken from (and left open in) those the caller holds open;
    without, it is opened for this run and closed at its end."""
    from replay.backends.models import resolve_model
    from replay.cutoffs import run_overlap
    from replay.run.inputs import load_inputs
    from replay.run.runner import replay_prompts

    req = resumed(store, req)
    req.check()
    ref = resolve_model(req.model, family=req.family)
    given = req.run_id or (None if req.reuse_as else new_run_id())
    with Rejects(default_path(given or str(req.reuse_as)), echo=warn) as rejects:
        inputs = load_inputs(req.source, store, req.editor, ref.editor_model, rejects)
    if not inputs.prompts:
        kept = f" (kept in {rejects.file})" if rejects else ""
        raise UsageError(f"{req.source}: nothing to run: {len(rejects)} input lines rejected{kept}, none usable")
    if not req.allow_foreign_sentinels:
        check_sentinels(inputs.prompts, ref)
    if req.source != "captures":
        from replay.usecases.score import file_items

        store.add_items(file_items(Path(req.source)))  # benchmark lines: the references `score` reads
    run_id = given or reused_run_id(str(req.reuse_as), req, ref, inputs)
    config = RunConfig(source=req.source, input_kind=inputs.kind, corpus_hash=inputs.corpus_hash,
                       editor=req.editor or (CAPTURES_OWN if req.source == "captures" else "standard"),
                       family=ref.family, model_spec=req.model, model_name=ref.name, model_sha256=ref.sha256,
                       rejects=len(rejects), cutoff=req.cutoff or None,
                       allow_foreign_sentinels=True if req.allow_foreign_sentinels else None)
    with OpenBackends() if backends is None else nullcontext(backends) as held:
        backend = held.get(req.backend, ref, req.params.ctx, req.endpoints, req.backend_options)
        summary = replay_prompts(store, inputs.prompts, backend, req.params, run_id=run_id, config=config,
                                 concurrency=req.concurrency, use_cache=req.use_cache, on_progress=on_progress,
                                 rendered_from=inputs.rendered_from, editor_model=ref.editor_model,
                                 early_stop=req.early_stop, editor_timing=req.editor_timing, references=inputs.references)
    from replay.usecases.score import run_latency

    return SourceRun(summary=summary, rejected=len(rejects), rejects_file=rejects.file,
                     overlap=run_overlap(store, run_id, req.cutoff),
                     latency=run_latency(store, run_id, req.speed))


def reused_run_id(name: str, req: RunRequest, ref: ModelRef, inputs: Inputs) -> str:
    """`NAME-DIGEST`, the digest over everything that decides the run's completions and what is
    shown of them: the prompts as rendered, the editor inputs the completion stage reads, the
    references, the weights, engine, endpoints and parameters, the stream settings and the
    library versions. The same replay asked again gets the same id and is resumed (nothing left
    to do once it finished); a change to any of these gives another run."""
    import hashlib

    decisive = {"prompts": inputs.prompts, "references": inputs.references,
                "inputs": {item: [f.version, f.inp] for item, f in sorted(inputs.rendered_from.items())},
                "editor": req.editor, "backend": req.backend, "model": ref.model_id, "endpoints": list(req.endpoints),
                "params": req.params, "early_stop": req.early_stop, "editor_timing": req.editor_timing,
                "allow_foreign_sentinels": req.allow_foreign_sentinels, "versions": versions()}
    return f"{name}-{hashlib.sha256(msgspec.json.encode(decisive, order='sorted')).hexdigest()[:12]}"


class ForeignSentinels(UsageError):
    """Prompts hold template sentinels that the target model does not hold as one token."""


def check_sentinels(prompts: Sequence[RenderedPrompt], ref: ModelRef) -> None:
    """Stop before anything is sent when a prompt holds a template sentinel that is not one
    token of the target model (another model's template: the model would read `<fim_prefix>`
    as text and answer a template it was never trained on). The model's vocabulary is its GGUF
    file or its folder's tokenizer.json, else its family's installed tokenizer; with none at
    hand there is nothing to check against."""
    from replay.tokens.sentinels import foreign_sentinels

    tok = _model_vocabulary(ref)
    if tok is None:
        return
    held: dict[str, list[str]] = {}
    for prompt in prompts:
        for sentinel in foreign_sentinels(tok, prompt.text, prompt.prefix_sent, prompt.suffix_sent):
            held.setdefault(sentinel, []).append(prompt.item_id or "")
    if held:
        ids = list(dict.fromkeys(i for found in held.values() for i in found))
        raise ForeignSentinels(
            f"{len(ids)} of {len(prompts)} prompts (first: {ids[0]}) hold template sentinels that are not one token of "
            f"{ref.name}'s vocabulary ({', '.join(held)}): the model would read them as text; render them with the "
            "model's own template, or replay them as they are with --allow-foreign-sentinels")


def _model_vocabulary(ref: ModelRef) -> Tokenizer | None:
    """The target model's vocabulary where one is at hand (see check_sentinels)."""
    from replay.tokens.tokenizer import MissingAsset, TokenizerError, default_tokenizer_spec, load_tokenizer

    try:
        if ref.path is not None:
            path = Path(ref.path)
            if path.suffix == ".gguf":
                return load_tokenizer(f"gguf:{path}")
            return load_tokenizer(f"file:{path}") if (path / "tokenizer.json").is_file() else None
        return load_tokenizer(default_tokenizer_spec(ref.family)) if ref.family else None
    except (MissingAsset, TokenizerError):
        return None


@dataclass(frozen=True)
class ExportResult:
    output: str
    requests: int
    rejects: int
    rejects_file: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {"output": self.output, "requests": self.requests, "rejects": self.rejects, "rejects_file": self.rejects_file}


def export(store: Store, source: str, output: Path, model: str | None = None, editor: str | None = None,
           max_new_tokens: int | None = None, send_ids: bool = False, fmt: str = "openai-batch",
           warn: Say | None = None) -> ExportResult:
    """Write the prompts of a stored run (or of a file of items, render inputs or prompts, or of
    the captures, rendered for `model`) as an OpenAI batch file."""
    from replay.backends.models import resolve_model
    from replay.run.batch import export_openai_batch
    from replay.run.inputs import load_inputs

    if fmt not in EXPORT_FORMATS:
        raise UsageError(f"unknown export format {fmt!r} (one of {', '.join(EXPORT_FORMATS)})")
    stored = store.run(source)
    with Rejects(name=stamped("export"), echo=warn) as rejects:
        if stored is not None:
            prompts = store.run_prompts(source)
            model = model or stored.model or ""
        elif source == "captures" or Path(source).is_file():
            if not model:
                raise UsageError("--model is needed when exporting items, prompts or captures")
            ref = resolve_model(model)
            prompts = load_inputs(source, store, editor, ref.editor_model, rejects).prompts
            model = ref.name
        else:
            raise UsageError(f"{source}: neither a run in the store nor a file")
    n = export_openai_batch(prompts, model or "", GenParams(max_new_tokens=max_new_tokens), output, send_ids=send_ids)
    return ExportResult(str(output), n, len(rejects), rejects.file)


@dataclass(frozen=True)
class ImportedResults:
    run: str
    lines: int
    imported: int
    errors: int
    rejects: int
    rejects_file: str | None

    def to_json(self) -> dict[str, Any]:
        return {"run": self.run, "lines": self.lines, "imported": self.imported, "errors": self.errors,
                "rejects": self.rejects, "rejects_file": self.rejects_file}


def import_results(store: Store, results: Path, run_id: str, warn: Say | None = None) -> ImportedResults:
    """Read `vllm run-batch` / OpenAI batch results into the run whose prompts were exported;
    unusable lines go to rejects/RUN-import.jsonl beside the store, each told to `warn`."""
    from replay.run.batch import import_openai_batch

    with Rejects(name=f"{run_id}-import", echo=warn) as rejects:
        s = import_openai_batch(store, run_id, results, rejects)
    return ImportedResults(run_id, s.lines, s.imported, s.errors, s.rejected, rejects.file)
