"""The two in-process llama.cpp engines on the demo's own prompts: the prebuilt server
(`llamacpp`, xllamacpp) against llama-cpp-python (`llama-cpp-python`, the optional extra),
token id by token id.

Reads a store in which `fimreplay demo` ran (FIMREPLAY_HOME of that demo): its benchmark items
(the demo folder's items.jsonl, standard profile) and its captures (each under its own editor),
rendered as the demo renders them, with the demo's budget (each profile's own, capped at 128).
Each prompt is generated over its whole budget by both engines, with no early stop: greedy
decoding is a function of the ids, so equal ids over the whole budget mean equal text, equal
early-stopped answers (a prefix of it), equal shown text and equal scores. One JSON line per
prompt as it is done, then the counts.

    FIMREPLAY_HOME=... python -m bench.speed.engine_parity [--threads N] [--limit N]
"""

from __future__ import annotations

import argparse
import json
import time

from replay.backends.base import GenParams
from replay.backends.llama_cpp_python import LlamaCppPythonBackend
from replay.backends.llamacpp import LlamaCppBackend
from replay.backends.models import resolve_model
from replay.paths import data_dir
from replay.records import RenderedPrompt
from replay.store import Store

DEMO_PARAMS = GenParams(ctx=1024, cap_new_tokens=128)  # replay.usecases.demo: each profile's own budget, capped


def server_ids(engine: LlamaCppBackend, prompt: RenderedPrompt, params: GenParams) -> tuple[list[int], str]:
    """The ids and text the server generates for the prompt over the whole budget. The server
    counts the end-of-generation token it stopped on among the generated ones (in `tokens` and
    `tokens_predicted`: tools/server process_token keeps every sampled token before it checks
    llama_vocab_is_eog); llama-cpp-python's loop stops before it, so it is left out here."""
    ids = engine.prompt_ids(prompt)
    n_predict = engine.budget(prompt, params, len(ids))
    if n_predict <= 0:
        return [], ""
    answer = engine.http.post("/completion", json=engine.body(ids, params, n_predict, stream=False)).json()
    tokens = list(answer["tokens"])
    return tokens[:-1] if answer["stop_type"] == "eos" and tokens else tokens, answer["content"]


def python_ids(engine: LlamaCppPythonBackend, prompt: RenderedPrompt, params: GenParams) -> tuple[list[int], str]:
    """The ids and text llama-cpp-python generates for the prompt: its backend's own loop (the
    same budget rule and end-of-generation stop), the ids kept."""
    import llama_cpp

    ids = engine.prompt_ids(prompt)
    limit = params.new_tokens(prompt)
    limit = limit if 0 < limit and limit + len(ids) < engine.ctx else engine.ctx - len(ids)
    out: list[int] = []
    for token in engine.llm.generate(ids, top_k=1, temp=params.temperature, repeat_penalty=1.0) if limit > 0 else ():
        if llama_cpp.llama_vocab_is_eog(engine.llm._model.vocab, token):
            break
        out.append(token)
        if len(out) >= limit:
            break
    return out, b"".join(map(engine.pieces, out)).decode("utf-8", errors="replace")


def demo_prompts(store: Store, model: str) -> list[tuple[str, RenderedPrompt]]:
    """(source, prompt) of the demo's two runs: its benchmark items under the standard profile,
    its captures each under its own editor."""
    from replay.rejects import Rejects
    from replay.run.inputs import load_inputs

    out = []
    for source, editor in ((str(data_dir() / "demo" / "items.jsonl"), "standard"), ("captures", None)):
        with Rejects(None) as rejects:
            out += [(source, p) for p in load_inputs(source, store, editor, model, rejects).prompts]
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--threads", type=int, default=None)
    ap.add_argument("--limit", type=int, default=0, help="at most N prompts (0: all)")
    args = ap.parse_args()
    ref = resolve_model("default")
    with Store(data_dir() / "fimreplay.db") as store:
        prompts = demo_prompts(store, ref.editor_model)[: args.limit or None]
    server = LlamaCppBackend(ref, ctx=DEMO_PARAMS.ctx, n_threads=args.threads)
    python = LlamaCppPythonBackend(ref, ctx=DEMO_PARAMS.ctx, n_threads=args.threads)
    same = 0
    try:
        for source, prompt in prompts:
            started = time.perf_counter()
            (a, text_a), (b, text_b) = server_ids(server, prompt, DEMO_PARAMS), python_ids(python, prompt, DEMO_PARAMS)
            at = next((n for n, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))
            same += a == b
            print(json.dumps({"source": "captures" if source == "captures" else "items", "item": prompt.item_id,
                              "prompt_ids": len(prompt.token_ids), "same_ids": a == b, "same_text": text_a == text_b,
                              "generated": [len(a), len(b)], "first_difference_at": None if a == b else at,
                              "s": round(time.perf_counter() - started, 1)}), flush=True)
    finally:
        server.close()
        python.close()
    print(json.dumps({"prompts": len(prompts), "same_ids": same}), flush=True)


if __name__ == "__main__":
    main()
