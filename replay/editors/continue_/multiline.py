"""Continue's single/multi-line decision (continuedev/continue: core/autocomplete/constructPrompt.ts
shouldCompleteMultiline until 2024-10-21, then core/autocomplete/shouldCompleteMultiline.ts, since
2024-10-30 core/autocomplete/classification/shouldCompleteMultiline.ts; combined with the option
in completionProvider.ts, later CompletionProvider.ts `!transform || shouldCompleteMultiline`).

In single-line mode Continue stops reading the stream at the first newline
(GeneratorReuseManager). The rule by release (`Rules.multiline_rule`):

- `ast` (until 2024-10-25): multiline if the option is "always", or if it is not "never" and the
  cursor is at the end of its line, not on a comment line, and the line above ends with an
  opening bracket, or the syntax tree says so: the cursor is outside every top-level node, or on
  the first line of an otherwise empty `body` / `statement_block`. A file Continue has no grammar
  for (util/treeSitter.ts supportedLanguages) counts as multi-line until 2024-10-06, then not.
  Continue parses with web-tree-sitter; here py tree-sitter parses Python and Solidity, the only
  grammars installed. For the other languages Continue parses (TypeScript, Go, Java, ...) this
  replay has no tree and answers "not multi-line", what the tree gives inside a statement.
- `not_midline` (2024-10-23): end of line and not a comment line.
- `language_only` (2024-10-31): end of line, not a comment line, and the language's useMultiline
  says true (only Markdown has one, and it never said true then): in practice single-line.
- `language_default` (2024-11-05): everything is multi-line except comment lines and what the
  language's useMultiline rejects (Markdown list, quote, fence and heading lines).

An IntelliSense item selected in the editor (selectedCompletionInfo) is not part of a replayed
cursor, so the rules for it are not modelled.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from replay.editors.continue_.charstream import from_units
from replay.editors.continue_.langinfo import LangInfo
from replay.editors.continue_.rules import Rules
from replay.editors.js import js_trim, js_trim_start

if TYPE_CHECKING:
    from tree_sitter import Parser

_MARKDOWN_STARTERS = ("- ", "* ", "> ", "```")
_MARKDOWN_PATTERNS = (re.compile(r"\d+\. "), re.compile(r"#{1,6} "))
_BLOCK_TYPES = ("body", "statement_block")
# util/treeSitter.ts supportedLanguages (2024): the extensions Continue has a grammar for
_TREE_SITTER_EXTENSIONS = frozenset({
    "cpp", "hpp", "cc", "cxx", "hxx", "cp", "hh", "inc", "cs", "c", "h", "css", "php", "phtml", "php3",
    "php4", "php5", "php7", "phps", "php-s", "bash", "sh", "json", "ts", "mts", "cts", "tsx", "elm", "js",
    "jsx", "mjs", "cjs", "py", "ipynb", "pyw", "pyi", "el", "emacs", "ex", "exs", "go", "eex", "heex",
    "leex", "html", "htm", "java", "lua", "ocaml", "ml", "mli", "ql", "res", "resi", "rb", "erb", "rs",
    "rdl", "toml", "sol",
})
_GRAMMARS = {"py": "python", "pyw": "python", "pyi": "python", "ipynb": "python", "sol": "solidity"}


def markdown_use_multiline(prefix: str, boolean: bool) -> bool | None:
    """AutocompleteLanguageInfo Markdown.useMultiline: false on a list, quote, fence or heading
    line; otherwise true (undefined before 2024-11-05, `boolean` False)."""
    line = prefix.split("\n")[-1]
    if line:
        line = js_trim(line)
        if line.startswith(_MARKDOWN_STARTERS) or any(p.match(line) for p in _MARKDOWN_PATTERNS):
            return False
    return True if boolean else None


def _on_comment_line(full_prefix: str, comment: str) -> bool:
    """shouldCompleteMultiline: the cursor's line, without its indentation, starts with the
    language's single-line comment (always true for Markdown's "" before 2024-11-05)."""
    return js_trim_start(full_prefix.split("\n")[-1]).startswith(comment)


def should_complete_multiline(*, option: str, full_prefix: str, full_suffix: str, pruned_prefix: str, lang: LangInfo,
                              rules: Rules, transform: bool = True, extension: str = "") -> bool:
    """The multi-line decision of the release, with the `multilineCompletions` option
    ("auto" | "always" | "never") and `transform` (false: always multi-line); `extension` is the
    file's, as util/treeSitter.ts reads it (case kept)."""
    if not transform:
        return True
    language = markdown_use_multiline(pruned_prefix, rules.markdown_multiline == "boolean") if lang.markdown else None
    if rules.multiline_rule == "language_default":
        if option in ("always", "never"):
            return option == "always"
        if lang.comment and _on_comment_line(full_prefix, lang.comment):
            return False
        return True if language is None else language
    midline = not full_suffix.startswith("\n")
    if rules.multiline_rule == "language_only":
        if option in ("always", "never"):
            return option == "always"
        return not midline and not _on_comment_line(full_prefix, lang.comment) and bool(language)
    if language:
        return True
    if option == "never":
        return False
    if option == "always":
        return True
    if midline or _on_comment_line(full_prefix, lang.comment):
        return False
    if rules.multiline_rule == "not_midline":
        return True
    if _line_above_opens(full_prefix):
        return True
    if extension not in _TREE_SITTER_EXTENSIONS:
        return rules.no_tree_multiline
    return _ast_says_multiline(full_prefix, full_suffix, _GRAMMARS.get(extension, ""))


def _line_above_opens(full_prefix: str) -> bool:
    """The line before the cursor's (the cursor's own when it is the first) ends with ( [ or {."""
    lines = full_prefix.split("\n")
    above = js_trim(lines[-2] if len(lines) >= 2 else lines[-1])
    return above[-1:] in ("{", "(", "[") and above != ""


def _parser(grammar: str) -> Parser | None:
    """util/treeSitter.ts getParserForFile, for the grammars installed here (python, solidity)."""
    try:
        from tree_sitter import Language, Parser
        if grammar == "python":
            import tree_sitter_python as module
        elif grammar == "solidity":
            import tree_sitter_solidity as module
        else:
            return None
    except ImportError:
        return None
    return Parser(Language(module.language()))


def _ast_says_multiline(full_prefix: str, full_suffix: str, grammar: str) -> bool:
    """ast.ts getTreePathAtCursor + shouldCompleteMultilineAst (not multi-line without a grammar
    here, see the module docstring)."""
    parser = _parser(grammar)
    if parser is None:
        return False
    tree = parser.parse(from_units(full_prefix + full_suffix).encode("utf-8"))
    cursor = len(from_units(full_prefix).encode("utf-8"))  # a byte offset where Continue counts units: same node
    path = [tree.root_node]
    while path[-1].child_count > 0:
        child = next((c for c in path[-1].children if c.start_byte <= cursor <= c.end_byte), None)
        if child is None:
            break
        path.append(child)
    if len(path) == 1:
        return True
    cursor_line = full_prefix.count("\n")
    for node in reversed(path):
        if node.type in _BLOCK_TYPES and abs(node.start_point[0] - cursor_line) <= 1:
            text = node.text.decode("utf-8", errors="replace")
            text = text[text.find("{") + 1:]
            close = text.rfind("}")
            text = js_trim(text[:close] if close >= 0 else text[:-1])
            return len(text.split("\n")) == 1
    return False


__all__ = ["markdown_use_multiline", "should_complete_multiline"]
