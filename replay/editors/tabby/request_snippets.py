"""tabby-agent's request segments beyond prefix and suffix, by state: filepath, declarations,
snippets from recently changed and recently opened files, clipboard.

The editor's snippets (replay.records.Snippet) stand for what the agent (or, before it collected
context itself, the VS Code extension) had found, in the order found: kind declaration|snippet ->
declarations, changed -> relevant_snippets_from_changed_files, opened ->
relevant_snippets_from_recently_opened_files, clipboard -> clipboard. A kind the state cannot send
is dropped; each state's count and length limits are applied here. Sources: TabbyML/tabby
clients/tabby-agent/src TabbyAgent.ts createSegments (0b9e0d244..6480cedcf),
CompletionContext.ts / codeCompletion/contexts.ts buildSegments (6480cedcf..309edd172),
codeCompletion/buildRequest.ts (309edd172..e61d780ca); lengths count UTF-16 code units.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Mapping
from typing import Any

from replay.editors.js import js_length, js_trim
from replay.editors.tabby import request_rules as r
from replay.editors.tabby.releases import AgentState
from replay.records import EditorInput, Snippet

_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")


def node_path_relative(root: str, target: str) -> str:
    """Node's path.relative (POSIX): both are resolved against the cwd first, so URIs such as
    file:///ws work as paths ("file:/ws"); equal paths give ""."""
    cwd = "/__cwd__"
    rel = posixpath.relpath(posixpath.join(cwd, target), posixpath.join(cwd, root))
    return "" if rel == "." else rel


def js_slice(text: str, n: int) -> str:
    """`text.slice(0, n)` in UTF-16 code units (a cut astral character leaves its lone high surrogate)."""
    return text.encode("utf-16-le", "surrogatepass")[:2 * n].decode("utf-16-le", "surrogatepass")


def document_path(inp: EditorInput) -> str | None:
    """The document's path or URI; a relative `filepath` is taken under the workspace."""
    path = inp.filepath
    if path and inp.workspace and not path.startswith("/") and not _SCHEME.match(path):
        return inp.workspace.rstrip("/") + "/" + path
    return path


def _root(inp: EditorInput, doc: str | None, state: AgentState) -> str | None:
    """The folder filepaths are made relative to. Before the agent read LSP workspace folders the
    editor named the workspace (TabbyAgent.ts: any workspace given); from 7205b788b
    (lsp/Server.ts) it is the folder whose URI starts the document's URI."""
    root = inp.workspace or None
    if root and state.has(r.LSP_CONTEXT) and not (doc or "").startswith(root):
        return None
    return root


def _rel(root: str | None, path: str) -> str:
    return node_path_relative(root, path) if root and path.startswith(root) else path


def _crop_vscode(text: str, limit: int) -> str:
    """clients/vscode TabbyCompletionProvider.ts collectDeclarationSnippets (13948d397..7205b788b)."""
    if js_length(text) > limit:
        text = js_slice(text, limit)
        text = text[:text.rfind("\n") + 1]
    return text


def crop_to_max_chars(text: str, limit: int) -> str:
    """The agent's crop (lsp/Server.ts from 7205b788b; utils/string.ts cropTextToMaxChars from
    309edd172): cut at the last line break only when it is not the first character."""
    if js_length(text) > limit:
        text = js_slice(text, limit)
        last = text.rfind("\n")
        if last > 0:
            text = text[:last + 1]
    return text


def _declarations(snippets: list[Snippet], root: str | None, opts: Mapping[str, Any],
                  state: AgentState) -> list[dict[str, Any]]:
    limit = opts["completion.prompt.fillDeclarations.maxSnippets"]
    max_chars = opts["completion.prompt.fillDeclarations.maxCharsPerSnippet"]
    out: list[dict[str, Any]] = []
    for snip in snippets:
        if len(out) >= limit:
            break
        if state.has(r.CONTEXT_REFACTOR):  # buildRequest.ts: cropped, an empty text kept
            text = crop_to_max_chars(snip.content, max_chars)
        elif state.has(r.LSP_CONTEXT):  # lsp/Server.ts: an empty text is skipped
            text = crop_to_max_chars(snip.content, max_chars)
            if not text:
                continue
        else:
            text = _crop_vscode(snip.content, max_chars)
            if not text:
                continue
        out.append({"filepath": _rel(root, snip.filepath), "body": text})
    return out


def _overlaps(a: Snippet, b: Snippet) -> bool:
    """buildRequest.ts isExists: one file, and ranges that intersect (or a range unknown). A
    snippet's `lines` [first, end] stands for the range from `first` to the end of line `end`."""
    if a.filepath != b.filepath:
        return False
    if not isinstance(a.lines, tuple) or not isinstance(b.lines, tuple):
        return True
    return max(a.lines[0], b.lines[0]) <= min(a.lines[1], b.lines[1])


def _limited(snippets: list[Snippet], limit: int, taken: list[Snippet], dedupe: bool) -> list[Snippet]:
    out: list[Snippet] = []
    for snip in snippets:
        if len(out) >= limit:
            break
        if dedupe and any(_overlaps(snip, seen) for seen in taken):
            continue
        out.append(snip)
        taken.append(snip)
    return out


def _snippet_lists(inp: EditorInput, root: str | None, opts: Mapping[str, Any],
                   state: AgentState) -> dict[str, list[dict[str, Any]]]:
    def kind(*names: str) -> list[Snippet]:
        return [s for s in inp.snippets if s.kind in names]

    out: dict[str, list[dict[str, Any]]] = {}
    refactored = state.has(r.CONTEXT_REFACTOR)
    decls = kind("declaration", "snippet")
    if state.has(r.DECLARATIONS) and opts["completion.prompt.fillDeclarations.enabled"]:
        out["declarations"] = _declarations(decls, root, opts, state)
    else:
        decls = []
    taken = list(decls[:len(out.get("declarations", []))]) if refactored else []
    prefix = "completion.prompt.collectSnippetsFromRecentChangedFiles."
    if state.has(r.CHANGED_FILES) and opts[prefix + "enabled"]:
        changed = _limited(kind("changed"), opts[prefix + "maxSnippets"], taken, refactored)
        out["relevant_snippets_from_changed_files"] = [
            {"filepath": _rel(root, s.filepath), "body": s.content, "score": 1} for s in changed]
    prefix = "completion.prompt.collectSnippetsFromRecentOpenedFiles."
    if state.has(r.OPENED_FILES) and opts[prefix + "enabled"]:
        max_chars = opts[prefix + "maxCharsPerOpenedFiles"]
        if refactored:  # buildRequest.ts: relative paths, cropped, at most maxOpenedFiles
            opened = _limited(kind("opened"), opts[prefix + "maxOpenedFiles"], taken, True)
            out["relevant_snippets_from_recently_opened_files"] = [
                {"filepath": _rel(root, s.filepath), "body": crop_to_max_chars(s.content, max_chars), "score": 1}
                for s in opened]
        else:  # codeCompletion/index.ts collectSnippetsFromOpenedFiles: the URI as is, substring(0, chunk)
            out["relevant_snippets_from_recently_opened_files"] = [
                {"filepath": s.filepath, "body": js_slice(s.content, max_chars), "score": 1} for s in kind("opened")]
    # Over LSP before 309edd172 a collector that is on and found nothing still sends its list, empty
    # (codeSearch collectRelevantSnippets returns [] while no other file is indexed; from 5dfe7a125
    # the engine exists from `initialize` on, and collectSnippetsFromOpenedFiles gives an empty
    # array; CompletionContext / contexts.ts buildSegments maps either as is). The bundles of
    # 1.7.0, 1.8.0, 2024-12-31 and 2025-02-19 send `[]` so (tests/data/golden/tabby, the
    # cases with a collector on). Declarations are asked of the editor (languageSupport), which
    # may answer nothing: left out.
    keep_empty = state.has(r.LSP_CONTEXT) and not refactored
    return {key: value for key, value in out.items()
            if value or (keep_empty and key != "declarations")}


def context_segments(inp: EditorInput, opts: Mapping[str, Any], state: AgentState) -> dict[str, Any]:
    """The segments after prefix and suffix, in the agent's key order."""
    segments: dict[str, Any] = {}
    doc = document_path(inp)
    root = _root(inp, doc, state) if state.has(r.FILEPATH) else None
    if state.has(r.FILEPATH):
        if root and doc is not None:
            segments["filepath"] = node_path_relative(root, doc)
        elif state.has(r.CONTEXT_REFACTOR) and doc is not None:
            segments["filepath"] = doc  # buildRequest.ts convertToRelativePath: the URI itself
    segments.update(_snippet_lists(inp, root, opts, state))
    if not state.has(r.NO_CLIPBOARD):
        for snip in inp.snippets:
            if snip.kind == "clipboard":
                clip = js_trim(snip.content)
                low, high = opts["completion.prompt.clipboard.minChars"], opts["completion.prompt.clipboard.maxChars"]
                if low <= js_length(clip) <= high:
                    segments["clipboard"] = clip
    return segments
