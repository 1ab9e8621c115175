"""llama.vscode's settings, by the names users write in settings.json (`llama-vscode.n_prefix`),
with each tag's defaults.

Defaults are those of package.json `contributes.configuration` (what `config.get` returns when
the user set nothing; src/configuration.ts reads each with Number()/Boolean()/String()), read at
every tag: n_prefix 256, n_suffix 64, n_predict 128, t_max_prompt_ms 500, t_max_predict_ms 500,
max_line_suffix 8, auto true and the ring's four settings hold from v0.0.1 to v0.0.63;
lora_completion "" from v0.0.10, ai_model "google/gemini-2.5-flash" from v0.0.13,
max_parallel_completions 3 from v0.0.40, use_openai_endpoint false from v0.0.7. A setting the
chosen tag does not have is ignored, as the extension ignores it; a name no tag has is refused.
Options named `server.*` belong to the server half and are passed through.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from replay.editors.inputs import BadInputLine
from replay.editors.llama_vscode.releases import Release, tag_index

PREFIX = "llama-vscode."

# setting -> (default, first tag with it, kind: "number" | "lines" (a whole count) | "bool" | "str")
_SETTINGS: dict[str, tuple[Any, str, str]] = {
    "n_prefix": (256, "v0.0.1", "lines"), "n_suffix": (64, "v0.0.1", "lines"),
    "n_predict": (128, "v0.0.1", "number"), "t_max_prompt_ms": (500, "v0.0.1", "number"),
    "t_max_predict_ms": (500, "v0.0.1", "number"), "max_line_suffix": (8, "v0.0.1", "number"),
    "auto": (True, "v0.0.1", "bool"), "ring_n_chunks": (16, "v0.0.1", "lines"),
    "ring_chunk_size": (64, "v0.0.1", "lines"), "ring_scope": (1024, "v0.0.1", "lines"),
    "ring_update_ms": (1000, "v0.0.1", "number"), "use_openai_endpoint": (False, "v0.0.7", "bool"),
    "lora_completion": ("", "v0.0.10", "str"), "ai_model": ("google/gemini-2.5-flash", "v0.0.13", "str"),
    "max_parallel_completions": (3, "v0.0.40", "number"),
}
SETTING_NAMES = tuple(PREFIX + name for name in _SETTINGS)


@dataclass(frozen=True)
class Settings:
    """The settings the completion path reads (src/configuration.ts names), for one tag."""

    n_prefix: int
    n_suffix: int
    n_predict: int | float
    t_max_prompt_ms: int | float
    t_max_predict_ms: int | float
    max_line_suffix: int | float
    auto: bool
    ring_n_chunks: int
    ring_chunk_size: int
    ring_scope: int
    ring_update_ms: int | float
    use_openai_endpoint: bool
    lora_completion: str
    ai_model: str
    max_parallel_completions: int | float


def _number(value: Any, key: str) -> int | float:
    """`Number(value)` for a JSON number, integral values as integers (JSON.stringify writes 256,
    not 256.0)."""
    if type(value) is bool or not isinstance(value, (int, float)):
        raise BadInputLine(f"option {key!r} must be a number, got {value!r}")
    return int(value) if float(value).is_integer() else value


def _convert(value: Any, kind: str, key: str) -> Any:
    if kind in ("number", "lines"):
        number = _number(value, key)
        if kind == "lines" and not isinstance(number, int):
            raise BadInputLine(f"option {key!r} counts lines (or chunks): a whole number, got {value!r}")
        return number
    if kind == "bool":
        if not isinstance(value, bool):
            raise BadInputLine(f"option {key!r} must be true or false, got {value!r}")
        return value
    if not isinstance(value, str):
        raise BadInputLine(f"option {key!r} must be a string, got {value!r}")
    return value


def settings(options: dict[str, Any], rel: Release) -> Settings:
    """The tag's defaults overridden by the `llama-vscode.*` options (others are left alone)."""
    values: dict[str, Any] = {}
    for name, (default, since, kind) in _SETTINGS.items():
        key = PREFIX + name
        given = key in options and tag_index(since) <= rel.index
        values[name] = _convert(options[key], kind, key) if given else default
    unknown = sorted(k for k in options if k.startswith(PREFIX) and k[len(PREFIX):] not in _SETTINGS)
    if unknown:
        raise BadInputLine(f"unknown llama.vscode setting(s) {', '.join(map(repr, unknown))} "
                         f"(known: {', '.join(SETTING_NAMES)})")
    if values["ring_chunk_size"] % 2:
        raise BadInputLine("'llama-vscode.ring_chunk_size' odd: the extension then asks VS Code for fractional lines "
                         "(lineAt throws); give an even size")
    if values["use_openai_endpoint"]:
        raise BadInputLine("'llama-vscode.use_openai_endpoint' true sends /v1/completions, not /infill: not modelled")
    return Settings(**values)
