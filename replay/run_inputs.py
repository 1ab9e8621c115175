"""What `fimreplay run` and `export` replay: rendered prompts, benchmark items or captures.

A JSONL file holds RenderedPrompt lines (the output of `fimreplay render`) or FimItem lines
(`fimreplay evalgen`); the word `captures` takes the captures of the store. Items and captures
go through the editor profile (`replay.editors.render`) first. A line that cannot be used is
counted and kept with its file:line and reason (a rejects file), never dropped and never stops
the rest; an id seen twice is a reject too (completions are stored per item id).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import msgspec

from replay.records import CaptureRecord, EditorInput, FimItem, RenderedPrompt
from replay.store import Store


class Reject(msgspec.Struct, frozen=True):
    where: str
    reason: str
    raw: str = ""


class Inputs(msgspec.Struct):
    prompts: list[RenderedPrompt]
    rejects: list[Reject]
    corpus_hash: str  # sha256 of the input file (or of the capture hashes)
    kind: str  # "prompts" | "items" | "captures"


Renderer = Callable[[EditorInput], RenderedPrompt]


def editor_renderer(editor: str, model: str) -> Renderer:
    """Render through the editor profile `editor` ("standard", "tabby@0.25", "continue@1.0")."""
    from replay import editors

    render = getattr(editors, "render", None)
    if render is None:
        raise LookupError("rendering items and captures needs replay.editors.render (not in this build)")
    name, _, version = editor.partition("@")
    return lambda inp: render(name, inp, model, version or None)


def item_input(item: FimItem) -> EditorInput:
    return EditorInput(prefix=item.prefix, suffix=item.suffix, filepath=item.file, language=item.language, item_id=item.id)


def capture_input(capture_id: int, rec: CaptureRecord) -> EditorInput:
    seg = rec.segments
    if seg is None:
        raise ValueError("no segments (prefix/suffix) in this capture")
    return EditorInput(prefix=seg.prefix, suffix=seg.suffix or "", filepath=seg.filepath or rec.filepath,
                       language=rec.language, snippets=seg.snippets, item_id=f"capture-{capture_id}")


def load_inputs(source: str, store: Store, render: Callable[[], Renderer]) -> Inputs:
    """Read `source` (a JSONL path or `captures`). `render` gives the renderer when needed."""
    prompts: list[RenderedPrompt] = []
    rejects: list[Reject] = []
    seen: set[str] = set()

    def add(prompt: RenderedPrompt, where: str, raw: str) -> None:
        if not prompt.item_id:
            rejects.append(Reject(where, "no item id", raw))
        elif prompt.item_id in seen:
            rejects.append(Reject(where, f"item id {prompt.item_id!r} seen before", raw))
        else:
            seen.add(prompt.item_id)
            prompts.append(prompt)

    if source == "captures":
        digest = hashlib.sha256()
        renderer = None
        for capture_id, rec, _ in store.captures():
            digest.update(rec.content_hash().encode())
            where = rec.source.where()
            try:
                inp = capture_input(capture_id, rec)
                renderer = renderer or render()
                add(_with_id(renderer(inp), inp.item_id), where, "")
            except (ValueError, KeyError) as exc:
                rejects.append(Reject(where, str(exc), rec.raw))
        return Inputs(prompts, rejects, digest.hexdigest(), "captures")

    path = Path(source)
    data = path.read_bytes()
    kind = "prompts"
    renderer = None
    for n, line in enumerate(data.decode("utf-8", "replace").splitlines(), 1):
        if not line.strip():
            continue
        where = f"{path}:{n}"
        try:
            obj = json.loads(line)
            if not isinstance(obj, dict):
                raise ValueError("not a JSON object")
            if "middle" in obj:
                kind = "items"
                item = msgspec.convert(obj, FimItem)
                renderer = renderer or render()
                add(_with_id(renderer(item_input(item)), item.id), where, line)
            elif "profile" in obj and "text" in obj:
                add(msgspec.convert(obj, RenderedPrompt), where, line)
            else:
                raise ValueError("neither a rendered prompt (profile, text) nor a benchmark item (prefix, middle, suffix)")
        except (ValueError, msgspec.ValidationError, KeyError) as exc:
            rejects.append(Reject(where, str(exc).splitlines()[0] if str(exc) else type(exc).__name__, line))
    return Inputs(prompts, rejects, hashlib.sha256(data).hexdigest(), kind)


def write_rejects(path: Path, rejects: list[Reject]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("wb") as fh:
        for reject in rejects:
            fh.write(msgspec.json.encode(reject) + b"\n")


def _with_id(prompt: RenderedPrompt, item_id: str | None) -> RenderedPrompt:
    return prompt if prompt.item_id else msgspec.structs.replace(prompt, item_id=item_id)


def describe_rejects(rejects: list[Reject]) -> list[dict[str, Any]]:
    return [{"where": r.where, "reason": r.reason} for r in rejects]
