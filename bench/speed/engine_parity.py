"""The two in-process llama.cpp engines on the demo's own runs: the prebuilt server (`llamacpp`,
xllamacpp) against llama-cpp-python (`llama-cpp-python`, the optional extra), completion by
completion and token id by token id.

Reads a store in which `fimreplay demo` ran (FIMREPLAY_HOME of that demo), and replays each of
the demo's runs again through llama-cpp-python with the same source, editor and parameters into
the same store (a new run: the engine's name is in the cache key, nothing is read from cache).
Then, per item: raw text, text received, text shown, token count, finish reason; and, over the
whole budget with no early stop, the generated token ids of both engines on the same prompt.

    FIMREPLAY_HOME=... python -m bench.speed.engine_parity [--threads N] [--ids-limit N]
"""

from __future__ import annotations

import argparse
import json

from replay.backends.base import GenParams
from replay.backends.llama_cpp_python import LlamaCppPythonBackend
from replay.backends.llamacpp import LlamaCppBackend
from replay.backends.models import resolve_model
from replay.paths import data_dir
from replay.records import Completion, RenderedPrompt
from replay.store import Store

FIELDS = ("raw_text", "text", "shown_text", "n_tokens", "finish_reason", "stopped_early")


def server_ids(engine: LlamaCppBackend, prompt: RenderedPrompt, params: GenParams) -> list[int]:
    """The ids the server generates for the prompt over the whole budget (no early stop)."""
    ids = engine.prompt_ids(prompt)
    n_predict = engine.budget(prompt, params, len(ids))
    if n_predict <= 0:
        return []
    answer = engine.http.post("/completion", json=engine.body(ids, params, n_predict, stream=False)).json()
    return list(answer["tokens"])


def python_ids(engine: LlamaCppPythonBackend, prompt: RenderedPrompt, params: GenParams) -> list[int]:
    """The ids llama-cpp-python generates for the prompt (its backend's loop, kept ids)."""
    import llama_cpp

    ids = engine.prompt_ids(prompt)
    limit = params.new_tokens(prompt)
    limit = limit if 0 < limit and limit + len(ids) < engine.ctx else engine.ctx - len(ids)
    out: list[int] = []
    if limit <= 0:
        return out
    for token in engine.llm.generate(ids, top_k=1, temp=params.temperature, repeat_penalty=1.0):
        if llama_cpp.llama_vocab_is_eog(engine.llm._model.vocab, token) or len(out) >= limit:
            break
        out.append(token)
        if len(out) >= limit:
            break
    return out


def differing(a: Completion, b: Completion) -> list[str]:
    return [f for f in FIELDS if getattr(a, f) != getattr(b, f)]


def main() -> None:
    from replay.run.inputs import load_inputs
    from replay.rejects import Rejects
    from replay.usecases.replay import RunRequest, run

    ap = argparse.ArgumentParser()
    ap.add_argument("--threads", type=int, default=None)
    ap.add_argument("--ids-limit", type=int, default=0, help="compare token ids on at most N prompts per run (0: all)")
    args = ap.parse_args()
    ref = resolve_model("default")
    report: dict = {"runs": []}
    with Store(data_dir() / "fimreplay.db") as store:
        demo_runs = [r for r in store.runs() if r.backend == "llamacpp"]
        for record in demo_runs:
            cfg = record.config
            params = GenParams(**{k: v for k, v in (cfg.params or {}).items() if k in ("ctx", "max_new_tokens", "cap_new_tokens")})
            editor = None if cfg.source == "captures" else cfg.editor  # captures: each one's own editor
            out = run(store, RunRequest(cfg.source or "", "llama-cpp-python", model="default", editor=editor, params=params,
                                        backend_options={"n_threads": args.threads}))
            new = {c.item_id: c for c in store.completions(record.id)}
            old = {c.item_id: c for c in store.completions(out.summary.run)}
            diffs = {i: differing(new[i], old[i]) for i in new if i in old and differing(new[i], old[i])}
            row = {"run": record.id, "source": cfg.source, "editor": cfg.editor, "completions": len(new),
                   "compared": len(set(new) & set(old)), "same": len(set(new) & set(old)) - len(diffs), "differ": diffs}
            with Rejects(None) as rejects:
                prompts = load_inputs(cfg.source or "", store, editor, ref.editor_model, rejects).prompts
            row["ids"] = compare_ids(ref, prompts[: args.ids_limit or None], params, args.threads)
            report["runs"].append(row)
            print(json.dumps(row), flush=True)
    print(json.dumps({"total_same": sum(r["same"] for r in report["runs"]),
                      "total_compared": sum(r["compared"] for r in report["runs"]),
                      "ids_same": sum(r["ids"]["same"] for r in report["runs"]),
                      "ids_compared": sum(r["ids"]["compared"] for r in report["runs"])}))


def compare_ids(ref, prompts: list[RenderedPrompt], params: GenParams, threads: int | None) -> dict:
    server = LlamaCppBackend(ref, ctx=params.ctx, n_threads=threads)
    python = LlamaCppPythonBackend(ref, ctx=params.ctx, n_threads=threads)
    same, differ = 0, []
    try:
        for prompt in prompts:
            a, b = server_ids(server, prompt, params), python_ids(python, prompt, params)
            if a == b:
                same += 1
            else:
                at = next((n for n, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))
                differ.append({"item": prompt.item_id, "first_difference_at": at, "server": len(a), "python": len(b)})
    finally:
        server.close()
        python.close()
    return {"compared": len(prompts), "same": same, "differ": differ}


if __name__ == "__main__":
    main()
