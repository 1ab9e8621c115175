"""The standard benchmark profile: a 1024-token context and 128 generated tokens.

Not an editor: the fixed setting every model is compared under. The prompt is the family's
template around prefix and suffix (no snippets), and it must leave room for the generation
inside the context, so the prompt budget is `ctx - max_new_tokens` = 896 tokens, counted as the
engine counts them: the real tokenizer of the target model on the whole rendered text (special
tokens parsed, as llama.cpp does), plus one BOS where the family's engine adds it.

Split policy (text nearest the cursor is kept):
1. Nothing is cut when template + prefix + suffix fit.
2. Otherwise the suffix may use up to a quarter of what the template leaves — or more, when the
   prefix needs less than the other three quarters — and is cut from its END.
3. The prefix gets the rest and is cut from its START.
4. The rendered prompt is counted again as a whole (tokens can merge differently across the
   cuts); while it is over budget the prefix (then the suffix) gives up the excess.
Cuts fall at character positions found by binary search on real token counts, so a kept part is
the longest run next to the cursor whose tokens fit.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from replay.editors.interface import EditorProfile, NoTiming
from replay.editors.stage import Shown, StreamStop, Timing
from replay.editors.templates import Family, model_family
from replay.editors.timing import TimingRules
from replay.errors import UsageError
from replay.records import EditorInput, RenderedPrompt
from replay.tokens.tokenizer import Tokenizer, default_tokenizer_spec, load_tokenizer

CTX = 1024
MAX_NEW_TOKENS = 128
SUFFIX_SHARE = 4  # the suffix's guaranteed part is 1/SUFFIX_SHARE of the room left

DEFAULTS: dict[str, Any] = {"ctx": CTX, "max_new_tokens": MAX_NEW_TOKENS, "tokenizer": ""}


class StandardInputError(UsageError):
    """An option, model or budget the standard profile cannot work with."""


def _options(options: Mapping[str, Any]) -> dict[str, Any]:
    unknown = sorted(set(options) - set(DEFAULTS))
    if unknown:
        raise StandardInputError(f"unknown standard option(s) {', '.join(unknown)} (known: {', '.join(DEFAULTS)})")
    merged = {**DEFAULTS, **options}
    for key in ("ctx", "max_new_tokens"):
        if type(merged[key]) is not int or merged[key] <= 0:
            raise StandardInputError(f"standard option {key!r} must be a positive integer, got {merged[key]!r}")
    return merged


def tokenizer_spec(model: str, family: Family, override: str = "") -> str:
    """The target model's tokenizer: an explicit spec, the GGUF file named as the model, or the
    family's default (replay.tokens default_tokenizer_spec)."""
    if override:
        return override
    if model.endswith(".gguf") and Path(model).expanduser().is_file():
        return f"gguf:{model}"
    return default_tokenizer_spec(family.name)


def _longest(text: str, fits: Callable[[str], bool], from_end: bool) -> str:
    """The longest tail (from_end) or head of `text` that `fits`, by binary search on its length."""
    lo, hi = 0, len(text)
    while lo < hi:
        mid = (lo + hi + 1) // 2
        part = text[len(text) - mid:] if from_end else text[:mid]
        if fits(part):
            lo = mid
        else:
            hi = mid - 1
    return text[len(text) - lo:] if from_end else text[:lo]


def fit(prefix: str, suffix: str, family: Family, tok: Tokenizer, budget: int) -> tuple[str, str]:
    """Cut prefix (from its start) and suffix (from its end) so that the rendered prompt is at
    most `budget` tokens, following the split policy of the module docstring."""

    def total(p: str, s: str) -> int:
        return tok.count(family.render(p, s))

    if total(prefix, suffix) <= budget:
        return prefix, suffix
    room = budget - total("", "")
    if room < 0:
        raise StandardInputError(f"the {family.name} template alone needs more than {budget} tokens")
    suffix_cap = max(room // SUFFIX_SHARE, room - tok.count(prefix))
    suffix = _longest(suffix, lambda s: tok.count(s) <= suffix_cap, from_end=False)
    prefix_cap = room - tok.count(suffix)
    prefix = _longest(prefix, lambda p: tok.count(p) <= prefix_cap, from_end=True)
    while (excess := total(prefix, suffix) - budget) > 0:
        if prefix:
            cap = max(tok.count(prefix) - excess, 0)
            prefix = _longest(prefix, lambda p: tok.count(p) <= cap, from_end=True)
        else:
            cap = max(tok.count(suffix) - excess, 0)
            suffix = _longest(suffix, lambda s: tok.count(s) <= cap, from_end=False)
    return prefix, suffix


def render(inp: EditorInput, model: str, version: str | None = None, tokenizer: Tokenizer | None = None) -> RenderedPrompt:
    """The standard prompt for `model` (registry id, HF/GGUF name, GGUF path or family name).

    `version` is accepted for a uniform dispatch and must be None: the profile has one version.
    Options: ctx (1024), max_new_tokens (128), tokenizer (a replay.tokens spec).
    """
    if version not in (None, "", "1"):
        raise StandardInputError(f"the standard profile has no version {version!r}")
    opts = _options(inp.options)
    family = model_family(model)
    if family is None:
        raise StandardInputError(f"no FIM template known for model {model!r}")
    tok = tokenizer or load_tokenizer(tokenizer_spec(model, family, opts["tokenizer"]))
    bos = [tok.bos_id] if family.adds_bos and tok.bos_id is not None else []
    budget = opts["ctx"] - opts["max_new_tokens"] - len(bos)
    prefix, suffix = fit(inp.prefix, inp.suffix, family, tok, budget)
    text = family.render(prefix, suffix)
    return RenderedPrompt(profile="standard", family=family.name, text=text, prefix_sent=prefix, suffix_sent=suffix,
                          route="raw", stop=family.stop, max_new_tokens=opts["max_new_tokens"],
                          token_ids=tuple(bos + tok.encode(text)), item_id=inp.item_id)


def complete(inp: EditorInput, raw: str, *, model: str | None = None, version: str | None = None,
             timing: Timing | None = None) -> Shown:
    """No editor stands between the model and the benchmark: the shown text is the model's text
    cut at the template's stop words, all of it. Like-for-like comparison is the scorer's job
    (replay.scoring `--lines auto` scores as many lines as the reference middle has), as the
    seed's public runs scored the first line of line-mode items (`--lines_to_match 1`)."""
    return Shown(text=raw, multiline=True)


def stream_stop(inp: EditorInput, *, model: str | None = None, version: str | None = None) -> StreamStop | None:
    """The benchmark generates its whole budget (128 new tokens) unless the template stops it."""
    return None


class StandardProfile(EditorProfile):
    """The benchmark setting (this module): a profile so that every command takes it as it takes an editor."""

    name = "standard"
    display = "standard (the benchmark setting, no editor)"
    releases = "one: 1024-token context, 128 new tokens"
    stop_source = "replay/editors/templates.py (the family's stop words)"

    def render(self, inp: EditorInput, model: str, version: str | None = None) -> RenderedPrompt:
        return render(inp, model, version=version)

    def complete(self, inp: EditorInput, raw: str, model: str | None, version: str | None = None,
                 timing: Timing | None = None) -> Shown:
        return complete(inp, raw, model=model, version=version, timing=timing)

    def stream_stop(self, inp: EditorInput, model: str, version: str | None = None) -> StreamStop | None:
        return stream_stop(inp, model=model, version=version)


    def timing(self, version: str | None, options: Mapping[str, Any] | None = None) -> TimingRules:
        raise NoTiming("the standard profile is no editor's: it has no timing of its own")

PROFILE = StandardProfile()
