"""The editor's formatting options, and the item re-indented to them: what both Copilot clients
do with the `formattingOptions` an editor passes.

Sources (microsoft/vscode-copilot-chat src/extension/completions-core/vscode-node/; checked in
`@vscode/chat-lib` 0.66.0's compiled dist and `@github/copilot-language-server` 1.539.0's
`dist/main.js`, and by running both, tests/data/golden/copilot and golden/copilot-ls):
- lib/src/inlineCompletion.ts `getInlineCompletionsResult` hands `options.formattingOptions`
  to ghostText/copilotCompletion.ts `completionsFromGhostTextResults`, which, when there are
  any, normalises each result's completion and display text
  (ghostText/normalizeIndent.ts `normalizeIndentCharacter`) before it picks the item's text.
  chat-lib's `getInlineCompletions(doc, position, token, {formattingOptions})` passes what its
  caller gives (nothing by default); the language server passes what each
  `textDocument/inlineCompletion` carries (copilot.vim: `expandtab`, `shiftwidth`).
- normalizeIndent.ts: `tabSize` missing or a string counts as 4; `insertSpaces` false: leading
  spaces become tabs (the rest of the run kept as spaces); true: leading tabs become `tabSize`
  spaces each and, on a blank line, a first line indented off the tab grid has every line's
  leading runs of that remainder re-indented to the next multiple of `tabSize`; missing:
  nothing changes.

Options (`inp.options`): `tab_size` (a positive integer, default 4) and `insert_spaces` (true,
false, or null: the editor passes none; default true); each profile says what its editor passes
when the input names neither.
The completions cache and the item on screen keep the completion as received (normalising
comes after them), so a user who types the re-indented item is not typing what was cached.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

import msgspec

from replay.editors.copilot import layout
from replay.editors.copilot.answer import adjust_leading_whitespace
from replay.editors.inputs import BadInputLine
from replay.editors.stage import Shown
from replay.records import EditorInput, TraceStep

OPTIONS = ("tab_size", "insert_spaces")
DEFAULT_TAB_SIZE = 4  # normalizeIndent.ts: a missing or non-numeric tabSize counts as 4
ITEM_STEP = "completionsFromGhostTextResults"  # answer.py's last step, which makes the item's text
_SRC = "microsoft/vscode-copilot-chat src/extension/completions-core/vscode-node/lib/src/ghostText/"


@dataclass(frozen=True)
class FormattingOptions:
    """What the editor passes as `formattingOptions`."""

    tab_size: int = DEFAULT_TAB_SIZE
    insert_spaces: bool = True


def options(inp: EditorInput, default: FormattingOptions | None) -> FormattingOptions | None:
    """The formatting options the editor passes at this cursor (None: none): `default` when the
    input names neither option; an editor that passes them passes both (VS Code's and
    copilot.vim's options always hold both), 4 and spaces where the input names one only; a
    bad value rejects the line."""
    passed = default or (FormattingOptions() if set(OPTIONS) & set(inp.options) else None)
    tab_size = inp.options.get("tab_size", DEFAULT_TAB_SIZE if passed is None else passed.tab_size)
    if not isinstance(tab_size, int) or isinstance(tab_size, bool) or tab_size < 1:
        raise BadInputLine(f"option tab_size must be a positive integer, not {tab_size!r}")
    insert_spaces = inp.options.get("insert_spaces", None if passed is None else passed.insert_spaces)
    if insert_spaces is not None and not isinstance(insert_spaces, bool):
        raise BadInputLine(f"option insert_spaces must be true, false or null, not {insert_spaces!r}")
    return None if insert_spaces is None else FormattingOptions(tab_size, insert_spaces)


def _leading_runs(text: str, unit: str, indent: Callable[[int], str]) -> str:
    """normalizeIndent.ts `replace`: on every line, the leading repeats of `unit` (their length
    in characters) become `indent(length)`."""
    run = re.compile(f"^(?:{re.escape(unit)})+")
    return "\n".join(indent(len(m.group(0)) if (m := run.match(line)) else 0) + line[len(m.group(0)) if m else 0:]
                     for line in text.split("\n"))


def normalize_indent(text: str, tab_size: int, insert_spaces: bool, blank_line: bool) -> str:
    """normalizeIndent.ts `normalizeIndentCharacter` on one of the item's texts."""
    if not insert_spaces:
        return _leading_runs(text, " ", lambda n: "\t" * (n // tab_size) + " " * (n % tab_size))
    text = _leading_runs(text, "\t", lambda n: " " * (n * tab_size))
    if not blank_line or not text:
        return text
    first = text.split("\n")[0]
    depth = len(first) - len(first.lstrip())
    if depth == 0 or depth % tab_size == 0:
        return text
    return _leading_runs(text, " " * (depth % tab_size), lambda n: " " * ((n // tab_size + 1) * tab_size))


def formatted(inp: EditorInput, raw: str, shown: Shown, default: FormattingOptions | None) -> Shown:
    """The item with its indentation normalised to the editor's formatting options, if it
    passes any (`default`: what the editor passes when the input names none)."""
    given = options(inp, default)
    if shown.text is None or given is None:
        return shown
    return _normalized(inp, raw, shown, given)


def _normalized(inp: EditorInput, raw: str, shown: Shown, given: FormattingOptions) -> Shown:
    """copilotCompletion.ts `completionsFromGhostTextResults` with formatting options: the
    completion and its display text are normalised after the display text is cut from it and
    before the item's text is chosen (the whole completion on a blank line that it re-indents
    or starts like, else the line's text before the cursor then the display text)."""
    steps = list(shown.trace)
    if steps and steps[-1].step == ITEM_STEP:
        steps.pop()
    before_item = (steps[-1].text if steps else raw) or ""
    line_before, rest = inp.prefix.split("\n")[-1], inp.suffix.split("\n")[0]
    blank = not (line_before + rest).strip()
    display, needs_offset = adjust_leading_whitespace(before_item, layout.trim_last_line(inp.prefix)[1])
    text = normalize_indent(before_item, given.tab_size, given.insert_spaces, blank)
    display = normalize_indent(display, given.tab_size, given.insert_spaces, blank)
    if text != before_item:
        steps.append(TraceStep(step="normalizeIndentCharacter", source=_SRC + "normalizeIndent.ts", text=text))
    item = text if blank and (needs_offset or text.startswith(line_before + rest)) else line_before + display
    if item != text:
        steps.append(TraceStep(step=ITEM_STEP, source=_SRC + "copilotCompletion.ts", text=item))
    return msgspec.structs.replace(shown, text=item, trace=tuple(steps))
