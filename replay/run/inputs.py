"""What `fimreplay run` and `export` replay: rendered prompts, benchmark items or captures.

A JSONL file holds RenderedPrompt lines (the output of `fimreplay render`) or FimItem lines
(`fimreplay evalgen`) or render inputs; the word `captures` takes the captures of the store. Items and captures
go through the editor profile (`replay.editors.render`) first. A line that cannot be used is
counted and kept with its file:line and reason (a rejects file), never dropped and never stops
the rest; an id seen twice is a reject too (completions are stored per item id), and a line
without an id gets one from its content (`content_id`). Items and
render inputs are read by replay.editors.inputs.parse_line, the reader `fimreplay render` uses.
The file is read a line at a time, split on LF only (a U+2028 inside a JSON string is no line
end), never holding more than MAX_LINE_BYTES of one line;
rendered prompts are `fimreplay render` output lines (or RenderedPrompt JSON).
"""

from __future__ import annotations

import hashlib
from pathlib import Path
import msgspec

from replay.assets import sha256_file
from replay.editors import EditorProfile, capture_version, profile
from replay.editors import capture_input as editor_capture_input
from replay.errors import UsageError, first_line
from replay.importers.common import MAX_LINE_BYTES, iter_lines
from replay.jsonl import loads
from replay.records import CaptureRecord, EditorInput, Reference, RenderedPrompt, rendered_prompt_of
from replay.rejects import Rejects
from replay.store import Store


class RenderedFrom(msgspec.Struct, frozen=True):
    """What an editor profile rendered an item's prompt from: the profile and its version
    (resolved once, from a spec such as `tabby@0.25`, `continue` or `standard`) and the editor
    input at the cursor. The completion stage of the same profile turns the engine's text into
    what that editor showed."""

    profile: EditorProfile
    version: str | None
    inp: EditorInput

    @classmethod
    def of(cls, spec: str, inp: EditorInput) -> RenderedFrom:
        """The profile named by `spec` (UnknownEditor when none is) and the input at its cursor."""
        prof, version = profile(spec)
        return cls(prof, version, inp)


class Inputs(msgspec.Struct):
    prompts: list[RenderedPrompt]
    rejects: Rejects
    corpus_hash: str  # sha256 of the input file (or of the capture hashes)
    kind: str  # "prompts" | "items" | "captures"
    rendered_from: dict[str, RenderedFrom] = {}  # item id -> what an editor rendered its prompt from
    references: dict[str, Reference] = {}  # item id -> what its completion is scored against


def render(source: RenderedFrom, model: str) -> RenderedPrompt:
    """The prompt the editor of `source` builds for `model` at its cursor, under the input's
    item id when the profile gives none."""
    prompt = source.profile.render(source.inp, model, source.version)
    return prompt if prompt.item_id else msgspec.structs.replace(prompt, item_id=source.inp.item_id)


def capture_item_id(capture_id: int) -> str:
    """The item id a replayed capture's completions are stored under."""
    return f"capture-{capture_id}"


def capture_references(store: Store) -> dict[str, Reference]:
    """Item id -> reference of every capture as `captures` replays it: the text the user accepted."""
    return {capture_item_id(capture_id): Reference(kind="capture", capture_id=capture_id)
            for capture_id in store.capture_ids()}


def capture_input(capture_id: int, rec: CaptureRecord) -> EditorInput:
    """The editor input a capture records, as its own editor's profile reads it
    (EditorProfile.input_from_capture: Continue's logged model provider as the `provider`
    option, a llama.cpp client's /infill body as the `request`); CaptureNotReplayable when it
    holds too little to be rendered again."""
    return editor_capture_input(rec, capture_item_id(capture_id))


def load_inputs(source: str, store: Store, editor: str | None, model: str, rejects: Rejects) -> Inputs:
    """Read `source` (a JSONL path or `captures`), every unusable line into `rejects`. Items and
    captures are rendered for `model` (the model as the editor profiles take it) by `editor`, or
    when None by the capture's own editor and release (items: "standard"); each keeps what its
    prompt was rendered from (`Inputs.rendered_from`). Each input's reference is an item's
    middle, found by its item id, or for a capture the text the user accepted (`Inputs.references`)."""
    from replay.editors.inputs import parse_line

    prompts: list[RenderedPrompt] = []
    seen: set[str] = set()
    references: dict[str, Reference] = {}
    rendered_from: dict[str, RenderedFrom] = {}

    def add(prompt: RenderedPrompt, where: tuple[str, int], raw: str, rendered: RenderedFrom | None = None,
            reference: Reference | None = None) -> None:
        if not prompt.item_id:
            prompt = msgspec.structs.replace(prompt, item_id=content_id(rendered.inp if rendered is not None else prompt))
        if prompt.item_id in seen:
            rejects.at(*where, f"item id {prompt.item_id!r} seen before", raw)
        else:
            seen.add(prompt.item_id)
            prompts.append(prompt)
            references[prompt.item_id] = reference or Reference(kind="item", item_id=prompt.item_id)
            if rendered is not None:
                rendered_from[prompt.item_id] = rendered

    if source == "captures":
        digest = hashlib.sha256()
        for capture_id, rec, _ in store.captures():
            digest.update(rec.content_hash().encode())
            where = (rec.source.file, rec.source.line)
            version = capture_version(rec)
            own = f"{rec.editor}@{version}" if version else rec.editor
            try:
                rendered = RenderedFrom.of(editor or own or "standard", capture_input(capture_id, rec))
                add(render(rendered, model), where, rec.raw, rendered, Reference(kind="capture", capture_id=capture_id))
            except (UsageError, ValueError, KeyError) as exc:
                rejects.at(*where, first_line(exc), rec.raw)
        return Inputs(prompts, rejects, digest.hexdigest(), "captures", rendered_from, references)

    path = Path(source)
    kinds: set[str] = set()
    with path.open("rb") as fh:
        for ln in iter_lines(fh):
            where = (str(path), ln.number)
            if ln.too_long:
                rejects.at(*where, f"line longer than {MAX_LINE_BYTES} bytes", ln.data, ln.length)
                continue
            line = ln.data.decode("utf-8", "surrogateescape").removesuffix("\r")  # a bad byte: `loads` rejects the line
            if ln.number == 1:
                line = line.removeprefix("\ufeff")
            if not line.strip():
                continue
            try:
                obj = loads(line)
                if isinstance(obj, dict) and "profile" in obj and ("text" in obj or "prompt" in obj):
                    kinds.add("prompts")
                    add(rendered_prompt_of(obj), where, line)
                else:
                    # a render input or a FimItem line (replay.editors.inputs)
                    rendered = RenderedFrom.of(editor or "standard", parse_line(line))
                    kinds.add("items")
                    add(render(rendered, model), where, line, rendered)
            except (UsageError, ValueError, msgspec.ValidationError, KeyError, RecursionError) as exc:
                rejects.at(*where, first_line(exc), line)
    return Inputs(prompts, rejects, sha256_file(path), "+".join(sorted(kinds)) or "empty", rendered_from, references)


def content_id(record: EditorInput | RenderedPrompt) -> str:
    """The item id of an input line that has none (`id` is optional in render input and
    output): what the line holds, hashed, so that the same input read again, from any file or
    with other line endings, is the same item (a resumed run skips it; twice in one file is a
    duplicate)."""
    return "content-" + hashlib.sha256(msgspec.json.encode(record)).hexdigest()[:16]

