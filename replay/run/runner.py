"""Replay a list of rendered prompts through a backend into a run of the store.

Resumable and loss-free: each completion is committed the moment it arrives (Store.add_completion
is its own transaction), and a restarted run skips every item that already has a good
completion, so a run killed with SIGKILL redoes nothing finished and loses nothing. Errors are
stored as the item's completion with `error` set (the run goes on) and are tried again when the
run is resumed. Requests go out with bounded concurrency (a thread pool of `concurrency`, capped
by what the backend allows); a backend with `complete_batch` gets prompts in batches instead.
Retries with backoff for HTTP errors live in the HTTP backends (replay.backends.http).
"""

from __future__ import annotations

import hashlib
import platform
import threading
import time
import uuid
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from importlib import metadata

import msgspec

from replay import __version__
from replay.backends.base import EDITOR_CANCEL, STOP_WORD, Backend, BackendError, GenParams
from replay.editors.stage import StreamStop, apply_stop
from replay.errors import UsageError, one_line
from replay.reading import RunConfig
from replay.records import Completion, Reference, RenderedPrompt
from replay.run.cache import cache_key, remember
from replay.run.inputs import RenderedFrom
from replay.store import Store

ProgressFn = Callable[[int, int, Completion | None], None]


class RunMismatch(UsageError):
    """A run resumed with other settings than it was started with: its completions would not
    be comparable."""


class RunSummary(msgspec.Struct, frozen=True):
    """What `fimreplay run --json` prints: `run`, `items`, `completed`, `cached`, `errors`.

    `completed` counts items with a good completion at the end (resumed ones included),
    `resumed` those already done before this start, `cached` those served from the cache.
    """

    run: str
    items: int
    completed: int
    cached: int
    errors: int
    resumed: int = 0
    wall_s: float = 0.0


def versions() -> dict[str, str]:
    """Versions of what can change a completion: fimreplay and the engines' libraries."""
    out = {"fimreplay": __version__, "python": platform.python_version()}
    for dist in ("xllamacpp", "llama_cpp_python", "transformers", "torch", "tokenizers", "httpx"):
        try:
            out[dist] = metadata.version(dist)
        except metadata.PackageNotFoundError:
            pass
    return out


def new_run_id() -> str:
    return time.strftime("run-%Y%m%d-%H%M%S-", time.gmtime()) + uuid.uuid4().hex[:6]


def check_prompts(prompts: Sequence[RenderedPrompt]) -> None:
    """Every prompt needs its own item id: completions are stored per (run, item)."""
    seen: set[str] = set()
    for n, prompt in enumerate(prompts, 1):
        if not prompt.item_id:
            raise ValueError(f"prompt {n}: no item_id")
        if prompt.item_id in seen:
            raise ValueError(f"prompt {n}: item_id {prompt.item_id!r} appears twice")
        seen.add(prompt.item_id)


def replay_prompts(store: Store, prompts: Sequence[RenderedPrompt], backend: Backend, params: GenParams | None = None,
                   run_id: str | None = None, config: RunConfig | None = None, concurrency: int = 1,
                   batch_size: int = 8, use_cache: bool = True, on_progress: ProgressFn | None = None,
                   rendered_from: Mapping[str, RenderedFrom] | None = None, editor_model: str = "",
                   early_stop: bool = True, editor_timing: bool = False,
                   references: dict[str, Reference] | None = None) -> RunSummary:
    """Run `prompts` through `backend` into run `run_id` (new, or resumed when it exists).

    `config` is stored with the run beside the backend's description, the parameters and the
    library versions, and `references` (replay.run.inputs: what each item is scored against)
    with its items. `on_progress(done, total, completion)` is called from a worker thread after
    every item (completion None for the first call, with the resumed count).

    The completion of an item in `rendered_from` (replay.run.inputs: the editor and input its
    prompt was rendered from) goes through that editor's completion stage for `editor_model`
    (the model as the editor profiles take it), which fills in what it showed (shown_text and
    trace). With `early_stop`, a backend that streams (`complete_streaming`) is stopped where
    the editor stops reading: at the first stop word (the Tabby server's stop condition, the LLM
    call's `stop`) or where the editor cancels the stream (Continue's single-line mode, its line
    filters); with greedy decoding the text the editor uses is the same as after the whole budget.
    `editor_timing` lets time-based editor rules read the stream's measured timing.
    """
    params = params or GenParams()
    check_prompts(prompts)
    run_id = run_id or new_run_id()
    streams = early_stop and hasattr(backend, "complete_streaming")
    run_config = run_settings(config or RunConfig(), backend, params, streams, editor_timing)
    check_resume(store, run_id, run_config)
    store.create_run(run_id, run_config)
    store.add_run_prompts(run_id, prompts)
    store.add_run_references(run_id, (references or {}).items())
    done = store.good_item_ids(run_id)
    todo = [p for p in prompts if p.item_id not in done]
    total = len(prompts)
    replay = Replay(store, run_id, backend, params, rendered_from or {}, editor_model, streams, editor_timing, use_cache,
                    on_progress, total, total - len(todo))
    started = time.perf_counter()
    store.set_run_status(run_id, "running")
    if on_progress:
        on_progress(replay.done, total, None)
    try:
        replay.run(todo, concurrency, batch_size)
    except BaseException:
        store.set_run_status(run_id, "interrupted")
        raise
    ids = {p.item_id for p in prompts}
    errors = sum(1 for c in store.completions(run_id) if c.item_id in ids and c.error is not None)
    store.set_run_status(run_id, "done" if errors == 0 else "done_with_errors")
    return RunSummary(run=run_id, items=total, completed=total - errors, cached=replay.cached, errors=errors,
                      resumed=total - len(todo), wall_s=round(time.perf_counter() - started, 3))


def run_settings(config: RunConfig, backend: Backend, params: GenParams, streams: bool, editor_timing: bool) -> RunConfig:
    """`config` with what the runner adds: the backend's description (over what `config` says of
    the backend), the parameters, the library versions, whether the stream is stopped early and
    the editor's timing rules read it."""
    described = msgspec.convert(backend.describe(), RunConfig)
    return msgspec.structs.replace(
        config, **{f: getattr(described, f) for f in described.__struct_fields__ if getattr(described, f) is not None},
        params=msgspec.to_builtins(params), versions=versions(), early_stop=streams, editor_timing=editor_timing)


def check_resume(store: Store, run_id: str, run_config: RunConfig) -> None:
    """A run that exists is resumed only with the backend, model and parameters it was started with."""
    existing = store.run(run_id)
    if existing is None:
        return
    before = existing.config
    for key in ("backend", "model_id", "params"):
        was, now = getattr(before, key), getattr(run_config, key)
        if was is not None and was != now:
            raise RunMismatch(f"run {run_id} was started with {key} {was!r}, not {now!r}: "
                             "resume it with the same settings or give a new --run-id")


class Replay:
    """One start of a run: what every item's replay shares, and the counts of items done and
    served from the cache (kept under a lock: items finish on worker threads)."""

    def __init__(self, store: Store, run_id: str, backend: Backend, params: GenParams,
                 rendered_from: Mapping[str, RenderedFrom], editor_model: str, streams: bool, editor_timing: bool,
                 use_cache: bool, on_progress: ProgressFn | None, total: int, done: int) -> None:
        self.store, self.run_id, self.backend, self.params = store, run_id, backend, params
        self.rendered_from, self.editor_model = rendered_from, editor_model
        self.streams, self.editor_timing = streams, editor_timing
        self.use_cache, self.on_progress, self.total = use_cache, on_progress, total
        self.done, self.cached = done, 0
        self._lock = threading.Lock()

    def run(self, todo: Sequence[RenderedPrompt], concurrency: int, batch_size: int) -> None:
        """Replay `todo`: in batches for a backend with `complete_batch`, else one prompt at a
        time on up to `concurrency` threads (as many as the backend allows)."""
        if hasattr(self.backend, "complete_batch"):
            for start in range(0, len(todo), batch_size):
                self.run_batch(todo[start : start + batch_size])
            return
        workers = max(1, min(concurrency, self.backend.max_concurrency, len(todo) or 1))
        if workers == 1:
            for prompt in todo:
                self.run_one(prompt)
            return
        # A failure or a cancel (on_progress raising) drops the items not yet started; the ones in
        # flight finish and are committed.
        pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="replay")
        try:
            for future in [pool.submit(self.run_one, p) for p in todo]:
                future.result()
        finally:
            pool.shutdown(wait=True, cancel_futures=True)

    def record(self, completion: Completion, cached: bool) -> None:
        """Store the item's completion as its editor showed it, and count it."""
        completion = shown(completion, self.rendered_from.get(completion.item_id), self.editor_model, self.editor_timing)
        self.store.add_completion(self.run_id, completion)
        with self._lock:
            self.done += 1
            self.cached += cached
            done_now = self.done
        if self.on_progress:
            self.on_progress(done_now, self.total, completion)

    def from_cache(self, prompt: RenderedPrompt, keys: Sequence[str]) -> bool:
        """Record the prompt's completion from the cache, under the first of `keys` it holds;
        False when the cache is off or holds none."""
        if not self.use_cache:
            return False
        for key in keys:
            hit = self.store.cache_get(key)
            if hit is not None:
                # The cache holds the engine's raw output; the stop words are this prompt's own.
                self.record(msgspec.structs.replace(hit, item_id=prompt.item_id or "", cache_key=hit.cache_key or key,
                                                    text=apply_stop(hit.raw_text, prompt.stop)), True)
                return True
        return False

    def run_one(self, prompt: RenderedPrompt) -> None:
        # A whole generation is cached under the prompt's own key and serves any later stops; a
        # stream stopped early only serves the same stops (the same stop words, editor, cursor).
        key = cache_key(self.backend, prompt, self.params)
        early_key = key
        stops = None
        if self.streams:
            stops, ident = stream_stops(prompt.stop, self.rendered_from.get(prompt.item_id or ""), self.editor_model)
            early_key = cache_key(self.backend, prompt, self.params, early_stop={"stop": list(prompt.stop), "stage": ident})
        if self.from_cache(prompt, list(dict.fromkeys((key, early_key)))):
            return
        backend = self.backend
        if not_sent(prompt):
            self.record(nothing_sent(backend, prompt, key), False)
            return
        try:
            if self.streams:
                done = backend.complete_streaming(prompt, self.params, stops)  # type: ignore[attr-defined]
            else:
                done = backend.complete(prompt, self.params)
            completion = msgspec.structs.replace(done, cache_key=early_key if done.stopped_early else key)
        except BackendError as exc:
            completion = msgspec.structs.replace(error_completion(backend, prompt, str(exc), key), truncated=exc.truncated)
        except Exception as exc:  # noqa: BLE001 - an answer the backend could not make sense of: this item fails, the run goes on
            completion = error_completion(backend, prompt, f"unusable response: {one_line(exc)}", key)
        remember(self.store, completion.cache_key, completion)
        self.record(completion, False)

    def run_batch(self, batch: Sequence[RenderedPrompt]) -> None:
        misses = []
        for prompt in batch:
            key = cache_key(self.backend, prompt, self.params)
            if not_sent(prompt):
                self.record(nothing_sent(self.backend, prompt, key), False)
            elif not self.from_cache(prompt, [key]):
                misses.append((prompt, key))
        if not misses:
            return
        try:
            results = self.backend.complete_batch([p for p, _ in misses], self.params)  # type: ignore[attr-defined]
        except BackendError as exc:
            results = [error_completion(self.backend, p, str(exc), k) for p, k in misses]
        for (_, key), completion in zip(misses, results):
            completion = msgspec.structs.replace(completion, cache_key=key)
            remember(self.store, key, completion)
            self.record(completion, False)


def shown(completion: Completion, source: RenderedFrom | None, model: str, editor_timing: bool = False) -> Completion:
    """`completion` with shown_text, multiline, replace_after, replace_before (and the characters
    it replaces, the end of the prefix) and trace filled in by the completion stage of the editor
    that rendered its prompt from `source` (unchanged for an error or a prompt rendered elsewhere).
    Time-based editor rules get the stream's timing only when `editor_timing` is set."""
    if source is None or completion.error is not None:
        return completion
    prof, version = source.profile, source.version
    timing = completion.timing if editor_timing and completion.timing else None
    seen = prof.shown(source.inp, completion.raw_text, completion.text, model, version, timing)
    label = f"{prof.name}@{version}" if version else prof.name
    return msgspec.structs.replace(completion, stage=label, shown_text=seen.text, multiline=seen.multiline,
                                   replace_after=seen.replace_after, trace=seen.trace, timing_applied=seen.timing_applied,
                                   replace_before=seen.replace_before, replaced=_replaced(source.inp.prefix, seen.replace_before))


def _replaced(prefix: str, replace_before: int) -> str:
    """The characters before the cursor an item shown over `replace_before` of them replaces."""
    return prefix[len(prefix) - replace_before:] if replace_before else ""


def stream_stops(stop: Sequence[str], source: RenderedFrom | None, model: str) -> tuple[Callable[[str], str], str]:
    """Where the editor stops reading a stream: the predicate of `editor_stops` over the prompt's
    stop words and the stream-cancel rule of the editor that rendered the prompt from `source`
    (none when it reads to the end), and the identity of that rule (for the completion cache: a
    stream stopped early is only the same answer for the same editor, release, model and cursor)."""
    if source is None:
        return editor_stops(stop, None), ""
    prof, version = source.profile, source.version
    cancel = prof.stream_stop(source.inp, model, version)
    ident = "" if cancel is None else hashlib.sha256(msgspec.json.encode([prof.name, version, model, source.inp])).hexdigest()
    return editor_stops(stop, cancel), ident


def editor_stops(stop: Sequence[str], cancel: StreamStop | None) -> Callable[[str], str]:
    """The predicate a streaming backend checks after each chunk: why the editor would stop
    reading the text streamed so far (STOP_WORD, EDITOR_CANCEL), or "" to read on."""

    def check(text: str) -> str:
        if stop and apply_stop(text, tuple(stop)) != text:
            return STOP_WORD
        if cancel is not None and cancel(text) is not None:
            return EDITOR_CANCEL
        return ""

    return check


def not_sent(prompt: RenderedPrompt) -> bool:
    """The editor sends no request at this cursor (an empty prompt and no body: a Tabby agent's
    blank prefix, llama.vscode's long rest of line): the engine is not asked, nothing is received."""
    return prompt.text == "" and not prompt.token_ids and prompt.request is None


def nothing_sent(backend: Backend, prompt: RenderedPrompt, key: str) -> Completion:
    return Completion(item_id=prompt.item_id or "", text="", raw_text="", backend=backend.name, model=backend.model,
                      finish_reason="not_sent", cache_key=key)


def error_completion(backend: Backend, prompt: RenderedPrompt, message: str, key: str) -> Completion:
    return Completion(item_id=prompt.item_id or "", text="", raw_text="", backend=backend.name, model=backend.model,
                      finish_reason="error", cache_key=key, error=message)
