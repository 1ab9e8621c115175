"""Make the golden /infill cases and record the real server's answers to them.

    PYTHONPATH=. python -m tests.editors.llama_server.make_golden

writes tests/data/golden/llama-server/cases.jsonl (render inputs: id, request, options) and
answers.jsonl (what llama-server answered each: prompt and tokens_evaluated, or its error),
asking the xllamacpp server with the demo GGUF. The cases are made deterministically from this
project's own source files (the text of prefixes, suffixes and chunks); the boundary cases are
sized with the tokenizer so that the prompt is exactly n_ctx − 1 and n_ctx tokens.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

from replay.assets import DEMO_MODEL, asset_path
from replay.editors.llama_server import InfillRefused, render_body, server_settings
from tests.editors.llama_server.live import answer, llama_server, settings_key

ROOT = Path(__file__).resolve().parents[3]
GOLDEN = ROOT / "tests" / "data" / "golden" / "llama-server"

CONFIGS: tuple[dict[str, int], ...] = (
    {"server.n_ctx": 128, "server.n_batch": 32},
    {"server.n_ctx": 256, "server.n_batch": 64},
    {"server.n_ctx": 300, "server.n_batch": 102},
    {"server.n_ctx": 384, "server.n_batch": 128, "server.n_predict": 16},
    {"server.n_ctx": 256, "server.n_batch": 256},
    {"server.n_ctx": 512, "server.n_batch": 384},
)
UNICODE = "# é, naïve, 日本語のコード, 🚀 emoji\ndef größe(x):  # ü\n    return 'ß' * x\n"


def _source_texts() -> list[str]:
    files = sorted((ROOT / "replay").rglob("*.py"))
    return [f.read_text(encoding="utf-8") for f in files if f.stat().st_size > 2000]


def _piece(rng: random.Random, texts: list[str], lines: int) -> str:
    text = rng.choice(texts).splitlines(keepends=True)
    start = rng.randrange(max(1, len(text) - lines))
    return "".join(text[start:start + lines])


def _chunks(rng: random.Random, texts: list[str], n: int, lines: int) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for i in range(n):
        chunk: dict[str, Any] = {"text": _piece(rng, texts, rng.randint(3, lines)), "time": 1000 + i}
        if i != 1:  # a chunk without a filename is "tmp" to the server
            chunk["filename"] = f"src/mod_{i}.py"
        out.append(chunk)
    return out


def _body(prefix: str, suffix: str, prompt: str = "", extra: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    body: dict[str, Any] = {"id_slot": 0, "input_prefix": prefix, "input_suffix": suffix, "input_extra": extra or [],
                            "prompt": prompt, "n_predict": 0, "cache_prompt": True}
    return body


def _sized_prompt(gguf: str, options: dict[str, int], prefix: str, target: int, extra: list[dict[str, Any]]) -> str:
    """A prompt (" a" repeated) for which the assembled prompt has exactly `target` tokens."""
    for k in range(0, 4 * target):
        try:
            n = len(render_body(_body(prefix, "", " a" * k, extra), gguf, options).token_ids)
        except InfillRefused as exc:
            n = int(exc.reason.split("(")[1].split()[0])
        if n == target:
            return " a" * k
        if n > target:
            break
    raise RuntimeError(f"no prompt gives {target} tokens")


def config_cases(gguf: str, options: dict[str, int], n: int, texts: list[str]) -> list[dict[str, Any]]:
    """One server setting's cases, ordered so that those sharing their extra context follow each
    other (the server then reuses its cache and evaluates only what differs)."""
    rng = random.Random(n)
    n_ctx = server_settings(options).slot_n_ctx(None)  # the slot's context: -c rounded up to 256
    big = options["server.n_ctx"] // 8
    many = _chunks(rng, texts, 16, big // 2 + 4)
    head = _piece(rng, texts, 6)
    bodies: list[dict[str, Any]] = [
        _body("def f(x):\n    return ", "\n\nprint(f(2))\n"),
        _body(_piece(rng, texts, 12), _piece(rng, texts, 6), "    if x"),
        _body(_piece(rng, texts, big), _piece(rng, texts, big), "    re"),
        _body(_piece(rng, texts, 8), _piece(rng, texts, big), "    value = compute(" * 4),
        _body(_piece(rng, texts, 10), _piece(rng, texts, 5), "", _chunks(rng, texts, 1, 12)),
        _body(_piece(rng, texts, big), _piece(rng, texts, big), "x", _chunks(rng, texts, 4, big // 2 + 4)),
        _body(_piece(rng, texts, 20), _piece(rng, texts, 20), "", many),
        _body(_piece(rng, texts, big * 2), _piece(rng, texts, big * 2), "", many),  # everything full: n_ctx + 3
        _body(head, "", _sized_prompt(gguf, options, head, n_ctx - 1, many), many),
        _body(head, "", _sized_prompt(gguf, options, head, n_ctx, many), many),
        _body("s = '<|fim_prefix|>'\n", "<|fim_middle|>\n", "<|file_sep|>",
              [{"text": "t = '<|file_sep|>x<|repo_name|>'\n", "filename": "<|fim_suffix|>.py"}]),
        _body(UNICODE * 2, UNICODE, "    ü", [{"text": UNICODE * 2, "filename": "ü.py"}]),
        _body(["def ", 1234, "f(x):\n"], "", ""),
        _body("def f(x):\n", "", "x = 1\n" * (options["server.n_ctx"] // 3)),
        {"input_prefix": "def f(x):\n", "n_predict": 0},
        {"input_prefix": "a", "input_suffix": "b", "input_extra": [{"filename": "a.py"}], "n_predict": 0},
        {**_body("def f(x):\n", "\n", "    "), "n_cmpl": 3},  # llama.vscode's 3 completions, one slot
    ]
    return [{"id": f"c{n}-{i:02d}", "request": body, "options": options} for i, body in enumerate(bodies)]


def main() -> None:
    gguf = str(asset_path(DEMO_MODEL.name))
    texts = _source_texts()
    cases = [case for n, options in enumerate(CONFIGS) for case in config_cases(gguf, options, n, texts)]
    answers = []
    for options in CONFIGS:
        group = [c for c in cases if settings_key(c["options"]) == settings_key(options)]
        with llama_server(gguf, options) as url:
            for case in group:
                answers.append({"id": case["id"], **answer(url, case["request"])})
                print(case["id"], answers[-1].get("tokens_evaluated", answers[-1].get("error")), flush=True)
    GOLDEN.mkdir(parents=True, exist_ok=True)
    (GOLDEN / "cases.jsonl").write_text("".join(json.dumps(c, ensure_ascii=False) + "\n" for c in cases), encoding="utf-8")
    (GOLDEN / "answers.jsonl").write_text("".join(json.dumps(a, ensure_ascii=False) + "\n" for a in answers),
                                          encoding="utf-8")


if __name__ == "__main__":
    main()
