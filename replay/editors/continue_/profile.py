"""Continue's autocomplete prompt at one cursor: pruning, snippets, template, re-pruning,
stop words and route (the pipeline of the package docstring)."""

from __future__ import annotations

import math
import re
from typing import Any

from replay.editors.continue_ import tokens as ct
from replay.editors.continue_.languages import language_for
from replay.editors.continue_.releases import ContinueError, Era, era_for, profile_name
from replay.editors.continue_.snippets import format_snippets, select_snippets
from replay.editors.continue_.prompt08 import format_external, render_pre_rewrite
from replay.editors.continue_.ranking08 import choose_snippets
from replay.editors.continue_.route import DEFAULT_MAX_TOKENS, supports_fim
from replay.editors.continue_.templates import (
    COMMON_STOPS,
    STARCODER2_STOPS,
    Ctx,
    Template,
    render_template,
    template_for_model,
)
from replay.editors.continue_.uri import last_n_path_parts, to_uri, uri_basename
from replay.editors.js import js_trim
from replay.records import EditorInput, RenderedPrompt, Snippet

DEFAULT_CONTEXT_LENGTH = 32768  # core/llm/constants.ts


def stop_tokens(template: Template | None, model: str) -> tuple[str, ...]:
    """getStopTokens: the template's stops, the common ones, and for starcoder2 names the
    t-artifacts. A `template` option override brings no stops of its own."""
    extra = STARCODER2_STOPS if "starcoder2" in model.lower() else ()
    return (template.stop if template else ()) + COMMON_STOPS + extra


def counting_model(model: str, era: Era) -> str:
    """The name Continue's token counting sees: names core/llm/autodetect.ts did not yet send to
    tiktoken (`era.llama_counted`) fell through to the Llama tokenizer, as the same name without
    that word still does ("o1" stands for the o-series test `/^o\\d/`, broken by a leading "_")."""
    name = model
    for word in era.llama_counted.split():
        if word == "o1":
            name = "_" + name if re.match(r"o\d", name.lower()) else name
        else:
            name = re.sub(re.escape(word), "", name, flags=re.IGNORECASE)
    return name


# ---------------------------------------------------------------------------------------------
# The pipeline

_NUMBER_OPTIONS = ("maxPromptTokens", "prefixPercentage", "maxSuffixPercentage", "contextLength", "maxTokens")
_TEXT_OPTIONS = ("template", "provider")


def merged_options(inp_opts: dict[str, Any], era: Era) -> dict[str, Any]:
    """The era's defaults overridden by the input's options, type-checked (ContinueError names
    the bad option: a string where Continue needs a number would fail its arithmetic)."""
    for key in _NUMBER_OPTIONS:
        value = inp_opts.get(key)
        if value is not None and (isinstance(value, bool) or not isinstance(value, (int, float))):
            raise ContinueError(f"option {key} must be a number, got {value!r}")
    for key in _TEXT_OPTIONS:
        value = inp_opts.get(key)
        if value is not None and not isinstance(value, str):
            raise ContinueError(f"option {key} must be a string, got {value!r}")
    return {"maxPromptTokens": era.max_prompt_tokens, "prefixPercentage": era.prefix_percentage,
            "maxSuffixPercentage": era.max_suffix_percentage, **{k: v for k, v in inp_opts.items() if v is not None}}


def prune_prefix_suffix(prefix: str, suffix: str, model: str, opts: dict[str, Any], era: Era) -> tuple[str, str]:
    """HelperVars.prunePrefixSuffix."""
    kw = {"per_line": era.per_line_pruning, "multipliers": era.multipliers}
    pruned_prefix = ct.prune_lines_from_top(prefix, opts["maxPromptTokens"] * opts["prefixPercentage"], model, **kw)
    max_suffix = min(opts["maxPromptTokens"] - ct.count_tokens(pruned_prefix, model, era.multipliers),
                     opts["maxSuffixPercentage"] * opts["maxPromptTokens"])
    return pruned_prefix, ct.prune_lines_from_bottom(suffix, max_suffix, model, **kw)


def _build(template: Template | str, prefix: str, suffix: str, ctx: Ctx, comment: str, diff: str = "") -> tuple[str, str, str]:
    """buildPrompt: compile or add the snippet header, then render. Returns prompt, prefix, suffix.

    Until fec4b21f7b (0.9.234) templating/index.ts renderPrompt formats the snippets as
    formatExternalSnippet does (`// Path: <basename>`): into the prompt of a Handlebars template
    only (with no snippets and a blank file, `// <last two path parts>`), the prefix sent and a
    template function keeping the bare prefix; from 51e1c4216b (0.9.232) getContextComments puts
    the comments, then "\\n\\n// <last two path parts>\\n\\n", before the prefix of every template
    that does not compile its own, after `diff` (formatDiff: the git diff and "\\n\\n")."""
    era = ctx.era
    compile_ = template.compile if isinstance(template, Template) else None
    if compile_ is not None:
        prefix, suffix = compile_(prefix, suffix, ctx)
    elif era.context_comments:
        comments = "\n".join(format_external(s, comment) for s in ctx.snippets)
        prefix = f"{diff}{comments}\n\n{comment} {last_n_path_parts(ctx.filepath, 2)}\n\n{prefix}"
    elif era.ranked_snippets:
        body = template if isinstance(template, str) else template.template
        shown = prefix
        if isinstance(body, str):
            comments = "\n".join(format_external(s, comment) for s in ctx.snippets)
            if comments:
                shown = f"{comments}\n\n{prefix}"
            elif js_trim(prefix) == "" and js_trim(suffix) == "":
                shown = f"{comment} {last_n_path_parts(ctx.filepath, 2)}\n{prefix}"
        return render_template(template, shown, suffix, ctx), prefix, suffix
    else:
        prefix = format_snippets(ctx.snippets, ctx.filepath, comment, list(ctx.workspaces)) + "\n" + prefix
    return render_template(template, prefix, suffix, ctx), prefix, suffix


def _git_diff(snippets: tuple[Snippet, ...], model: str, opts: dict[str, Any], era: Era) -> str:
    """formatDiff (templating/index.ts, 0.9.232..0.9.234): the text of `ide.getDiff` (the input's
    diff snippets, in order) and "\\n\\n", or nothing past maxPromptTokens x maxDiffPercentage 0.5."""
    text = "".join(s.content for s in snippets if s.kind == "diff") if era.context_comments else ""
    if not text or ct.count_tokens(text, model, era.multipliers) > opts["maxPromptTokens"] * 0.5:
        return ""
    return f"{text}\n\n"


def render(inp: EditorInput, model: str, version: str | None = None) -> RenderedPrompt:
    """The prompt Continue's autocomplete builds for `model` at this cursor.

    Options (`inp.options`, Continue's own names): the tabAutocompleteOptions maxPromptTokens,
    prefixPercentage, maxSuffixPercentage, template, useRecentlyOpened,
    experimental_include{Clipboard,RecentlyVisitedRanges,RecentlyEditedRanges,Diff}; and of the
    model entry: provider, contextLength, maxTokens (completionOptions.maxTokens), supportsFim.
    """
    era = era_for(version)
    opts = merged_options(inp.options, era)
    cmodel = counting_model(model, era)
    if era.pre_rewrite:
        return render_pre_rewrite(inp, model, era, opts, cmodel)
    workspaces = [to_uri(inp.workspace)] if inp.workspace else []
    filepath = to_uri(inp.filepath or "Untitled.txt", inp.workspace)
    lang_name, comment = language_for(filepath)
    prefix, suffix = prune_prefix_suffix(inp.prefix, inp.suffix, cmodel, opts, era)
    caret_window = prefix + suffix
    if suffix == "" and era.empty_suffix_newline:
        suffix = "\n"
    reponame = uri_basename(workspaces[0]) if workspaces else "myproject"
    snippets = tuple(
        s if s.kind in ("diff", "clipboard") or not s.filepath
        else Snippet(filepath=to_uri(s.filepath, inp.workspace), content=s.content, kind=s.kind, lines=s.lines)
        for s in inp.snippets
    )
    if not era.ranked_snippets:
        snippets = select_snippets(snippets, caret_window, cmodel, opts, era)
    elif opts.get("useOtherFiles", True):  # ContextRetrievalService.retrieveCandidateSnippets
        code = [s for s in snippets if s.kind not in ("diff", "clipboard")]
        snippets = tuple(choose_snippets(code, inp.prefix, inp.suffix, caret_window, workspaces[0] if workspaces else None,
                                         opts["maxPromptTokens"], cmodel, opts, era))
    else:
        snippets = ()
    ctx = Ctx(filepath=filepath, reponame=reponame, language=lang_name, snippets=snippets, workspaces=tuple(workspaces), era=era)
    chosen = template_for_model(model, era)
    template: Template | str = opts["template"] if opts.get("template") else chosen
    diff = _git_diff(inp.snippets, cmodel, opts, era)
    prompt, cprefix, csuffix = _build(template, prefix, suffix, ctx, comment, diff)

    context_length = opts.get("contextLength", DEFAULT_CONTEXT_LENGTH)
    max_tokens = opts.get("maxTokens", DEFAULT_MAX_TOKENS)
    pruned = reprune(prompt, prefix, suffix, cmodel, context_length, max_tokens, era) if era.context_reprune else None
    if pruned is not None:
        prompt, cprefix, csuffix = _build(template, *pruned, ctx, comment, diff)

    tpl = template if isinstance(template, Template) else None
    provider = opts.get("provider")
    if supports_fim(provider, model, opts):
        route = "fim"
    elif tpl is not None and tpl.chat:
        route = "chat"
    else:
        route = "raw"
    return RenderedPrompt(
        profile=profile_name(era), family=tpl.family if tpl else "custom", text=prompt,
        prefix_sent=cprefix, suffix_sent=csuffix, route=route, stop=stop_tokens(tpl, model),
        max_new_tokens=int(max_tokens), item_id=inp.item_id, logged_prompt=prompt,
    )


def cache_prefixes(inp: EditorInput, model: str, version: str | None = None) -> tuple[str, str]:
    """What Continue's cache and stream reuse compare at this cursor: the pruned prefix it looks
    its cache up by (core/autocomplete/CompletionProvider.ts `cache.get(helper.prunedPrefix)`), and
    the prefix renderPromptWithTokenLimit gives, the key it puts the answer under
    (`cache.put(outcome.prefix, …)`) and the prefix GeneratorReuseManager compares streams by."""
    era = era_for(version)
    if era.pre_rewrite:
        return inp.prefix, inp.prefix
    pruned, _ = prune_prefix_suffix(inp.prefix, inp.suffix, counting_model(model, era), merged_options(inp.options, era), era)
    return pruned, render(inp, model, version).prefix_sent or pruned


def reprune(prompt: str, prefix: str, suffix: str, model: str, context_length: float, max_tokens: float, era: Era) -> tuple[str, str] | None:
    """renderPromptWithTokenLimit: if the prompt exceeds contextLength - maxTokens - buffer,
    drop ceil(excess x share) tokens of lines from the prefix's top and the rest from the
    suffix's bottom. None when the prompt fits."""
    allowed = context_length - max_tokens - ct.token_counting_buffer_safety(context_length)
    excess = ct.count_tokens(prompt, model, era.multipliers) - allowed
    if excess <= 0:
        return None
    n_prefix = ct.count_tokens(prefix, model, era.multipliers)
    n_suffix = ct.count_tokens(suffix, model, era.multipliers)
    if n_prefix + n_suffix > 0:
        drop_prefix = math.ceil(excess * (n_prefix / (n_prefix + n_suffix)))
        drop_suffix = math.ceil(excess - drop_prefix)
        kw = {"per_line": era.per_line_pruning, "multipliers": era.multipliers}
        prefix = ct.prune_lines_from_top(prefix, max(0, n_prefix - drop_prefix), model, **kw)
        suffix = ct.prune_lines_from_bottom(suffix, max(0, n_suffix - drop_suffix), model, **kw)
    return prefix, suffix

