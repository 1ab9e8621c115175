"""Tabby's language table: the line comment and top-level keywords of each language id.

Transcribed from TabbyML/tabby crates/tabby-common/assets/languages.toml (HEAD 2026-06-30) as
read by crates/tabby-common/src/languages.rs. Tabby uses it twice on the completion path:
- the line comment prefixes every line of the snippets put before the prefix
  (crates/tabby/src/services/completion/completion_prompt.rs `build_prefix`);
- stop words: "\n" + line_comment and "\n" + each top-level keyword (`Language::get_stop_words`).
A language id missing from the table is UNKNOWN_LANGUAGE: line comment "" (so "\n" itself
stops) and no keywords. Every entry carries the release that brought it (`git tag --contains`
on the commit that edited languages.toml, the first release being 0.4.0, commit 99a7053b6
2023-10-15); before it, `before` applied (None: the id was unknown).

Before 0.4.0 there was no table: crates/tabby/src/serve/completions/languages.rs held a stop
list per language id (LEGACY_STOP_WORDS), and the line comment of the repository snippets came
from crates/tabby/src/serve/completions/prompt.rs (LEGACY_LINE_COMMENTS).
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
    rule: str | None = None  # its SERVER_RULES name, for release candidates that lacked it
    before: TabbyLanguage | None = None  # what applied before `since` (None: the language was unknown)


_L = TabbyLanguage

UNKNOWN = _L(("unknown",), "", ())  # languages.rs UNKNOWN_LANGUAGE

TOML_SINCE = "0.4.0"  # languages.toml, commit 99a7053b6 (2023-10-15)
# languages.toml entries without line_comment / top_level_keywords (commit 9c96e5fa8, 2024-04-22):
# before it both fields were required, so such languages were unknown.
_BARE = "0.11.0"
_JS_KEYWORDS = ("abstract", "async", "class", "const", "export", "function", "interface", "module", "package", "type",
                "var", "enum", "let")

LANGUAGES: tuple[TabbyLanguage, ...] = (
    _L(("python",), "#", ("def", "from", "class", "import"), since=TOML_SINCE),
    _L(("rust",), "//", ("fn", "trait", "impl", "enum", "pub", "extern", "static", "trait", "unsafe", "use"),
       since=TOML_SINCE),
    _L(("java",), "//", ("abstract", "public", "private", "class", "const", "exports", "extends", "implements", "static",
                         "import", "interface", "module", "package", "var", "enum", "return"),
       since="0.6.0"),  # commit 3fb844574 (2023-11-08)
    _L(("kotlin",), "//", ("abstract", "public", "private", "companion", "class", "data", "const", "actual", "expect",
                           "sealed", "suspend", "fun", "import", "interface", "package", "var", "val", "enum"),
       since="0.6.0"),  # commit b9cb5a025 (2023-11-23)
    # The "javascript-typescript" id came with commit 9c96e5fa8 (0.11.0); the entry itself with the table.
    _L(("javascript-typescript", "javascript", "typescript", "javascriptreact", "typescriptreact"), "//", _JS_KEYWORDS,
       since=_BARE,
       before=_L(("javascript", "typescript", "javascriptreact", "typescriptreact"), "//", _JS_KEYWORDS,
                 since=TOML_SINCE)),
    _L(("go",), "//", ("func", "interface", "struct", "package", "type", "import", "var", "const"), since=TOML_SINCE),
    _L(("ruby",), "#", ("begin", "class", "def", "end", "ensure", "include", "module", "require", "rescue", "self"),
       since=TOML_SINCE),
    _L(("c",), "//", ("const", "enum", "extern", "inline", "register", "static", "struct", "typedef", "union", "volatile"),
       since="0.8.0"),  # commit 5c4f8de46 (2023-12-16)
    _L(("cpp",), "//", ("auto", "class", "const", "concept", "enum", "extern", "inline", "namespace", "register",
                        "static", "struct", "template", "typedef", "union", "volatile"),
       since="0.8.0"),  # commit 5c4f8de46 (2023-12-16)
    _L(("csharp",), "//", ("class", "struct", "enum", "interface", "abstract", "static", "extern", "namespace", "using",
                           "var", "dynamic", "async"),
       since="0.8.0"),  # commit c0269e0ee (2023-12-13)
    _L(("php",), "//", ("abstract", "class", "const", "declare", "extends", "final", "finally", "function", "global",
                        "implements", "include_once", "include", "interface", "namespace", "private", "protected",
                        "public", "require_once", "require", "static", "trait", "use"),
       since="0.8.0"),  # commit 8e36bee91 (2024-01-22); an earlier one (688e7d75b) was reverted before 0.5.0
    _L(("solidity",), "//", ("contract", "interface", "error", "library", "struct", "enum", "function", "type"),
       since="0.10.0"),  # commit 8203dd965 (2024-03-28)
    _L(("dart",), "//", ("abstract", "class", "late", "var", "final", "const", "export", "interface", "type", "enum",
                         "int", "String", "double", "DateTime", "typedef"),
       since="0.11.0", rule="languages-dart-r"),  # commit 62db7bdbd (2024-05-03)
    _L(("elixir",), "#", ("def", "defp", "defmacro", "defmacrop", "module", "use", "import", "alias", "require", "if",
                          "unless", "case", "cond", "with", "try", "catch", "throw", "receive", "after", "do", "end"),
       since="0.16.0"),
    _L(("r",), "#", ("function", "library", "install.packages"), since="0.11.0",
       rule="languages-dart-r"),  # commit b71f9c5c3 (2024-05-03)
    _L(("css",), None, (), since=_BARE),
    _L(("dockerfile",), None, (), since=_BARE),
    _L(("haskell",), None, (), since=_BARE),
    _L(("html",), None, (), since=_BARE),
    _L(("julia",), None, (), since=_BARE),
    _L(("lua",), "--", ("and", "break", "do", "else", "elseif", "end", "false", "for", "function", "if", "in", "local",
                        "nil", "not", "or", "repeat", "return", "then", "true", "until", "while"),
       since="0.14.0", before=_L(("lua",), None, (), since=_BARE)),
    _L(("makefile",), None, (), since=_BARE),
    _L(("markdown",), None, (), since=_BARE),
    _L(("txt",), None, (), since="0.21.0"),
    _L(("perl",), None, (), since=_BARE),
    _L(("powershell",), None, (), since=_BARE),
    _L(("sql",), None, (), since=_BARE),
    _L(("scala",), "//", ("abstract", "case", "class", "def", "do", "else", "enum", "extends", "final", "for", "given",
                          "if", "implicit", "import", "lazy", "match", "new", "object", "override", "package",
                          "private", "protected", "return", "sealed", "then", "throw", "trait", "try", "type", "val",
                          "var", "while", "with", "yield"),
       since="0.29.0", before=_L(("scala",), None, (), since=_BARE)),
    _L(("shellscript",), None, (), since=_BARE),
    _L(("tex",), None, (), since=_BARE),
    _L(("vb",), None, (), since=_BARE),
    _L(("ocaml",), None, ("and", "as", "assert", "begin", "class", "constraint", "do", "done", "downto", "else", "end",
                          "exception", "external", "for", "fun", "function", "functor", "if", "in", "include",
                          "inherit", "initializer", "lazy", "let", "match", "method", "module", "mutable", "new",
                          "nonrec", "object", "of", "open", "private", "rec", "sig", "struct", "then", "to", "try",
                          "type", "val", "virtual", "when", "while", "with"),
       since="0.17.0"),
    _L(("gdscript",), "#", ("var", "const", "enum", "func", "class", "class_name", "extends"), since="0.25.0"),
)

_BY_ID = {lang_id: lang for lang in LANGUAGES for lang_id in lang.ids}


# --- before languages.toml (0.0.1 .. 0.3.x) ------------------------------------------------------

# crates/tabby/src/serve/completions/languages.rs DEFAULT (0.0.1 listed "\n\n" twice; commit
# ce20bd615, 0.2.0, dropped the copy: the same set).
LEGACY_DEFAULT: tuple[str, ...] = (
    "\n\n", "\n\n  ", "\n\n    ", "\n\n      ", "\n\n        ", "\n\n          ", "\n\n            ", "\n\n              ",
    "\n\n\t", "\n\n\t\t", "\n\n\t\t\t", "\n\n\t\t\t\t", "\n\n\t\t\t\t\t", "\n\n\t\t\t\t\t\t", "\n\n\t\t\t\t\t\t\t",
)

# Release -> (language id -> its own stop words, and whether DEFAULT follows them); any other id
# stopped on DEFAULT alone.
# 0.0.1 (commit fd1baff8d, 2023-06-06, and its successors): python with DEFAULT; javascript and
# typescript WITHOUT it (their lists never called `with_default`).
# 0.3.0 (commit ac73cbb6f, 2023-10-13): python gained "\nimport"; rust; javascript and typescript
# share one list, all with DEFAULT.
_JS_TS_030 = ("\n//", "\nabstract", "\nasync", "\nclass", "\nconst", "\nexport", "\nfunction", "\ninterface",
              "\nmodule", "\npackage", "\ntype", "\nvar", "\nenum", "\nlet")
LEGACY_STOP_WORDS: tuple[tuple[str, dict[str, tuple[tuple[str, ...], bool]]], ...] = (
    ("0.0.1", {
        "python": (("\ndef", "\n#", "\nfrom", "\nclass"), True),
        "javascript": (("\nfunction", "\n//", "\nimport", "\nclass"), False),
        "typescript": (("\nfunction", "\n//", "\nimport", "\nclass", "\ninterface", "\ntype"), False),
    }),
    ("0.3.0", {
        "python": (("\ndef", "\n#", "\nfrom", "\nclass", "\nimport"), True),
        "rust": (("\n//", "\nfn", "\ntrait", "\nimpl", "\nenum", "\npub", "\nextern", "\nstatic", "\ntrait", "\nunsafe",
                  "\nuse"), True),
        "javascript": (_JS_TS_030, True),
        "typescript": (_JS_TS_030, True),
    }),
)

# The line comment of the repository snippets (prompt.rs LANGUAGE_LINE_COMMENT_CHAR, then 0.3.0's
# languages.rs `Language.line_comment`, "#" for an unknown language). Those snippets came from
# the server's own code index, never from the request, so no logged prompt can be rebuilt with them.
LEGACY_LINE_COMMENTS: tuple[tuple[str, dict[str, str], str | None], ...] = (
    ("0.0.1", {"python": "#", "rust": "//"}, None),
    ("0.1.0", {"python": "#", "rust": "//", "javascript-typescript": "//", "go": "//", "java": "//", "lua": "--"}, None),
    ("0.3.0", {"python": "#", "rust": "//", "javascript": "//", "typescript": "//"}, "#"),
)


def _era(table, release: Release):  # type: ignore[no-untyped-def]
    current = table[0]
    for row in table:
        if release >= Release.parse(row[0]):
            current = row
    return current


def legacy_stop_words(language: str, release: Release) -> tuple[str, ...]:
    """completions/languages.rs `get_stop_words` / `get_language(..).stop_words` before 0.4.0."""
    own, with_default = _era(LEGACY_STOP_WORDS, release)[1].get(language, ((), True))
    return tuple(dict.fromkeys(own + (LEGACY_DEFAULT if with_default else ())))


def get_language(language: str, release: Release, lacks: frozenset[str] = frozenset()) -> TabbyLanguage:
    """languages.rs `get_language`: the entry for an id as of `release`, else UNKNOWN (before
    0.4.0: the line comment the snippet builder of that release had for the id). `lacks`: rule
    names a release candidate did not have yet (server.RC_LACKS)."""
    if release < Release.parse(TOML_SINCE):
        _, comments, unknown = _era(LEGACY_LINE_COMMENTS, release)
        return _L((language,), comments.get(language, unknown), ())
    entry: TabbyLanguage | None = _BY_ID.get(language)
    while entry is not None and entry.since is not None and (release < Release.parse(entry.since)
                                                             or entry.rule in lacks):
        entry = entry.before
    if entry is not None and language not in entry.ids:
        entry = None  # an id the entry only gained later
    return entry or UNKNOWN
