"""llama.vscode's timing rules by tag, read in ggml-org/llama.vscode (src/architect.ts at v0.0.1,
src/completion.ts from the refactor 6dde543; src/configuration.ts and package.json for the
settings; src/llama-server.ts for the request).

What is the extension's and what is VS Code's: VS Code calls the inline completion provider
after each edit and cancels the token of the call before (its InlineCompletionsModel), and
shows nothing a cancelled call returns. The extension's own rules:
- a request waits while one is in flight, checking every 150 ms (DELAY_BEFORE_COMPL_REQUEST,
  v0.0.1 on) and giving up when its token was cancelled meanwhile; the request in flight is
  never aborted (no AbortSignal on the /infill post), so its answer still lands in the cache;
  the cache is looked up only after that wait (getCompletionItems at v0.0.63: the while loop
  comes before getCachedCompletion), so a late answer reaches the screen through the waiting
  call, at its next check;
- from v0.0.45 (0a58817) an automatic trigger first sleeps `debounce_ms` (default 0: none);
- no client timeout (axios with no `timeout` in axiosRequestConfigCompl);
- answers are kept in an LRU cache by prefix|suffix|prompt, and a later cursor whose typed text
  matches a kept answer's start is served from it (getCachedCompletion, v0.0.1); after showing
  an answer the extension requests the context after it is accepted (cacheFutureSuggestion),
  which the session client of live.py sends beyond these rules;
- t_max_prompt_ms / t_max_predict_ms from the settings (package.json defaults 500 / 500 at every
  tag: settings.py), which llama-server handles as for llama.vim (only the second is honoured).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from replay.editors.llama_server.releases import split_version
from replay.editors.llama_vscode.releases import REPO, release, tag_index
from replay.editors.llama_vscode.settings import PREFIX, settings
from replay.editors.timing import Debounce, TimingRules

NAME = "llama.vscode"
DEBOUNCE_SETTING = "v0.0.45"  # 0a58817: llama-vscode.debounce_ms (default 0)
_SERVER_CUT = ("llama-server stops at the first newline after t_max_predict_ms of generation; t_max_prompt_ms "
               "is sent but not honoured")


def timing(version: str | None = None, options: Mapping[str, Any] | None = None) -> TimingRules:
    """llama.vscode's timing at `version` (a tag or a day, releases.release) under the
    `llama-vscode.*` options; of a `CLIENT,server=...` spec only the client's part counts
    (llama-server's half sets no timing)."""
    rel = release(split_version(version)[0])
    debounce_key = PREFIX + "debounce_ms"  # a setting the completion path's Settings do not model
    conf = settings({k: v for k, v in (options or {}).items() if k != debounce_key}, rel)
    debounce = Debounce("none")
    sources = [REPO + "src/architect.ts @v0.0.1 (isRequestInProgress, DELAY_BEFORE_COMPL_REQUEST 150, getCachedCompletion)",
               REPO + "src/llama-server.ts (axios post without timeout or signal)"]
    if rel.index >= tag_index(DEBOUNCE_SETTING):
        ms = float((options or {}).get(debounce_key, 0) or 0)
        debounce = Debounce("fixed", ms) if ms > 0 else Debounce("none")
        sources.append(REPO + "src/completion.ts @v0.0.45 0a58817 (debounce_ms)")
    return TimingRules(
        editor=NAME, release=rel.tag, debounce=debounce, cancels_in_flight=False, client_timeout_ms=None,
        shows_late=True,
        late_answer=("VS Code drops what a cancelled call returns, but the answer is cached: shown when the cursor "
                     "returns to its context or the text typed since matches its start (getCachedCompletion)"),
        cache="LRU of answers by prefix|suffix|prompt, served to typed text matching their start; a follow-up "
              "request for the context after the shown answer is accepted (cacheFutureSuggestion)",
        serves_typed=True,
        in_flight_wait_ms=150.0,  # architect.ts / completion.ts: while isRequestInProgress, delay(DELAY_BEFORE_COMPL_REQUEST)
        # getCachedCompletion: `promptCut == compl.slice(0, promptCut.length)` holds for an answer typed out
        # whole; its empty rest is discarded (shouldDiscardSuggestion), nothing shown and nothing asked
        serves_typed_whole=True,
        sources=tuple(sources), predict_ms=int(conf.t_max_predict_ms), prompt_ms=int(conf.t_max_prompt_ms),
        server_cut=_SERVER_CUT)
