"""OpenAI batch files for `vllm run-batch` (and the OpenAI Batch API): export a run's prompts,
import the results back into the run.

Input line (vLLM entrypoints/openai/run_batch.py BatchRequestInput, the OpenAI batch format):
`{"custom_id", "method": "POST", "url": "/v1/completions", "body": {...}}` with the same body
the openai backend sends. Output line (BatchRequestOutput): `{"id", "custom_id", "response":
{"status_code", "request_id", "body"}, "error"}`. `custom_id` is the item id. Imported results
are post-processed with the run's own prompts (their stop words), stored like live completions,
and a line that cannot be used is a reject with file:line (unknown id, duplicate, malformed).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import msgspec

from replay.backends.base import BackendError, GenParams
from replay.backends.http import field
from replay.backends.openai_compat import completion_body
from replay.editors.stage import apply_stop
from replay.errors import UsageError
from replay.jsonl import json_lines, loads
from replay.records import Completion, RenderedPrompt
from replay.rejects import Rejects
from replay.store import Store

BATCH_URL = "/v1/completions"


def export_openai_batch(prompts: list[RenderedPrompt], model: str, params: GenParams, out: Path,
                        send_ids: bool = False) -> int:
    """Write one batch request per prompt; return how many were written."""
    out.parent.mkdir(parents=True, exist_ok=True)
    with out.open("w", encoding="utf-8") as fh:
        for prompt in prompts:
            line = {"custom_id": prompt.item_id, "method": "POST", "url": BATCH_URL,
                    "body": completion_body(model, prompt, params, send_ids)}
            fh.write(json.dumps(line, ensure_ascii=False) + "\n")
    return len(prompts)


class ImportSummary(msgspec.Struct, frozen=True):
    run: str
    lines: int
    imported: int
    errors: int
    rejected: int


def import_openai_batch(store: Store, run_id: str, results: Path, rejects: Rejects) -> ImportSummary:
    """Read a batch output file into run `run_id` (which must hold the exported prompts); lines
    that cannot be used go to `rejects`."""
    run = store.run(run_id)
    if run is None:
        raise UsageError(f"no run {run_id!r} in the store")
    prompts = {p.item_id: p for p in store.run_prompts(run_id)}
    model = run.model or ""
    seen: set[str] = set()
    imported = errors = lines = rejected = 0
    for n, line in json_lines(results.read_bytes()):
        lines += 1
        try:
            obj = loads(line)
            custom_id = str(field(obj, "custom_id"))
            if custom_id not in prompts:
                raise ValueError(f"custom_id {custom_id!r} is not an item of run {run_id}")
            if custom_id in seen:
                raise ValueError(f"custom_id {custom_id!r} seen before in this file")
            completion = result_completion(prompts[custom_id], obj, model)
        except (ValueError, BackendError, TypeError) as exc:
            rejects.at(results, n, str(exc), line)
            rejected += 1
            continue
        seen.add(custom_id)
        store.add_completion(run_id, completion)
        imported += 1
        errors += completion.error is not None
    return ImportSummary(run=run_id, lines=lines, imported=imported, errors=errors, rejected=rejected)


def result_completion(prompt: RenderedPrompt, obj: dict[str, Any], model: str) -> Completion:
    """One batch output line as a Completion: the choice text, or the line's error."""
    item_id = prompt.item_id or ""
    error = obj.get("error")
    response = obj.get("response") or {}
    status = response.get("status_code") if isinstance(response, dict) else None
    if error or status != 200:
        message = json.dumps(error) if error else f"HTTP {status}"
        return Completion(item_id=item_id, text="", raw_text="", backend="openai-batch", model=model,
                          finish_reason="error", error=message)
    body = field(obj, "response", "body")
    raw = str(field(body, "choices", 0, "text"))
    usage = body.get("usage") or {}
    return Completion(item_id=item_id, text=apply_stop(raw, prompt.stop), raw_text=raw, backend="openai-batch",
                      model=model, n_tokens=int(usage.get("completion_tokens") or 0),
                      finish_reason=str(body["choices"][0].get("finish_reason") or ""), latency_s=0.0)
