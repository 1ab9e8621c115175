"""Continue's autocomplete prompt before the pipeline rewrite (releases 0.8.24..0.8.56 /
0.9.119..0.9.226 / JetBrains 0.0.43..0.0.80, 2024-04-12..2024-10-30): a different pipeline, not
a patch on the newer one. The core refactor of 2024-05-24 (53b61288ec, in 08dc5db183: 0.8.30 /
0.9.143) kept these steps; the rules that changed inside this era are Era flags, each with its
commit in releases.py.

Source, at the release tags (continuedev/continue): core/autocomplete/completionProvider.ts
(provideInlineCompletionItems, getTabCompletion, formatExternalSnippet, the inline stop list),
core/autocomplete/constructPrompt.ts (constructAutocompletePrompt), core/autocomplete/ranking.ts
(ranking08.py), core/autocomplete/templates.ts, core/autocomplete/languages.ts, core/util/index.ts
(getBasename, getLastNPathParts), and core/util/parameters.ts (DEFAULT_AUTOCOMPLETE_OPTS).

1. From 0.8.30 (53b61288ec) a local provider (ollama, lmstudio, llama.cpp, llamafile,
   text-gen-webui) gets maxPromptTokens 500 (provideInlineCompletionItems); from 0.8.40
   (aa18568c60) only when the user did not set it. Before 0.8.30, 500 was everyone's default.
2. prefix/suffix pruned as later (whole lines, whole-text counts), without the per-line counts.
3. Snippets, when useOtherFiles is on (the default from 0.8.27, 57ca9f1dd7; off before, so no
   snippet reaches the prompt): those outside the workspace are dropped (onlyMyCode); blank ones
   and ones inside the pruned prefix + suffix too; then ranked, merged by line range and fitted
   to maxPromptTokens x 0.6 (ranking08.py; the range removal and score threshold computed
   before it are discarded by Continue itself). The input's snippets stand for every source the
   release had (LSP definitions, and before 0.8.27 the recently edited ranges and the sliding
   window over recently edited files).
4. Templates whose text is a Handlebars string get the snippets as comments (`// Path: name`,
   each line commented, a lone comment line) joined by "\\n", then "\\n\\n" and the prefix; with
   no snippets and a blank file, `// <last two path parts>` (from 7ecbcad37b). Function
   templates receive the raw prefix and the snippets.
5. Stop words built inline: the template's, "\\n\\n", "\\r\\n\\r\\n", the common ones, the
   starcoder2 t-artifacts ("<file_sep>" among them from cf4b557568), then each top-level keyword
   of the language, after a "\\n" from 57ca9f1dd7 (bare before: a completion stopped at the
   word anywhere). Python's '\"\"\"#' and .ipynb as Python date from cf4b557568.
6. The rendered template is sent with `raw: true`; only from 0.8.33 (d5b5e1ac43) does a provider
   whose supportsFim() is true get prefix and suffix instead.

Paths are plain file system paths in these releases (`document.uri.fsPath`). Not modelled: the
one-time warning that fails the first request of a gpt/claude model (0.8.25..0.8.26) or of a
"mistral"/"instruct" one (from 0.8.27): a replay renders the requests after it.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from replay.editors.continue_ import tokens as ct
from replay.editors.continue_.langinfo import TYPESCRIPT, LangInfo, lang_info
from replay.editors.continue_.ranking08 import choose_snippets
from replay.editors.continue_.releases import Era, profile_name
from replay.editors.continue_.rules import Rules
from replay.editors.continue_.route import DEFAULT_MAX_TOKENS, supports_fim
from replay.editors.continue_.templates import COMMON_STOPS, STARCODER2_STOPS, Ctx, Template, render_template, template_for_model
from replay.editors.continue_.uri import last_n_path_parts, plain_path, to_uri
from replay.editors.js import js_trim
from replay.records import EditorInput, RenderedPrompt, Snippet

LOCAL_PROVIDERS = frozenset({"ollama", "lmstudio", "llama.cpp", "llamafile", "text-gen-webui"})
MULTILINE_STOPS = ("\n\n", "\r\n\r\n")  # completionProvider.ts multilineStops


def stop_list(template: Template | None, model: str, keywords: tuple[str, ...], era: Era) -> tuple[str, ...]:
    """The stop list getTabCompletion builds inline (step 5; removed with the rewrite, 2024-10-30)."""
    extra = (STARCODER2_STOPS if era.starcoder2_file_sep else STARCODER2_STOPS[:2]) if "starcoder2" in model.lower() else ()
    words = tuple(f"\n{w}" for w in keywords) if era.newline_stop_words else keywords
    return (template.stop if template else ()) + MULTILINE_STOPS + COMMON_STOPS + extra + words


def language(filepath: str, era: Era) -> LangInfo:
    """languageForFilepath (constructPrompt.ts) with the languages.ts of the release: before
    cf4b557568 Python had no '\"\"\"#' stop word and .ipynb files fell back to TypeScript."""
    lang = lang_info(to_uri(filepath), Rules())
    if lang.name == "Python" and not era.ipynb_python:
        if filepath.split(".")[-1] == "ipynb":
            return TYPESCRIPT
        return dataclasses.replace(lang, top_level_keywords=tuple(w for w in lang.top_level_keywords if w != '"""#'))
    return lang


def render_pre_rewrite(inp: EditorInput, model: str, era: Era, opts: dict[str, Any], cmodel: str) -> RenderedPrompt:
    """The prompt of a pre-rewrite release (the steps of the module docstring). `opts` are the
    merged options, `cmodel` the name Continue counts tokens with."""
    user_budget = era.local_budget_user and inp.options.get("maxPromptTokens")
    if era.local_budget and not user_budget and opts.get("provider") in LOCAL_PROVIDERS:
        opts = {**opts, "maxPromptTokens": 500}
    workspace = plain_path(inp.workspace) if inp.workspace else None
    filepath = plain_path(inp.filepath or "Untitled.txt", workspace)
    lang = language(filepath, era)
    mpt = opts["maxPromptTokens"]
    prefix = ct.prune_lines_from_top(inp.prefix, mpt * opts["prefixPercentage"], cmodel, per_line=False, multipliers=False)
    max_suffix = min(mpt - ct.count_tokens(prefix, cmodel, False), opts["maxSuffixPercentage"] * mpt)
    suffix = ct.prune_lines_from_bottom(inp.suffix, max_suffix, cmodel, per_line=False, multipliers=False)

    snippets: list[Snippet] = []
    if opts.get("useOtherFiles", era.other_files):
        extras = [Snippet(filepath=plain_path(s.filepath, workspace), content=s.content, kind=s.kind, lines=s.lines) for s in inp.snippets]
        snippets = choose_snippets(extras, inp.prefix, inp.suffix, prefix + suffix, workspace, mpt, cmodel, opts, era)

    tpl = None if opts.get("template") else template_for_model(model, era)
    reponame = last_n_path_parts(workspace, 1) if workspace else "myproject"
    ctx = Ctx(filepath=filepath, reponame=reponame, language=lang.name, snippets=tuple(snippets),
              workspaces=(workspace,) if workspace else (), era=era)
    if tpl is not None and tpl.compile is not None:
        prefix, suffix = tpl.compile(prefix, suffix, ctx)
    body = opts["template"] if tpl is None else tpl.template
    if isinstance(body, str):
        formatted = "\n".join(format_external(s, lang.comment) for s in snippets)
        if formatted:
            prefix = f"{formatted}\n\n{prefix}"
        elif era.blank_file_header and js_trim(prefix) == "" and js_trim(suffix) == "":
            prefix = f"{lang.comment} {last_n_path_parts(filepath, 2)}\n{prefix}"
    prompt = render_template(body if tpl is None else tpl, prefix, suffix, ctx)

    fim = era.fim_route and supports_fim(opts.get("provider"), model, opts)
    route = "fim" if fim else ("chat" if tpl is not None and tpl.chat else "raw")
    max_tokens = opts.get("maxTokens", DEFAULT_MAX_TOKENS)
    return RenderedPrompt(
        profile=profile_name(era), family=tpl.family if tpl else "custom", text=prompt, prefix_sent=prefix,
        suffix_sent=suffix, route=route, stop=stop_list(tpl, model, lang.top_level_keywords, era),
        max_new_tokens=int(max_tokens), item_id=inp.item_id, logged_prompt=prompt,
    )


def format_external(s: Snippet, comment: str) -> str:
    """formatExternalSnippet: `<comment> Path: <basename>`, each trimmed line commented, and a
    lone comment line."""
    lines = [f"{comment} Path: {last_n_path_parts(s.filepath, 1)}",
             *(f"{comment} {line}" for line in js_trim(s.content).split("\n")), comment]
    return "\n".join(lines)
