"""Tabby's language table: the line comment and top-level keywords of each language id.

Transcribed from TabbyML/tabby crates/tabby-common/assets/languages.toml (HEAD 2026-06-30) as
read by crates/tabby-common/src/languages.rs. Tabby uses it twice on the completion path:
- the line comment prefixes every line of the snippets put before the prefix
  (crates/tabby/src/services/completion/completion_prompt.rs `build_prefix`);
- stop words: "\n" + line_comment and "\n" + each top-level keyword (`Language::get_stop_words`).
A language id missing from the table is UNKNOWN_LANGUAGE: line comment "" (so "\n" itself
stops) and no keywords. Entries that changed after v0.12.0 carry the release that brought them
(`git tag --contains` on the commit that edited languages.toml); before it, `before` applied.
"""

from __future__ import annotations

from dataclasses import dataclass

from replay.editors.versions import Release


@dataclass(frozen=True)
class TabbyLanguage:
    ids: tuple[str, ...]
    line_comment: str | None
    top_level_keywords: tuple[str, ...]
    since: str | None = None  # the Tabby release that brought this entry
    before: TabbyLanguage | None = None  # what applied before `since` (None: the language was unknown)


_L = TabbyLanguage

UNKNOWN = _L(("unknown",), "", ())  # languages.rs UNKNOWN_LANGUAGE

LANGUAGES: tuple[TabbyLanguage, ...] = (
    _L(("python",), "#", ("def", "from", "class", "import")),
    _L(("rust",), "//", ("fn", "trait", "impl", "enum", "pub", "extern", "static", "trait", "unsafe", "use")),
    _L(("java",), "//", ("abstract", "public", "private", "class", "const", "exports", "extends", "implements", "static",
                         "import", "interface", "module", "package", "var", "enum", "return")),
    _L(("kotlin",), "//", ("abstract", "public", "private", "companion", "class", "data", "const", "actual", "expect",
                           "sealed", "suspend", "fun", "import", "interface", "package", "var", "val", "enum")),
    _L(("javascript-typescript", "javascript", "typescript", "javascriptreact", "typescriptreact"), "//",
       ("abstract", "async", "class", "const", "export", "function", "interface", "module", "package", "type", "var",
        "enum", "let")),
    _L(("go",), "//", ("func", "interface", "struct", "package", "type", "import", "var", "const")),
    _L(("ruby",), "#", ("begin", "class", "def", "end", "ensure", "include", "module", "require", "rescue", "self")),
    _L(("c",), "//", ("const", "enum", "extern", "inline", "register", "static", "struct", "typedef", "union", "volatile")),
    _L(("cpp",), "//", ("auto", "class", "const", "concept", "enum", "extern", "inline", "namespace", "register",
                        "static", "struct", "template", "typedef", "union", "volatile")),
    _L(("csharp",), "//", ("class", "struct", "enum", "interface", "abstract", "static", "extern", "namespace", "using",
                           "var", "dynamic", "async")),
    _L(("php",), "//", ("abstract", "class", "const", "declare", "extends", "final", "finally", "function", "global",
                        "implements", "include_once", "include", "interface", "namespace", "private", "protected",
                        "public", "require_once", "require", "static", "trait", "use")),
    _L(("solidity",), "//", ("contract", "interface", "error", "library", "struct", "enum", "function", "type")),
    _L(("dart",), "//", ("abstract", "class", "late", "var", "final", "const", "export", "interface", "type", "enum",
                         "int", "String", "double", "DateTime", "typedef")),
    _L(("elixir",), "#", ("def", "defp", "defmacro", "defmacrop", "module", "use", "import", "alias", "require", "if",
                          "unless", "case", "cond", "with", "try", "catch", "throw", "receive", "after", "do", "end"),
       since="0.16.0"),
    _L(("r",), "#", ("function", "library", "install.packages")),
    _L(("css",), None, ()),
    _L(("dockerfile",), None, ()),
    _L(("haskell",), None, ()),
    _L(("html",), None, ()),
    _L(("julia",), None, ()),
    _L(("lua",), "--", ("and", "break", "do", "else", "elseif", "end", "false", "for", "function", "if", "in", "local",
                        "nil", "not", "or", "repeat", "return", "then", "true", "until", "while"),
       since="0.14.0", before=_L(("lua",), None, ())),
    _L(("makefile",), None, ()),
    _L(("markdown",), None, ()),
    _L(("txt",), None, (), since="0.21.0"),
    _L(("perl",), None, ()),
    _L(("powershell",), None, ()),
    _L(("sql",), None, ()),
    _L(("scala",), "//", ("abstract", "case", "class", "def", "do", "else", "enum", "extends", "final", "for", "given",
                          "if", "implicit", "import", "lazy", "match", "new", "object", "override", "package",
                          "private", "protected", "return", "sealed", "then", "throw", "trait", "try", "type", "val",
                          "var", "while", "with", "yield"),
       since="0.29.0", before=_L(("scala",), None, ())),
    _L(("shellscript",), None, ()),
    _L(("tex",), None, ()),
    _L(("vb",), None, ()),
    _L(("ocaml",), None, ("and", "as", "assert", "begin", "class", "constraint", "do", "done", "downto", "else", "end",
                          "exception", "external", "for", "fun", "function", "functor", "if", "in", "include",
                          "inherit", "initializer", "lazy", "let", "match", "method", "module", "mutable", "new",
                          "nonrec", "object", "of", "open", "private", "rec", "sig", "struct", "then", "to", "try",
                          "type", "val", "virtual", "when", "while", "with"),
       since="0.17.0"),
    _L(("gdscript",), "#", ("var", "const", "enum", "func", "class", "class_name", "extends"), since="0.25.0"),
)

_BY_ID = {lang_id: lang for lang in LANGUAGES for lang_id in lang.ids}


def get_language(language: str, release: Release) -> TabbyLanguage:
    """languages.rs `get_language`: the entry for an id as of `release`, else UNKNOWN."""
    entry: TabbyLanguage | None = _BY_ID.get(language)
    while entry is not None and entry.since is not None and release < Release.parse(entry.since):
        entry = entry.before
    return entry or UNKNOWN
