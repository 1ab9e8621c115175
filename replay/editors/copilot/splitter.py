"""Copilot's statement splitter: how its client reads a multiline stream in JavaScript,
TypeScript and Go after the user accepted the whole item on screen (the only time those
languages, trimmed by default, ask a multiline answer).

Sources (microsoft/vscode-copilot-chat, src/extension/completions-core/vscode-node/lib/src/;
read in @vscode/chat-lib 0.66.0's compiled dist of the same paths, the release modelled):
- ghostText/ghostTextStrategy.ts `buildFinishedCallback`: a multiline request in a
  MoreMultiline language reads the stream through a `StreamedCompletionSplitter` (not single
  line first), whose look-ahead is experiments/features.ts `longLookaheadSize` (9) when the
  cursor is in an empty block or at a block's end (blockTrimmer.ts `getBlockPositionType`, over
  the whole document), else `shortLookaheadSize` (3).
- ghostText/streamedCompletionSplitter.ts: at each chunk holding a newline (and at the stream's
  end, openai/fetch.ts `convertStreamToApiChoices`) a `TerseBlockTrimmer` over the text not yet
  split, after the (trimmed) text before the cursor and the parts split off before it, gives
  where the next part ends. The first part is the choice the client shows (the stream goes on);
  each later part, trailing blanks trimmed, blank ones dropped, is put in the completions cache
  under the prefix extended by the parts before it. At the end the rest is split whole.
- ghostText/blockTrimmer.ts `TerseBlockTrimmer` (line limit 3): the part ends where the
  compound statement holding the first statement ends, at the first blank line after some
  text, where a compound statement or non-statement text follows simple statements (or after
  a first compound statement followed by another statement); when none of these comes within
  the line limit plus the look-ahead, at the end of the third line.
- ghostText/statementTree.ts: the statements are the nodes the language's query captures
  (JavaScript/TypeScript: the `statement` choices plus method and field definitions; Go:
  `_statement`, declarations, `block`), nested by range; an `if` on one line without braces is
  one statement (JavaScript/TypeScript only).

Grammars: chat-lib parses with the wasm grammars of @vscode/tree-sitter-wasm 0.0.5-php.2 (from
tree-sitter-javascript ^0.23.0, tree-sitter-typescript ^0.23.0 with tsx for typescriptreact,
tree-sitter-go ^0.23.4, ABI 14); here the PyPI wheels tree-sitter-typescript 0.23.2 (its
PyCapsule unwrapped for py-tree-sitter 0.22.3, which takes the pointer as an int),
tree-sitter-javascript 0.21.4 and tree-sitter-go 0.21.2 (0.21: the scoring's codebleu loads
the grammars it finds installed, and cannot load a 0.23 capsule). On broken documents error
recovery is where grammar versions part: with tree-sitter-typescript 0.21.2 one TypeScript
position of 110 compared (a class cut open in a constructor's parameters) found another block
position than chat-lib; 0.23.2 agrees. Offsets are characters here, UTF-16 units there (the
same outside the astral planes).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

import tree_sitter

from replay.editors.copilot.grammars import grammar

LINE_LIMIT = 3  # streamedCompletionSplitter.ts lineLimit
LONG_LOOKAHEAD = 9  # features.ts longLookaheadSize default
SHORT_LOOKAHEAD = 3  # features.ts shortLookaheadSize default

_STATEMENTS = ("export_statement import_statement debugger_statement expression_statement declaration "
               "statement_block if_statement switch_statement for_statement for_in_statement while_statement "
               "do_statement try_statement with_statement break_statement continue_statement return_statement "
               "throw_statement empty_statement labeled_statement method_definition")
_JS_QUERY = f"[{' '.join(f'({t})' for t in (_STATEMENTS + ' field_definition').split())}] @statement"
_TS_QUERY = f"[{' '.join(f'({t})' for t in (_STATEMENTS + ' public_field_definition').split())}] @statement"
_GO_QUERY = "[(package_clause) (function_declaration) (method_declaration) (import_declaration) (_statement) (block)] @statement"
_JS_COMPOUND = frozenset(("function_declaration generator_function_declaration class_declaration statement_block "
                          "if_statement switch_statement for_statement for_in_statement while_statement do_statement "
                          "try_statement with_statement labeled_statement method_definition interface_declaration").split())
_GO_COMPOUND = frozenset(("function_declaration method_declaration if_statement for_statement expression_switch_statement "
                          "type_switch_statement select_statement block").split())
# languageId -> (module, its language function, query, compound types, one-line ifs collapse)
_LANGUAGES = {
    "javascript": ("tree_sitter_javascript", "language", _JS_QUERY, _JS_COMPOUND, True),
    "javascriptreact": ("tree_sitter_javascript", "language", _JS_QUERY, _JS_COMPOUND, True),
    "jsx": ("tree_sitter_javascript", "language", _JS_QUERY, _JS_COMPOUND, True),
    "typescript": ("tree_sitter_typescript", "language_typescript", _TS_QUERY, _JS_COMPOUND, True),
    "typescriptreact": ("tree_sitter_typescript", "language_tsx", _TS_QUERY, _JS_COMPOUND, True),
    "go": ("tree_sitter_go", "language", _GO_QUERY, _GO_COMPOUND, False),
}
_BLANK_LINE = re.compile(r"\r?\n\s*\r?\n")


def supported(language: str) -> bool:
    """statementTree.ts isTrimmedByDefault: the languages the splitter reads."""
    return language in _LANGUAGES


@lru_cache(maxsize=None)
def _grammar(language: str) -> tuple[tree_sitter.Language, Any]:
    module, function, query, _, _ = _LANGUAGES[language]
    lang = grammar(module, function)
    return lang, lang.query(query)


def _sub(text: str, start: int, end: int | None = None) -> str:
    """JavaScript's String.substring: both ends clamped to the text, swapped when reversed."""
    end = len(text) if end is None else end
    start, end = (min(max(x, 0), len(text)) for x in (start, end))
    return text[min(start, end):max(start, end)]


@dataclass(eq=False)
class Statement:
    """statementTree.ts StatementNode: a captured node, its character range, its nesting."""

    type: str
    start: int
    end: int
    rows: tuple[int, int]
    compound_types: frozenset[str]
    alternative: bool = False
    children: list[Statement] = field(default_factory=list)
    parent: Statement | None = None
    next_sibling: Statement | None = None
    collapsed: bool = False

    @property
    def compound_type(self) -> bool:
        return not self.collapsed and self.type in self.compound_types

    @property
    def compound(self) -> bool:
        """blockTrimmer.ts isCompoundStatement."""
        return self.compound_type or bool(self.children)

    def at(self, offset: int) -> Statement | None:
        if self.start > offset or self.end < offset:
            return None
        return next((m for m in (c.at(offset) for c in self.children) if m is not None), self)

    def single_line_if(self) -> bool:
        """JSStatementNode isSingleLineIfStatement (collapsed when its children are finished)."""
        if self.type != "if_statement" or self.rows[0] != self.rows[1]:
            return False
        kinds = [c.type for c in self.children]
        return (len(kinds) == 1 and kinds[0] != "statement_block") or (
            len(kinds) == 2 and self.alternative and "statement_block" not in kinds)


def statements(language: str, text: str, start: int, end: int) -> list[Statement]:
    """statementTree.ts StatementTree.build: the top-level statements that meet [start, end)."""
    lang, query = _grammar(language)
    _, _, _, compound, collapse_ifs = _LANGUAGES[language]
    data = text.encode("utf-8")
    chars: list[int] = []  # byte offset -> character offset, for a text that is not all ASCII
    if len(data) != len(text):
        for index, character in enumerate(text):
            chars.extend([index] * len(character.encode("utf-8")))
        chars.append(len(text))

    def char(byte: int) -> int:
        return chars[byte] if chars else byte

    def point(offset: int) -> tuple[int, int]:
        before = text[:offset]
        line_start = before.rfind("\n") + 1
        return before.count("\n"), len(before[line_start:].encode("utf-8"))

    root = tree_sitter.Parser(lang).parse(data).root_node
    top: list[Statement] = []
    parents: list[Statement] = []

    def finished(stmt: Statement) -> None:
        if collapse_ifs and stmt.single_line_if():
            stmt.children.clear()
            stmt.collapsed = True

    for node, _ in query.captures(root, start_point=point(start), end_point=point(end)):
        stmt = Statement(node.type, char(node.start_byte), char(node.end_byte), (node.start_point[0], node.end_point[0]),
                         compound, node.child_by_field_name("alternative") is not None)
        while parents and not (parents[0].start <= stmt.start and parents[0].end >= stmt.end):
            finished(parents.pop(0))
        siblings = parents[0].children if parents else top
        if siblings:
            siblings[-1].next_sibling = stmt
        stmt.parent = parents[0] if parents else None
        siblings.append(stmt)
        parents.insert(0, stmt)
    for stmt in parents:
        finished(stmt)
    return top


def _statement_at(top: list[Statement], offset: int) -> Statement | None:
    return next((m for m in (s.at(offset) for s in top) if m is not None), None)


def block_position_lookahead(language: str, document: str, cursor: int) -> int:
    """ghostTextStrategy.ts buildFinishedCallback's look-ahead from blockTrimmer.ts
    getBlockPositionType at the cursor: long in an empty block or at a block's end."""
    stmt = _statement_at(statements(language, document, 0, len(document)), cursor)
    if stmt is None:
        return SHORT_LOOKAHEAD
    if not stmt.compound_type and not stmt.children:
        block_end = stmt.parent is not None and stmt.next_sibling is None and stmt.rows[1] <= document[:cursor].count("\n")
        return LONG_LOOKAHEAD if block_end else SHORT_LOOKAHEAD
    if not stmt.children or cursor >= stmt.children[-1].start:
        return LONG_LOOKAHEAD
    return SHORT_LOOKAHEAD


class TerseTrimmer:
    """blockTrimmer.ts TerseBlockTrimmer: where a completion after `prefix` should end."""

    def __init__(self, language: str, prefix: str, completion: str, lookahead: int) -> None:
        self.language, self.prefix, self.completion = language, prefix, completion
        ends = [m.start() for m in re.finditer("\n", completion)]
        self.limit = ends[LINE_LIMIT - 1] if len(ends) >= LINE_LIMIT else None
        self.lookahead = ends[LINE_LIMIT + lookahead - 1] if len(ends) >= LINE_LIMIT + lookahead else None

    def offset(self) -> int | None:
        """getCompletionTrimOffset (None: not yet)."""
        top = statements(self.language, self.prefix + self.completion, len(self.prefix), len(self.prefix + self.completion))
        first = re.search(r"\S", self.completion)
        stmt = _statement_at(top, len(self.prefix) + first.start() if first else max(len(self.prefix) - 1, 0))
        offset = self._containing_block(stmt)
        offset = self._first_blank_line(offset)
        if stmt is not None:
            offset = self._statement_change(stmt, offset)
        if self.limit and self.lookahead and (offset is None or offset > self.lookahead):
            return self.limit
        return offset

    def _containing_block(self, stmt: Statement | None) -> int | None:
        """getContainingBlockOffset: not past the compound statement holding the first one."""
        trim_to = stmt
        while trim_to is not None and not trim_to.compound:
            trim_to = trim_to.parent
        if trim_to is not None:
            offset = trim_to.end - len(self.prefix)
            if offset and _sub(self.completion, offset).strip():
                return offset
        return None

    def _first_blank_line(self, offset: int | None) -> int | None:
        """trimAtFirstBlankLine."""
        text = self.completion if offset is None else _sub(self.completion, 0, offset)
        for match in _BLANK_LINE.finditer(text):
            if offset is not None and offset <= match.start():
                break
            if _sub(self.completion, 0, match.start()).strip():
                return match.start()
        return offset

    def _content_after(self, stmt: Statement) -> bool:
        """hasNonStatementContentAfter."""
        if stmt.next_sibling is None:
            return False
        start, end = stmt.end - len(self.prefix), stmt.next_sibling.start - len(self.prefix)
        return bool(_sub(self.completion, max(0, start), max(0, end)).strip())

    def _statement_change(self, stmt: Statement, offset: int | None) -> int | None:
        """trimAtStatementChange."""
        low = len(self.prefix)
        high = low + (len(self.completion) if offset is None else offset)
        if stmt.end > low and stmt.compound:
            return stmt.end - low if stmt.next_sibling is not None and stmt.end < high else offset
        last, following = stmt, stmt.next_sibling
        while following is not None and following.end <= high and not self._content_after(last) and not following.compound:
            last, following = following, following.next_sibling
        if following is not None and low < last.end < high:
            return last.end - low
        return offset


@dataclass
class Split:
    """What the splitter made of a stream: the first part's length (None: not split, the whole
    stream is the choice), how much of the stream was read when it was yielded, and the later
    parts put in the cache as (text added to the prefix, the part)."""

    first: int | None
    read: int
    cached: list[tuple[str, str]]


def split_stream(language: str, prefix: str, raw: str, ends: list[int], lookahead: int) -> Split:
    """streamedCompletionSplitter.ts over a stream whose chunks end at `ends`: asked at every
    chunk holding a newline, then once more, finished, at the end (trimAll)."""
    start, trims, cached = 0, 0, []
    first: int | None = None
    read = len(raw)

    def trim(text: str) -> int | None:
        return TerseTrimmer(language, prefix + _sub(text, 0, start), _sub(text, start), lookahead).offset()

    def cut(text: str, offset: int | None) -> None:
        nonlocal start, trims
        part = _sub(text, start, start + (len(_sub(text, start)) if offset is None else offset))
        if trims and part.strip():
            cached.append((_sub(text, 0, start), part.rstrip()))
        start += len(_sub(text, start)) if offset is None else offset
        trims += 1

    previous = 0
    for end in ends:
        if "\n" in raw[previous:end]:
            text = raw[:end]
            offset = trim(text)
            if offset is not None:
                if not trims:
                    first, read = offset, end
                cut(text, offset)
        previous = end
    while True:  # trimAll on the finished stream
        offset = trim(raw)
        if not trims and offset is not None:
            first, read = offset, len(raw)
        cut(raw, offset)
        if offset is None:
            return Split(first, read, cached)


def finished_reader(language: str, document: str, cursor: int, prefix: str) -> Callable[[str, list[int]], Split]:
    """The splitter for this cursor (`prefix`: the text before it, a blank last line trimmed)."""
    lookahead = block_position_lookahead(language, document, cursor)
    return lambda raw, ends: split_stream(language, prefix, raw, ends, lookahead)
