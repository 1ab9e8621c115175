"""Similar-file snippets: which open tabs Copilot compares with the cursor, and the window it takes.

Sources (microsoft/vscode-copilot-chat, src/extension/completions-core/vscode-node/; checked
against chat-lib 0.66.0's compiled dist):
- lib/src/prompt/similarFiles/openTabFiles.ts `truncateDocs`: the open documents in the editor's
  order (most recently focused first), `file:` documents only and only for a `file:` document
  (an untitled buffer gets no snippets, nor does an untitled tab give any), skipping the
  current one (the same URI), those of another language (neighborFiles.ts
  `considerNeighborFile`: normalizeLanguageId of the detected languages equal, languages.py) and any that would bring the total past
  200,000 characters (`MAX_NEIGHBOR_AGGREGATE_LENGTH`), at most 20 (`MAX_NEIGHBOR_FILES`);
  each named by the document manager's `getRelativePath` (uris.py), wherever it lies.
- prompt/src/snippetInclusion/similarFiles.ts `defaultSimilarFilesOptions` and
  `getSimilarSnippets`: files under 10,000 characters, the first 20, one snippet per file, a
  score above 0, the best 4, in ascending score order. A document the client names `cpp` (C and
  C++ files, languages.py) has `defaultCppSimilarFilesOptions` instead
  (lib/src/experiments/similarFileOptionsProvider.ts `getSimilarFilesOptions`, keyed by the
  detected language, `cpp` only): files under 100,000 characters, the first 200, the best 4
  windows of each (selectRelevance.ts `findBestMatch`: in descending score, those not 0), the
  best 16 in all.
- prompt/src/snippetInclusion/jaccardMatching.ts and selectRelevance.ts: the reference is the
  last 60 lines before the cursor (cursorContext.ts); every 60-line window of the other file
  (windowDelineations.ts `getBasicWindowDelineations`) is scored by the Jaccard index of the
  sets of words (`[^a-zA-Z0-9]` splits) minus the generic stop words; overlapping windows keep the
  best of them.
- prompt/src/snippetInclusion/snippets.ts `announceSnippet`: the headline
  `Compare this snippet from <relative path>:`.

Copilot takes other files' text from the open tabs only. An input that gives no open files but
gives snippets (a public benchmark's cross-file context: replay.benchmarks) has them open as
tabs by SNIPPET_TABS, so the client picks its windows from them as from any tab.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import msgspec

from replay.records import EditorInput, OpenFile

WINDOW = 60
MAX_NEIGHBOR_FILES = 20
MAX_NEIGHBOR_AGGREGATE_LENGTH = 200_000
# prompt/src/prompt.ts languageNormalizationMap
_NORMALIZED = {"javascriptreact": "javascript", "jsx": "javascript", "typescriptreact": "typescript", "jade": "pug",
               "cshtml": "razor", "c": "cpp"}
# selectRelevance.ts ENGLISH_STOPS and GENERIC_STOPS (SPECIFIC_STOPS is empty)
_ENGLISH_STOPS = frozenset(
    "we our you it its they them their this that these those is are was were be been being have has had having do does "
    "did doing can don t s will would should what which who when where why how a an the and or not no but because as "
    "until again further then once here there all any both each few more most other some such above below to during "
    "before after of at by about between into through from up down in out on off over under only own same so than too "
    "very just now".split())
STOPS = frozenset(
    "if then else for while with def function return TODO import try catch raise finally repeat switch case match assert "
    "continue break const class enum struct static new super this var".split()) | _ENGLISH_STOPS


@dataclass(frozen=True)
class SimilarFilesOptions:
    """similarFiles.ts's options that differ by language (the window is 60 lines and the
    threshold 0 in both sets)."""

    max_top_snippets: int
    max_snippets_per_file: int
    max_number_of_files: int
    max_chars_per_file: int


DEFAULT_OPTIONS = SimilarFilesOptions(max_top_snippets=4, max_snippets_per_file=1, max_number_of_files=20,
                                      max_chars_per_file=10_000)
CPP_OPTIONS = SimilarFilesOptions(max_top_snippets=16, max_snippets_per_file=4, max_number_of_files=200,
                                  max_chars_per_file=100_000)


def options_for(language: str) -> SimilarFilesOptions:
    """similarFileOptionsProvider.ts `getSimilarFilesOptions` of the detected language."""
    return CPP_OPTIONS if language == "cpp" else DEFAULT_OPTIONS


@dataclass(frozen=True)
class SimilarSnippet:
    relative_path: str
    text: str
    score: float

    @property
    def headline(self) -> str:
        return f"Compare this snippet from {self.relative_path}:" if self.relative_path else "Compare this snippet:"


def normalize_language(language: str) -> str:
    lower = language.lower()
    return _NORMALIZED.get(lower, lower)


def words(text: str) -> set[str]:
    return {w for w in re.split(r"[^a-zA-Z0-9]", text) if w and w not in STOPS}


SNIPPET_TABS = "each snippet's file open as a tab, in the snippets' order, its snippets joined by a newline as its text"


def with_snippet_tabs(inp: EditorInput) -> EditorInput:
    """The input with its snippets as open tabs by SNIPPET_TABS, when it gives snippets and no
    open files (else as it is)."""
    if inp.open_files or not inp.snippets:
        return inp
    texts: dict[str, list[str]] = {}
    for snip in inp.snippets:
        texts.setdefault(snip.filepath, []).append(snip.content)
    return msgspec.structs.replace(inp, open_files=tuple(OpenFile(filepath=path, text="\n".join(parts))
                                                         for path, parts in texts.items()))


def neighbors(open_files: list[tuple[str, OpenFile]], uri: str, language: str) -> list[tuple[str, OpenFile]]:
    """openTabFiles.ts truncateDocs over the editor's open files, each with its URI, for the
    document at `uri`."""
    chosen: dict[str, OpenFile] = {}  # by URI: a later file at the same URI takes the earlier's place
    total = 0
    for at, doc in open_files:
        if total + len(doc.text) > MAX_NEIGHBOR_AGGREGATE_LENGTH:
            continue
        if (at.startswith("file:") and uri.startswith("file:") and at != uri
                and normalize_language(doc.language or "") == normalize_language(language)):
            chosen[at] = doc
            total += len(doc.text)
        if len(chosen) >= MAX_NEIGHBOR_FILES:
            break
    return list(chosen.items())


def _jaccard(a: set[str], b: set[str]) -> float:
    inter = len(a & b)
    return inter / (len(a) + len(b) - inter)


def best_windows(reference: set[str], source: str, count: int) -> list[tuple[float, int, int]]:
    """selectRelevance.ts retrieveAllSnippets + findBestMatch: the `count` best windows of the
    file, best first, those that score 0 left out."""
    lines = source.split("\n")
    line_words = [words(line) for line in lines]
    n = len(lines)
    spans = [(0, n)] if n < WINDOW else [(s, s + WINDOW) for s in range(n - WINDOW + 1)]
    kept: list[list[float]] = []  # [score, start, end]
    for start, end in spans:
        window: set[str] = set().union(*line_words[start:end])
        score = _jaccard(window, reference)
        if kept and start > 0 and kept[-1][2] > start:
            if kept[-1][0] < score:
                kept[-1] = [score, start, end]
            continue
        kept.append([score, start, end])
    kept.sort(key=lambda k: -k[0])  # descending; ties keep their order
    return [(score, int(start), int(end)) for score, start, end in kept[:count] if score != 0]


def similar_snippets(document: str, cursor: int, files: list[tuple[str, str]],
                     options: SimilarFilesOptions = DEFAULT_OPTIONS) -> list[SimilarSnippet]:
    """The snippets in the order the prompt holds them (ascending score; equal scores in the
    order found): `files` are (relative path, text) of the chosen neighbors."""
    reference = words("\n".join(document[:cursor].split("\n")[-WINDOW:]))
    if not reference:
        return []
    found: list[SimilarSnippet] = []
    eligible = [(rel, text) for rel, text in files if 0 < len(text) < options.max_chars_per_file]
    for rel, text in eligible[:options.max_number_of_files]:
        for score, start, end in best_windows(reference, text, options.max_snippets_per_file):
            snippet = "\n".join(text.split("\n")[start:end])
            if snippet:
                found.append(SimilarSnippet(rel, snippet, score))
    found.sort(key=lambda s: s.score)
    return found[-options.max_top_snippets:]
