"""The language of a file by its name: the language ids editors send, one table for the logs
read, the items made and the pairs scored; the name CodeBLEU and its tree-sitter grammars give a
language whose editor id differs; and the parser of a language's grammar (the one CodeBLEU
parses it with), for its metrics, its syntax check and telling comments from code."""

from __future__ import annotations

from functools import lru_cache
from typing import Any

# Extension -> language id, from TabbyML/tabby crates/tabby-common/assets/languages.toml (`exts`),
# with the JavaScript/TypeScript group split into the VS Code language ids Continue and Tabby's
# clients send.
EXTENSION_LANGUAGES = {
    "py": "python", "rs": "rust", "java": "java", "kt": "kotlin", "kts": "kotlin",
    "js": "javascript", "mjs": "javascript", "jsx": "javascriptreact", "ts": "typescript",
    "mts": "typescript", "tsx": "typescriptreact", "go": "go", "rb": "ruby", "c": "c", "h": "c",
    "cpp": "cpp", "hpp": "cpp", "c++": "cpp", "h++": "cpp", "cc": "cpp", "hh": "cpp", "C": "cpp",
    "H": "cpp", "tcc": "cpp", "cs": "csharp", "php": "php", "sol": "solidity", "dart": "dart",
    "ex": "elixir", "exs": "elixir", "R": "r", "r": "r", "css": "css", "hs": "haskell",
    "html": "html", "jl": "julia", "lua": "lua", "md": "markdown", "markdown": "markdown",
    "txt": "txt", "pl": "perl", "pm": "perl", "ps1": "powershell", "sql": "sql", "scala": "scala",
    "sbt": "scala", "sh": "shellscript", "bash": "shellscript", "zsh": "shellscript",
    "tex": "tex", "vb": "vb", "ml": "ocaml", "mli": "ocaml", "gd": "gdscript",
}
_NAME_LANGUAGES = {"Dockerfile": "dockerfile", "Makefile": "makefile"}

# Language id -> CodeBLEU's name (codebleu/utils.py AVAILABLE_LANGS, the tree_sitter_<name> package).
_CODEBLEU_NAMES = {"csharp": "c_sharp"}


def language_of(filepath: str | None) -> str | None:
    """The language id of a file path or URI by its extension (None when unknown)."""
    if not filepath:
        return None
    name = filepath.replace("\\", "/").rsplit("/", 1)[-1]
    if name in _NAME_LANGUAGES:
        return _NAME_LANGUAGES[name]
    if "." not in name:
        return None
    return EXTENSION_LANGUAGES.get(name.rsplit(".", 1)[-1])


def codebleu_name(language: str) -> str:
    """The name CodeBLEU and its grammar package give `language` (an editor's id, or the name
    itself)."""
    return _CODEBLEU_NAMES.get(language, language)


@lru_cache(maxsize=None)
def grammar_parser(name: str) -> Any:
    """The tree-sitter parser of `name` (CodeBLEU's name): Solidity's grammar package, or the
    one CodeBLEU imports for its languages. KeyError for no such CodeBLEU language, ImportError
    when its grammar package is not installed."""
    import tree_sitter

    if name == "solidity":
        import tree_sitter_solidity

        grammar = tree_sitter_solidity.language()
    else:
        from codebleu.utils import AVAILABLE_LANGS, get_tree_sitter_language

        if name not in AVAILABLE_LANGS:
            raise KeyError(f"CodeBLEU has no language {name!r} (solidity, {', '.join(AVAILABLE_LANGS)})")
        grammar = get_tree_sitter_language(name)
    return tree_sitter.Parser(grammar if isinstance(grammar, tree_sitter.Language) else tree_sitter.Language(grammar))


def parser_or_none(language: str) -> Any | None:
    """The parser of `language` (an editor's id or CodeBLEU's name), or None without a grammar
    (no such CodeBLEU language, or its grammar package not installed)."""
    try:
        return grammar_parser(codebleu_name(language))
    except (KeyError, ImportError):
        return None
