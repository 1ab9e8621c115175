"""A Tabby server's `/v1/completions`: replays the whole product (its prompt builder, snippet
retrieval, clipping, stop words and post-processing run inside the server).

The body is the editor's own request when the capture or profile has one (tabby-agent's
`{"language", "segments"}`), else `{"language", "segments": {"prefix", "suffix"}}` built from
what the profile cut. Fields as in TabbyML/tabby crates/tabby/src/services/completion.rs
(CompletionRequest: language, segments, user, debug_options, temperature, seed, mode;
response `{"id", "choices": [{"index", "text"}]}`). `temperature` and `seed` are set for a
repeatable replay; `debug_options.return_prompt` asks for the prompt the server built. The
server already cut its stop words, so its text is both raw and processed. The token goes as
`Authorization: Bearer` from $TABBY_TOKEN.
"""

from __future__ import annotations

import time
from typing import Any

from replay.backends.base import GenParams
from replay.backends.http import HttpBackend, field
from replay.records import Completion, RenderedPrompt


class TabbyServerBackend(HttpBackend):
    name = "tabby"
    api_key_env = "TABBY_TOKEN"

    def body(self, prompt: RenderedPrompt, params: GenParams) -> dict[str, Any]:
        base = dict(prompt.request) if prompt.request else {"segments": {"prefix": prompt.prefix_sent, "suffix": prompt.suffix_sent}}
        base.update(temperature=params.temperature, seed=0, debug_options={"return_prompt": True})
        return base

    def complete(self, prompt: RenderedPrompt, params: GenParams) -> Completion:
        started = time.perf_counter()
        data = self.post("/v1/completions", self.body(prompt, params))
        text = str(field(data, "choices", 0, "text"))
        return self.finish(prompt, text, 0, "", started, stop_applied=False)
