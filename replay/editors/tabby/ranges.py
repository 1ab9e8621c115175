"""tabby-agent's replace range: how many characters after the cursor the completion item
replaces (TabbyML/tabby clients/tabby-agent), in three eras:

- until eae43ba76, postprocess/calculateReplaceRangeByBracketStack.ts: the closers the text
  leaves unpaired (src/utils.ts findUnpairedAutoClosingChars; the html/jsx-aware stack from
  bb2afea15) replace the same closers after the cursor. 1.3.0-1.5.0 set choice.replaceRange.end,
  from 6480cedcf CompletionItem.withSuffix and toInlineCompletionItem: the same count;
- eae43ba76 to 309edd172, codeCompletion/postprocess/calculateReplaceRange.ts: at a line end
  (closers, `;`, `,`) the whole trimmed rest of the line (calculateReplaceRangeByBracketStack.ts),
  then `;` alone when the rest starts with `;` and the trimmed text ends with one
  (calculateReplaceRangeBySemiColon.ts, which runs at any rest);
- from 309edd172 codeCompletion/solution.ts toCompletionItem: the context's lineEndReplaceLength
  (context.py), whatever the text.
"""

from __future__ import annotations

from replay.editors.js import js_is_blank, js_trim_end
from replay.editors.tabby.context import CompletionContext, find_unpaired_1_3_0, find_unpaired_auto_closing_chars
from replay.editors.tabby.releases import AgentState
from replay.editors.tabby.rules import HTML_JSX_AUTO_CLOSING, NON_WORD_LINE_END, SEMICOLON_LINE_END

_OLD = "calculateReplaceRangeByBracketStack"


def replace_range_by_bracket_stack(text: str, ctx: CompletionContext, html_jsx: bool = True) -> int:
    """postprocess/calculateReplaceRangeByBracketStack.ts until eae43ba76: the unpaired closers
    of the text replace the rest of the line when the rest starts with them (their count), or
    the rest when it is a start of them (its length). `html_jsx` False: the 1.3.0 stack."""
    rest = js_trim_end(ctx.current_line_suffix)
    if js_is_blank(rest):
        return 0
    unpaired = "".join(find_unpaired_auto_closing_chars(text) if html_jsx else find_unpaired_1_3_0(text))
    if js_is_blank(unpaired):
        return 0
    if rest.startswith(unpaired):
        return len(unpaired)
    if unpaired.startswith(rest):
        return len(rest)
    return 0


def replace_range_line_end(ctx: CompletionContext) -> int:
    """codeCompletion/postprocess/calculateReplaceRangeByBracketStack.ts, eae43ba76 to 309edd172:
    at a line end the item replaces the whole trimmed rest of the line, whatever the text."""
    return len(js_trim_end(ctx.current_line_suffix)) if ctx.line_end is not None else 0


def replace_range_by_semicolon(text: str, ctx: CompletionContext) -> int | None:
    """codeCompletion/postprocess/calculateReplaceRangeBySemiColon.ts, eae43ba76 to 309edd172:
    the `;` a rest of line starts with, when the trimmed text ends with `;` (None: no change)."""
    rest = js_trim_end(ctx.current_line_suffix)
    ending = js_trim_end(text)
    if js_is_blank(rest) or ";" not in ending:
        return None
    return 1 if rest.startswith(";") and ending.endswith(";") else None


def replace_range_at_line_end(text: str, ctx: CompletionContext) -> int:
    """codeCompletion/postprocess/calculateReplaceRange.ts, eae43ba76 to 309edd172: the line-end
    range, then the semicolon rule over it."""
    by_semicolon = replace_range_by_semicolon(text, ctx)
    return replace_range_line_end(ctx) if by_semicolon is None else by_semicolon


def replace_range(text: str, ctx: CompletionContext, state: AgentState) -> tuple[int, str]:
    """The characters after the cursor the item replaces, and the rule's source file."""
    if state.has(NON_WORD_LINE_END):
        return ctx.line_end_replace, "codeCompletion/contexts.ts"
    if state.has(SEMICOLON_LINE_END):
        return replace_range_at_line_end(text, ctx), "codeCompletion/postprocess/calculateReplaceRange.ts"
    return replace_range_by_bracket_stack(text, ctx, state.has(HTML_JSX_AUTO_CLOSING)), f"postprocess/{_OLD}.ts"
