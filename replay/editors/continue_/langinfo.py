"""Continue's per-language autocomplete facts the completion stage reads: top-level keywords
(stop words and the mid-line keyword cut of the old pipeline), the single-line comment (comment
lines are single-line; empty comments and `// Path:` lines are dropped), end-of-line characters
(the end-of-line prefilter and onlyWhitespaceAfterEndOfLine), and the language's own filters.

Source: continuedev/continue core/autocomplete/languages.ts, since 2024-10-30
core/autocomplete/constants/AutocompleteLanguageInfo.ts (LANGUAGES, languageForFilepath). The
table did not change for the languages below between 2024-07 and now, except: JSON got its own
entry on 2024-11-06 (before, .json fell back to TypeScript), Lua on 2025-02-21, JavaScript on
2025-06-26 (same values as TypeScript, so not modelled), and the extension is lower-cased since
2024-12-18 (getUriFileExtension).
"""

from __future__ import annotations

import dataclasses

from replay.editors.continue_.rules import Rules
from replay.editors.continue_.uri import uri_basename


@dataclasses.dataclass(frozen=True)
class LangInfo:
    """AutocompleteLanguageInfo: `comment` is singleLineComment ("" for Markdown); `yaml`,
    `json` and `markdown` select the language's own lineFilters, charFilters and useMultiline."""

    name: str
    top_level_keywords: tuple[str, ...]
    comment: str
    end_of_line: tuple[str, ...]
    yaml: bool = False
    json: bool = False
    markdown: bool = False


def _l(name: str, keywords: str, comment: str, eol: str = "", **kw: bool) -> LangInfo:
    return LangInfo(name, tuple(keywords.split()), comment, tuple(eol.split()), **kw)


TYPESCRIPT = _l("TypeScript", "function class module export import", "//", ";")
PYTHON = _l("Python", 'def class """#', "#")
JSON = _l("JSON", "", "//", ", } ]", json=True)
LUA = _l("Lua", "function", "--")
_BY_EXT: dict[str, LangInfo] = {}
for _exts, _info in (
    ("ts js tsx jsx", TYPESCRIPT),
    ("ipynb py pyi", PYTHON),
    ("java", _l("Java", "class function", "//", ";")),
    ("cpp cxx h hpp", _l("C++", "class namespace template", "//", ";")),
    ("cs", _l("C#", "class namespace void", "//", ";")),
    ("c", _l("C", "if else while for switch case", "//", ";")),
    ("scala sc", _l("Scala", "def val var class object trait", "//", ";")),
    ("go", _l("Go", "func package import type", "//")),
    ("rs", _l("Rust", "fn mod pub struct enum trait", "//", ";")),
    ("hs", _l("Haskell", "data type newtype class instance let in where", "--")),
    ("php", _l("PHP", "function class namespace use", "//", ";")),
    ("rails", _l("Ruby on Rails", "def class module", "#")),
    ("swift", _l("Swift", "func class struct import", "//", ";")),
    ("kt", _l("Kotlin", "fun class package import", "//", ";")),
    ("rb", _l("Ruby", "class module def", "#")),
    ("clj cljs cljc", _l("Clojure", "def fn let do if defn ns defmacro", ";")),
    ("jl", _l("Julia", "function macro if else elseif while for begin end module", "#", ";")),
    ("fs fsi fsx fsscript", _l("F#", "let type module namespace open if then else match with", "//")),
    ("r R", _l("R", "function if else for while repeat library require", "#")),
    ("dart", _l("Dart", "class import void enum", "//", ";")),
    ("sol", _l("Solidity", "contract event modifier function constructor for require emit interface error library "
                           "struct enum type", "//", ";")),
    ("yaml yml", _l("YAML", "", "#", yaml=True)),
    ("md", _l("Markdown", "", "", markdown=True)),
):
    for _ext in _exts.split():
        _BY_EXT[_ext] = _info


def lang_info(uri: str, rules: Rules) -> LangInfo:
    """languageForFilepath: the entry of the file's extension, TypeScript when none matches."""
    base = uri_basename(uri)
    parts = base.split(".")
    ext = parts[-1] if len(parts) > 1 else ""
    if rules.lowercase_extension:
        ext = ext.lower()
    if ext == "json" and rules.json_language:
        return JSON
    if ext in ("lua", "luau") and rules.lua_language:
        return LUA
    return _BY_EXT.get(ext, TYPESCRIPT)


__all__ = ["LangInfo", "lang_info"]
