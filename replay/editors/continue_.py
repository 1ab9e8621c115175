"""The Continue autocomplete profile: the prompt Continue (continuedev/continue) builds at a cursor.

The pipeline, in Continue's order (core/autocomplete/CompletionProvider.ts ->
templating/index.ts renderPromptWithTokenLimit):

1. HelperVars.prunePrefixSuffix (core/autocomplete/util/HelperVars.ts): the prefix keeps whole
   lines from the bottom within maxPromptTokens x prefixPercentage tokens, the suffix whole lines
   from the top within min(maxPromptTokens - tokens(prefix), maxSuffixPercentage x
   maxPromptTokens), counted with Continue's own counting tokenizer (continue_tokens.py).
2. An empty suffix becomes "\\n" (templating/index.ts preparePromptContext).
3. Snippets are filtered and fitted into what is left of maxPromptTokens (templating/filtering.ts
   getSnippets), taken in the order given: Continue shuffles its base snippets with Math.random,
   so the input's order stands for the shuffled one.
4. The template is chosen from the lower-cased model name (templating/AutocompleteTemplate.ts
   getTemplateForModel) unless the `template` option overrides it; templates with their own
   compilePrefixSuffix (Qwen-coder multi-file, Codestral, Mercury) place the snippets
   themselves, the others get the comment header of templating/formatting.ts formatSnippets.
5. If the prompt is longer than contextLength - maxTokens - buffer it is pruned again, prefix and
   suffix in proportion (renderPromptWithTokenLimit, since 2025-07-30).
6. Stop words: the template's list + the common ones (templating/getStopTokens.ts).
7. Route (autocomplete/generation/CompletionStreamer.ts): a provider whose supportsFim() is true
   gets prefix and suffix separately and the rendered template is NOT sent; otherwise the prompt
   goes out with `raw: true`; the hole-filler template is a chat prompt for chat models.
   `text` and `logged_prompt` are the rendered template on every route (dev data logs it as
   `prompt` even on the FIM route); on the FIM route the engine gets prefix_sent/suffix_sent.

Profiles are releases (`continue@0.9.262-vscode`, rules read from the source at each release
tag: replay/data/continue_releases.json) or dates (`continue@YYYY-MM-DD`: each `_ERA_CHANGES`
entry is a commit of continuedev/continue that changed a rule modelled here); the default is the
newest. The rules that vary are the budgets, the template choice, pruning, re-pruning, the empty
suffix, the multipliers, the clipboard default and the FIM log form. Snippet selection and the
snippet header are those of the newest source in every profile (Continue rewrote that pipeline
on 2024-11-19..22; older profiles do not model the earlier one).
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import functools
import json
import math
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from replay.editors import continue_tokens as ct
from replay.editors.continue_uri import (
    last_n_uri_relative_path_parts,
    shortest_unique_relative_paths,
    to_uri,
    uri_basename,
)
from replay.editors.templates import get_family
from replay.records import CaptureRecord, EditorInput, RenderedPrompt, Snippet


class ContinueError(ValueError):
    """An input Continue itself would fail on (it throws, and no completion is requested)."""


# ---------------------------------------------------------------------------------------------
# Eras: dated rule changes (continuedev/continue git history of the files named)

@dataclasses.dataclass(frozen=True)
class Era:
    """The rules of one Continue version (a dated range, or one release). Rules not listed are
    those of the newest source."""

    since: dt.date
    label: str = ""  # the release it was read from ("0.9.262-vscode"); "" for a dated range
    fim_log: str = ""  # core/llm/index.ts streamFim log form: "" | "<FIM>" | "Prefix/Suffix"
    max_prompt_tokens: int = 500  # core/util/parameters.ts DEFAULT_AUTOCOMPLETE_OPTS
    prefix_percentage: float = 0.85
    max_suffix_percentage: float = 0.25
    include_clipboard: bool = False  # experimental_includeClipboard default (absent before 2025-02-01)
    empty_suffix_newline: bool = False  # templating/index.ts: suffix "" -> "\n"
    per_line_pruning: bool = False  # llm/countTokens.ts pruneLines* count lines + newlines
    context_reprune: bool = False  # templating/index.ts renderPromptWithTokenLimit
    multipliers: bool = False  # llm/getAdjustedTokenCount.ts used by countTokens
    qwen_coder: str = "stable"  # "stable" | "plain" | "multifile"
    granite3_hole_filler: bool = False
    mercury: bool = False
    seed_coder: bool = False
    granite4: bool = False
    unique_path_objects: bool = False  # uri.ts getShortestUniqueRelativeUriPaths returns objects


_ERA_CHANGES: tuple[tuple[str, str, dict[str, Any]], ...] = (
    # (date, commit in continuedev/continue, changes)
    ("2024-04-12", "6c99a34532 core/util/parameters.ts: 500 / 0.85 / 0.25", {}),
    ("2024-05-23", "5c4e5124c8 core/llm/index.ts: FIM route logged as prefix<FIM>suffix", {"fim_log": "<FIM>"}),
    ("2024-05-24", "08dc5db183 core/util/parameters.ts: maxPromptTokens 1024", {"max_prompt_tokens": 1024}),
    ("2024-09-21", "387a76aa5b AutocompleteTemplate.ts: Qwen2.5-Coder template", {"qwen_coder": "plain"}),
    ("2024-11-21", "3934e8d81f AutocompleteTemplate.ts: granite3 -> hole filler", {"granite3_hole_filler": True}),
    ("2024-11-29", "63e63f54cd core/util/parameters.ts: prefix 0.3, suffix 0.2", {"prefix_percentage": 0.3, "max_suffix_percentage": 0.2}),
    ("2024-12-13", "707bc867fe templating/index.ts: empty suffix -> newline; 7621abcdcc uri.ts uniquePath; "
                   "1f36d42571 core/llm/index.ts: FIM route logged as Prefix:/Suffix:",
     {"empty_suffix_newline": True, "unique_path_objects": True, "fim_log": "Prefix/Suffix"}),
    ("2025-02-01", "d92a7e08b9 core/util/parameters.ts: experimental_includeClipboard true", {"include_clipboard": True}),
    ("2025-04-23", "881f8b3139 llm/countTokens.ts: per-line pruning counts", {"per_line_pruning": True}),
    ("2025-04-26", "e39446d477 AutocompleteTemplate.ts: mercury", {"mercury": True}),
    ("2025-05-11", "ea3bf046a1 AutocompleteTemplate.ts: seed-coder", {"seed_coder": True}),
    ("2025-07-30", "5c9362b732 templating/index.ts: re-prune to the context length", {"context_reprune": True}),
    ("2025-09-11", "3a44a9fb65 core/util/parameters.ts: clipboard off by default", {"include_clipboard": False}),
    ("2025-10-30", "d1ba7c9bba AutocompleteTemplate.ts: granite 4", {"granite4": True}),
    ("2026-01-28", "8da07defb4 llm/countTokens.ts: per-model token multipliers", {"multipliers": True}),
    ("2026-03-25", "2874981435 AutocompleteTemplate.ts: Qwen multi-file FIM", {"qwen_coder": "multifile"}),
)


def _build_eras() -> tuple[Era, ...]:
    eras: list[Era] = []
    current: dict[str, Any] = {}
    for day, _commit, changes in _ERA_CHANGES:
        current = {**current, **changes}
        eras.append(Era(since=dt.date.fromisoformat(day), **current))
    return tuple(eras)


ERAS = _build_eras()


# Release tags -> the rules their source has (replay/data/continue_releases.json, read from the
# files at each v*-vscode / v*-jetbrains tag of continuedev/continue; see its "source").
_RELEASES_FILE = Path(__file__).resolve().parent.parent / "data" / "continue_releases.json"
_FLAGS = ("include_clipboard", "empty_suffix_newline", "per_line_pruning", "context_reprune", "multipliers",
          "granite3_hole_filler", "mercury", "seed_coder", "granite4", "unique_path_objects")


@functools.lru_cache(maxsize=1)
def releases() -> dict[str, Era]:
    """Every Continue release of the table, keyed like "0.9.262-vscode" / "1.0.10-jetbrains"."""
    data = json.loads(_RELEASES_FILE.read_text(encoding="utf-8"))
    assert data["columns"][6:] == list(_FLAGS), "continue_releases.json columns changed"
    out = {}
    for name, (day, mpt, pp, msp, qwen, fim_log, bits) in data["releases"].items():
        out[name] = Era(since=dt.date.fromisoformat(day), label=name, fim_log=fim_log, max_prompt_tokens=mpt,
                        prefix_percentage=pp, max_suffix_percentage=msp, qwen_coder=qwen,
                        **{flag: bit == "1" for flag, bit in zip(_FLAGS, bits, strict=True)})
    return out


def _release_key(version: str) -> str | None:
    v = version.strip().removeprefix("v")
    table = releases()
    for key in (v, f"{v}-vscode"):  # a bare number is a VS Code release (JetBrains numbers differ)
        if key in table:
            return key
    return None


def era_for(version: str | None) -> Era:
    """The rules of a Continue release ("0.9.262", "v1.0.10-jetbrains") or of a date
    (`YYYY-MM-DD`, or an ISO timestamp: the dated ranges of _ERA_CHANGES); None is the newest."""
    if not version:
        return ERAS[-1]
    key = _release_key(version)
    if key is not None:
        return releases()[key]
    try:
        day = dt.date.fromisoformat(version[:10])
    except ValueError:
        raise ContinueError(f"unknown Continue version {version!r}: give a release from v0.8.24 "
                            f"({len(releases())} known) or a date YYYY-MM-DD") from None
    if day < ERAS[0].since:
        raise ContinueError(f"no Continue profile before {ERAS[0].since} (autocomplete defaults of parameters.ts), got {version}")
    return [e for e in ERAS if e.since <= day][-1]


def profile_name(era: Era) -> str:
    return f"continue@{era.label or era.since.isoformat()}"


# JavaScript's String.prototype.trim() removes WhiteSpace and LineTerminator (ECMA-262): not the
# same set as Python's str.strip() (which also strips U+001C..U+001F and U+0085, but keeps U+FEFF).
_JS_SPACE = "\t\n\v\f\r \u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"


def js_trim(text: str) -> str:
    """`text.trim()` as Continue's JavaScript computes it."""
    return text.strip(_JS_SPACE)


# ---------------------------------------------------------------------------------------------
# Languages (core/autocomplete/constants/AutocompleteLanguageInfo.ts): extension -> (name, comment)

_LANG = {
    "TypeScript": "//", "JavaScript": "//", "Python": "#", "Java": "//", "C++": "//", "C#": "//",
    "C": "//", "Scala": "//", "Go": "//", "Rust": "//", "Haskell": "--", "PHP": "//",
    "Ruby on Rails": "#", "Swift": "//", "Kotlin": "//", "Ruby": "#", "Clojure": ";", "Julia": "#",
    "F#": "//", "R": "#", "Dart": "//", "Solidity": "//", "Lua": "--", "YAML": "#", "JSON": "//",
    "Markdown": "",
}
_EXT = {
    "ts": "TypeScript", "js": "JavaScript", "tsx": "TypeScript", "json": "JSON", "jsx": "TypeScript",
    "ipynb": "Python", "py": "Python", "pyi": "Python", "java": "Java", "cpp": "C++", "cxx": "C++",
    "h": "C++", "hpp": "C++", "cs": "C#", "c": "C", "scala": "Scala", "sc": "Scala", "go": "Go",
    "rs": "Rust", "hs": "Haskell", "php": "PHP", "rb": "Ruby", "rails": "Ruby on Rails",
    "swift": "Swift", "kt": "Kotlin", "clj": "Clojure", "cljs": "Clojure", "cljc": "Clojure",
    "jl": "Julia", "fs": "F#", "fsi": "F#", "fsx": "F#", "fsscript": "F#", "r": "R", "dart": "Dart",
    "sol": "Solidity", "yaml": "YAML", "yml": "YAML", "md": "Markdown", "lua": "Lua", "luau": "Lua",
}


def language_for(uri: str) -> tuple[str, str]:
    """languageForFilepath: (name, singleLineComment) by lower-cased extension, else TypeScript."""
    base = uri_basename(uri)
    ext = base.split(".")[-1].lower() if "." in base else ""
    name = _EXT.get(ext, "TypeScript")
    return name, _LANG[name]


# ---------------------------------------------------------------------------------------------
# Templates (core/autocomplete/templating/AutocompleteTemplate.ts)

# SYSTEM_MSG of holeFillerTemplate ("From https://github.com/VictorTaelin/AI-scripts"), verbatim.
HOLE_FILLER_SYSTEM = """You are a HOLE FILLER. You are provided with a file containing holes, formatted as '{{HOLE_NAME}}'. Your TASK is to complete with a string to replace this hole with, inside a <COMPLETION/> XML tag, including context-aware indentation, if needed.  All completions MUST be truthful, accurate, well-written and correct.

## EXAMPLE QUERY:

<QUERY>
function sum_evens(lim) {
  var sum = 0;
  for (var i = 0; i < lim; ++i) {
    {{FILL_HERE}}
  }
  return sum;
}
</QUERY>

TASK: Fill the {{FILL_HERE}} hole.

## CORRECT COMPLETION

<COMPLETION>if (i % 2 === 0) {
      sum += i;
    }</COMPLETION>

## EXAMPLE QUERY:

<QUERY>
def sum_list(lst):
  total = 0
  for x in lst:
  {{FILL_HERE}}
  return total

print sum_list([1, 2, 3])
</QUERY>

## CORRECT COMPLETION:

<COMPLETION>  total += x</COMPLETION>

## EXAMPLE QUERY:

<QUERY>
// data Tree a = Node (Tree a) (Tree a) | Leaf a

// sum :: Tree Int -> Int
// sum (Node lft rgt) = sum lft + sum rgt
// sum (Leaf val)     = val

// convert to TypeScript:
{{FILL_HERE}}
</QUERY>

## CORRECT COMPLETION:

<COMPLETION>type Tree<T>
  = {$:"Node", lft: Tree<T>, rgt: Tree<T>}
  | {$:"Leaf", val: T};

function sum(tree: Tree<number>): number {
  switch (tree.$) {
    case "Node":
      return sum(tree.lft) + sum(tree.rgt);
    case "Leaf":
      return tree.val;
  }
}</COMPLETION>

## EXAMPLE QUERY:

The 5th {{FILL_HERE}} is Jupiter.

## CORRECT COMPLETION:

<COMPLETION>planet from the Sun</COMPLETION>

## EXAMPLE QUERY:

function hypothenuse(a, b) {
  return Math.sqrt({{FILL_HERE}}b ** 2);
}

## CORRECT COMPLETION:

<COMPLETION>a ** 2 + </COMPLETION>"""


@dataclasses.dataclass(frozen=True)
class Ctx:
    """What a template function sees (the arguments Continue passes to `template(...)`)."""

    filepath: str
    reponame: str
    language: str
    snippets: tuple[Snippet, ...]
    workspaces: tuple[str, ...]
    era: Era


Compile = Callable[[str, str, Ctx], tuple[str, str]]


@dataclasses.dataclass(frozen=True)
class Template:
    """One of Continue's templates, with Continue's own text and stop list (they differ from
    the shared registry's in places, e.g. stableCodeFimTemplate's extra "</code>"); `family`
    names the replay.editors.templates family whose sentinels it uses (checked at import)."""

    name: str  # the variable name in AutocompleteTemplate.ts
    family: str
    template: str | Callable[[str, str, Ctx], str]  # Handlebars text, or a function
    stop: tuple[str, ...] = ()
    compile: Compile | None = None
    chat: bool = False


def _file_name(uri: str, unique: str) -> str:
    """getFileName in the multi-file compilers: the unique path for file:// URIs, else the URI."""
    return unique if uri.startswith("file://") else uri


def _snippet_uri(s: Snippet, missing: str) -> str:
    return missing if s.kind in ("diff", "clipboard") or not s.filepath else s.filepath


def _qwen_multifile_compile(prefix: str, suffix: str, c: Ctx) -> tuple[str, str]:
    if not c.snippets:
        return prefix, suffix
    rel = shortest_unique_relative_paths([_snippet_uri(s, "Untitled.txt") for s in c.snippets] + [c.filepath], list(c.workspaces))
    files = "\n".join(f"<|file_sep|>{_file_name(*rel[i])}\n{s.content}" for i, s in enumerate(c.snippets))
    head = f"<|repo_name|>{c.reponame}\n{files}\n<|file_sep|>{_file_name(*rel[-1])}"
    return f"{head}{_QWEN_SEP}{prefix}", suffix


_QWEN_SEP = "<|system_separator_istruction_repository_level|>"


def _qwen_multifile_template(prefix: str, suffix: str, c: Ctx) -> str:
    if _QWEN_SEP in prefix:
        before, *after = prefix.split(_QWEN_SEP)
        return f"{before}\n<|fim_prefix|>{''.join(after)}<|fim_suffix|>{suffix}<|fim_middle|>"
    return f"<|fim_prefix|>{prefix}<|fim_suffix|>{suffix}<|fim_middle|>"


def _codestral_compile(prefix: str, suffix: str, c: Ctx) -> tuple[str, str]:
    if not c.snippets:
        if js_trim(suffix) == "" and js_trim(prefix) == "":
            return f"+++++ {last_n_uri_relative_path_parts(list(c.workspaces), c.filepath, 2)}\n{prefix}", suffix
        return prefix, suffix
    rel = shortest_unique_relative_paths([_snippet_uri(s, "file:///Untitled.txt") for s in c.snippets] + [c.filepath], list(c.workspaces))
    others = "\n\n".join(s.content if s.kind == "diff" else f"+++++ {_file_name(*rel[i])} \n{s.content}" for i, s in enumerate(c.snippets))
    return f"{others}\n\n+++++ {_file_name(*rel[-1])}\n{prefix}", suffix


def _mercury_compile(prefix: str, suffix: str, c: Ctx) -> tuple[str, str]:
    # Mercury drops every snippet ("Our current snippet format doesn't work well with mercury").
    if js_trim(suffix) == "" and js_trim(prefix) == "":
        return f"<|file_sep|>{last_n_uri_relative_path_parts(list(c.workspaces), c.filepath, 2)}\n<|fim_prefix|>{prefix}", suffix
    return prefix, suffix


def _codegeex_template(prefix: str, suffix: str, c: Ctx) -> str:
    snippets = [s for s in c.snippets if s.kind not in ("diff", "clipboard", "static")]
    rel = shortest_unique_relative_paths([s.filepath for s in snippets] + [c.filepath], list(c.workspaces))
    # Since uri.ts returns {uri, uniquePath} objects (2024-12-13) the template interpolates the
    # object itself, which JavaScript renders as "[object Object]".
    paths = ["[object Object]" if c.era.unique_path_objects else unique for _, unique in rel]
    base = f"###PATH:{paths[-1]}\n###LANGUAGE:{c.language}\n###MODE:BLOCK\n<|code_suffix|>{suffix}<|code_prefix|>{prefix}<|code_middle|>"
    if not snippets:
        return f"<|user|>\n{base}<|assistant|>\n"
    refs = "###REFERENCE:\n" + "###REFERENCE:\n".join(f"###PATH:{paths[i]}\n{s.content}\n" for i, s in enumerate(snippets))
    return f"<|user|>\n{refs}\n{base}<|assistant|>\n"


def _hole_filler_template(prefix: str, suffix: str, c: Ctx) -> str:
    return (
        HOLE_FILLER_SYSTEM
        + f"\n\n<QUERY>\n{prefix}{{{{FILL_HERE}}}}{suffix}\n</QUERY>\nTASK: Fill the {{{{FILL_HERE}}}} hole. Answer only with the CORRECT completion, and NOTHING ELSE. Do it now.\n<COMPLETION>"
    )


_QWEN_STOPS = ("<|endoftext|>", "<|fim_prefix|>", "<|fim_middle|>", "<|fim_suffix|>", "<|fim_pad|>", "<|repo_name|>", "<|file_sep|>", "<|im_start|>", "<|im_end|>")

STABLE_CODE = Template("stableCodeFimTemplate", "starcoder", "<fim_prefix>{{{prefix}}}<fim_suffix>{{{suffix}}}<fim_middle>",
                       ("<fim_prefix>", "<fim_suffix>", "<fim_middle>", "<file_sep>", "<|endoftext|>", "</fim_middle>", "</code>"))
QWEN_CODER = Template("qwenCoderFimTemplate", "qwen2.5-coder", "<|fim_prefix|>{{{prefix}}}<|fim_suffix|>{{{suffix}}}<|fim_middle|>", _QWEN_STOPS)
QWEN_MULTIFILE = Template("qwenMultifileFimTemplate", "qwen2.5-coder", _qwen_multifile_template, _QWEN_STOPS, compile=_qwen_multifile_compile)
GRANITE4 = Template("granite4FimTemplate", "granite-4", "<|fim_prefix|>{{{prefix}}}<|fim_suffix|>{{{suffix}}}<|fim_middle|>",
                    ("<|end_of_text|>", "<|fim_prefix|>", "<|fim_middle|>", "<|fim_suffix|>", "<|fim_pad|>"))
SEED_CODER = Template("seedCoderFimTemplate", "seed-coder", "<[fim-prefix]>{{{prefix}}}<[fim-suffix]>{{{suffix}}}<[fim-middle]>",
                      ("<[end▁of▁sentence]>", "<[fim-prefix]>", "<[fim-middle]>", "<[fim-suffix]>", "<[PAD▁TOKEN]>", "<[SEP▁TOKEN]>", "<[begin▁of▁sentence]>"))
CODESTRAL = Template("codestralMultifileFimTemplate", "codestral", lambda p, s, c: f"[SUFFIX]{s}[PREFIX]{p}", ("[PREFIX]", "[SUFFIX]", "\n+++++ "), compile=_codestral_compile)
MERCURY = Template("mercuryMultifileFimTemplate", "mercury", lambda p, s, c: f"{p}<|fim_suffix|>{s}<|fim_middle|>", (), compile=_mercury_compile)
CODEGEMMA = Template("codegemmaFimTemplate", "codegemma", "<|fim_prefix|>{{{prefix}}}<|fim_suffix|>{{{suffix}}}<|fim_middle|>",
                     ("<|fim_prefix|>", "<|fim_suffix|>", "<|fim_middle|>", "<|file_separator|>", "<end_of_turn>", "<eos>"))
CODELLAMA = Template("codeLlamaFimTemplate", "codellama", "<PRE> {{{prefix}}} <SUF>{{{suffix}}} <MID>", ("<PRE>", "<SUF>", "<MID>", "<EOT>"))
DEEPSEEK = Template("deepseekFimTemplate", "deepseek-coder", "<｜fim▁begin｜>{{{prefix}}}<｜fim▁hole｜>{{{suffix}}}<｜fim▁end｜>",
                    ("<｜fim▁begin｜>", "<｜fim▁hole｜>", "<｜fim▁end｜>", "//", "<｜end▁of▁sentence｜>"))
CODEGEEX = Template("codegeexFimTemplate", "codegeex", _codegeex_template,
                    ("<|user|>", "<|code_suffix|>", "<|code_prefix|>", "<|code_middle|>", "<|assistant|>", "<|endoftext|>"))
HOLE_FILLER = Template("holeFillerTemplate", "hole-filler", _hole_filler_template, ("</COMPLETION>",), chat=True)


for _t in (STABLE_CODE, QWEN_CODER, QWEN_MULTIFILE, GRANITE4, SEED_CODER, CODESTRAL, MERCURY, CODEGEMMA, CODELLAMA, DEEPSEEK, CODEGEEX):
    get_family(_t.family)  # raises UnknownFamily if the registry lost or renamed it


def template_for_model(model: str, era: Era | None = None) -> Template:
    """getTemplateForModel: first match on the lower-cased model name, in Continue's order."""
    era = era or ERAS[-1]
    m = model.lower()
    if era.mercury and "mercury" in m:
        return MERCURY
    if "qwen" in m and "coder" in m and era.qwen_coder != "stable":
        return QWEN_MULTIFILE if era.qwen_coder == "multifile" else QWEN_CODER
    if era.granite4 and "granite" in m and "4" in m:
        return GRANITE4
    if era.seed_coder and "seed" in m and "coder" in m:
        return SEED_CODER
    if any(k in m for k in ("starcoder", "star-coder", "starchat", "octocoder", "stable", "codeqwen", "qwen")):
        return STABLE_CODE
    for key, tpl in (("codestral", CODESTRAL), ("codegemma", CODEGEMMA), ("codellama", CODELLAMA), ("deepseek", DEEPSEEK), ("codegeex", CODEGEEX)):
        if key in m:
            return tpl
    hole = ("gpt", "davinci-002", "claude") + (("granite3", "granite-3") if era.granite3_hole_filler else ())
    if any(k in m for k in hole):
        return HOLE_FILLER
    return STABLE_CODE


_HBS_ESCAPE = {"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#x27;", "`": "&#x60;", "=": "&#x3D;"}


def render_handlebars(template: str, values: dict[str, str]) -> str:
    """Handlebars.compile(template)(values) for the plain variables Continue passes: `{{{x}}}` is
    inserted raw, `{{x}}` HTML-escaped as Handlebars' escapeExpression does, unknown names are
    empty. Block helpers, partials and `\\{{` escapes are not supported."""

    def sub(m: re.Match[str]) -> str:
        if m.group(1) is not None:
            return values.get(m.group(1), "")
        return re.sub(r"[&<>\"'`=]", lambda c: _HBS_ESCAPE[c.group(0)], values.get(m.group(2), ""))

    return re.sub(r"\{\{\{\s*([\w.]+)\s*\}\}\}|\{\{\s*([\w.]+)\s*\}\}", sub, template)


# ---------------------------------------------------------------------------------------------
# Snippets (templating/filtering.ts getSnippets, validation.ts, formatting.ts)

TOKEN_BUFFER = 10  # filtering.ts: extra tokens per snippet for its description
_GROUPS = (  # (key, option enabling it, default priority), filtering.ts snippetConfigs
    ("clipboard", "experimental_includeClipboard", 1),
    ("recentlyOpenedFiles", "useRecentlyOpened", 2),
    ("recentlyVisitedRanges", "experimental_includeRecentlyVisitedRanges", 3),
    ("recentlyEditedRanges", "experimental_includeRecentlyEditedRanges", 4),
    ("diff", "experimental_includeDiff", 5),
    ("base", None, 99),
)
_KIND_GROUP = {"clipboard": "clipboard", "opened": "recentlyOpenedFiles", "visited": "recentlyVisitedRanges",
               "edited": "recentlyEditedRanges", "changed": "recentlyEditedRanges", "diff": "diff"}


def select_snippets(snippets: tuple[Snippet, ...], caret_window: str, model: str, opts: dict[str, Any], era: Era) -> tuple[Snippet, ...]:
    """getSnippets: groups by priority, each snippet costs tokens(content) + 10 and is skipped
    (not stopped at) when it does not fit what is left of maxPromptTokens after the caret window.

    Snippet kinds map to Continue's payload groups: clipboard, opened (recently opened files,
    first fitted by format_opened_files), visited, edited or changed (recently edited ranges),
    diff; everything else (declarations, root-path and import-definition context) is a "base"
    snippet, dropped when blank or already inside the caret window. Clipboard snippets count as
    fresh (their copiedAt is not known).
    """
    enabled_default = {"experimental_includeClipboard": era.include_clipboard}
    order = []
    for key, option, prio in _GROUPS:
        value = True if option is None else opts.get(option, enabled_default.get(option, True))
        if value:
            order.append((value if isinstance(value, (int, float)) and not isinstance(value, bool) else prio, key))
    order.sort(key=lambda x: x[0])  # stable, like Array.prototype.sort
    grouped: dict[str, list[Snippet]] = {key: [] for key, _, _ in _GROUPS}
    for s in snippets:
        grouped[_KIND_GROUP.get(s.kind, "base")].append(s)
    grouped["base"] = [s for s in grouped["base"] if js_trim(s.content) != "" and js_trim(s.content) not in caret_window]
    remaining = opts["maxPromptTokens"] - ct.count_tokens(caret_window, model, era.multipliers)
    chosen: list[Snippet] = []
    added: set[str] = set()
    for _, key in order:
        group = grouped[key]
        if key == "recentlyOpenedFiles":
            group = format_opened_files(group, remaining, model, chosen, era)
        else:
            group = [s for s in group if s.kind in ("diff", "clipboard", "static") or s.filepath not in added]
        for s in group:
            if js_trim(s.content) == "" or s.filepath.startswith("output:extension-output-Continue.continue"):
                continue  # validation.ts isValidSnippet
            size = ct.count_tokens(s.content, model, era.multipliers) + TOKEN_BUFFER
            if remaining >= size:
                chosen.append(s)
                if s.filepath and s.kind not in ("diff",):
                    added.add(s.filepath)
                remaining -= size
        if remaining <= 0:
            break
    return tuple(chosen)


def _js_length(text: str) -> int:
    """JavaScript `string.length` (UTF-16 code units)."""
    return len(text.encode("utf-16-le", errors="surrogatepass")) // 2


def format_opened_files(snippets: list[Snippet], remaining: int, model: str, already: list[Snippet], era: Era) -> list[Snippet]:
    """formatOpenedFilesContext (templating/formatOpenedFilesContext.ts): recently opened files
    (most recent first) are kept whole while they fit and at least min(5, n) of them fit;
    otherwise the 10 most recent are ranked by 0.6 x 1.15^-index + 0.4 x (1 - normalised log
    size), the best 5 kept, fewer while each cannot get 125 tokens, and each is cut from the
    bottom to floor(125 + 2/(N+1) x (remaining - 10 - N x 125)) tokens in rank order."""
    if not snippets:
        return []
    done = {s.filepath for s in already if s.kind not in ("diff", "clipboard", "static")}
    snippets = [s for s in snippets if s.filepath not in done]
    fit = total = 0
    for s in snippets:
        n = ct.count_tokens(s.content, model, era.multipliers)
        if total + n < remaining - TOKEN_BUFFER:
            total += n
            fit += 1
        else:
            break
    if fit >= min(5, len(snippets)):
        return snippets[:fit]
    sizes = [_js_length(s.content) for s in snippets[:10]]
    log_min, log_max = math.log(max(min(sizes), 10)), math.log(max(max(sizes), 10))

    def score(index: int, s: Snippet) -> float:
        size = 0.5 if log_max == log_min else 1 - (math.log(max(_js_length(s.content), 10)) - log_min) / (log_max - log_min)
        return 0.6 * math.pow(1.15, -index) + 0.4 * size

    ranked = sorted(enumerate(snippets[:10]), key=lambda p: -score(*p))  # stable, like Array.sort
    top = [s for _, s in ranked[:5]]
    while top and remaining - TOKEN_BUFFER < len(top) * 125:
        top.pop()
    out: list[Snippet] = []
    while top:
        n = len(top)
        limit = math.floor(125 + (2 / (n + 1)) * (remaining - TOKEN_BUFFER - n * 125))
        s = top.pop(0)
        tokens = ct.count_tokens(s.content, model, era.multipliers)
        if tokens > limit:
            s = Snippet(filepath=s.filepath, content=ct.prune_string_from_bottom(model, limit, s.content), kind=s.kind)
            tokens = ct.count_tokens(s.content, model, era.multipliers)
        out.append(s)
        remaining -= tokens
    return out


def format_snippets(snippets: tuple[Snippet, ...], filepath: str, comment: str, workspaces: list[str]) -> str:
    """formatSnippets: code snippets get a `Path: <last 2 parts>` line, every snippet is trimmed
    and commented line by line, joined by "\\n", then the current file's last two path parts."""

    def commented(text: str) -> str:
        return "\n".join(f"{comment} {line}" for line in js_trim(text).split("\n"))

    items = []
    for s in snippets:
        if s.kind in ("diff", "static"):
            content = s.content
        else:
            uri = "file:///Untitled.txt" if s.kind == "clipboard" else s.filepath
            content = f"Path: {last_n_uri_relative_path_parts(workspaces, uri, 2)}\n{s.content}"
        items.append(commented(content))
    return "\n".join(items) + f"\n{commented(last_n_uri_relative_path_parts(workspaces, filepath, 2))}"


# ---------------------------------------------------------------------------------------------
# Providers (core/llm/llms/*.ts supportsFim)

FIM_PROVIDERS = frozenset({"deepseek", "inception", "llamastack", "mistral", "moonshot", "siliconflow"})


def supports_fim(provider: str | None, model: str, opts: dict[str, Any]) -> bool:
    """llm.supportsFim(): true for the providers above; Vertex AI for code-gecko/codestral
    models; Ollama when the model's template has `.Suffix` (asked from /api/show at run time:
    give `supportsFim` in the options); false for every other provider (BaseLLM)."""
    if "supportsFim" in opts:
        return bool(opts["supportsFim"])
    if provider in FIM_PROVIDERS:
        return True
    if provider == "vertexai":
        return "code-gecko" in model or "codestral" in model
    return False


COMMON_STOPS = ("/src/", "#- coding: utf-8", "```")  # getStopTokens.ts commonStops
STARCODER2_STOPS = ("t.", "\nt", "<file_sep>")  # getStopTokens.ts STARCODER2_T_ARTIFACTS
DEFAULT_MAX_TOKENS = 4096  # core/llm/constants.ts
DEFAULT_CONTEXT_LENGTH = 32768  # core/llm/constants.ts


def stop_tokens(template: Template | None, model: str) -> tuple[str, ...]:
    """getStopTokens: the template's stops, the common ones, and for starcoder2 names the
    t-artifacts. A `template` option override brings no stops of its own."""
    extra = STARCODER2_STOPS if "starcoder2" in model.lower() else ()
    return (template.stop if template else ()) + COMMON_STOPS + extra


# ---------------------------------------------------------------------------------------------
# The pipeline

_NUMBER_OPTIONS = ("maxPromptTokens", "prefixPercentage", "maxSuffixPercentage", "contextLength", "maxTokens")
_TEXT_OPTIONS = ("template", "provider")


def _options(inp_opts: dict[str, Any], era: Era) -> dict[str, Any]:
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


def _build(template: Template | str, prefix: str, suffix: str, ctx: Ctx, comment: str) -> tuple[str, str, str]:
    """buildPrompt: compile or add the snippet header, then render. Returns prompt, prefix, suffix."""
    compile_ = template.compile if isinstance(template, Template) else None
    if compile_ is not None:
        prefix, suffix = compile_(prefix, suffix, ctx)
    else:
        prefix = format_snippets(ctx.snippets, ctx.filepath, comment, list(ctx.workspaces)) + "\n" + prefix
    return _render(template, prefix, suffix, ctx), prefix, suffix


def _render(template: Template | str, prefix: str, suffix: str, ctx: Ctx) -> str:
    """The template applied to an already compiled prefix/suffix (renderStringTemplate or the
    template function)."""
    body = template if isinstance(template, str) else template.template
    if isinstance(body, str):
        values = {"prefix": prefix, "suffix": suffix, "filename": uri_basename(ctx.filepath), "reponame": ctx.reponame, "language": ctx.language}
        return render_handlebars(body, values)
    return body(prefix, suffix, ctx)


def render(inp: EditorInput, model: str, version: str | None = None) -> RenderedPrompt:
    """The prompt Continue's autocomplete builds for `model` at this cursor.

    Options (`inp.options`, Continue's own names): the tabAutocompleteOptions maxPromptTokens,
    prefixPercentage, maxSuffixPercentage, template, useRecentlyOpened,
    experimental_include{Clipboard,RecentlyVisitedRanges,RecentlyEditedRanges,Diff}; and of the
    model entry: provider, contextLength, maxTokens (completionOptions.maxTokens), supportsFim.
    """
    era = era_for(version)
    opts = _options(inp.options, era)
    workspaces = [to_uri(inp.workspace)] if inp.workspace else []
    filepath = to_uri(inp.filepath or "Untitled.txt", inp.workspace)
    lang_name, comment = language_for(filepath)
    prefix, suffix = prune_prefix_suffix(inp.prefix, inp.suffix, model, opts, era)
    caret_window = prefix + suffix
    if suffix == "" and era.empty_suffix_newline:
        suffix = "\n"
    reponame = uri_basename(workspaces[0]) if workspaces else "myproject"
    snippets = tuple(
        s if s.kind in ("diff", "clipboard") or not s.filepath else Snippet(filepath=to_uri(s.filepath, inp.workspace), content=s.content, kind=s.kind)
        for s in inp.snippets
    )
    snippets = select_snippets(snippets, caret_window, model, opts, era)
    ctx = Ctx(filepath=filepath, reponame=reponame, language=lang_name, snippets=snippets, workspaces=tuple(workspaces), era=era)
    chosen = template_for_model(model, era)
    template: Template | str = opts["template"] if opts.get("template") else chosen
    prompt, cprefix, csuffix = _build(template, prefix, suffix, ctx, comment)

    context_length = opts.get("contextLength", DEFAULT_CONTEXT_LENGTH)
    max_tokens = opts.get("maxTokens", DEFAULT_MAX_TOKENS)
    pruned = reprune(prompt, prefix, suffix, model, context_length, max_tokens, era) if era.context_reprune else None
    if pruned is not None:
        prompt, cprefix, csuffix = _build(template, *pruned, ctx, comment)

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


def capture_era(record: CaptureRecord) -> Era | None:
    """The rules a capture was made under: its editor_version (a release the table knows, or a
    date), else the dated range of its timestamp; None when neither is known."""
    if record.editor_version:
        try:
            return era_for(record.editor_version)
        except ContinueError:
            pass  # a release newer than the table, or an unusable string: the timestamp decides
    if record.ts is not None:
        day = dt.datetime.fromtimestamp(record.ts, tz=dt.timezone.utc).date()
        return era_for(max(day, ERAS[0].since).isoformat())
    return None


def rebuild_logged_prompt(record: CaptureRecord) -> str | None:
    """The prompt text Continue logged, rebuilt from the prefix/suffix logged beside it.

    Dev data logs `prefix`/`suffix` after compilePrefixSuffix / the snippet header, and `prompt`
    as the template applied to exactly those (templating/index.ts buildPrompt), so the template
    alone rebuilds it; a `template` in the logged options wins as it did in Continue. Snippets
    are not logged: the CodeGeeX reference block cannot be rebuilt. The output channel logs the
    FIM route as `{prefix}<FIM>{suffix}` or `Prefix: {prefix}\nSuffix: {suffix}` by version; with
    no version or date known (the channel has none) the form the importer saw stands. None when
    there is nothing to rebuild from.
    """
    if record.segments is None or record.lossy:
        return None
    era = capture_era(record)
    prefix, suffix = record.segments.prefix, record.segments.suffix or ""
    if record.extra.get("route") == "fim":
        style = era.fim_log if era is not None else record.extra.get("fim_rendering")
        if style == "Prefix/Suffix":
            return f"Prefix: {prefix}\nSuffix: {suffix}"
        return f"{prefix}<FIM>{suffix}" if style == "<FIM>" else None
    if record.model is None:
        return None
    era = era or ERAS[-1]
    logged_options = record.extra.get("options") if isinstance(record.extra.get("options"), dict) else {}
    override = logged_options.get("template") or None
    template: Template | str = override if isinstance(override, str) else template_for_model(record.model, era)
    filepath = to_uri(record.filepath or record.segments.filepath or "Untitled.txt")
    ctx = Ctx(filepath=filepath, reponame="myproject", language=language_for(filepath)[0], snippets=(), workspaces=(), era=era)
    return _render(template, prefix, suffix, ctx)
