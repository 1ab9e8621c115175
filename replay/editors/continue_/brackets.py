"""Continue's bracket matching on the character stream (continuedev/continue
core/autocomplete/brackets.ts, later services/ and filtering/BracketMatchingService.ts
stopOnUnmatchedClosingBracket): Continue only completes bracket pairs it started, so a closing
bracket the completion did not open ends it, with these allowances:

- single-line mode: brackets opened on the cursor's line (prefix line + suffix line, scanned up
  to the first mismatch) may be closed;
- closing brackets at the start of the suffix (spaces skipped) count as opened: the completion
  overwrites them;
- closing brackets before the completion's first other character pass.

Multi-line mode would also carry the brackets left open by the previous accepted completion in
the same file; a replayed request is a fresh one, so there are none.

It ran on every language until 2024-10-22, again 2024-10-30 .. 2024-11-05, and since 2024-11-06
only for JSON (AutocompleteLanguageInfo.ts Json.charFilters). The algorithm never changed.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from replay.editors.js import JS_WHITESPACE as JS_SPACE

BRACKETS = {"(": ")", "{": "}", "[": "]"}
BRACKETS_REVERSE = {")": "(", "}": "{", "]": "["}
_NOT_SPACE_OR_CLOSING = re.compile(f"[^{re.escape(JS_SPACE)})}}\\]]")


def _open_on_line(line: str) -> list[str]:
    """The stack of brackets opened on the cursor's line, scanned until a closing bracket does
    not match."""
    stack: list[str] = []
    for ch in line:
        if ch in BRACKETS:
            stack.append(ch)
        elif ch in BRACKETS_REVERSE and (not stack or BRACKETS[stack.pop()] != ch):
            break
    return stack


def stop_on_unmatched_closing_bracket(chunks: Iterator[str], prefix: str, suffix: str, multiline: bool) -> Iterator[str]:
    """BracketMatchingService.stopOnUnmatchedClosingBracket for a fresh request."""
    stack: list[str] = [] if multiline else _open_on_line(prefix.split("\n")[-1] + suffix.split("\n")[0])
    for ch in suffix:
        if ch == " ":
            continue
        if ch not in BRACKETS_REVERSE:
            break
        stack.insert(0, BRACKETS_REVERSE[ch])
    seen_text = False
    for chunk in chunks:
        if not seen_text:
            found = _NOT_SPACE_OR_CLOSING.search(chunk)
            if found is None:
                yield chunk
                continue
            yield chunk[:found.start()]
            chunk = chunk[found.start():]
            seen_text = True
        for i, ch in enumerate(chunk):
            if ch in BRACKETS_REVERSE:
                if not stack or BRACKETS[stack.pop()] != ch:
                    yield chunk[:i]
                    return
            elif ch in BRACKETS:
                stack.append(ch)
        yield chunk


__all__ = ["BRACKETS", "BRACKETS_REVERSE", "stop_on_unmatched_closing_bracket"]
