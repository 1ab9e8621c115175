"""Copilot's tree-sitter block rules: is the cursor at the start of an empty block (the request
asks a multiline answer), and where does the block the cursor opened end (the client stops
reading a multiline stream there).

Source: microsoft/vscode-copilot-chat src/extension/completions-core/vscode-node/prompt/src/
parseBlock.ts (`isEmptyBlockStart`, `isBlockBodyFinished`, the per-language block parsers) and
parse.ts (`isSupportedLanguageId`, `queryPythonIsDocstring`), checked against @vscode/chat-lib
0.66.0's compiled dist of the same paths. Only Python and Ruby are modelled: the other languages
the source parses (JavaScript, TypeScript, Go) are trimmed by default (`MoreMultiline`,
ghostText/configBlockMode.ts) and never reach these rules: after an accepted item their stream
goes through the statement splitter (splitter.py). Python has the tree-sitter parser
(`TreeSitterBasedBlockParser`), Ruby the regex one (`RegexBasedBlockParser`: a keyword regex on
the cursor's line, then tree-sitter for the block's body).

Grammars: chat-lib parses with web-tree-sitter 0.23.2 and the wasm grammars of
@vscode/tree-sitter-wasm 0.0.5 (built from tree-sitter-python ^0.23.2 and tree-sitter-ruby
^0.23.0, ABI 14); here the PyPI wheels tree-sitter-python 0.21.0 and tree-sitter-ruby 0.21.0
(ABI 14, the newest that load in py-tree-sitter 0.22.3) parse. The node types these rules read
(block, function_definition, ERROR, comment; method, do_block, end...) are the same in both;
the golden cases (tests/data/golden/copilot/, expected3/expected4) agree, and so did 2,916
positions compared with chat-lib's own functions under node (the data's README). Where they
can part is error recovery on broken code: in a document cut so that it opens inside a
docstring, 0.23 left a stray `for` keyword a direct child of the ERROR node, 0.21 nested it
in another ERROR, and the empty-block test answered differently (1 of 60 such positions). Offsets: chat-lib counts
UTF-16 code units, this module characters (the same outside the astral planes); node columns
are bytes here, UTF-16 units there (they differ only on non-ASCII indentation).
"""

from __future__ import annotations

import re
from typing import Any

import tree_sitter

from replay.editors.copilot.grammars import grammar

_GRAMMARS = {"python": "tree_sitter_python", "ruby": "tree_sitter_ruby"}
# Generated in the source with script/tree-sitter-super-types: node type -> its block's type.
_PY_BLOCKS = dict.fromkeys(("class_definition", "elif_clause", "else_clause", "except_clause", "finally_clause",
                            "for_statement", "function_definition", "if_statement", "try_statement",
                            "while_statement", "with_statement"), "block")
_PY_KEYWORDS = ("def", "class", "if", "elif", "else", "for", "while", "try", "except", "finally", "with")
# Ruby has no block node: the closing `end` (or `}`, `do`) stands for the block.
_RB_BLOCKS = {"begin_block": "}", "block": "}", "end_block": "}", "lambda": "block", "for": "do", "until": "do",
              "while": "do", "case": "end", "do": "end", "if": "end", "method": "end", "module": "end",
              "unless": "end", "do_block": "end"}
_NODE_MATCH = {"python": _PY_BLOCKS, "ruby": _RB_BLOCKS}
_RB_LINE = re.compile(r"\b(BEGIN|END|case|class|def|do|else|elsif|for|if|module|unless|until|while)\b|->", re.ASCII)
_PY_DOCSTRING = ("[(class_definition (block (expression_statement (string))))"
                 " (function_definition (block (expression_statement (string))))]")
_JS_SPACE = re.compile(r"\s")


def supported(language: str) -> bool:
    """The languages whose block rules are modelled (see the module's docstring)."""
    return language in _GRAMMARS


class _Parsed:
    """A parsed text with the character <-> byte offset conversions tree-sitter needs."""

    def __init__(self, language: str, text: str) -> None:
        self.language, self.text = language, text
        self.data = text.encode("utf-8")
        self.root = tree_sitter.Parser(grammar(_GRAMMARS[language])).parse(self.data).root_node

    def byte(self, index: int) -> int:
        return len(self.text[:index].encode("utf-8"))

    def index(self, byte: int) -> int:
        return len(self.data[:byte].decode("utf-8", errors="ignore"))

    def at(self, index: int) -> Any:
        at = self.byte(index)
        return self.root.descendant_for_byte_range(at, at)

    def node_text(self, node: Any) -> str:
        return node.text.decode("utf-8", errors="replace")


def _js_trim(text: str) -> str:
    return text.strip()


def _rewind(text: str, offset: int) -> int:
    """rewindToNearestNonWs: just after the nearest non-blank character before `offset`."""
    while offset > 0 and _JS_SPACE.match(text[offset - 1]):
        offset -= 1
    return offset


def _line_at(text: str, offset: int) -> str:
    """getLineAtOffset (JavaScript's lastIndexOf at -1 still looks at index 0)."""
    start = text.rfind("\n", 0, max(offset, 1)) + 1
    end = text.find("\n", offset)
    return text[start:] if end < 0 else text[start:end]


def _node_to_complete(parsed: _Parsed, offset: int) -> Any | None:
    """getNodeMatchAtPosition: the nearest node at or above the offset that holds a block (the
    two modelled languages have no node whose body may be a block or a statement)."""
    node = parsed.at(offset)
    while node is not None and node.type not in _NODE_MATCH[parsed.language]:
        node = node.parent
    return node


def _python_trailing_comments(block: Any) -> Any:
    """getNextBlockAtPosition, Python: comments that end the block belong to it (tree-sitter-python
    issues 112 and 113): inline after its last line, or on later lines indented deeper than its
    parent."""
    if block.parent is None:
        return block
    parent = block.parent.parent if block.parent.type == ":" else block.parent
    following = parent.next_sibling if parent is not None else None
    while following is not None and following.type == "comment":
        inline = (following.start_point.row == block.end_point.row
                  and following.start_point.column >= block.end_point.column)
        at_end = (following.start_point.row > parent.end_point.row
                  and following.start_point.column > parent.start_point.column)
        if not (inline or at_end):
            break
        block, following = following, following.next_sibling
    return block


def _next_block(parsed: _Parsed, offset: int) -> Any | None:
    """getNextBlockAtPosition: the (last) block child of the node at the offset; None when it has
    none yet, or when the block runs to the document's end with errors (earlier errors)."""
    owner = _node_to_complete(parsed, offset)
    if owner is None:
        return None
    kind = _NODE_MATCH[parsed.language][owner.type]
    block = next((child for child in reversed(owner.children) if child.type == kind), None)
    if block is None:
        return None
    if parsed.language == "python":
        block = _python_trailing_comments(block)
    if parsed.index(block.end_byte) >= parsed.index(parsed.root.end_byte) - 1 and (block.has_error or block.parent.has_error):
        return None
    return block


def block_body_finished(language: str, prefix: str, completion: str) -> int | None:
    """isBlockBodyFinished: where the completion ends the block the cursor (at the end of
    `prefix`) opened, in characters of the completion; None while it has not ended (the text
    after the block must be there: the solution is trimmed at its end)."""
    if not supported(language):
        return None
    solution = (prefix + completion).rstrip()
    parsed = _Parsed(language, solution)
    block = _next_block(parsed, len(prefix))
    if block is None:
        return None
    end = parsed.index(block.end_byte)
    if end < len(solution) and end - len(prefix) > 0:
        return end - len(prefix)
    return None


def empty_block_start(language: str, text: str, offset: int) -> bool:
    """isEmptyBlockStart: the cursor (at `offset` of the document `text`) starts the body of a
    block that holds nothing yet."""
    if language == "python":
        return _python_empty_block_start(text, offset)
    if language == "ruby":
        offset = _rewind(text, offset)
        return bool(_RB_LINE.search(_line_at(text, offset).lstrip())) and _ruby_body_empty(text, offset)
    return False


def _ruby_body_empty(text: str, offset: int) -> bool:
    """RegexBasedBlockParser.isBlockBodyEmpty: the text from the cursor (or the block's start,
    if earlier) to the block's `end`, blanks removed, is nothing or `end` (no block: empty)."""
    parsed = _Parsed("ruby", text)
    block = _next_block(parsed, offset)
    if block is None:
        return True
    start = min(parsed.index(block.start_byte), offset)
    body = _js_trim(text[start:parsed.index(block.end_byte)])
    return body == "" or _JS_SPACE.sub("", body) == "end"


def _python_block_empty(parsed: _Parsed, block: Any) -> bool:
    """TreeSitterBasedBlockParser.isBlockEmpty: blank, or a function's or class's docstring alone."""
    if not _js_trim(parsed.node_text(block)):
        return True
    parent = block.parent
    if parent is None or parent.type not in ("class_definition", "function_definition") or len(block.children) != 1:
        return False
    return len(grammar(_GRAMMARS["python"]).query(_PY_DOCSTRING).matches(parent)) == 1


def _python_empty_block_start(text: str, offset: int) -> bool:
    """TreeSitterBasedBlockParser.isEmptyBlockStart, its Python branches."""
    rest = text[offset:].split("\n", 1)[0]
    if rest.strip():
        return False
    offset = _rewind(text, offset)
    if offset == 0:
        return False
    parsed = _Parsed("python", text)
    at = parsed.at(offset - 1)
    node = at
    while node is not None and node.type != "block" and node.type not in _PY_BLOCKS and node.type != "ERROR":
        node = node.parent
    if node is None:
        return False
    if node.type == "block":
        if node.parent is None or node.parent.type not in _PY_BLOCKS:
            return False
        before = node.prev_sibling  # an unclosed docstring parses as an ERROR before the block
        if before is not None and before.has_error and parsed.node_text(before).startswith(('"""', "'''")):
            return True
        return _python_block_empty(parsed, node)
    if node.type == "ERROR":
        return _python_error_block_start(parsed, node, at)
    block = next((child for child in reversed(node.children) if child.type == "block"), None)
    return block is None or _python_block_empty(parsed, block)


def _python_error_block_start(parsed: _Parsed, error: Any, at: Any) -> bool:
    """isEmptyBlockStart under an ERROR node: a block keyword among its children opens the block."""
    before = error.prev_sibling
    if before is not None and before.type in ("module", "internal_module", "def"):
        return True
    # Grammars of ABI 14 and later parse an unfinished docstring as an ERROR (the source's
    # `version >= 14`; both grammars here and in chat-lib are ABI 14).
    if error.has_error and parsed.node_text(error).startswith(('"', "'")):
        if error.parent is not None and error.parent.type in ("function_definition", "class_definition", "module"):
            return True
    children = list(reversed(error.children))
    keyword = next((child for child in children if child.type in _PY_KEYWORDS), None)
    if keyword is None:
        return False
    block = next((child for child in children if child.type == "block"), None)
    if keyword.type == "try" and at.type == "identifier" and len(parsed.node_text(at)) > 4:
        broken = next((child for child in children if child.has_error), None)
        block = next((c for c in broken.children if c.type == "block"), None) if broken is not None else None
    colon, depth = None, 0
    for child in error.children:  # the first ':' outside parentheses (not a parameter's type)
        if child.type == ":" and depth == 0:
            colon = child
            break
        depth += (child.type == "(") - (child.type == ")")
    if colon is not None and keyword.end_byte <= colon.start_byte and colon.next_sibling is not None:
        following = colon.next_sibling
        if keyword.type == "def" and (following.type in ('"', "'") or (
                following.type == "ERROR" and parsed.node_text(following) in ('"""', "'''"))):
            return True
        return False
    if block is not None and block.start_byte > keyword.end_byte:
        return _python_block_empty(parsed, block)
    return True
