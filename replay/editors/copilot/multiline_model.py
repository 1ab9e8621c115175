"""Copilot's multiline model: a small tree ensemble over the prompt's shape that decides, for
JavaScript and Python at a position that is not an empty block's start, whether to ask for
several lines (score > 0.5).

Sources (microsoft/vscode-copilot-chat, src/extension/completions-core/vscode-node/lib/src/
ghostText/): multilineModel.ts (`MultilineModelFeatures`: 14 numeric features of the prompt's
prefix and suffix, the language one-hot, four one-hots of a character), contextualFilterConstants.ts
(printable ASCII ' '..'~' -> 1..95, anything else 0), multilineModelWeights.ts (100 regression
trees summed into a sigmoid). The trees are read from chat-lib 0.66.0's compiled
multilineModelWeights.js (the npm asset "vscode-chat-lib"), not copied here.
"""

from __future__ import annotations

import functools
import math
import re
from dataclasses import dataclass

from replay.assets import asset_path
from replay.errors import WorkError

WEIGHTS = "package/dist/src/_internal/extension/completions-core/vscode-node/lib/src/ghostText/multilineModelWeights.js"
THRESHOLD = 0.5  # ghostTextStrategy.ts requestMultiModelThreshold
LANGUAGES = {"javascript": 1, "javascriptreact": 2, "typescript": 3, "typescriptreact": 4, "python": 5, "go": 6, "ruby": 7}
COMMENTS = {"javascript": ["//"], "typescript": ["//"], "typescriptreact": ["//"], "javascriptreact": ["//"],
            "vue": ["//", "-->"], "php": ["//", "#"], "dart": ["//"], "go": ["//"], "cpp": ["//"], "scss": ["//"],
            "csharp": ["//"], "java": ["//"], "c": ["//"], "rust": ["//"], "python": ["#"], "markdown": ["#", "-->"],
            "css": ["*/"]}
CHARACTERS = 95


class BadModelFile(WorkError):
    """multilineModelWeights.js is not the tree ensemble this reader knows."""


@dataclass(frozen=True)
class Node:
    """A split (`feature` > `threshold` -> `above`, else `below`) or a leaf (`value`)."""

    feature: int = -1
    threshold: float = 0.0
    above: Node | None = None
    below: Node | None = None
    value: float = 0.0

    def predict(self, x: list[float]) -> float:
        node = self
        while node.feature >= 0:
            node = node.above if x[node.feature] > node.threshold else node.below  # type: ignore[assignment]
        return node.value


_IF = re.compile(r"if \(input\[(\d+)\] > ([-+0-9.e]+)\) \{$")
_LEAF = re.compile(r"var\d+ = ([-+0-9.e]+);$")


def parse_trees(source: str) -> list[Node]:
    """The trees of multilineModelWeights.js: `let varN;` then nested `if (input[i] > t) {`
    / `} else {` blocks ending in `varN = v;`, one per tree, before the sigmoid of their sum."""
    lines = [line.strip() for line in source.splitlines()]
    pos = 0

    def node() -> Node:
        nonlocal pos
        line = lines[pos]
        pos += 1
        leaf = _LEAF.match(line)
        if leaf:
            return Node(value=float(leaf.group(1)))
        split = _IF.match(line)
        if not split:
            raise BadModelFile(f"{WEIGHTS}: unexpected line {pos}: {line[:60]!r}")
        above = node()
        if lines[pos] == "}" and lines[pos + 1] == "else {":
            pos += 2
        elif lines[pos] == "} else {":
            pos += 1
        else:
            raise BadModelFile(f"{WEIGHTS}: no else at line {pos + 1}")
        below = node()
        if lines[pos] != "}":
            raise BadModelFile(f"{WEIGHTS}: unclosed block at line {pos + 1}")
        pos += 1
        return Node(feature=int(split.group(1)), threshold=float(split.group(2)), above=above, below=below)

    trees = []
    while pos < len(lines):
        if re.match(r"let var\d+;$", lines[pos]):
            pos += 1
            trees.append(node())
        else:
            pos += 1
    if len(trees) != 100:
        raise BadModelFile(f"{WEIGHTS}: {len(trees)} trees, expected 100")
    return trees


@functools.lru_cache(maxsize=1)
def trees() -> tuple[Node, ...]:
    return tuple(parse_trees((asset_path("vscode-chat-lib") / WEIGHTS).read_text(encoding="utf-8")))


def _first_and_last(text: str) -> tuple[str, str]:
    lines = text.split("\n")
    last = lines[-1]
    if last == "" and len(lines) > 1:
        last = lines[-2]
    return lines[0], last


def _second_to_last_has_comment(text: str, language: str) -> bool:
    lines = [line for line in text.split("\n") if line.strip()]
    if len(lines) < 2:
        return False
    return any(mark in lines[-2] for mark in COMMENTS.get(language, []))


def _char_index(char: str) -> int:
    return ord(char) - 31 if len(char) == 1 and 32 <= ord(char) <= 126 else 0


def features(prefix: str, suffix: str, language: str) -> list[float]:
    """multilineModel.ts MultilineModelFeatures.constructFeatures."""
    first, last = _first_and_last(prefix)
    _, last_rstrip = _first_and_last(prefix.rstrip())
    s_first, s_last = _first_and_last(suffix)
    numeric = [len(prefix), len(first), len(last), len(last.rstrip()), len(last.strip()), len(prefix.rstrip()),
               len(last_rstrip), len(last_rstrip.strip()), len(suffix), len(s_first), len(s_last),
               float(_second_to_last_has_comment(prefix, language)),
               float(_second_to_last_has_comment(prefix.rstrip(), language)), float(prefix.endswith("\n"))]
    vector = numeric + [0.0] * (len(LANGUAGES) + 1)
    vector[len(numeric) + LANGUAGES.get(language, 0)] = 1.0
    for char in (prefix[-1:], prefix.rstrip()[-1:], suffix[:1], suffix.lstrip()[:1]):
        onehot = [0.0] * (CHARACTERS + 1)
        onehot[_char_index(char)] = 1.0
        vector += onehot
    return vector


def score(prefix: str, suffix: str, language: str) -> float:
    """multilineModel.ts requestMultilineScore: the probability of "multiline"."""
    x = features(prefix, suffix, language)
    total = sum(tree.predict(x) for tree in trees())
    if total < 0:
        z = math.exp(total)
        return z / (1 + z)
    return 1 / (1 + math.exp(-total))
