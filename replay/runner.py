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

import platform
import threading
import time
import uuid
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from importlib import metadata
from typing import Any

import msgspec

from replay import __version__
from replay.backends.base import (
    EDITOR_CANCEL,
    STOP_WORD,
    Backend,
    BackendError,
    GenParams,
    apply_stop,
)
from replay.backends.cache import cache_key, remember
from replay.errors import UsageError, one_line
from replay.records import Completion, RenderedPrompt
from replay.run_inputs import EditorStage
from replay.store import Store

ProgressFn = Callable[[int, int, Completion | None], None]


class RunMismatch(UsageError, ValueError):
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
    for dist in ("llama_cpp_python", "transformers", "torch", "tokenizers", "httpx"):
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
                   run_id: str | None = None, config: dict[str, Any] | None = None, concurrency: int = 1,
                   batch_size: int = 8, use_cache: bool = True, on_progress: ProgressFn | None = None,
                   stage: EditorStage | None = None, early_stop: bool = True, editor_timing: bool = False) -> RunSummary:
    """Run `prompts` through `backend` into run `run_id` (new, or resumed when it exists).

    `config` is stored with the run beside the backend's description, the parameters and the
    library versions. `on_progress(done, total, completion)` is called from a worker thread after
    every item (completion None for the first call, with the resumed count).

    `stage` turns each completion into what its editor showed (shown_text and trace). With
    `early_stop`, a backend that streams (`complete_streaming`) is stopped where the editor stops
    reading: at the first stop word (the Tabby server's stop condition, the LLM call's `stop`)
    or where the editor cancels the stream (Continue's single-line mode, its line filters);
    with greedy decoding the text the editor uses is the same as after the whole budget.
    `editor_timing` lets time-based editor rules read the stream's measured timing.
    """
    params = params or GenParams()
    check_prompts(prompts)
    run_id = run_id or new_run_id()
    streams = early_stop and hasattr(backend, "complete_streaming")
    run_config = {**(config or {}), **backend.describe(), "params": msgspec.to_builtins(params), "versions": versions(),
                  "early_stop": streams, "editor_timing": editor_timing}
    existing = store.run(run_id)
    if existing is not None:
        before = existing.config
        for key in ("backend", "model_id", "params"):
            if key in before and before[key] != run_config[key]:
                raise RunMismatch(f"run {run_id} was started with {key} {before[key]!r}, not {run_config[key]!r}: "
                                 "resume it with the same settings or give a new --run-id")
    store.create_run(run_id, run_config)
    store.add_run_prompts(run_id, prompts)
    done = store.good_item_ids(run_id)
    todo = [p for p in prompts if p.item_id not in done]
    total = len(prompts)
    state = {"done": total - len(todo), "cached": 0}
    lock = threading.Lock()
    started = time.perf_counter()
    store.set_run_status(run_id, "running")
    if on_progress:
        on_progress(state["done"], total, None)

    def record(prompt: RenderedPrompt, completion: Completion, cached: bool) -> None:
        if stage is not None:
            completion = stage.apply(completion, editor_timing)
        store.add_completion(run_id, completion)
        with lock:
            state["done"] += 1
            state["cached"] += cached
            done_now = state["done"]
        if on_progress:
            on_progress(done_now, total, completion)

    def run_one(prompt: RenderedPrompt) -> None:
        # A whole generation is cached under the prompt's own key and serves any later stops; a
        # stream stopped early only serves the same stops (the same stop words, editor, cursor).
        key = cache_key(backend, prompt, params)
        early_key = key
        cancel = None
        if streams:
            cancel, ident = stage.stream_stop(prompt.item_id or "") if stage is not None else (None, "")
            early_key = cache_key(backend, prompt, params, early_stop={"stop": list(prompt.stop), "stage": ident})
        hit = None
        if use_cache:
            hit = store.cache_get(key) or (store.cache_get(early_key) if early_key != key else None)
        if hit is not None:
            # The cache holds the engine's raw output; the stop words are this prompt's own.
            record(prompt, msgspec.structs.replace(hit, item_id=prompt.item_id or "", text=apply_stop(hit.raw_text, prompt.stop),
                                                   cache_key=hit.cache_key or key), True)
            return
        try:
            if streams:
                done = backend.complete_streaming(prompt, params, editor_stops(prompt.stop, cancel))  # type: ignore[attr-defined]
            else:
                done = backend.complete(prompt, params)
            completion = msgspec.structs.replace(done, cache_key=early_key if done.stopped_early else key)
        except BackendError as exc:
            completion = msgspec.structs.replace(error_completion(backend, prompt, str(exc), key), truncated=exc.truncated)
        except Exception as exc:  # noqa: BLE001 - an answer the backend could not make sense of: this item fails, the run goes on
            completion = error_completion(backend, prompt, f"unusable response: {one_line(exc)}", key)
        remember(store, completion.cache_key, completion)
        record(prompt, completion, False)

    def run_batch(batch: list[RenderedPrompt]) -> None:
        keys = [cache_key(backend, p, params) for p in batch]
        misses = []
        for prompt, key in zip(batch, keys):
            hit = store.cache_get(key) if use_cache else None
            if hit is None:
                misses.append((prompt, key))
            else:
                record(prompt, msgspec.structs.replace(hit, item_id=prompt.item_id or "", text=apply_stop(hit.raw_text, prompt.stop),
                                                       cache_key=key), True)
        if not misses:
            return
        try:
            results = backend.complete_batch([p for p, _ in misses], params)  # type: ignore[attr-defined]
        except BackendError as exc:
            results = [error_completion(backend, p, str(exc), k) for p, k in misses]
        for (prompt, key), completion in zip(misses, results):
            completion = msgspec.structs.replace(completion, cache_key=key)
            remember(store, key, completion)
            record(prompt, completion, False)

    try:
        if hasattr(backend, "complete_batch"):
            for start in range(0, len(todo), batch_size):
                run_batch(todo[start : start + batch_size])
        else:
            workers = max(1, min(concurrency, backend.max_concurrency, len(todo) or 1))
            if workers == 1:
                for prompt in todo:
                    run_one(prompt)
            else:
                # A failure or a cancel (on_progress raising) drops the items not yet started; the
                # ones in flight finish and are committed.
                pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="replay")
                try:
                    for future in [pool.submit(run_one, p) for p in todo]:
                        future.result()
                finally:
                    pool.shutdown(wait=True, cancel_futures=True)
    except BaseException:
        store.set_run_status(run_id, "interrupted")
        raise
    ids = {p.item_id for p in prompts}
    errors = sum(1 for c in store.completions(run_id) if c.item_id in ids and c.error is not None)
    store.set_run_status(run_id, "done" if errors == 0 else "done_with_errors")
    return RunSummary(run=run_id, items=total, completed=total - errors, cached=state["cached"], errors=errors,
                      resumed=total - len(todo), wall_s=round(time.perf_counter() - started, 3))


def editor_stops(stop: Sequence[str], cancel: Callable[[str], int | None] | None) -> Callable[[str], str]:
    """The predicate a streaming backend checks after each chunk: why the editor would stop
    reading the text streamed so far (STOP_WORD, EDITOR_CANCEL), or "" to read on."""

    def check(text: str) -> str:
        if stop and apply_stop(text, tuple(stop)) != text:
            return STOP_WORD
        if cancel is not None and cancel(text) is not None:
            return EDITOR_CANCEL
        return ""

    return check


def error_completion(backend: Backend, prompt: RenderedPrompt, message: str, key: str) -> Completion:
    return Completion(item_id=prompt.item_id or "", text="", raw_text="", backend=backend.name, model=backend.model,
                      finish_reason="error", cache_key=key, error=message)


def render_model(ref: Any) -> str:
    """The model as the editor profiles take it: the GGUF path (its name picks the template and
    the standard profile loads its tokenizer from it), else the name, else the family."""
    from replay.editors.templates import family_for_model

    model = ref.path if ref.path and ref.path.endswith(".gguf") else ref.name
    if family_for_model(model) is None and ref.family:
        return str(ref.family)
    return str(model)
