"""Any OpenAI-compatible `/v1/completions` server: vLLM, TGI, llama.cpp's server, Ollama's /v1.

Raw route: `prompt` is the rendered text, or the audited token ids when `send_ids` is on (vLLM
takes a list of ids as the prompt; llama-cpp-python's server takes text only: its
CreateCompletionRequest.prompt is `str | list[str]`, llama_cpp/server/types.py). FIM route:
`prompt` = prefix and `suffix` = suffix, the separate-parameters form Continue uses for FIM
providers (continuedev/continue core/autocomplete/CompletionStreamer.ts) and that Tabby's
openai/completion kind sends (TabbyML/tabby crates/http-api-bindings/src/completion/openai.rs).
Greedy: temperature 0, and `repeat_penalty` 1.0 because llama.cpp servers default to 1.1
(llama_cpp/server/types.py repeat_penalty_field) while vLLM ignores the unknown field; an
`extra_body` replaces these engine-specific fields. Stop words are not sent: the engine stops on
EOS/sentinels and the editor's stops are applied afterwards. A run streams the answer instead
(`complete_streaming`) and closes it where the editor stops reading (the first stop word, or the
editor cancelling its stream), the text it keeps being the same as after the whole generation.

A prompt rendered from a llama.cpp client's /infill body (llama.vscode, llama.vim: the prompt's
`request` has `input_prefix` and `input_suffix`) goes to llama-server's own `/infill` instead,
the body as the client sent it, so that the server assembles the prompt itself
(ggml-org/llama.cpp tools/server README "POST /infill"); only what makes a replay repeatable is
replaced: n_predict and temperature from the run, the repeat penalty, and no slot id or time
limits (t_max_predict_ms would cut by this machine's speed; the completion stage applies it from
the measured timing when asked), and one completion asked, not llama.vscode's `n_cmpl`: the
extension shows the first of its answers it does not discard (ggml-org/llama.vscode
src/completion.ts `getCompletionItems`, `getComplFromContent`: the distinct contents in order;
read at 3938fb3, 2026-08-19), and a greedy replay's answers are that one alone (more would need
the server's slots). Its answer is `content`, `tokens_predicted` and `stop_type`;
streamed, one such object per token.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import msgspec

from replay.backends.base import EARLY_STOPS, GenParams
from replay.backends.http import (
    RESPONSE_CAP,
    HttpBackend,
    ResponseTooLarge,
    field,
    first_token_after,
    prompt_count,
    token_count,
)
from replay.records import Completion, RenderedPrompt

DEFAULT_EXTRA: dict[str, Any] = {"repeat_penalty": 1.0}


def completion_body(model: str, prompt: RenderedPrompt, params: GenParams, send_ids: bool = False,
                    extra_body: dict[str, Any] | None = None) -> dict[str, Any]:
    """The `/v1/completions` body for one prompt (also a line of an OpenAI batch file)."""
    body: dict[str, Any] = {"model": model, "max_tokens": params.new_tokens(prompt), "temperature": params.temperature,
                            **(DEFAULT_EXTRA if extra_body is None else extra_body)}
    if prompt.route == "fim":
        body.update(prompt=prompt.prefix_sent, suffix=prompt.suffix_sent)
    elif send_ids and prompt.token_ids:
        body["prompt"] = list(prompt.token_ids)
    else:
        body["prompt"] = prompt.text
    return body


# What a replay replaces or drops of a llama.cpp client's /infill body.
_INFILL_DROPPED = ("id_slot", "t_max_prompt_ms", "t_max_predict_ms", "stream", "response_fields", "n_cmpl", "n")
_INFILL_FINISH = {"eos": "stop", "word": "stop", "limit": "length"}


def infill_body(prompt: RenderedPrompt, params: GenParams, extra_body: dict[str, Any]) -> dict[str, Any] | None:
    """llama-server's /infill body for a prompt rendered from a llama.cpp client's request
    (None: the prompt has no such request)."""
    request = prompt.request
    if not isinstance(request, dict) or "input_prefix" not in request or "input_suffix" not in request:
        return None
    kept = {k: v for k, v in request.items() if k not in _INFILL_DROPPED}
    return {**kept, "n_predict": params.new_tokens(prompt), "temperature": params.temperature, **extra_body}


class OpenAICompatBackend(HttpBackend):
    name = "openai"
    api_key_env = "OPENAI_API_KEY"

    def __init__(self, model: str, model_id: str, endpoints: list[str], send_ids: bool = False,
                 extra_body: dict[str, Any] | None = None, **kwargs: Any) -> None:
        super().__init__(model, model_id, endpoints, **kwargs)
        self.sends_ids = send_ids
        self.extra_body = DEFAULT_EXTRA if extra_body is None else extra_body

    def body(self, prompt: RenderedPrompt, params: GenParams) -> dict[str, Any]:
        return completion_body(self.model, prompt, params, self.sends_ids, self.extra_body)

    def route(self, prompt: RenderedPrompt, params: GenParams) -> tuple[str, dict[str, Any]]:
        """The path and body for one prompt: /infill for a llama.cpp client's body, else /v1/completions."""
        infill = infill_body(prompt, params, self.extra_body)
        return ("/infill", infill) if infill is not None else ("/v1/completions", self.body(prompt, params))

    def complete(self, prompt: RenderedPrompt, params: GenParams) -> Completion:
        started = time.perf_counter()
        path, body = self.route(prompt, params)
        return self.parse(prompt, self.post(path, body), started)

    def complete_streaming(self, prompt: RenderedPrompt, params: GenParams, stop_reason: Callable[[str], str]) -> Completion:
        """`complete` as a stream (`"stream": true`), cancelled as soon as `stop_reason(text so
        far)` names a reason: the editor stops reading there, and so does the replay (the
        connection is closed). Tokens are the server's count when it reports usage in the stream,
        else the chunks of text received (one token each on llama.cpp's server and vLLM, but for
        the bytes of one character split over tokens, which come as one chunk). Each chunk's
        arrival is kept as timing: (characters so far, seconds since the request)."""
        started = time.perf_counter()
        state: dict[str, Any] = {"text": "", "chunks": 0, "usage": None, "finish": "", "timing": [], "prompt": 0}

        def on_event(event: dict[str, Any]) -> bool:
            if token_count(event, "usage", "completion_tokens"):
                state["usage"] = token_count(event, "usage", "completion_tokens")
            if event.get("stop") and token_count(event, "tokens_predicted"):  # /infill's last event
                state["usage"] = token_count(event, "tokens_predicted")
            state["prompt"] = prompt_count(event) or state["prompt"]
            choices = event.get("choices") or ([_infill_choice(event)] if "content" in event else [])
            if not choices:
                return False
            choice = choices[0]
            piece = choice.get("text") or ""
            if piece:
                state["chunks"] += 1
                state["text"] += piece
                state["timing"].append((len(state["text"]), round(time.perf_counter() - started, 6)))
            if choice.get("finish_reason"):
                state["finish"] = str(choice["finish_reason"])
            reason = stop_reason(state["text"]) if piece else ""
            if reason:
                state["finish"] = reason
            return bool(reason)

        path, body = self.route(prompt, params)
        body = {**body, "stream": True}
        truncated = False
        try:
            whole = self.post_stream(path, body, on_event)
        except ResponseTooLarge:
            if not state["chunks"]:
                raise
            whole, truncated, state["finish"] = None, True, RESPONSE_CAP  # the text so far, flagged
        if whole is not None:  # the server does not stream: its one answer, cut afterwards
            return self.parse(prompt, whole, started)
        tokens = state["usage"] or state["chunks"]
        done = self.finish(prompt, state["text"], tokens, state["finish"], started, prompt_tokens=state["prompt"])
        return msgspec.structs.replace(done, timing=tuple(state["timing"]), truncated=truncated,
                                       stopped_early=state["finish"] in EARLY_STOPS)

    def parse(self, prompt: RenderedPrompt, data: dict[str, Any], started: float) -> Completion:
        """A `/v1/completions` response (also the body of a batch result line), or /infill's."""
        if "content" in data and "choices" not in data:
            choice = _infill_choice(data)
            return self.finish(prompt, choice["text"], token_count(data, "tokens_predicted"), choice["finish_reason"], started,
                               prompt_tokens=prompt_count(data), ttft_s=first_token_after(data, started))
        text = field(data, "choices", 0, "text")
        choice = data["choices"][0]
        finish = choice.get("finish_reason") if isinstance(choice, dict) else None
        return self.finish(prompt, str(text), token_count(data, "usage", "completion_tokens"), str(finish or ""), started,
                           prompt_tokens=prompt_count(data), ttft_s=first_token_after(data, started))

    def cache_extra(self) -> dict[str, Any]:
        return {"extra_body": self.extra_body}


def _infill_choice(event: dict[str, Any]) -> dict[str, Any]:
    """An /infill answer (or streamed piece) in the shape of a /v1/completions choice."""
    finish = _INFILL_FINISH.get(str(event.get("stop_type", "")), "") if event.get("stop") else ""
    return {"text": str(event.get("content") or ""), "finish_reason": finish}
