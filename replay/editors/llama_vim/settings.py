"""llama.vim's settings (`g:llama_config`) from a render input's options.

The plugin merges the user's dictionary over its defaults (`extendnew(s:default_config,
llama_config, 'force')`, since ed34b87 2025-01-24; before, the user's dictionary had to be whole:
here it is always merged) and, since 699a088 2026-01-12, renames deprecated keys (`s:renames`).
Options named `server.*` are the server's (replay/editors/llama_server); `replay.seed` seeds
the ring buffer's random windows when the ring is simulated from a session, and
`replay.request_time` says when the request was made on the session's clock;
`replay.follow_up_of` (the server's answer to the first request) asks for the speculative
follow-up request the plugin sends once that answer is shown.
"""

from __future__ import annotations

from typing import Any

from replay.editors.llama_vim.releases import KNOWN_SETTINGS, SOURCE, Rules
from replay.editors.inputs import BadInputLine

SEED_OPTION = "replay.seed"
REQUEST_TIME_OPTION = "replay.request_time"
FOLLOW_UP_OPTION = "replay.follow_up_of"
_OURS = (SEED_OPTION, REQUEST_TIME_OPTION, FOLLOW_UP_OPTION)
_INTS = ("n_prefix", "n_suffix", "n_predict", "t_max_prompt_ms", "t_max_predict_ms", "max_line_suffix",
         "ring_n_chunks", "ring_chunk_size", "ring_scope", "ring_update_ms")


class BadSetting(BadInputLine):
    """An option that is no llama.vim setting, or a value the plugin cannot use."""


def settings(options: dict[str, Any], rules: Rules) -> dict[str, Any]:
    """The plugin's g:llama_config at `rules`' commit with these options over its defaults."""
    own = {k: v for k, v in options.items() if not k.startswith("server.") and k not in _OURS}
    unknown = sorted(set(own) - KNOWN_SETTINGS)
    if unknown:
        raise BadSetting(f"llama.vim has no setting {', '.join(map(repr, unknown))} (its g:llama_config keys are in "
                         f"{SOURCE} s:default_config; server settings are named server.*)")
    for old, new in rules.renames.items():
        if old in own:
            own[new] = own.pop(old)
    config = {**rules.defaults, **own}
    for key in _INTS:
        if type(config.get(key)) is not int:
            raise BadSetting(f"llama.vim setting {key!r} must be an integer, got {config.get(key)!r}")
    stop = config.get("stop_strings", [])
    if not (isinstance(stop, list) and all(isinstance(s, str) for s in stop)):
        raise BadSetting(f"llama.vim setting 'stop_strings' must be a list of strings, got {stop!r}")
    if rules.model_setting and not isinstance(config.get(rules.model_setting), str):
        raise BadSetting(f"llama.vim setting {rules.model_setting!r} must be a string")
    return config


def seed(options: dict[str, Any]) -> int:
    """The seed of the simulated ring's random windows (0 unless given)."""
    value = options.get(SEED_OPTION, 0)
    if type(value) is not int:
        raise BadSetting(f"option {SEED_OPTION!r} must be an integer, got {value!r}")
    return value


def request_time(options: dict[str, Any]) -> float | None:
    """When the request was made, on the session events' clock (None: at the last event)."""
    value = options.get(REQUEST_TIME_OPTION)
    if value is not None and (isinstance(value, bool) or not isinstance(value, (int, float))):
        raise BadSetting(f"option {REQUEST_TIME_OPTION!r} must be a number of seconds, got {value!r}")
    return None if value is None else float(value)


def follow_up_of(options: dict[str, Any], rules: Rules) -> str | None:
    """The answer whose follow-up request is wanted (None: the first request)."""
    value = options.get(FOLLOW_UP_OPTION)
    if value is None:
        return None
    if not isinstance(value, str):
        raise BadSetting(f"option {FOLLOW_UP_OPTION!r} must be the server's answer text, got {value!r}")
    if rules.first_predict_ms is None:
        raise BadSetting(f"llama.vim {rules.sha} ({rules.day}) sends no follow-up request (from 1175c8d, 2025-03-10)")
    return value
