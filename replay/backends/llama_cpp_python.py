"""In-process llama.cpp through llama-cpp-python (the optional `llama-cpp-python` extra, a source
build): the engine the replay used before the prebuilt server (replay.backends.llamacpp), kept to
compare the two (their greedy answers differ where their CPU kernels break a near tie:
docs/replay-and-scores.md) and to reproduce runs made with it.

The model gets the audited token ids of the RenderedPrompt verbatim (`generate` with a list of
ids tokenizes nothing and adds no BOS: llama-cpp-python llama.py).
A prompt without ids is tokenized here the way llama.cpp's server does it: special tokens parsed,
BOS only when the GGUF says so (`tokenizer.ggml.add_bos_token`; llama_tokenize with
add_special=true consults the vocab's own rule, ggml-org/llama.cpp src/llama-vocab.cpp).
Greedy (temperature 0 selects llama.cpp's greedy sampler; repeat penalty 1.0 = off), and
generation ends on the vocab's end-of-generation ids (llama_vocab_is_eog: for Qwen2.5-Coder
<|endoftext|>, <|im_end|>, <|fim_pad|>, <|repo_name|>, <|file_sep|>), or at max_new_tokens. The
generated ids become text as llama.cpp's server makes it (replay.backends.llamacpp_text), not by
llama-cpp-python's `detokenize`, which loses pieces longer than 32 bytes.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from typing import Any

import msgspec

from replay.backends.base import EARLY_STOPS, Backend, BackendError, GenParams
from replay.backends.llamacpp_text import GeneratedText, Pieces
from replay.backends.models import ModelError, ModelRef
from replay.records import Completion, RenderedPrompt


class LlamaCppPythonBackend(Backend):
    name = "llama-cpp-python"
    max_concurrency = 1  # one llama.cpp context is not thread-safe
    sends_ids = True
    cache_engine = "llamacpp"  # its completions cached when it was the llamacpp backend are its own

    def __init__(self, ref: ModelRef, ctx: int = 1024, n_threads: int | None = None) -> None:
        if not ref.path:
            raise ModelError(f"{ref.name}: the llama-cpp-python backend needs a local GGUF file (no such file)")
        super().__init__(ref.name, ref.model_id)
        import llama_cpp

        self.ctx = ctx
        self.llm = llama_cpp.Llama(model_path=ref.path, n_ctx=ctx, n_threads=n_threads or os.cpu_count(),
                                   verbose=False, seed=0)
        self.pieces = Pieces(self.llm._model.vocab)

    def token_ids(self, prompt: RenderedPrompt) -> list[int]:
        """The ids the model gets: the audited ones, else the prompt text tokenized by llama.cpp."""
        if prompt.token_ids:
            return list(prompt.token_ids)
        return self.llm.tokenize(prompt.text.encode("utf-8"), add_bos=True, special=True)

    def prompt_ids(self, prompt: RenderedPrompt) -> list[int]:
        """`token_ids`, or an item error for a prompt this engine cannot take (a chat prompt, one
        longer than the context)."""
        if prompt.route == "chat":
            raise BackendError("the llama-cpp-python backend replays raw prompts; a chat prompt needs --backend chat")
        ids = self.token_ids(prompt)
        if len(ids) >= self.ctx:
            raise BackendError(f"prompt of {len(ids)} tokens does not fit the context of {self.ctx}")
        return ids

    def complete(self, prompt: RenderedPrompt, params: GenParams) -> Completion:
        """One answer, as llama.cpp's server gives it unstreamed: every generated piece's bytes
        (replay.backends.llamacpp_text)."""
        started = time.perf_counter()
        text, n_tokens, finish, first = self.generate(prompt, params, None)
        return self.finish(prompt, text.answer(), n_tokens, finish, started, prompt_tokens=len(self.token_ids(prompt)),
                           ttft_s=first[0][1] if first else 0.0)

    def complete_streaming(self, prompt: RenderedPrompt, params: GenParams, stop_reason: Callable[[str], str]) -> Completion:
        """`complete`, token by token, stopped as soon as `stop_reason(text so far)` names a
        reason (the editor stops reading there): what a streaming editor gets from a server it
        cancels. The text so far is what the server has streamed: a character whose bytes a
        token leaves unfinished waits for the next token's. Each token's arrival is kept as
        timing: (characters so far, seconds since the start)."""
        started = time.perf_counter()
        text, n_tokens, finish, timing = self.generate(prompt, params, stop_reason)
        done = self.finish(prompt, text.streamed(), n_tokens, finish, started, prompt_tokens=len(self.token_ids(prompt)))
        return msgspec.structs.replace(done, timing=tuple(timing), stopped_early=finish in EARLY_STOPS)

    def generate(self, prompt: RenderedPrompt, params: GenParams,
                 stop_reason: Callable[[str], str] | None) -> tuple[GeneratedText, int, str, list[tuple[int, float]]]:
        """The generation loop of llama-cpp-python's `create_completion` (llama_cpp/llama.py
        `_create_completion`, 0.3.36): the greedy sampler through `generate`, the budget cut to
        what the context has left (all of it for a budget of 0), the end on the vocab's
        end-of-generation ids. Two things are the server's instead: the text is built from the
        whole pieces (create_completion's `detokenize` loses those longer than 32 bytes), and
        the budget ends the generation even inside a character (the server's n_predict limit;
        create_completion generates on past its max_tokens until the character is whole). With
        `stop_reason`, it is asked after each token with the text streamed so far. Returns the
        text, the tokens generated, the finish reason and each token's (characters streamed,
        seconds since the start); unstreamed, the first token's seconds alone."""
        import llama_cpp

        ids = self.prompt_ids(prompt)
        started = time.perf_counter()
        room = self.llm.n_ctx() - len(ids)
        limit = params.new_tokens(prompt)
        limit = limit if 0 < limit and limit + len(ids) < self.llm.n_ctx() else room
        text, n_tokens, finish = GeneratedText(), 0, "length"
        timing: list[tuple[int, float]] = []
        if limit <= 0:  # the prompt fills the context: nothing is generated
            return text, n_tokens, finish, timing
        for token in self.llm.generate(ids, top_k=1, temp=params.temperature, repeat_penalty=1.0):
            if llama_cpp.llama_vocab_is_eog(self.llm._model.vocab, token):
                finish = "stop"
                break
            n_tokens += 1
            text.add(self.pieces(token))
            if stop_reason is not None:
                streamed = text.streamed()
                timing.append((len(streamed), round(time.perf_counter() - started, 6)))
                reason = stop_reason(streamed)
                if reason:
                    finish = reason
                    break
            elif n_tokens == 1:  # unstreamed: the first token's time alone
                timing.append((0, round(time.perf_counter() - started, 6)))
            if n_tokens >= limit:
                break
        return text, n_tokens, finish, timing

    def describe(self) -> dict[str, Any]:
        return {**super().describe(), "ctx": self.ctx}

    def cache_extra(self) -> dict[str, Any]:
        """In the cache key: how ids became text. Completions cached before the text was built
        from the whole pieces (llama-cpp-python's detokenize, which drops pieces longer than 32
        bytes and cut characters) hold text the model did not write, and the stored completion
        has no ids to tell which: under this key they are not read, and are generated again."""
        return {"text": "server-pieces"}

    def close(self) -> None:
        self.llm.close()
