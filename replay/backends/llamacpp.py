"""In-process llama.cpp: llama.cpp's own server (tools/server), built as a Python extension by
xllamacpp (a prebuilt wheel, nothing to compile), asked on loopback. It is what Ollama, Tabby
and llama-server run, so the answer is the server's own: its text from the generated pieces
(common_token_to_piece, a character the budget cuts becomes U+FFFD unstreamed and is held back
streamed: tools/server/server-context.cpp `process_token`, `send_final_response`), its stop on
the vocab's end-of-generation ids (llama_vocab_is_eog: for Qwen2.5-Coder <|endoftext|>,
<|im_end|>, <|fim_pad|>, <|repo_name|>, <|file_sep|>), its greedy sampler at temperature 0.

The model gets the audited token ids of the RenderedPrompt verbatim (`/completion` with a list
of ids tokenizes nothing and adds no BOS: tools/server/server-common.cpp
`tokenize_input_prompts`). A prompt without ids is tokenized by the server's `/tokenize` the
way its completion route tokenizes text: special tokens parsed, BOS only when the GGUF says so
(`add_special`, which consults `tokenizer.ggml.add_bos_token`: src/llama-vocab.cpp).

The context is set up as llama-cpp-python's `Llama` set it up for this backend before (n_batch
and n_ubatch 512, flash attention off, one context of `ctx` tokens per slot), and every request
starts from an empty cache (`cache_prompt` false), so one prompt's answer does not depend on
which prompt came before it. Several slots (`slots`) decode prompts side by side in one batch.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import httpx
import msgspec

from replay.backends.base import EARLY_STOPS, Backend, BackendError, GenParams
from replay.backends.http import first_token_after
from replay.backends.models import ModelError, ModelRef
from replay.records import Completion, RenderedPrompt

BATCH = 512  # n_batch = n_ubatch: llama-cpp-python's Llama defaults, which the replay used before
# The server's stop_type (server-task.cpp `stop_type_to_str`) as the replay names the finish.
_FINISH = {"eos": "stop", "limit": "length", "word": "stop", "none": "length"}


class _Chunk(msgspec.Struct):
    """One answer of `/completion`, or one chunk of its stream (the fields the replay reads)."""

    content: str = ""
    tokens_predicted: int = 0
    stop: bool = False
    stop_type: str = ""


_decode_chunk = msgspec.json.Decoder(_Chunk).decode


class LlamaCppBackend(Backend):
    name = "llamacpp"
    sends_ids = True

    def __init__(self, ref: ModelRef, ctx: int = 1024, n_threads: int | None = None, slots: int = 1) -> None:
        if not ref.path:
            raise ModelError(f"{ref.name}: the llamacpp backend needs a local GGUF file (no such file)")
        super().__init__(ref.name, ref.model_id)
        from xllamacpp import CommonParams, Server, llama_flash_attn_type

        self.ctx, self.slots = ctx, slots
        self.max_concurrency = slots
        params = CommonParams()
        params.model.path = ref.path
        params.n_parallel = slots
        params.kv_unified = False  # each slot its own `ctx` tokens
        params.n_ctx = ctx * slots
        params.n_batch = params.n_ubatch = BATCH
        params.flash_attn_type = llama_flash_attn_type.LLAMA_FLASH_ATTN_TYPE_DISABLED
        params.warmup = False
        params.verbosity = -1
        params.cpuparams.n_threads = params.cpuparams_batch.n_threads = n_threads or os.cpu_count() or 1
        try:
            self.server = Server(params)
        except RuntimeError as exc:
            raise ModelError(f"{ref.name}: llama.cpp could not load {ref.path} ({exc})") from None
        address = self.server.listening_address
        self.url = address if address.startswith("http") else f"http://{address}"
        self.http = httpx.Client(base_url=self.url, timeout=None, limits=httpx.Limits(max_connections=slots + 1))

    def token_ids(self, prompt: RenderedPrompt) -> list[int]:
        """The ids the model gets: the audited ones, else the prompt text tokenized by llama.cpp."""
        if prompt.token_ids:
            return list(prompt.token_ids)
        answer = self.http.post("/tokenize", json={"content": prompt.text, "add_special": True, "parse_special": True})
        if answer.status_code != 200:
            raise BackendError(_error(answer.status_code, answer.text))
        return list(msgspec.json.decode(answer.content)["tokens"])

    def prompt_ids(self, prompt: RenderedPrompt) -> list[int]:
        """`token_ids`, or an item error for a prompt this engine cannot take (a chat prompt, one
        longer than the context)."""
        if prompt.route == "chat":
            raise BackendError("the llamacpp backend replays raw prompts; a chat prompt needs --backend chat")
        ids = self.token_ids(prompt)
        if len(ids) >= self.ctx:
            raise BackendError(f"prompt of {len(ids)} tokens does not fit the context of {self.ctx}")
        return ids

    def budget(self, prompt: RenderedPrompt, params: GenParams, n_prompt: int) -> int:
        """The tokens to generate: the prompt's budget, or all the context has left when the budget
        is 0 or would overrun it (the limit the replay has always used: llama-cpp-python's
        `create_completion` rule, which the server's own context stop would give one token later)."""
        limit = params.new_tokens(prompt)
        return limit if 0 < limit and limit + n_prompt < self.ctx else self.ctx - n_prompt

    def body(self, ids: list[int], params: GenParams, n_predict: int, stream: bool) -> dict[str, Any]:
        """The /completion request: greedy (top-k 1 at temperature 0: the server's greedy
        sampler; no repeat penalty), ids in, every generated token's id back."""
        return {"prompt": ids, "n_predict": n_predict, "temperature": params.temperature, "top_k": 1,
                "repeat_penalty": 1.0, "cache_prompt": False, "stream": stream, "return_tokens": True}

    def complete(self, prompt: RenderedPrompt, params: GenParams) -> Completion:
        """One answer, as llama.cpp's server gives it unstreamed."""
        started = time.perf_counter()
        ids = self.prompt_ids(prompt)
        n_predict = self.budget(prompt, params, len(ids))
        if n_predict <= 0:  # the prompt fills the context: nothing is generated
            return self.finish(prompt, "", 0, "length", started, prompt_tokens=len(ids))
        answer = self.http.post("/completion", json=self.body(ids, params, n_predict, stream=False))
        if answer.status_code != 200:
            raise BackendError(_error(answer.status_code, answer.text))
        data = msgspec.json.decode(answer.content)
        got = msgspec.convert(data, _Chunk)
        return self.finish(prompt, got.content, got.tokens_predicted, _FINISH.get(got.stop_type, "length"), started,
                           prompt_tokens=len(ids), ttft_s=first_token_after(data, started))

    def complete_streaming(self, prompt: RenderedPrompt, params: GenParams, stop_reason: Callable[[str], str]) -> Completion:
        """`complete`, streamed, stopped as soon as `stop_reason(text so far)` names a reason (the
        editor stops reading there): the stream is closed, and the server cancels the slot's task
        (what a streaming editor gets from a server it cancels). A chunk comes when a token
        completes a character (the server holds back a character whose bytes are unfinished).
        Each chunk's arrival is kept as timing: (characters so far, seconds since the start)."""
        started = time.perf_counter()
        ids = self.prompt_ids(prompt)
        text, n_tokens, finish, timing = self.stream(ids, prompt, params, stop_reason)
        done = self.finish(prompt, text, n_tokens, finish, started, prompt_tokens=len(ids))
        return msgspec.structs.replace(done, timing=tuple(timing), stopped_early=finish in EARLY_STOPS)

    def stream(self, ids: list[int], prompt: RenderedPrompt, params: GenParams,
               stop_reason: Callable[[str], str]) -> tuple[str, int, str, list[tuple[int, float]]]:
        """The streamed generation of the prompt's ids: text, tokens generated, finish reason,
        chunk timing."""
        started = time.perf_counter()
        n_predict = self.budget(prompt, params, len(ids))
        text, n_tokens, finish = "", 0, "length"
        timing: list[tuple[int, float]] = []
        if n_predict <= 0:
            return text, n_tokens, finish, timing
        with self._chunks(self.body(ids, params, n_predict, stream=True)) as chunks:
            for chunk in chunks:
                text += chunk.content
                n_tokens = max(n_tokens, chunk.tokens_predicted)
                if chunk.stop:
                    finish = _FINISH.get(chunk.stop_type, "length")
                    break
                timing.append((len(text), round(time.perf_counter() - started, 6)))
                reason = stop_reason(text)
                if reason:
                    finish = reason
                    break
        return text, n_tokens, finish, timing

    @contextmanager
    def _chunks(self, body: dict[str, Any]) -> Iterator[Iterator[_Chunk]]:
        """The stream's chunks (server-sent events); leaving the block closes the connection,
        which the server takes as the client cancelling."""
        with self.http.stream("POST", "/completion", json=body) as answer:
            if answer.status_code != 200:
                raise BackendError(_error(answer.status_code, answer.read().decode("utf-8", "replace")))
            yield (_decode_chunk(line[6:]) for line in answer.iter_lines() if line.startswith("data: "))

    def describe(self) -> dict[str, Any]:
        return {**super().describe(), "ctx": self.ctx}

    def cache_extra(self) -> dict[str, Any]:
        """In the cache key: how ids became text (the server's pieces, since completions made with
        llama-cpp-python's detokenize lost pieces longer than 32 bytes), and the llama.cpp build.
        Builds differ in their CPU kernels (this wheel's AVX2 ones against llama-cpp-python built
        for the machine, AVX-512 here), and a near tie in the greedy choice then goes the other
        way (docs/replay-and-scores.md, the in-process engine): completions cached by
        llama-cpp-python as the llamacpp engine are not read as this build's."""
        from importlib.metadata import version

        return {"text": "server-pieces", "build": f"xllamacpp {version('xllamacpp')}"}

    def close(self) -> None:
        self.http.close()
        del self.server


def _error(status: int, text: str) -> str:
    """The item's error from the server's error answer (its message, else the body's start)."""
    try:
        message = msgspec.json.decode(text)["error"]["message"]
    except (msgspec.DecodeError, KeyError, TypeError):
        message = text[:200]
    return f"llama.cpp answered {status}: {message}"
