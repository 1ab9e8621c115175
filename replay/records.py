"""The few typed records everything in fimreplay passes around.

Data flows one way (docs/architecture.md): capture file -> importer -> CaptureRecord -> editor pipeline ->
RenderedPrompt -> tokens -> backend -> Completion -> scoring -> store. A benchmark starts at
FimItem. Records are frozen msgspec Structs: cheap to build by the hundred thousand during an
import, and they serialise to JSON (the store keeps each one as a JSON blob beside indexed
columns) without a hand-written mapping that could drift from the type.
"""

from __future__ import annotations

import datetime
import hashlib
from typing import Any, Literal

import msgspec

# The editors a capture can come from: those with a profile, and (captured by the proxy) the
# llama.cpp clients and clients it could not name.
Editor = Literal["tabby", "continue", "llama.vscode", "llama.vim", "unknown"]
Outcome = Literal["accepted", "accepted_line", "dismissed", "viewed", "unknown"]
Route = Literal["raw", "fim", "chat"]


class Source(msgspec.Struct, frozen=True):
    """Where a record came from: the file and the 1-based line (or byte offset) in it."""

    file: str
    line: int = 0
    offset: int = 0

    def where(self) -> str:
        return f"{self.file}:{self.line}" if self.line else self.file


class Snippet(msgspec.Struct, frozen=True):
    """Context the editor added from another file (Tabby declarations, Continue snippets).

    `lines` is the range the content was read from, (first line, end line) 0-based as the
    editor's own range (Continue merges snippets of one file whose ranges overlap); unset when
    not known, and then left out of the encoded record, so records without it keep their bytes.
    """

    filepath: str
    content: str
    kind: str = "snippet"  # replay.editors.inputs.SNIPPET_KINDS
    lines: tuple[int, int] | msgspec.UnsetType = msgspec.UNSET


class Segments(msgspec.Struct, frozen=True):
    """The cut-out code around the cursor as the editor sent or logged it."""

    prefix: str
    suffix: str | None = None
    snippets: tuple[Snippet, ...] = ()
    clipboard: str | None = None
    git_url: str | None = None
    filepath: str | None = None


class CaptureRecord(msgspec.Struct, frozen=True, omit_defaults=True):
    """One completion request an editor really made, as read from its log.

    `logged_prompt` is the text exactly as logged (Tabby logs it before clipping; Continue logs
    the rendered template even when the FIM route was used). `raw` is the original line(s), kept
    so that a capture can always be re-read with a newer importer.
    """

    source: Source
    editor: Editor
    format: str
    completion_id: str | None = None
    editor_version: str | None = None
    model: str | None = None
    language: str | None = None
    filepath: str | None = None
    segments: Segments | None = None
    logged_prompt: str | None = None
    completion: str | None = None
    outcome: Outcome = "unknown"
    outcome_detail: str | None = None
    ts: float | None = None  # seconds since the epoch, UTC
    user: str | None = None
    user_agent: str | None = None
    lossy: bool = False  # the log format drops or rewraps text (JetBrains prompt.log)
    extra: dict[str, Any] = {}
    raw: str = ""

    def day(self) -> datetime.date | None:
        """The UTC day the request was made (None when the log gave no time): the editors' rules
        are dated, and a capture without a version is replayed under those of its day."""
        return None if self.ts is None else datetime.datetime.fromtimestamp(self.ts, datetime.timezone.utc).date()

    def content_hash(self) -> str:
        """Identity by content: the same request read twice is stored once (the store uses it
        for records it does not keep as their log line, replay.store.stored_capture).

        The source location is left out on purpose: the same log line copied into another file
        (a backup, the next day's rotated copy) is still the same request.
        """
        body = msgspec.json.encode(msgspec.structs.replace(self, source=Source(file=""), outcome="unknown", outcome_detail=None))
        return hashlib.sha256(body).hexdigest()


class OutcomeEvent(msgspec.Struct, frozen=True):
    """A view/select/dismiss event, joined to its capture by completion_id."""

    source: Source
    completion_id: str
    kind: Literal["view", "select", "dismiss"]
    choice_index: int = 0
    select_kind: str | None = None  # "line" for a line-wise accept
    view_id: str | None = None
    elapsed: int | None = None
    ts: float | None = None


class ExtraChunk(msgspec.Struct, frozen=True):
    """One chunk of other text a llama.cpp client holds in its ring buffer and sends as
    `input_extra` (ggml-org/llama.vscode src/extra-context.ts; llama.vim `s:ring_update`)."""

    text: str
    time: float = 0.0  # when the client picked it, seconds (the client's own clock)
    filename: str = ""


class SessionEvent(msgspec.Struct, frozen=True, omit_defaults=True):
    """One step of the editing session before a cursor: what the llama.cpp clients pick their
    extra context from (a buffer opened, entered, left or saved, text yanked, a completion
    accepted). `text` is the buffer's text (or the yanked text), `line` the cursor's 0-based
    line in it, `time` seconds on the session's clock."""

    kind: Literal["open", "enter", "leave", "save", "yank", "accept"]
    time: float
    filename: str = ""
    text: str = ""
    line: int = 0


class OpenFile(msgspec.Struct, frozen=True, omit_defaults=True):
    """Another file the editor holds open, in the editor's own order (Copilot's neighbor tabs)."""

    filepath: str
    text: str
    language: str | None = None


class EditorInput(msgspec.Struct, frozen=True, omit_defaults=True):
    """The editor's view at one cursor, before any editor rule is applied.

    Every profile (`replay.editors`) takes this and returns a RenderedPrompt. A document with a
    cursor is turned into prefix/suffix by character offset before it gets here; snippets are
    in the order given (Continue shuffles its own at random, so the given order stands in).
    `options` overrides the editor's settings, keyed by the editor's own setting names.
    `trigger` is how the completion was asked for: "auto" as the user typed, "manual" when the
    user invoked it (tabby-agent 1.9.0-dev requests more choices, at another temperature).
    `request` is a client's HTTP body as it was sent (a proxy capture holds one): a profile
    with a server half then runs that half only. `extra` / `events` are the llama.cpp clients'
    ring buffer of chunks, given as held or as the session that filled it; `open_files` the
    other open files and `session` the key of lines rendered in order with the client's state
    carried over (Copilot).
    """

    prefix: str
    suffix: str
    filepath: str | None = None
    workspace: str | None = None
    language: str | None = None
    snippets: tuple[Snippet, ...] = ()
    options: dict[str, Any] = {}
    item_id: str | None = None
    trigger: Literal["auto", "manual"] = "auto"
    request: dict[str, Any] | None = None
    extra: tuple[ExtraChunk, ...] = ()
    events: tuple[SessionEvent, ...] = ()
    open_files: tuple[OpenFile, ...] = ()
    session: str | None = None


class UnitTest(msgspec.Struct, frozen=True):
    """One stdin/stdout case of a whole program (SAFIM's `unit_tests`, which its ExecEval runs:
    gonglinyuan/safim exec_utils.py ExtendedUnittest): the input fed, the accepted outputs."""

    input: str
    output: tuple[str, ...] = ()


class FimItem(msgspec.Struct, frozen=True, omit_defaults=True):
    """One benchmark item: cut from raw code (prefix + middle + suffix == the chunk), or read
    from a public benchmark's file (`benchmark`: prefix + middle + suffix == its program).

    From a dated corpus it carries the day its version was published and where that date came
    from; cut from new code only (`new_code`), the older version its middle is absent from
    (`since`, a corpus source) and that version's day: the middle was written after it, so a
    model whose training data ends before `since_date` cannot have seen it. From a corpus dated
    line by line (git blame), the time of the middle's newest line and its commit: the middle
    as it stands did not exist before `middle_date`."""

    id: str
    file: str
    prefix: str
    middle: str
    suffix: str
    mode: str
    language: str = "solidity"
    start: int = 0  # character offset of the middle in the file
    end: int = 0
    chunk_start: int = 0
    corpus_hash: str = ""  # sha256 of the corpus file the item was cut from
    published: str = ""  # YYYY-MM-DD; "" when unknown
    published_source: str = ""  # user | changelog | git | registry (replay.corpus.dates)
    new_code: bool = False
    since: str = ""
    since_date: str = ""  # YYYY-MM-DD; "" when unknown
    middle_date: str = ""  # UTC time of the middle's newest line (git blame); "" when undated
    middle_date_source: str = ""  # blame | uncommitted (a work tree's line, dated when the corpus was made)
    middle_commit: str = ""  # the commit that last changed the middle's newest line
    # Read from a public benchmark's file (replay.benchmarks): its format's name, the document's
    # path in its repository where the benchmark names one (what the editors are told, as a render
    # input's `filepath`), the cross-file context it gives (placed as each editor places
    # snippets), and what its checker runs the completion with, under the benchmark's own names:
    # `test` and `entry_point` (HumanEval's check(candidate); SantaCoder-FIM's `tests`),
    # `eval_prompt` and `unit_tests` (SAFIM's program with "{{completion}}" where the middle goes,
    # and its stdin/stdout cases).
    benchmark: str = ""
    filepath: str = ""
    snippets: tuple[Snippet, ...] = ()
    test: str = ""
    entry_point: str = ""
    eval_prompt: str = ""
    unit_tests: tuple[UnitTest, ...] = ()


# What scoring reads of a benchmark item: FimItem's fields (and defaults) it needs, so that an
# item's prefix and suffix (most of its record) are never made into strings.
ItemReference = msgspec.defstruct("ItemReference", [(f.name, f.type, f.default) for f in msgspec.structs.fields(FimItem)
                                                    if f.name in ("id", "file", "language", "middle")], frozen=True)


class Reference(msgspec.Struct, frozen=True, omit_defaults=True):
    """What a run input's completion is scored against: a benchmark item's middle (kind "item":
    `item_id`) or the text the user accepted of a replayed capture (kind "capture":
    `capture_id`). It says where the text is, not the text: a capture's outcome may arrive
    after the run, so its accepted text is read from the capture when the run is scored."""

    kind: Literal["item", "capture"]
    item_id: str = ""
    capture_id: int = 0


class RenderedPrompt(msgspec.Struct, frozen=True, omit_defaults=True):
    """What an editor profile turns a cursor into: the exact text and ids the engine receives."""

    profile: str  # e.g. "tabby@0.25", "continue@1.0", "standard"
    family: str  # template family, e.g. "qwen2.5-coder"
    text: str  # the prompt (raw route), or the chat message (chat route)
    prefix_sent: str
    suffix_sent: str
    route: Route = "raw"
    stop: tuple[str, ...] = ()
    max_new_tokens: int = 128
    token_ids: tuple[int, ...] = ()
    request: dict[str, Any] | None = None  # the client's HTTP body, where the editor has one
    item_id: str | None = None
    logged_prompt: str | None = None  # what the editor's own log would show (Tabby: before clipping)
    version_why: str | None = None  # which release's rules were applied and why (a capture's user agent, its day)
    # settings of the input that another release of the editor reads and this one leaves unread (dotted keys)
    ignored_options: tuple[str, ...] = ()


def rendered_prompt_of(obj: dict[str, Any]) -> RenderedPrompt:
    """A line of `fimreplay render` output (replay.editors.inputs.output_row: the prompt as
    `prompt`, the item's id as `id`, its input line as `line`) or a RenderedPrompt as stored:
    what `run` replays and `audit` reads of either (msgspec.ValidationError when it is neither)."""
    fields = {k: v for k, v in obj.items() if k != "line"}
    if "prompt" in fields and "text" not in fields:
        fields["text"] = fields.pop("prompt")
    if "id" in fields and "item_id" not in fields:
        fields["item_id"] = str(fields.pop("id"))
    return msgspec.convert(fields, RenderedPrompt)


class TraceStep(msgspec.Struct, frozen=True, omit_defaults=True):
    """One editor rule that changed a completion on its way to the user: its name in the editor's
    source, the file it is in (repository + path), and the text after it (None: the editor
    shows nothing after this rule)."""

    step: str
    source: str
    text: str | None = None


class Completion(msgspec.Struct, frozen=True, omit_defaults=True):
    """What a backend returned for one prompt, and what the editor showed of it.

    `raw_text` is the engine's output; `text` is it cut at the prompt's stop words (what the
    editor received: the server or the LLM call stops there). `shown_text` is what the editor
    inserted at the cursor after its completion stage (replay.editors.stage), None when it
    showed nothing; `stage` names the profile whose stage produced it ("" when none was applied:
    a run of rendered prompts without their editor input, or a run from before the stage
    existed). `trace` lists each rule that changed the text. `timing` holds, when the engine
    streamed, (characters received, seconds since the request) per chunk; `stopped_early` says
    the engine was stopped where the editor stops reading (stop word or cancelled stream);
    `truncated` that the server's answer went over the response cap and was cut there.
    `replace_before` counts the characters before the cursor the shown item replaces (Copilot's
    item rewrites its line from the line's start) and `replaced` holds them, as the prompt's
    prefix ends with them: what is scored of such an item is `scored_pair`'s.
    `latency_s` is the time from the request to the whole answer, `ttft_s` to its first token
    when the engine measured it (0: not measured), `prompt_tokens` the prompt's length in tokens
    as the engine counted it (0: not counted) beside `n_tokens`, the tokens generated.
    """

    item_id: str
    text: str
    raw_text: str
    backend: str
    model: str
    n_tokens: int = 0
    finish_reason: str = ""
    latency_s: float = 0.0
    cache_key: str = ""
    error: str | None = None
    stage: str = ""
    shown_text: str | None = None
    multiline: bool | None = None
    replace_after: int = 0
    trace: tuple[TraceStep, ...] = ()
    timing_applied: bool = False
    timing: tuple[tuple[int, float], ...] = ()
    stopped_early: bool = False
    truncated: bool = False
    replace_before: int = 0
    replaced: str = ""
    ttft_s: float = 0.0
    prompt_tokens: int = 0

    def first_token_s(self) -> float:
        """Seconds to the first token: the engine's measure, else the first streamed chunk's,
        else the whole answer's (an unstreamed answer reaches the editor all at once)."""
        if self.ttft_s:
            return self.ttft_s
        return self.timing[0][1] if self.timing else self.latency_s

    def scored_pair(self, reference: str, which: str) -> tuple[str, str]:
        """(reference, text) as a score compares them: the text is "shown" (what the user saw; ""
        when nothing was shown; the received text when no stage was applied) or "raw" (what the
        editor received, inserted at the cursor).

        An item shown over `replace_before` characters before the cursor (Copilot) leaves the
        document as prefix[:-replace_before] + shown_text + suffix. When it starts with the
        characters it replaces, what it inserts at the cursor is the rest, scored against the
        reference as any insertion. When it rewrote them (Copilot re-indents a blank line), the
        document differs from the reference's before the cursor, which an inserted text cannot
        say: the line is then compared from its start, the replaced characters followed by the
        reference against the item's whole text, so a re-indented line is never an exact match."""
        if self.error is not None:
            return reference, ""
        if which == "raw" or not self.stage:
            return reference, self.text
        shown = self.shown_text or ""
        if not self.replace_before or self.shown_text is None:
            return reference, shown
        if shown.startswith(self.replaced):
            return reference, shown[len(self.replaced):]
        return self.replaced + reference, shown

    def scored_text(self, which: str) -> str:
        """The text scored_pair compares with a reference the item does not rewrite."""
        return self.scored_pair("", which)[1]


# What scoring reads of a stored Completion: its texts, the characters it replaces before the
# cursor and whether it failed, with the same scored_pair; its trace and stream timing (most of a streamed record) are skipped unread.
CompletionTexts = msgspec.defstruct(
    "CompletionTexts", [(f.name, f.type, f.default) for f in msgspec.structs.fields(Completion)
                        if f.name in ("item_id", "text", "raw_text", "error", "stage", "shown_text", "replace_before", "replaced")],
    frozen=True, namespace={"scored_pair": Completion.scored_pair, "scored_text": Completion.scored_text})


def to_json(obj: Any) -> bytes:
    return msgspec.json.encode(obj)
