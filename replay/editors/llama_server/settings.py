"""llama-server's own settings that shape an /infill prompt, named as the server names them.

A render input gives them as `server.*` options (`server.n_ctx`, `server.n_batch`, ...); a
preset (`server.preset: "fim-qwen-1.5b-default"`, the server's `--fim-qwen-1.5b-default`) sets
several at once, and any option given beside it wins, as a flag after the preset does on the
server's command line.

Defaults are `struct common_params` (ggml-org/llama.cpp common/common.h): n_ctx 0 (the
model's training context; it was 4096 until the default became 0, which the project calls
"the default" by ggml-org/llama.cpp#18807, 2026-01-13), n_batch 2048, n_ubatch 512, n_predict
-1, spm_infill false, one slot (n_parallel 1: what llama.cpp's server gets when it is started
from these defaults, as xllamacpp does; the llama-server command picks 4 slots with a unified
cache when `-np` is not given: `server.n_parallel: 4, server.kv_unified: true`). The presets
are the `--fim-qwen-*` options (common/arg.cpp, later the model
catalog): Qwen2.5-Coder GGUFs of ggml-org with n_batch = n_ubatch = 1024, n_ctx 0 (the
model's) and n_cache_reuse 256 (the spec presets since ggml-org/llama.cpp#12287, 2025-03-09);
llama.vscode's README starts the server with them.
"""

from __future__ import annotations

from typing import Any

import msgspec

from replay.editors.inputs import BadInputLine


class ServerSettings(msgspec.Struct, frozen=True, omit_defaults=True):
    """The server's settings an /infill request is assembled and answered under.

    `n_ctx` 0 means the model's training context (read from the GGUF). `n_parallel` slots
    share the context unless `kv_unified`: a slot's context is n_ctx / n_parallel otherwise."""

    n_ctx: int = 0
    n_batch: int = 2048
    n_ubatch: int = 512
    n_predict: int = -1
    n_parallel: int = 1
    kv_unified: bool = False
    spm_infill: bool = False
    n_cache_reuse: int = 0
    preset: str | None = None

    def slot_n_ctx(self, n_ctx_train: int | None) -> int:
        """The context of the slot that takes the request (what the refusal compares with):
        the context rounded up to a multiple of 256, and split between the slots unless the
        cache is unified, each share rounded up again (src/llama-context.cpp, `GGML_PAD(n_ctx,
        256)`, since ggml-org/llama.cpp#17046, 2025-11; `-c 128` gives a slot of 256)."""
        n_ctx = self.n_ctx or n_ctx_train or 0
        if n_ctx <= 0:
            raise BadInputLine("server.n_ctx is 0 (the model's own context) but the model's context length is "
                               "not known here: give server.n_ctx")
        n_ctx = _pad(n_ctx, 256)
        return n_ctx if self.kv_unified or self.n_parallel <= 1 else _pad(n_ctx // self.n_parallel, 256)


def _pad(n: int, step: int) -> int:
    return (n + step - 1) // step * step


# common/arg.cpp `--fim-qwen-*-default` (ggml-org/llama.cpp): the model each names and the
# settings it changes (n_gpu_layers, flash_attn and port do not shape a prompt).
PRESETS: dict[str, dict[str, Any]] = {
    name: {"n_batch": 1024, "n_ubatch": 1024, "n_ctx": 0, "n_cache_reuse": 256}
    for name in ("fim-qwen-1.5b-default", "fim-qwen-3b-default", "fim-qwen-7b-default", "fim-qwen-7b-spec",
                 "fim-qwen-14b-spec")
}
PRESET_MODELS: dict[str, str] = {
    "fim-qwen-1.5b-default": "ggml-org/Qwen2.5-Coder-1.5B-Q8_0-GGUF",
    "fim-qwen-3b-default": "ggml-org/Qwen2.5-Coder-3B-Q8_0-GGUF",
    "fim-qwen-7b-default": "ggml-org/Qwen2.5-Coder-7B-Q8_0-GGUF",
    "fim-qwen-7b-spec": "ggml-org/Qwen2.5-Coder-7B-Q8_0-GGUF",
    "fim-qwen-14b-spec": "ggml-org/Qwen2.5-Coder-14B-Q8_0-GGUF",
}

_FIELDS = {f.name: f.type for f in msgspec.structs.fields(ServerSettings)}
PREFIX = "server."


def server_settings(options: dict[str, Any]) -> ServerSettings:
    """The `server.*` options of a render input as the server's settings (other options are the
    client's and are left alone); a preset first, then the options given beside it."""
    given = {key[len(PREFIX):]: value for key, value in options.items() if key.startswith(PREFIX)}
    unknown = sorted(set(given) - set(_FIELDS))
    if unknown:
        raise BadInputLine(f"unknown server option {PREFIX}{unknown[0]} (known: "
                                + ", ".join(PREFIX + name for name in _FIELDS) + ")")
    values: dict[str, Any] = {}
    preset = given.get("preset")
    if preset is not None:
        if preset not in PRESETS:
            raise BadInputLine(f"unknown server.preset {preset!r} (known: {', '.join(PRESETS)})")
        values.update(PRESETS[preset])
    values.update(given)
    try:
        settings = msgspec.convert(values, ServerSettings)
    except msgspec.ValidationError as exc:
        raise BadInputLine(f"server option: {exc}") from None
    if settings.n_batch <= 0 or settings.n_ctx < 0:
        raise BadInputLine("server.n_batch must be positive and server.n_ctx not negative")
    return settings


def answered_settings(body: dict[str, Any]) -> dict[str, Any]:
    """The `server.*` options a body's answer proves: a server that answered a body asking for
    `n_cmpl` (or `n`) completions had at least that many slots (the request schema refuses more
    than the slots: refusal.py), so its capture is replayed with that many, sharing one unified
    cache (the llama-server command's own setup when it picks the slots: 4 unified, so no
    slot's context is smaller than the server's). Nothing when one completion was asked."""
    key = next((k for k in ("n_cmpl", "n") if k in body), None)
    wanted = body.get(key) if key is not None else None
    if not isinstance(wanted, int) or isinstance(wanted, bool) or wanted <= 1:
        return {}
    return {PREFIX + "n_parallel": wanted, PREFIX + "kv_unified": True}
