"""Where Copilot's client keeps the choices it received, and how it finds them again.

Sources (microsoft/vscode-copilot-chat, src/extension/completions-core/vscode-node/lib/src/;
checked against chat-lib 0.66.0's compiled dist and the bundle of copilot-language-server
1.539.0, whose `dist/main.js` holds the same code):
- ghostText/completionsCache.ts `CompletionsCache`: the choices are kept by the text before
  the cursor (trailing blanks of a blank last line removed) in an `LRURadixTrie` of 100
  prefixes (helpers/radix.ts), each with the prompt suffix it was asked with; `findAll` gives,
  for every kept prefix the trie finds on its way to the new prefix, longest first, the choices
  of the same suffix that start with the rest of the new prefix and go beyond it, less that rest.
- helpers/radix.ts: the trie walks down one path: at each node the first child edge (in the
  order the edges were added) that the key starts with. A new key that is a prefix of an edge
  splits it; a new key that only shares a start with an edge becomes a sibling edge. So a key
  added after two siblings that share its start splits only the first of them, and a lookup that
  goes down the other sibling never sees it (nor the choices kept under it). When more than 100
  prefixes hold choices, the least recently read or written one is dropped.
- ghostText/asyncCompletions.ts `AsyncCompletionManager`: every request whose stream gave a
  choice stays there (100 at most, in the order they completed) with its prefix, prompt suffix
  and first choice. When neither the item on screen nor the cache answers, ghostText.ts asks it
  (`shouldWaitForAsyncCompletions`, `getFirstMatchingRequestWithTimeout`): the first of them
  whose prefix the new one extends, with the same suffix, whose choice starts with the rest and
  goes beyond it, answers (`ResultType.Async`, cut to one line for a single-line request), and
  nothing is sent. It holds only first choices: the statement splitter's later parts are in the
  cache alone.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import count
from typing import Generic, TypeVar

from replay.editors.copilot.answer import Choice

V = TypeVar("V")

MAX_PREFIXES = 100  # completionsCache.ts `new LRURadixTrie(100)`
MAX_REQUESTS = 100  # asyncCompletions.ts `new LRUCacheMap(100)`


@dataclass(eq=False)
class _Node(Generic[V]):
    """radix.ts LRURadixNode: children by edge in the order added, a value, when last touched."""

    touched: int
    children: dict[str, _Node[V]] = field(default_factory=dict)
    value: V | None = None
    parent: tuple[_Node[V], str] | None = None

    def add(self, edge: str, child: _Node[V]) -> None:
        self.children[edge] = child
        child.parent = (self, edge)

    def remove(self, edge: str) -> None:
        child = self.children.pop(edge, None)
        if child is not None:
            child.parent = None


class RadixTrie(Generic[V]):
    """radix.ts LRURadixTrie (its quirks kept: one path walked, siblings never re-split)."""

    def __init__(self, max_size: int = MAX_PREFIXES) -> None:
        self._clock = count()
        self.max_size = max_size
        self.root: _Node[V] = _Node(next(self._clock))
        self.leaves: dict[int, _Node[V]] = {}  # the nodes holding a value, in the order first given one

    def _touch(self, node: _Node[V]) -> None:
        node.touched = next(self._clock)

    def _walk(self, key: str) -> tuple[_Node[V], str, list[tuple[_Node[V], str]]]:
        """findClosestNode: the node the walk ends at, the key left, the nodes passed (deepest first)."""
        node, stack = self.root, [(self.root, key)]
        moved = True
        while key and moved:
            moved = False
            for edge, child in node.children.items():
                if key.startswith(edge):
                    key = key[len(edge):]
                    stack.insert(0, (child, key))
                    node, moved = child, True
                    break
        return node, key, stack

    def find_all(self, key: str) -> list[tuple[str, V]]:
        """findAll: (the rest of `key`, value) of every node with a value on the walk, deepest first
        (each read touches its node)."""
        found = []
        for node, rest in self._walk(key)[2]:
            if node.value is not None:
                self._touch(node)
                found.append((rest, node.value))
        return found

    def set(self, key: str, value: V) -> None:
        node, rest, _ = self._walk(key)
        if rest:
            for edge, child in list(node.children.items()):
                if edge.startswith(rest):  # the new key ends inside this edge: split it there
                    middle = _Node[V](next(self._clock))
                    node.remove(edge)
                    node.add(rest, middle)
                    middle.add(edge[len(rest):], child)
                    node, rest = middle, ""
                    break
            if rest:
                leaf = _Node[V](next(self._clock))
                node.add(rest, leaf)
                node = leaf
        node.value = value
        self._touch(node)
        self.leaves.setdefault(id(node), node)
        if len(self.leaves) > self.max_size:
            self._delete(min(self.leaves.values(), key=lambda n: n.touched))

    def _delete(self, node: _Node[V]) -> None:
        """deleteNode: drop the value; fold the node into its parent's edge where it is left with
        one child or none."""
        node.value = None
        self.leaves.pop(id(node), None)
        if node.parent is None or len(node.children) > 1:
            return
        parent, edge = node.parent
        if len(node.children) == 1:
            child_edge, child = next(iter(node.children.items()))
            node.remove(child_edge)
            parent.remove(edge)
            parent.add(edge + child_edge, child)
            return
        parent.remove(edge)
        if parent.parent is None:
            return
        grandparent, parent_edge = parent.parent
        self._touch(parent)  # radix.ts reads `parent.value` through its getter, which touches
        if parent.value is None and len(parent.children) == 1:
            child_edge, child = next(iter(parent.children.items()))
            parent.remove(child_edge)
            grandparent.remove(parent_edge)
            grandparent.add(parent_edge + child_edge, child)


def _rest(choice: Choice, typed: str) -> Choice | None:
    """The choice less what was typed (None: it does not start with it, or has nothing beyond it)."""
    if not choice.text.startswith(typed) or len(choice.text) <= len(typed):
        return None
    return choice.rest(choice.text[len(typed):])


class CompletionsCache:
    """completionsCache.ts: the choices kept by prefix, each with its prompt suffix."""

    def __init__(self) -> None:
        self.trie: RadixTrie[list[tuple[str, Choice]]] = RadixTrie()

    def append(self, prefix: str, suffix: str, choice: Choice) -> None:
        """append: added to the prefix's list when the trie finds that very prefix, else a new list."""
        found = self.trie.find_all(prefix)
        kept = found[0][1] if found and found[0][0] == "" else []
        self.trie.set(prefix, [*kept, (suffix, choice)])

    def find(self, prefix: str, suffix: str) -> list[Choice]:
        """findAll: the choices of this suffix that go on from `prefix`, less what was typed since
        the prefix they were kept under, the longest such prefix first."""
        return [left for typed, kept in self.trie.find_all(prefix) for kept_suffix, choice in kept
                if kept_suffix == suffix and (left := _rest(choice, typed)) is not None]


@dataclass(frozen=True)
class Completed:
    """A request the async manager holds: its prefix, prompt suffix and first choice."""

    prefix: str
    suffix: str
    choice: Choice


@dataclass
class CompletedRequests:
    """asyncCompletions.ts: the requests whose stream gave a choice, in the order they completed."""

    requests: list[Completed] = field(default_factory=list)

    def add(self, prefix: str, suffix: str, choice: Choice) -> None:
        self.requests.append(Completed(prefix, suffix, choice))
        del self.requests[:-MAX_REQUESTS]

    def first_match(self, prefix: str, suffix: str) -> Choice | None:
        """The answer `getFirstMatchingRequest` resolves with when none is in flight: the first
        candidate (isCandidate: same suffix, a prefix the new one extends, a choice that starts
        with the rest and, trimmed at its end, goes beyond it), less the rest."""
        for request in self.requests:
            if request.suffix == suffix and prefix.startswith(request.prefix):
                typed = prefix[len(request.prefix):]
                if request.choice.text.startswith(typed) and len(request.choice.text.rstrip()) > len(typed):
                    return request.choice.rest(request.choice.text[len(typed):])
        return None
