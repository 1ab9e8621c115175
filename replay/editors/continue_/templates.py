"""Continue's autocomplete templates, the template choice by model name, and Handlebars.

continuedev/continue core/autocomplete/templating/AutocompleteTemplate.ts (templates.ts before
2024-10-30); the multi-file templates (Qwen-coder, Codestral, Mercury) place snippets themselves.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable

from replay.editors.continue_.releases import ERAS, Era
from replay.editors.continue_.uri import (
    last_n_path_parts,
    uri_basename,
    last_n_uri_relative_path_parts,
    plain_path,
    shortest_relative_paths,
    shortest_unique_relative_paths,
)
from replay.editors.js import js_trim
from replay.editors.templates import get_family
from replay.records import Snippet

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


def _relative_names(paths: list[str], c: Ctx) -> list[str]:
    """The names the multi-file templates give files: before core moved to URIs (no
    uniquePath objects yet) shortestRelativePaths of the plain paths; later the unique paths
    of getShortestUniqueRelativeUriPaths."""
    if not c.era.unique_path_objects:
        return shortest_relative_paths([plain_path(p) for p in paths])
    return [unique for _, unique in shortest_unique_relative_paths(paths, list(c.workspaces))]


def _last_two(c: Ctx) -> str:
    """getLastNPathParts(filepath, 2) of the plain-path releases, else of the relative URI path."""
    if not c.era.unique_path_objects:
        return last_n_path_parts(plain_path(c.filepath), 2)
    return last_n_uri_relative_path_parts(list(c.workspaces), c.filepath, 2)


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
            return f"+++++ {_last_two(c)}\n{prefix}", suffix
        return prefix, suffix
    if c.era.codestral == "plain" and not c.era.unique_path_objects:
        names = _relative_names([_snippet_uri(s, "Untitled.txt") for s in c.snippets] + [c.filepath], c)
        others = "\n\n".join(s.content if s.kind == "diff" else f"+++++ {names[i]}\n{s.content}" for i, s in enumerate(c.snippets))
        return f"{others}\n\n+++++ {names[-1]}\n{prefix}", suffix
    rel = shortest_unique_relative_paths([_snippet_uri(s, "file:///Untitled.txt") for s in c.snippets] + [c.filepath], list(c.workspaces))
    if c.era.codestral == "spaced":
        names, space = [_file_name(*r) for r in rel], " "
    elif c.era.codestral == "uri":
        names, space = [uri for uri, _ in rel], " "
    else:  # the path itself, or the {uri, uniquePath} object JavaScript prints as "[object Object]"
        names, space = ["[object Object]" if c.era.unique_path_objects else unique for _, unique in rel], ""
    others = "\n\n".join(s.content if s.kind == "diff" else f"+++++ {names[i]}{space}\n{s.content}" for i, s in enumerate(c.snippets))
    return f"{others}\n\n+++++ {names[-1]}\n{prefix}", suffix


def _mercury_compile(prefix: str, suffix: str, c: Ctx) -> tuple[str, str]:
    # Mercury drops every snippet ("Our current snippet format doesn't work well with mercury").
    if js_trim(suffix) == "" and js_trim(prefix) == "":
        return f"<|file_sep|>{last_n_uri_relative_path_parts(list(c.workspaces), c.filepath, 2)}\n<|fim_prefix|>{prefix}", suffix
    return (f"<|fim_prefix|>{prefix}" if c.era.mercury_fim_prefix else prefix), suffix


def _codegeex_template(prefix: str, suffix: str, c: Ctx) -> str:
    snippets = [s for s in c.snippets if s.kind not in ("diff", "clipboard", "static")]
    # Since uri.ts returns {uri, uniquePath} objects (2024-12-13) the template interpolates the
    # object itself, which JavaScript renders as "[object Object]".
    paths = _relative_names([s.filepath for s in snippets] + [c.filepath], c)
    if c.era.unique_path_objects:
        paths = ["[object Object]"] * len(paths)
    base = f"###PATH:{paths[-1]}\n###LANGUAGE:{c.language}\n###MODE:BLOCK\n<|code_suffix|>{suffix}<|code_prefix|>{prefix}<|code_middle|>"
    if not snippets:
        return f"<|user|>\n{base}<|assistant|>\n"
    refs = "###REFERENCE:\n" + "###REFERENCE:\n".join(f"###PATH:{paths[i]}\n{s.content}\n" for i, s in enumerate(snippets))
    return f"<|user|>\n{refs}\n{base}<|assistant|>\n"


# The fourth example before 5935206091 (2024-06-11).
HOLE_FILLER_SYSTEM_4TH = HOLE_FILLER_SYSTEM.replace(
    "The 5th {{FILL_HERE}} is Jupiter.\n\n## CORRECT COMPLETION:\n\n<COMPLETION>planet from the Sun</COMPLETION>",
    "The 4th {{FILL_HERE}} is Jupiter.\n\n## CORRECT COMPLETION:\n\n<COMPLETION>the 4th planet after Mars</COMPLETION>")


def _hole_filler_template(prefix: str, suffix: str, c: Ctx) -> str:
    return (
        (HOLE_FILLER_SYSTEM_4TH if c.era.hole_filler_4th else HOLE_FILLER_SYSTEM)
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
CODESTRAL_BEFORE_2025 = dataclasses.replace(CODESTRAL, stop=("[PREFIX]", "[SUFFIX]"))
MERCURY = Template("mercuryMultifileFimTemplate", "mercury", lambda p, s, c: f"{p}<|fim_suffix|>{s}<|fim_middle|>", (), compile=_mercury_compile)
CODEGEMMA = Template("codegemmaFimTemplate", "codegemma", "<|fim_prefix|>{{{prefix}}}<|fim_suffix|>{{{suffix}}}<|fim_middle|>",
                     ("<|fim_prefix|>", "<|fim_suffix|>", "<|fim_middle|>", "<|file_separator|>", "<end_of_turn>", "<eos>"))
CODELLAMA = Template("codeLlamaFimTemplate", "codellama", "<PRE> {{{prefix}}} <SUF>{{{suffix}}} <MID>", ("<PRE>", "<SUF>", "<MID>", "<EOT>"))
DEEPSEEK = Template("deepseekFimTemplate", "deepseek-coder", "<｜fim▁begin｜>{{{prefix}}}<｜fim▁hole｜>{{{suffix}}}<｜fim▁end｜>",
                    ("<｜fim▁begin｜>", "<｜fim▁hole｜>", "<｜fim▁end｜>", "//", "<｜end▁of▁sentence｜>"))
CODEGEEX = Template("codegeexFimTemplate", "codegeex", _codegeex_template,
                    ("<|user|>", "<|code_suffix|>", "<|code_prefix|>", "<|code_middle|>", "<|assistant|>", "<|endoftext|>"))
# templates.ts before the rewrite: the plain codestral template (2024-05-30..06-02) and the
# fill-in-the-blank prompt gpt/claude names got before the hole filler (to 2024-05-08).
CODESTRAL_FIM = Template("codestralFimTemplate", "codestral", "[SUFFIX]{{{suffix}}}[PREFIX]{{{prefix}}}", ("[PREFIX]", "[SUFFIX]"))
GPT_AUTOCOMPLETE = Template("gptAutocompleteTemplate", "hole-filler",
                            "```\n{{{prefix}}}[BLANK]{{{suffix}}}\n```\n\nFill in the blank to complete the code block. "
                            "Your response should include only the code to replace [BLANK], without surrounding backticks.",
                            ("\n",), chat=True)
HOLE_FILLER = Template("holeFillerTemplate", "hole-filler", _hole_filler_template, ("</COMPLETION>",), chat=True)


for _t in (STABLE_CODE, QWEN_CODER, QWEN_MULTIFILE, GRANITE4, SEED_CODER, CODESTRAL, MERCURY, CODEGEMMA, CODELLAMA, DEEPSEEK, CODEGEEX):
    get_family(_t.family)  # raises UnknownFamily if the registry lost or renamed it


def template_for_model(model: str, era: Era | None = None) -> Template:
    """getTemplateForModel: first match on the lower-cased model name, in Continue's order, with
    the stop list the release had."""
    era = era or ERAS[-1]
    tpl = _choose(model, era)
    override = dict(era.stops).get(tpl.name)
    return tpl if override is None else dataclasses.replace(tpl, stop=override)


def _choose(model: str, era: Era) -> Template:
    m = model.lower()
    if era.mercury and "mercury" in m:
        return MERCURY
    if "qwen" in m and "coder" in m and era.qwen_coder != "stable":
        return QWEN_MULTIFILE if era.qwen_coder == "multifile" else QWEN_CODER
    if era.granite4 and "granite" in m and "4" in m:
        return GRANITE4
    if era.seed_coder and "seed" in m and "coder" in m:
        return SEED_CODER
    if any(k in m for k in ("starcoder", "star-coder", "starchat", "octocoder", "stable", "codeqwen")) or (era.plain_qwen and "qwen" in m):
        return STABLE_CODE
    codestral = {"none": None, "fim": CODESTRAL_FIM, "spaced": CODESTRAL}.get(era.codestral, CODESTRAL_BEFORE_2025)
    codegeex = CODEGEEX if era.codegeex_template else None
    for key, tpl in (("codestral", codestral), ("codegemma", CODEGEMMA), ("codellama", CODELLAMA), ("deepseek", DEEPSEEK), ("codegeex", codegeex)):
        if tpl is not None and key in m:
            return tpl
    hole = ("gpt", "davinci-002", "claude") + (("granite3", "granite-3") if era.granite3_hole_filler else ())
    if any(k in m for k in hole):
        return GPT_AUTOCOMPLETE if era.gpt_template else HOLE_FILLER
    return STABLE_CODE


COMMON_STOPS = ("/src/", "#- coding: utf-8", "```")  # getStopTokens.ts commonStops
STARCODER2_STOPS = ("t.", "\nt", "<file_sep>")  # getStopTokens.ts STARCODER2_T_ARTIFACTS


def render_template(template: Template | str, prefix: str, suffix: str, ctx: Ctx) -> str:
    """The template applied to an already compiled prefix/suffix (renderStringTemplate or the
    template function)."""
    body = template if isinstance(template, str) else template.template
    if isinstance(body, str):
        values = {"prefix": prefix, "suffix": suffix, "filename": uri_basename(ctx.filepath), "reponame": ctx.reponame, "language": ctx.language}
        return render_handlebars(body, values)
    return body(prefix, suffix, ctx)


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

