"""Solidity for CodeBLEU: its keywords and a data-flow extractor over tree-sitter-solidity 1.2.11.

Keywords: the language's keywords, elementary type names, literals and units, and the reserved
words, as listed by the Solidity documentation (docs.soliditylang.org: "Reserved Keywords",
"Types", "Units and Globally Available Variables"; grammar in ethereum/solidity
docs/grammar/SolidityLexer.g4) and by the Slang specification (NomicFoundation/slang,
solidity-specification 01-file-structure/08-keywords). Contextual pragma words (`solidity`,
`abicoder`, `experimental`) and builtins (`msg`, `require`) are identifiers, not keywords.

Data flow: the same kind of graph the `codebleu` package builds for its C-like languages
(codebleu/parser/DFG.py): a leaf identifier "comesFrom" the last places that defined it; a
declaration with a value "comesFrom" the value's variables; an assignment (plain or compound)
is "computedFrom" its right side; `x++` is computedFrom itself; both branches of an `if` are
followed and their definitions merged; loop bodies are followed twice so that a value carried
around the loop is seen. Node names are tree-sitter-solidity's (grammar.js of
JoranHonig/tree-sitter-solidity 1.2.11): variable_declaration_statement (with a
variable_declaration or variable_declaration_tuple and a `value`), state_variable_declaration,
parameter, assignment_expression, augmented_assignment_expression, update_expression,
if_statement, for_statement, while_statement, do_while_statement.
"""

from __future__ import annotations

from typing import Any

_KEYWORDS = """
abstract address anonymous as assembly bool break bytes calldata catch constant constructor
continue contract delete do else emit enum error event external fallback false for from function
global hex if immutable import indexed interface internal is library mapping memory modifier new
override payable pragma private public pure receive return returns revert storage string struct
super this transient true try type unchecked unicode using view virtual while
int uint fixed ufixed byte
wei gwei ether seconds minutes hours days weeks years
after alias apply auto case copyof default define final implements in inline let macro match
mutable null of partial promise reference relocatable sealed sizeof static supports switch typedef
typeof var
"""


def keywords() -> frozenset[str]:
    """Solidity keywords, with the sized elementary types (uint8..uint256, bytes1..bytes32)."""
    words = set(_KEYWORDS.split())
    for bits in range(8, 257, 8):
        words.update((f"int{bits}", f"uint{bits}"))
    words.update(f"bytes{n}" for n in range(1, 33))
    return frozenset(words)


_LEAF_BLOCKS = ("string_literal", "string", "character_literal")
_IF = ("if_statement", "else")
_LOOPS_TWICE = ("while_statement", "do_while_statement")


def _is_leaf(node: Any) -> bool:
    return (not node.children or node.type in _LEAF_BLOCKS) and node.type != "comment"


def token_index(root: Any, code: str) -> dict[tuple[int, int], tuple[int, str]]:
    """The tree's leaves, in order: (start byte, end byte) -> (position, text). The leaves and
    their texts are the `codebleu` package's (codebleu/parser/utils.py tree_to_token_index and
    index_to_code_token), keyed by byte offsets instead of (row, column) points: the same
    spans, without making two point objects for every lookup. In ASCII text a byte offset is a
    character offset, so a one-line leaf's text is that slice of the text (the package joins
    the lines of a multi-line leaf without their newlines: those go through its function)."""
    from codebleu.parser import index_to_code_token

    lines = code.split("\n")
    ascii_text = code.isascii()
    index: dict[tuple[int, int], tuple[int, str]] = {}
    stack = [root]
    position = 0
    while stack:
        node = stack.pop()
        if _is_leaf(node):
            start, end = node.start_byte, node.end_byte
            text = code[start:end] if ascii_text else "\n"
            if "\n" in text:
                text = index_to_code_token((node.start_point, node.end_point), lines)
            index[(start, end)] = (position, text)
            position += 1
        else:
            stack.extend(reversed(node.children))
    return index


def _variables(node: Any, index_to_code: dict) -> list[tuple[int, int]]:
    """The leaves under `node` that are not punctuation or keywords (their text is not their
    type), in order (the package's tree_to_variable_index)."""
    found = []
    stack = [node] if node is not None else []
    while stack:
        n = stack.pop()
        if _is_leaf(n):
            span = (n.start_byte, n.end_byte)
            if n.type != index_to_code[span][1]:
                found.append(span)
        else:
            stack.extend(reversed(n.children))
    return found


def dataflow(root: Any, code: str) -> list[tuple]:
    """The raw data-flow edges of a parsed text (dfg_solidity over its token index)."""
    edges, _ = dfg_solidity(root, token_index(root, code), {})
    return edges


def _merge_loop(edges: list[tuple]) -> list[tuple]:
    """One edge per (name, index, relation), sources united in the order they are first seen
    (not through a set, whose order follows the hash seed: see replay.scoring.codebleu_engine.first_seen):
    a loop walked twice repeats edges."""
    merged: dict[tuple, list] = {}
    for name, idx, rel, srcs, idxs in edges:
        key = (name, idx, rel)
        if key in merged:
            merged[key][0] = list(dict.fromkeys(merged[key][0] + srcs))
            merged[key][1] = sorted(set(merged[key][1] + idxs))
        else:
            merged[key] = [srcs, idxs]
    return [(k[0], k[1], k[2], v[0], v[1]) for k, v in sorted(merged.items(), key=lambda kv: kv[0][1])]


def dfg_solidity(node: Any, index_to_code: dict, states: dict) -> tuple[list[tuple], dict]:
    """Data-flow edges (name, token index, relation, source names, source indexes) and states."""
    states = states.copy()
    kind = node.type
    if _is_leaf(node):
        idx, code = index_to_code[(node.start_byte, node.end_byte)]
        if kind == code:  # punctuation or a keyword
            return [], states
        if code in states:
            return [(code, idx, "comesFrom", [code], states[code].copy())], states
        if kind == "identifier":
            states[code] = [idx]
        return [(code, idx, "comesFrom", [], [])], states

    if kind in ("variable_declaration_statement", "state_variable_declaration", "parameter"):
        return _declaration(node, index_to_code, states)

    if kind in ("assignment_expression", "augmented_assignment_expression"):
        left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
        edges, states = dfg_solidity(right, index_to_code, states)
        for target in _variables(left, index_to_code):
            t_idx, t_code = index_to_code[target]
            for source in _variables(right, index_to_code):
                s_idx, s_code = index_to_code[source]
                edges.append((t_code, t_idx, "computedFrom", [s_code], [s_idx]))
            states[t_code] = [t_idx]
        return sorted(edges, key=lambda e: e[1]), states

    if kind == "update_expression":
        spots = _variables(node, index_to_code)
        edges = []
        for target in spots:
            t_idx, t_code = index_to_code[target]
            for source in spots:
                s_idx, s_code = index_to_code[source]
                edges.append((t_code, t_idx, "computedFrom", [s_code], [s_idx]))
            states[t_code] = [t_idx]
        return sorted(edges, key=lambda e: e[1]), states

    if kind == "if_statement":
        return _if(node, index_to_code, states)

    if kind == "for_statement":
        return _for(node, index_to_code, states)

    if kind in _LOOPS_TWICE:
        edges = []
        for _ in range(2):
            for child in node.children:
                found, states = dfg_solidity(child, index_to_code, states)
                edges += found
        return _merge_loop(edges), states

    edges = []
    for child in node.children:
        found, states = dfg_solidity(child, index_to_code, states)
        edges += found
    return sorted(edges, key=lambda e: e[1]), states


def _declaration(node: Any, index_to_code: dict, states: dict) -> tuple[list[tuple], dict]:
    """A declaration's edges: each declared name comes from the names of its value (from
    nothing without one)."""
    if node.type == "variable_declaration_statement":
        targets = [c for c in node.children if c.type in ("variable_declaration", "variable_declaration_tuple")]
        names = [v for t in targets for v in _variables(t, index_to_code) if _declared_name(t, v)]
    else:
        names = _variables(node.child_by_field_name("name"), index_to_code)
    value = node.child_by_field_name("value")
    edges: list[tuple] = []
    if value is not None:
        found, states = dfg_solidity(value, index_to_code, states)
        edges += found
    sources = _variables(value, index_to_code)
    for target in names:
        t_idx, t_code = index_to_code[target]
        if value is None:
            edges.append((t_code, t_idx, "comesFrom", [], []))
        for source in sources:
            s_idx, s_code = index_to_code[source]
            edges.append((t_code, t_idx, "comesFrom", [s_code], [s_idx]))
        states[t_code] = [t_idx]
    return sorted(edges, key=lambda e: e[1]), states


def _for(node: Any, index_to_code: dict, states: dict) -> tuple[list[tuple], dict]:
    """A for loop's edges: walked once, then again from after its initialiser (the values
    carried into the next iteration)."""
    edges = []
    for child in node.children:
        found, states = dfg_solidity(child, index_to_code, states)
        edges += found
    initial = node.child_by_field_name("initial")
    after = False
    for child in node.children:
        if after:
            found, states = dfg_solidity(child, index_to_code, states)
            edges += found
        elif initial is not None and child.id == initial.id:
            after = True
    return _merge_loop(edges), states


def _declared_name(declaration: Any, span: tuple) -> bool:
    """Only the declared names of a declaration count as targets, not identifiers in its type
    (e.g. a user-defined type name `IERC20 token`)."""
    names = []
    stack = [declaration]
    while stack:
        n = stack.pop()
        name = n.child_by_field_name("name") if n.type == "variable_declaration" else None
        if name is not None:
            names.append((name.start_byte, name.end_byte))
        stack.extend(c for c in n.children if c.type in ("variable_declaration", "variable_declaration_tuple"))
    return span in names


def _if(node: Any, index_to_code: dict, states: dict) -> tuple[list[tuple], dict]:
    """The `then` part runs on from the current states; the `else` part (after the `else`
    token) from the states before the `if`; afterwards a name may come from either."""
    edges: list[tuple] = []
    current = states.copy()
    branches: list[dict] = []
    in_else = False
    has_else = False
    for child in node.children:
        if child.type == "else":
            in_else = has_else = True
        if not in_else:
            found, current = dfg_solidity(child, index_to_code, current)
        else:
            found, new = dfg_solidity(child, index_to_code, states)
            branches.append(new)
        edges += found
    branches.append(current)
    if not has_else:
        branches.append(states)
    merged: dict[str, list[int]] = {}
    for branch in [*branches, states]:
        for key, value in branch.items():
            merged.setdefault(key, []).extend(value)
    return sorted(edges, key=lambda e: e[1]), {k: sorted(set(v)) for k, v in merged.items()}


def strip_comments(code: str) -> str:
    """Comments removed and blank lines dropped, as the `codebleu` package does for C-like
    languages (codebleu/parser/utils.py remove_comments_and_docstrings); Solidity's comment
    and string syntax is the C-like one. A text without `//` or `/*` has no comment to remove
    (the package's expression replaces each string by itself), so only its blank lines are
    dropped, the package's last step, without running the expression over it."""
    if "//" not in code and "/*" not in code:
        return "\n".join(line for line in code.split("\n") if line.strip() != "")
    from codebleu.parser import remove_comments_and_docstrings

    return remove_comments_and_docstrings(code, "solidity")

