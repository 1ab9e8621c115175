"""The prompt Continue logged, rebuilt from a capture (what `fimreplay verify` compares)."""

from __future__ import annotations

import dataclasses

from replay.editors.continue_.languages import language_for
from replay.editors.continue_.releases import (
    ERAS,
    Era,
    capture_release,
    era_for,
    profile_name,
    releases,
)
from replay.editors.continue_.templates import Ctx, Template, render_template, template_for_model
from replay.editors.continue_.uri import to_uri
from replay.editors.rulebook import UnknownRelease
from replay.records import CaptureRecord


def capture_era(record: CaptureRecord) -> Era | None:
    """The rules a capture was made under: its editor_version (a release the table knows, or a
    date), else the dated range of its timestamp; None when neither is known."""
    if record.editor_version:
        try:
            return era_for(capture_release(record.editor_version, record.user_agent))
        except UnknownRelease:
            pass  # a release newer than the table, or an unusable string: the timestamp decides
    day = record.day()
    if day is not None:
        return era_for(max(day, ERAS[0].since).isoformat())
    return None


def rebuild_logged_prompt(record: CaptureRecord) -> str | None:
    """The prompt text Continue logged, rebuilt from the prefix/suffix logged beside it.

    Dev data logs `prefix`/`suffix` after compilePrefixSuffix / the snippet header, and `prompt`
    as the template applied to exactly those (templating/index.ts buildPrompt), so the template
    alone rebuilds it; a `template` in the logged options wins as it did in Continue. Snippets
    are not logged: the CodeGeeX reference block cannot be rebuilt. The output channel logs the
    FIM route as `{prefix}<FIM>{suffix}` or `Prefix: {prefix}\nSuffix: {suffix}` by version; with
    no version or date known (the channel has none) the form the importer saw stands. None when
    there is nothing to rebuild from.
    """
    if record.segments is None or record.lossy:
        return None
    return _rebuild(record, capture_era(record))


def _rebuild(record: CaptureRecord, era: Era | None) -> str | None:
    assert record.segments is not None
    prefix, suffix = record.segments.prefix, record.segments.suffix or ""
    if record.extra.get("route") == "fim":
        style = era.fim_log if era is not None else record.extra.get("fim_rendering")
        if style == "Prefix/Suffix":
            return f"Prefix: {prefix}\nSuffix: {suffix}"
        return f"{prefix}<FIM>{suffix}" if style == "<FIM>" else None
    if record.model is None:
        return None
    era = era or ERAS[-1]
    logged_options = record.extra.get("options") if isinstance(record.extra.get("options"), dict) else {}
    override = logged_options.get("template") or None
    template: Template | str = override if isinstance(override, str) else template_for_model(record.model, era)
    filepath = to_uri(record.filepath or record.segments.filepath or "Untitled.txt")
    ctx = Ctx(filepath=filepath, reponame="myproject", language=language_for(filepath)[0], snippets=(), workspaces=(), era=era)
    return render_template(template, prefix, suffix, ctx)


def explain_mismatch(record: CaptureRecord) -> dict[str, str]:
    """Which rule of which release produced a rebuilt prompt that differs from the log: the
    release (or dated range) the capture was rebuilt under and the rule that wrote the bytes
    (the FIM log form, or the template chosen); and, when another release's rules rebuild the
    log exactly, the nearest such release in time and the rules in which the two differ."""
    era = capture_era(record) or ERAS[-1]
    if record.extra.get("route") == "fim":
        rule = f"fim_log {era.fim_log or 'none'}"
    elif record.model is not None:
        rule = f"template {template_for_model(record.model, era).name}"
    else:
        rule = "template"
    out = {"release": profile_name(era), "rule": rule}
    candidates = sorted(releases().values(), key=lambda e: abs((e.since - era.since).days))
    seen: set[tuple[object, ...]] = set()
    for other in candidates:
        key = tuple(v for f, v in dataclasses.asdict(other).items() if f not in ("since", "label"))
        if key in seen:
            continue
        seen.add(key)
        if _rebuild(record, other) == record.logged_prompt:
            differ = [f.name for f in dataclasses.fields(Era) if f.name not in ("since", "label")
                      and getattr(other, f.name) != getattr(era, f.name)]
            out.update(matches=profile_name(other), differing_rules=", ".join(differ))
            break
    return out
