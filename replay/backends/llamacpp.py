"""In-process llama.cpp through llama-cpp-python: what Ollama and Tabby run inside.

The model gets the audited token ids of the RenderedPrompt verbatim (`create_completion` with a
list of ids tokenizes nothing and adds no BOS: llama-cpp-python llama.py `_create_completion`).
A prompt without ids is tokenized here the way llama.cpp's server does it: special tokens parsed,
BOS only when the GGUF says so (`tokenizer.ggml.add_bos_token`; llama_tokenize with
add_special=true consults the vocab's own rule, ggml-org/llama.cpp src/llama-vocab.cpp).
Greedy (temperature 0 selects llama.cpp's greedy sampler; repeat penalty 1.0 = off), and
generation ends on the vocab's end-of-generation ids (llama_vocab_is_eog: for Qwen2.5-Coder
<|endoftext|>, <|im_end|>, <|fim_pad|>, <|repo_name|>, <|file_sep|>), or at max_new_tokens.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from typing import Any

import msgspec

from replay.backends.base import EARLY_STOPS, Backend, BackendError, GenParams
from replay.backends.models import ModelError, ModelRef
from replay.records import Completion, RenderedPrompt


class LlamaCppBackend(Backend):
    name = "llamacpp"
    max_concurrency = 1  # one llama.cpp context is not thread-safe
    sends_ids = True

    def __init__(self, ref: ModelRef, ctx: int = 1024, n_threads: int | None = None) -> None:
        if not ref.path:
            raise ModelError(f"{ref.name}: the llamacpp backend needs a local GGUF file (no such file)")
        super().__init__(ref.name, ref.model_id)
        import llama_cpp

        self.ctx = ctx
        self.llm = llama_cpp.Llama(model_path=ref.path, n_ctx=ctx, n_threads=n_threads or os.cpu_count(),
                                   verbose=False, seed=0)

    def token_ids(self, prompt: RenderedPrompt) -> list[int]:
        """The ids the model gets: the audited ones, else the prompt text tokenized by llama.cpp."""
        if prompt.token_ids:
            return list(prompt.token_ids)
        return self.llm.tokenize(prompt.text.encode("utf-8"), add_bos=True, special=True)

    def prompt_ids(self, prompt: RenderedPrompt) -> list[int]:
        """`token_ids`, or an item error for a prompt this engine cannot take (a chat prompt, one
        longer than the context)."""
        if prompt.route == "chat":
            raise BackendError("the llamacpp backend replays raw prompts; a chat prompt needs --backend chat")
        ids = self.token_ids(prompt)
        if len(ids) >= self.ctx:
            raise BackendError(f"prompt of {len(ids)} tokens does not fit the context of {self.ctx}")
        return ids

    def complete(self, prompt: RenderedPrompt, params: GenParams) -> Completion:
        ids = self.prompt_ids(prompt)
        started = time.perf_counter()
        out = self.llm.create_completion(ids, max_tokens=params.new_tokens(prompt), temperature=params.temperature,
                                         top_k=1, repeat_penalty=1.0)
        choice = out["choices"][0]
        return self.finish(prompt, choice["text"], out["usage"]["completion_tokens"], choice["finish_reason"] or "", started)

    def complete_streaming(self, prompt: RenderedPrompt, params: GenParams, stop_reason: Callable[[str], str]) -> Completion:
        """`complete`, token by token, stopped as soon as `stop_reason(text so far)` names a
        reason (the editor stops reading there): what a streaming editor gets from a server it
        cancels. The loop is create_completion's non-streaming one (llama-cpp-python llama.py
        `_create_completion`): the same greedy sampler through `generate`, end on the vocab's
        end-of-generation ids, the text detokenized against the prompt ids and decoded with
        errors ignored, so that the text is a prefix of what `complete` returns. Each token's
        arrival is kept as timing: (characters so far, seconds since the start)."""
        import llama_cpp

        ids = self.prompt_ids(prompt)
        limit = params.new_tokens(prompt)
        started = time.perf_counter()
        tokens: list[int] = []
        timing: list[tuple[int, float]] = []
        text, finish = "", "length"
        if limit > 0:
            for token in self.llm.generate(ids, top_k=1, temp=params.temperature, repeat_penalty=1.0):
                if llama_cpp.llama_vocab_is_eog(self.llm._model.vocab, token):
                    finish = "stop"
                    break
                tokens.append(token)
                text = self.llm.detokenize(tokens, prev_tokens=ids).decode("utf-8", errors="ignore")
                timing.append((len(text), round(time.perf_counter() - started, 6)))
                reason = stop_reason(text)
                if reason:
                    finish = reason
                    break
                if len(tokens) >= limit:
                    break
        done = self.finish(prompt, text, len(tokens), finish, started)
        return msgspec.structs.replace(done, timing=tuple(timing), stopped_early=finish in EARLY_STOPS)

    def describe(self) -> dict[str, Any]:
        return {**super().describe(), "ctx": self.ctx}

    def close(self) -> None:
        self.llm.close()
