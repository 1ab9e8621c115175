"""What the user really typed at each capture's cursor: the typed reference, read from the later
captures of the same document (docs/replay-and-scores.md, "The typed reference", states the rule for users).

A request holds a window of the document around its cursor: the text before it (`before`,
the prefix) and after it (`after`, the suffix), each maybe clipped to a few lines. A later
request of the same document holds a later window. Where that window still holds this
request's prefix tail and suffix head, the text between the two is what the document holds at
this request's spot by then. The rule:

- later captures: the same editor, user (where the log names one) and file (the log's file
  path; a log that names no file: the same log file), made after this one (by time; without a time, by the log's order
  within one log file) and within SESSION_S seconds (without times: SESSION_CAPTURES captures);
- the prefix tail is the last BASE_ANCHOR characters before the cursor (more, until they hold
  MIN_ANCHOR non-blank ones), doubled until the request's own window holds it once and again
  while the later window holds it more than once, up to MAX_ANCHOR: found once, it marks the
  spot's start (text edited further away does not matter); a later window clipped inside it (it starts with the tail's end) counts when that
  end holds MIN_ANCHOR non-blank characters and is found once;
- the suffix head is taken the same way from the characters after the cursor and found once
  after the start, or cut by the window's clipped end as the tail is. A suffix with fewer than
  MIN_ANCHOR non-blank characters (the document's end) is found again only in a window whose
  text after its cursor is that same suffix (the user still at the end, typing);
- a window where either is missing (edited, deleted, or out of a clipped window after a jump)
  or found twice says nothing; the reference is all the text between them in the last later
  window that finds both with its cursor outside that span (the user moved on: what deletes,
  undos and rewrites left by then); when no such window is found, the lines finished before
  the cursor's line in the last window that finds both (`complete` false), none when no line
  is finished;
- a window after that one which finds one anchor once but not the other, holds room beside the
  found one for the span as read and the missing anchor, and no longer holds that span there,
  shows the spot rewritten after it was read (the user came back, or undid it): what it holds
  now cannot be read, so no reference (an edit inside an anchor that left the span as it was
  changes nothing);
- Tabby's agent may leave the rest of the cursor's line out of its suffix (`unsent`): the
  text read then ends with that rest if it was there, so its last line is kept only when it
  ends in a word character (else the lines finished before it, or no reference);
- a prefix with fewer than MIN_ANCHOR non-blank characters, a capture without a suffix, and a
  span left empty get no reference, each with its reason;
- the llama.cpp clients send speculative requests, as if their suggestion were accepted
  (ggml-org/llama.vscode src/completion.ts `cacheFutureSuggestion`,
  `cacheFutureAcceptLineSuggestion`, since 6dde543 (2025-02-10); ggml-org/llama.vim
  autoload/llama.vim `s:fim_ctx_local` with `a:prev`, since 1175c8d (2025-03-10)): a request
  sent within SPECULATIVE_S of an earlier one's answer whose window is that one's with its
  completion inserted at the cursor and the same suffix is not the document: it is neither
  evidence nor given a reference. A client may say which is which in the body
  (EditorProfile.speculation_budget: llama.vim's first request at a cursor asks a shorter
  t_max_predict_ms than its follow-up); where a file's bodies carry both budgets, that decides,
  not the window (a follow-up of a suggestion
  shown mid-line, or from the cache after typing on, holds the whole line with it appended and
  no rest of the line, and a user typing the suggestion's start looks like a follow-up).

A GitHub Copilot body's suffix starts at the next line (reference_windows.copilot_body): once
the user moved on, only the lines of the text read before its last one are certainly typed.
A llama.cpp client's window is its /infill body's input_prefix + prompt (the cursor's line up to
the cursor) + input_suffix (llama.vim `s:fim_ctx_local`; llama.vscode src/completion.ts).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

import msgspec

from replay.editors import capture_profile
from replay.records import CaptureRecord
from replay.reference_windows import RequestBody, Unsent, Window, infill_body, request_body, unsent, window_of

SESSION_S = 600.0  # how long after a request its later captures are read
SESSION_CAPTURES = 200  # without times: how many later captures of one log file are read
BASE_ANCHOR = 32  # characters of prefix tail and suffix head looked for first ...
MAX_ANCHOR = 256  # ... doubled while found more than once, up to these
MIN_ANCHOR = 16  # non-blank characters an anchor (or its part in a clipped window) must hold
SPECULATIVE_S = 1.0  # a request this soon after an earlier one's answer may be its speculative twin


class Typed(msgspec.Struct, frozen=True, omit_defaults=True):
    """A capture's typed reference: the text (None, and `why`, when not recoverable), whether the
    user had left the spot (`complete`; else the lines finished before the cursor), how long
    after the request the window it was read from was sent, and that capture's id."""

    text: str | None = None
    why: str | None = None
    complete: bool = False
    settled_after_ms: int | None = None
    read_from: int | None = None


def _blank_free(text: str) -> int:
    return sum(not c.isspace() for c in text)


def _once(doc: str, text: str, start: int = 0) -> int:
    """Where `text` is found in doc[start:] if it is found exactly once, else -1."""
    at = doc.find(text, start)
    return at if at >= 0 and doc.find(text, at + 1) < 0 else -1


def _sizes(text: str, from_end: bool, own: str = "") -> list[int]:
    """The anchor lengths tried, shortest first: the fewest characters (at least BASE_ANCHOR)
    at the spot's side of `text` holding MIN_ANCHOR non-blank ones, doubled up to MAX_ANCHOR
    ([] when even that holds too few); with `own` (the request's own window), only from the
    first found once in it: an anchor names one place of the request's own document."""
    limit = min(len(text), MAX_ANCHOR)
    count = 0
    for n in range(1, limit + 1):
        count += not text[-n if from_end else n - 1].isspace()
        if count >= MIN_ANCHOR and n >= min(BASE_ANCHOR, limit):
            sizes = [n]
            while sizes[-1] < limit:
                sizes.append(min(2 * sizes[-1], limit))
            return [k for k in sizes if not own or _once(own, text[-k:] if from_end else text[:k]) >= 0]
    return []


def _start(before: str, doc: str, own: str) -> int | str:
    """Where the spot starts in a later window `doc` (just after the prefix tail), or why not."""
    sizes = _sizes(before, from_end=True, own=own)
    if not sizes:
        return "the text before the cursor is found twice in the request's own window"
    for n in sizes:
        at = doc.find(before[-n:])
        if at < 0:
            break
        if doc.find(before[-n:], at + 1) < 0:
            return at + n
    else:
        return "the text before the cursor is found twice"
    if n == sizes[0]:  # a window clipped inside the tail: it starts with the tail's end
        tail = before[-n:]
        for k in range(n - 1, 0, -1):
            if _blank_free(tail[-k:]) < MIN_ANCHOR:
                break
            if doc.startswith(tail[-k:]):
                return k if _once(doc, tail[-k:]) == 0 else "the text before the cursor is found twice"
    return "the text before the cursor is not in this window"


def _end(after: str, doc: str, start: int, later_after: str, own: str) -> int | str:
    """Where the spot ends in a later window (the suffix head's start), or why not."""
    if not _sizes(after, from_end=False):
        return len(doc) - len(after) if later_after == after else "the document's end is not this window's"
    sizes = _sizes(after, from_end=False, own=own)
    if not sizes:
        return "the text after the cursor is found twice in the request's own window"
    for n in sizes:
        at = doc.find(after[:n], start)
        if at < 0:
            break
        if doc.find(after[:n], at + 1) < 0:
            return at
    else:
        return "the text after the cursor is found twice"
    if n == sizes[0]:  # a window clipped inside the head: it ends with the head's start
        head = after[:n]
        for k in range(n - 1, 0, -1):
            if _blank_free(head[:k]) < MIN_ANCHOR:
                break
            if doc.endswith(head[:k]) and len(doc) - k >= start:
                at = _once(doc, head[:k], start)
                return at if at == len(doc) - k else "the text after the cursor is found twice"
    return "the text after the cursor is not in this window"


def read_span(spot: Window, later: Window) -> tuple[str, bool] | str:
    """The text a later window holds at a request's spot and whether its cursor is outside the
    spot (the user moved on), or why the window does not show the spot."""
    doc, own = later.before + later.after, spot.before + spot.after
    start = _start(spot.before, doc, own)
    if isinstance(start, str):
        return start
    end = _end(spot.after, doc, start, later.after, own)
    if isinstance(end, str):
        return end
    if end < start:
        return "the text after the cursor is found before the text before it"
    cursor = len(later.before)
    return doc[start:end], not start <= cursor <= end


def edited_after(spot: Window, later: Window, span: str) -> bool:
    """Whether a later window shows the text at the spot rewritten after it was read (`span`, the
    whole text between the anchors then): one anchor found once, the other not, and the text
    beside the found one no longer `span`, where the window holds enough text beside the found
    anchor to have held `span` and the missing anchor unedited. An edit inside the missing
    anchor that left the span as it was, a window clipped short of it, or one holding neither
    anchor says nothing."""
    doc, own = later.before + later.after, spot.before + spot.after
    start = _start(spot.before, doc, own)
    tail, head = _sizes(spot.before, from_end=True, own=own), _sizes(spot.after, from_end=False, own=own)
    if isinstance(start, int):
        end = _end(spot.after, doc, start, later.after, own)
        return (end == "the text after the cursor is not in this window" and len(doc) - start >= len(span) + (head or [0])[0]
                and doc[start:start + len(span)] != span)
    if start != "the text before the cursor is not in this window":
        return False
    end = _end(spot.after, doc, 0, later.after, own)
    return isinstance(end, int) and end >= len(span) + (tail or [0])[0] and doc[end - len(span):end] != span


def finished_lines(spot: Window, later: Window) -> str:
    """The lines of the spot finished before a later cursor inside it ("" when none)."""
    doc = later.before + later.after
    start = _start(spot.before, doc, spot.before + spot.after)
    assert isinstance(start, int)
    cursor = len(later.before)
    line_start = doc.rfind("\n", start, cursor) + 1
    return doc[start:line_start] if line_start > start else ""


class Request(msgspec.Struct, frozen=True):
    """A capture as the rule reads it: its id, group, order, window and answer."""

    capture_id: int
    group: tuple[str, str, str]
    ts: float | None
    order: tuple[str, int]
    window: Window | str
    completion: str | None
    answered_s: float
    infill: bool  # a body sent to llama-server's /infill (llama.vscode, llama.vim): it may have a speculative twin
    budget: tuple[int, int] | None  # (the time this body asks, the one a first request asks): speculation_budget
    unsent: Unsent = ""  # what the client may have left out after the cursor (reference_windows.unsent)


def _request(capture_id: int, rec: CaptureRecord) -> Request:
    wire = rec.extra.get("wire")
    timings = wire.get("timings") if isinstance(wire, dict) else None
    total = timings.get("total_s") if isinstance(timings, dict) else None
    path = rec.filepath or (rec.segments.filepath if rec.segments else None)
    group = (rec.editor, rec.user or "", f"file:{path}" if path else f"log:{rec.source.file}")
    body = request_body(rec)  # parsed once, read by each reader below
    window = window_of(rec, body)
    return Request(capture_id, group, rec.ts, (rec.source.file, rec.source.line or rec.source.offset), window,
                   rec.completion, float(total) if isinstance(total, (int, float)) else 0.0, infill_body(rec),
                   _budget(rec, body), unsent(rec, window, body))


def _budget(rec: CaptureRecord, body: RequestBody) -> tuple[int, int] | None:
    """What an /infill body says of being a first request or a follow-up (the client's
    EditorProfile.speculation_budget; None where it says nothing)."""
    if not infill_body(rec):
        return None
    return capture_profile(rec).speculation_budget(body) if isinstance(body, dict) else None


def _speculative(req: Request, earlier: Sequence[Request]) -> bool:
    """Whether a llama.cpp client's request is the speculative twin of an earlier one: sent within
    SPECULATIVE_S of its answer, the same suffix, its prefix that one's with the completion's
    start inserted at the cursor. What a twin inserts holds text that is not blank: llama.vscode
    src/completion.ts `cacheFutureSuggestion` inserts the suggestion's first line or all its
    lines, and `shouldDiscardSuggestion` shows no suggestion of one blank line, so a request
    that adds only line breaks (the user pressed Enter) is the user's own."""
    if not req.infill or req.ts is None or isinstance(req.window, str):
        return False
    for prev in reversed(earlier):
        if prev.ts is None or req.ts - prev.ts > prev.answered_s + SPECULATIVE_S:
            break
        if isinstance(prev.window, str) or not prev.completion or prev.window.after != req.window.after:
            continue
        tail = prev.window.before[-MAX_ANCHOR:]
        if req.window.before.find(tail) < 0:
            continue
        inserted = req.window.before[req.window.before.rfind(tail) + len(tail):]
        if inserted.strip() and prev.completion.startswith(inserted.rstrip("\n")):
            return True
    return False


def _later(group: Sequence[Request], n: int) -> Iterable[Request]:
    """The requests after group[n] within its session (SESSION_S, or SESSION_CAPTURES of its log)."""
    req = group[n]
    for count, other in enumerate(group[n + 1:]):
        if req.ts is not None and other.ts is not None:
            if other.ts <= req.ts:
                continue
            if other.ts - req.ts > SESSION_S:
                return
        elif other.order[0] != req.order[0] or other.order[1] <= req.order[1] or count >= SESSION_CAPTURES:
            continue
        yield other


_WORD_END = re.compile(r"[A-Za-z0-9_]\Z")


def _unsent_cut(text: str, req: Request, moved_on: bool) -> str | None:
    """The part of the text read at a spot that is certainly typed there when the client left
    something after the cursor unsent (`req.unsent`), or None (the reason in `_UNSENT_WHY`). A
    Tabby line rest, if it was there, ends the text's last line: a last line ending in a word
    character had none, else it is left out (the lines finished before it stay). Copilot's
    unsent line rest, line break and indentation end the text once the user moved on: its last
    line goes, blanks and all; and a prompt ending at a line break may have lost the blanks
    before the cursor (trimLastLine): a text starting with a blank there cannot be placed."""
    if req.unsent == "line_rest":
        last = text[text.rfind("\n") + 1:]
        return text if not last or _WORD_END.search(last) else text[:len(text) - len(last)] or None
    assert not isinstance(req.window, str)
    if req.window.before.endswith("\n") and text[:1] in (" ", "\t"):
        return None
    if not moved_on:
        return text  # the lines finished before the cursor: what follows it is after them
    kept = text.rstrip()
    return kept[:kept.rfind("\n") + 1] or None


_UNSENT_WHY = {"line_rest": "the client may have left the rest of the cursor's line (closing characters) out of its suffix: "
                            "where the typed text ends on that line cannot be told",
               "next_line": "a Copilot request's suffix starts at the next line (the rest of the cursor's line, the line break "
                            "and the indentation before it unsent) and its prompt may end without the blanks before the cursor: "
                            "no line of the text read is certainly typed there"}


def _typed(req: Request, later: Iterable[Request]) -> Typed:
    if isinstance(req.window, str):
        return Typed(why=req.window)
    if not _sizes(req.window.before, from_end=True):
        return Typed(why=f"fewer than {MIN_ANCHOR} non-blank characters before the cursor: the spot cannot be found again")
    last: tuple[Request, str, bool] | None = None
    shown = [other for other in later if not isinstance(other.window, str)]
    for other in reversed(shown):  # the last window that shows the spot with the cursor away from it, else the last
        assert not isinstance(other.window, str)
        found = read_span(req.window, other.window)
        if not isinstance(found, str):
            last = last or (other, *found)
            if found[1]:
                last = (other, *found)
                break
    if last is None:
        return Typed(why="no later capture of this file within the session" if not shown
                     else f"none of the {len(shown)} later captures of this file shows the spot (edited around it, or out of their windows)")
    other, text, moved_on = last
    for newer in shown[shown.index(other) + 1:]:
        assert not isinstance(newer.window, str)
        if edited_after(req.window, newer.window, text):
            return Typed(why=f"the text around the spot was edited after capture {other.capture_id} showed it (capture {newer.capture_id}): what it holds now cannot be read",
                         read_from=newer.capture_id)
    after_ms = None if req.ts is None or other.ts is None else round((other.ts - req.ts) * 1000)
    if not moved_on:
        assert not isinstance(other.window, str)
        text = finished_lines(req.window, other.window)
        if not text:
            return Typed(why="still being typed in the last capture that shows the spot (no line finished)",
                         settled_after_ms=after_ms, read_from=other.capture_id)
    if not text.strip():
        return Typed(why="nothing was typed at this spot", settled_after_ms=after_ms, read_from=other.capture_id)
    if req.unsent:
        cut = _unsent_cut(text, req, moved_on)
        if cut is None or not cut.strip():
            return Typed(why=_UNSENT_WHY[req.unsent], settled_after_ms=after_ms, read_from=other.capture_id)
        text, moved_on = cut, moved_on and cut == text
    return Typed(text=text, complete=moved_on, settled_after_ms=after_ms, read_from=other.capture_id)


def typed_references(captures: Iterable[tuple[int, CaptureRecord]]) -> dict[int, Typed]:
    """Each capture's typed reference (the module docstring's rule), by capture id."""
    groups: dict[tuple[str, str, str], list[Request]] = {}
    for capture_id, rec in captures:
        req = _request(capture_id, rec)
        groups.setdefault(req.group, []).append(req)
    out: dict[int, Typed] = {}
    for group in groups.values():
        group.sort(key=lambda r: (r.ts is None, r.ts or 0.0, r.order, r.capture_id))
        real: list[Request] = []
        asked = {req.budget[0] for req in group if req.budget is not None}
        by_budget = len(asked) > 1 and any(req.budget[1] in asked for req in group if req.budget is not None)
        for req in group:
            if (req.budget[0] != req.budget[1] if by_budget and req.budget is not None
                    else _speculative(req, real)):
                out[req.capture_id] = Typed(why="a speculative request (sent as if its suggestion were accepted): not the document")
            else:
                real.append(req)
        for n, req in enumerate(real):
            out[req.capture_id] = _typed(req, _later(real, n))
    return out
