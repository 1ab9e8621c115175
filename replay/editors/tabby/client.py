"""tabby-agent's client stage: the HTTP body the editor plugin POSTs to /v1/completions.

tabby-agent 1.5.0, the npm release (TabbyML/tabby clients/tabby-agent/src/TabbyAgent.ts
`createSegments`, src/utils.ts `splitLines`, src/CompletionContext.ts, src/AgentConfig.ts at
commit 3c12cc135 "bump tabby-agent ... to 1.5.0"). The same line rules are in HEAD's
clients/tabby-agent/src/codeCompletion/buildRequest.ts.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Mapping
from typing import Any

from replay.editors.js import JS_WHITESPACE, js_is_blank, js_trim_end
from replay.editors.tabby.options import AGENT_DEFAULTS, options
from replay.records import EditorInput

AGENT_VERSION = "1.5.0"

# src/utils.ts splitLines: input.match(/.*(?:$|\r?\n)/g). In JS `.` excludes \n, \r, \u2028
# and \u2029, and `$` (no m flag) is the end of the input: text before a lone \r or a
# \u2028 that is not followed by a newline is not matched at all, so the agent drops it.
_JS_LINE = re.compile("[^\n\r\u2028\u2029]*(?:\\Z|\r?\n)")

# src/utils.ts regOnlyAutoClosingCloseChars = /^([)\]}>"'`]|(\/>))*$/g
_ONLY_AUTO_CLOSING = re.compile(r"(?:[)\]}>\"'`]|/>)*")


def split_lines(text: str) -> list[str]:
    """tabby-agent splitLines: pieces that keep their line endings, plus a last "" after a
    trailing "\\n" (so at column 0 the cursor line counts as an empty line)."""
    lines = [m for m in _JS_LINE.findall(text) if m]
    if lines and lines[-1].endswith("\n"):
        lines.append("")
    return lines



def _node_path_relative(root: str, target: str) -> str:
    """Node's path.relative (POSIX): both are resolved against the cwd first, so URIs such as
    file:///ws work as paths ("file:/ws"); equal paths give ""."""
    cwd = "/__cwd__"
    rel = posixpath.relpath(posixpath.join(cwd, target), posixpath.join(cwd, root))
    return "" if rel == "." else rel


def build_request(inp: EditorInput, config: Mapping[str, Any] | None = None) -> dict[str, Any] | None:
    """The exact HTTP body tabby-agent 1.5.0 POSTs to /v1/completions, or None when it sends
    nothing (a blank prefix: TabbyAgent.ts createSegments returns null).

    Rules (TabbyAgent.ts createSegments, CompletionContext.ts):
    - prefix: the last maxPrefixLines (20) pieces of splitLines(text before the cursor), joined;
      suffix: the first maxSuffixLines (20) pieces of splitLines(text after it). CRLF is kept.
    - experimentalStripAutoClosingCharacters (off by default): when the rest of the cursor line,
      trimEnd'ed, is only auto-closing characters ``)]}>"'` `` or "/>" (mode "default"), the
      suffix is "\\n" + pieces 1..maxSuffixLines-1.
    - filepath only with a workspace: path.relative(workspace, document uri or path); snippets
      of kind "declaration"/"snippet" become `declarations`, "changed" become
      `relevant_snippets_from_changed_files` (score 1, the order given), "opened" become
      `relevant_snippets_from_recently_opened_files` (the field newer agents add); a
      "clipboard" snippet becomes `clipboard` when 3 <= trimmed length <= 2000.
    Options are the agent's config paths; `config` overrides `inp.options`.
    """
    opts = options({**inp.options, **(config or {})}, AGENT_DEFAULTS)
    max_prefix = opts["completion.prompt.maxPrefixLines"]
    max_suffix = opts["completion.prompt.maxSuffixLines"]
    prefix_lines = split_lines(inp.prefix)
    suffix_lines = split_lines(inp.suffix)
    prefix = "".join(prefix_lines[max(len(prefix_lines) - max_prefix, 0):])
    line_end = _ONLY_AUTO_CLOSING.fullmatch(js_trim_end(suffix_lines[0] if suffix_lines else "")) is not None
    if opts["completion.prompt.experimentalStripAutoClosingCharacters"] and line_end:
        suffix = "\n" + "".join(suffix_lines[1:max_suffix])
    else:
        suffix = "".join(suffix_lines[:max_suffix])
    if js_is_blank(prefix):
        return None

    segments: dict[str, Any] = {"prefix": prefix, "suffix": suffix}
    root = inp.workspace
    if root and inp.filepath:
        segments["filepath"] = _node_path_relative(root, inp.filepath)

    def rel(path: str) -> str:
        return _node_path_relative(root, path) if root and path.startswith(root) else path

    declarations = [{"filepath": rel(s.filepath), "body": s.content} for s in inp.snippets if s.kind in ("declaration", "snippet")]
    changed = [{"filepath": rel(s.filepath), "body": s.content, "score": 1} for s in inp.snippets if s.kind == "changed"]
    opened = [{"filepath": rel(s.filepath), "body": s.content, "score": 1} for s in inp.snippets if s.kind == "opened"]
    if declarations:
        segments["declarations"] = declarations
    if changed:
        segments["relevant_snippets_from_changed_files"] = changed
    if opened:
        segments["relevant_snippets_from_recently_opened_files"] = opened
    for snippet in inp.snippets:
        if snippet.kind == "clipboard":
            clip = snippet.content.strip(JS_WHITESPACE)
            if opts["completion.prompt.clipboard.minChars"] <= len(clip) <= opts["completion.prompt.clipboard.maxChars"]:
                segments["clipboard"] = clip
    body: dict[str, Any] = {"language": inp.language, "segments": segments}
    if inp.language is None:
        del body["language"]
    return body


