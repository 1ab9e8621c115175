"""What llama.vim shows of the server's answer (ggml-org/llama.vim autoload/llama.vim
`s:fim_render`; before 057225f 2025-03-10 the same rules sat in `s:fim_on_stdout`).

The answer's `content` is split into lines; trailing empty lines are dropped; then the
suggestion is discarded (nothing shown) when it is empty, when its first line is empty and the
next lines repeat the lines below the cursor, when it is one line equal to the rest of the line,
or when the line it makes equals the next non-blank line (alone, or with a second line that
starts that line's successor, or with later lines that repeat the lines after it). The rest of
the line is appended to the last line: accepting replaces the line from the cursor on.
"""

from __future__ import annotations

from dataclasses import dataclass

from replay.editors.llama_vim.releases import SOURCE, Rules
from replay.editors.llama_vim.request import Buffer, indent_bytes, is_blank, local_context
from replay.editors.stage import Shown, Steps

RENDER = f"{SOURCE} s:fim_render"


def _head(text: str, n: int) -> str:
    """Vim's `text[:n - 1]` on bytes: the first n bytes, but the whole text when n is 0 (a slice
    ending at -1 runs to the end)."""
    return text if n == 0 else text.encode("utf-8")[:n].decode("utf-8", errors="ignore")


def _repeats(content: list[str], before: str, buf: Buffer) -> bool:
    """The discard rules of `s:fim_render` (each from 292b5a4)."""
    row = buf.row
    if len(content) == 1 and content[0] == "":
        return True
    if len(content) > 1 and content[0] == "" and content[1:] == list(buf.lines[row + 1:row + len(content)]):
        return True  # "... and the next lines are repeated"
    cmp = row + 1  # 0-based: the first non-blank line below (the last line is taken as it is)
    while cmp < len(buf.lines) - 1 and is_blank(buf.line(cmp)):
        cmp += 1
    if before + content[0] != buf.line(cmp):
        return False
    if len(content) == 1:
        return True  # "truncate the suggestion if it repeats the next line"
    if len(content) == 2:
        return content[1] == _head(buf.line(cmp + 1), len(content[1].encode("utf-8")))
    return "\n".join(content[1:]) == "\n".join(buf.lines[cmp + 1:cmp + len(content)])


@dataclass(frozen=True)
class Rendered:
    """What `s:fim_render` keeps of an answer (`s:fim_data`): the suggestion's lines with the rest
    of the line appended to the last (`content`, what the follow-up request builds on), the line
    it is shown on (trimmed on a whitespace-only line), the rest of the line, and whether
    accepting inserts anything."""

    content: list[str]
    line: str
    after: str
    inserts: bool
    can_accept: bool = False  # `s:fim_data['can_accept']`: there was an answer and it is not whitespace only


def render_answer(buf: Buffer, text: str, rules: Rules, n_prefix: int = 0, n_suffix: int = 0,
                  steps: Steps | None = None) -> Rendered:
    """`s:fim_render` on the server's answer at `buf`'s cursor."""
    steps = steps or Steps(text)
    content = text.split("\n")
    while content and content[-1] == "":
        content.pop()  # "remove trailing new lines"
    steps.set("remove trailing new lines", RENDER, "\n".join(content) if content else None)
    line = buf.line(buf.row)
    ctx_before = ctx_after = None
    if rules.trim_lead and not rules.shown_from_line:  # 2d5a1fe..057225f: the request's (blanked) text
        ctx = local_context(buf, rules, n_prefix, n_suffix)
        ctx_before, ctx_after = ctx.middle, ctx.rest_of_line
    if content and rules.trim_lead and is_blank(line):
        # "if the current line is full of whitespaces, trim as much whitespaces from the suggestion" (2d5a1fe)
        lead = min(indent_bytes(content[0]), len(line))
        line, content[0] = content[0][:lead], content[0][lead:]
        steps.set("trim the suggestion's indentation to the line's", RENDER, "\n".join(content))
    raw_line = line.encode("utf-8")
    before = raw_line[:buf.col].decode("utf-8", errors="ignore") if ctx_before is None else ctx_before
    after = raw_line[buf.col:].decode("utf-8", errors="ignore") if ctx_after is None else ctx_after
    empty = not content
    if empty:
        content = [""]  # shown as nothing, not accepted
    discarded = not empty and (len(content) == 1 and content[0] == after or _repeats(content, before, buf))
    if discarded:
        steps.set("discard a suggestion that repeats the text", RENDER, None)
        content = [""]
    content[-1] += after
    joined = "\n".join(content)
    # "if only whitespaces - do not accept" (1175c8d); Vim's '^\s*$' never matches across a newline
    blank = rules.blank_not_accepted and "\n" not in joined and is_blank(joined)
    inserts = not (empty or discarded or blank)
    if blank and not discarded and not empty:
        steps.set("if only whitespaces - do not accept", RENDER, None)
    elif inserts:
        steps.set("append the rest of the line", RENDER, joined)
    return Rendered(content, line, after, inserts, can_accept=not (empty or blank))


def shown(buf: Buffer, text: str, rules: Rules, n_prefix: int = 0, n_suffix: int = 0) -> Shown:
    """The suggestion llama.vim shows for the server's `text` at `buf`'s cursor: Shown.text is
    what accepting it all inserts at the cursor, replacing the rest of the line (replace_after).
    On a whitespace-only line wider than the suggestion's indentation, accepting also drops the
    line's extra indentation before the cursor (`accepted` gives the whole document)."""
    steps = Steps(text)
    rendered = render_answer(buf, text, rules, n_prefix, n_suffix, steps)
    if not rendered.inserts:
        return steps.shown(multiline=False)
    return steps.shown(multiline=len(rendered.content) > 1, replace_after=len(rendered.after))


def accepted(buf: Buffer, text: str, rules: Rules, n_prefix: int = 0, n_suffix: int = 0) -> tuple[str, ...]:
    """The buffer's lines after accepting the whole suggestion (`llama#fim_accept('full')`): the
    cursor's line becomes the shown line up to the cursor, `line[:pos_x - 1]` in Vim, which at
    column 0 is the whole line, followed by the suggestion's first line; its other lines are
    inserted below. Unchanged when nothing is shown."""
    rendered = render_answer(buf, text, rules, n_prefix, n_suffix)
    if not rendered.inserts:
        return buf.lines
    content, line = rendered.content, rendered.line
    kept = line if buf.col == 0 else line.encode("utf-8")[:buf.col].decode("utf-8", errors="ignore")
    return (*buf.lines[:buf.row], kept + content[0], *content[1:], *buf.lines[buf.row + 1:])
