"""llama.vim's timing rules by commit, read in ggml-org/llama.vim autoload/llama.vim (`llama#fim`,
its request throttle and job handling; `s:fim_on_stdout` / `s:fim_on_response`, where an answer
is shown; `s:fim_try_hint`, the cache lookups; `s:default_config`, the time cuts).

What never changed: the request is a `curl` job without `--max-time`, so the plugin waits for an
answer as long as the server takes (no client timeout); the plugin sends `t_max_prompt_ms` and
`t_max_predict_ms`, and llama-server honours only the second (the plugin's own help says
t_max_prompt_ms is "not yet supported"): it stops generating at the first newline after that many
milliseconds of generation (ggml-org/llama.cpp tools/server `process_token`, modelled in
replay/editors/llama_server/answer.py).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from replay.editors.llama_server.releases import split_version
from replay.editors.llama_vim.releases import COMMITS, SOURCE, resolve, rules_at
from replay.editors.llama_vim.settings import settings
from replay.editors.timing import Debounce, TimingRules

NAME = "llama.vim"

# The commits that changed when a request goes out, whether it is cancelled and when its answer
# is shown (each read at that commit in autoload/llama.vim).
THROTTLE_600 = "292b5a4"  # a request within 0.6 s of the last one waits for a 600 ms timer; a new request stops the job in flight
CACHE = "3a08e7d"  # answers cached by the context's hash and shown again at the same context
CACHE_BEHIND = "d13d932"  # ... or from up to 10 characters back, when what was typed matches the answer's start
IN_FLIGHT_WAIT = "a0ca488"  # while a request is in flight the next waits (100 ms retries): no throttle, no cancel
SHOWN_WHERE_ASKED = "057225f"  # an answer is cached and shown wherever the cursor's context has an answer (s:fim_try_hint)
SPECULATIVE = "1175c8d"  # the first request t_max_predict_ms 250 and a speculative follow-up; cache looks 128 characters back

_NOT_CANCELLED = "a request in flight is never stopped: the next waits for it, retried every 100 ms (`s:timer_fim`)"
_SERVER_CUT = ("llama-server stops at the first newline after t_max_predict_ms of generation; t_max_prompt_ms "
               "is sent but not honoured")


def since(version_index: int, sha: str) -> bool:
    """Whether the commit at `version_index` (releases.resolve) is `sha` or later."""
    return version_index >= [s for s, _ in COMMITS].index(sha)


def timing(version: str | None = None, options: Mapping[str, Any] | None = None) -> TimingRules:
    """llama.vim's timing at `version` (a commit or a day, as releases.resolve takes it) under the
    g:llama_config `options`: the time cuts of the request a cursor sends (its first: from 1175c8d
    250 ms whatever the setting, which only the speculative follow-up takes). Of a
    `CLIENT,server=...` spec only the client's part counts: llama-server's half sets no timing."""
    client, _ = split_version(version)
    at = resolve(client)
    rules = rules_at(client)
    config = settings(dict(options or {}), rules)
    sources = [f"{SOURCE} @{THROTTLE_600} (no --max-time on the curl job)"]
    if since(at, IN_FLIGHT_WAIT):
        debounce = Debounce("none")
        cancels = False
        sources.append(f"{SOURCE} @{IN_FLIGHT_WAIT} llama#fim: {_NOT_CANCELLED}")
    else:
        debounce = Debounce("throttle", 0.0, 600.0)
        cancels = True
        sources.append(f"{SOURCE} @{THROTTLE_600} llama#fim: 600 ms throttle, jobstop of the request in flight")
    if since(at, SHOWN_WHERE_ASKED):
        back = 128 if since(at, SPECULATIVE) else 10
        late = (f"shown on arrival if the cursor's context is the one asked at, or up to {back} characters further "
                "on when what was typed matches the answer's start (s:fim_try_hint)")
        shows_late = True
        sources.append(f"{SOURCE} @{SHOWN_WHERE_ASKED} s:fim_on_response -> s:fim_try_hint")
    else:
        late = "shown only if the cursor is still where the request was made, in insert mode (s:fim_on_stdout)"
        shows_late = False
    if since(at, CACHE_BEHIND):
        back = 128 if since(at, SPECULATIVE) else 10
        cache = f"answers kept by context hash; one from up to {back} characters back serves what was typed on"
    elif since(at, CACHE):
        cache = "answers kept by context hash, served again at the same context"
    else:
        cache = "none"
    if since(at, SPECULATIVE):
        cache += "; after an answer is shown a speculative request for the text after it is sent"
        sources.append(f"{SOURCE} @{SPECULATIVE} llama#fim: t_max_predict_ms 250 for the first request")
    return TimingRules(
        editor=NAME, release=rules.sha, debounce=debounce, cancels_in_flight=cancels, client_timeout_ms=None,
        shows_late=shows_late, late_answer=late, cache=cache, sources=tuple(sources),
        predict_ms=rules.first_predict_ms or int(config["t_max_predict_ms"]),
        prompt_ms=int(config["t_max_prompt_ms"]), server_cut=_SERVER_CUT)
