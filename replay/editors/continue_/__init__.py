"""The Continue autocomplete profile: the prompt Continue (continuedev/continue) builds at a cursor,
and what it shows of the model's answer.

The pipeline, in Continue's order (core/autocomplete/CompletionProvider.ts ->
templating/index.ts renderPromptWithTokenLimit):

1. HelperVars.prunePrefixSuffix (core/autocomplete/util/HelperVars.ts): the prefix keeps whole
   lines from the bottom within maxPromptTokens x prefixPercentage tokens, the suffix whole lines
   from the top within min(maxPromptTokens - tokens(prefix), maxSuffixPercentage x
   maxPromptTokens), counted with Continue's own counting tokenizer (tokens.py).
2. An empty suffix becomes "\\n" (templating/index.ts preparePromptContext).
3. Snippets are filtered and fitted into what is left of maxPromptTokens (templating/filtering.ts
   getSnippets), taken in the order given: Continue shuffles its base snippets with Math.random,
   so the input's order stands for the shuffled one.
4. The template is chosen from the lower-cased model name (templating/AutocompleteTemplate.ts
   getTemplateForModel) unless the `template` option overrides it; templates with their own
   compilePrefixSuffix (Qwen-coder multi-file, Codestral, Mercury) place the snippets
   themselves, the others get the comment header of templating/formatting.ts formatSnippets.
5. If the prompt is longer than contextLength - maxTokens - buffer it is pruned again, prefix and
   suffix in proportion (renderPromptWithTokenLimit, since 2025-07-30).
6. Stop words: the template's list + the common ones (templating/getStopTokens.ts).
7. Route (autocomplete/generation/CompletionStreamer.ts): a provider whose supportsFim() is true
   gets prefix and suffix separately and the rendered template is NOT sent; otherwise the prompt
   goes out with `raw: true`; the hole-filler template is a chat prompt for chat models.
   `text` and `logged_prompt` are the rendered template on every route (dev data logs it as
   `prompt` even on the FIM route); on the FIM route the engine gets prefix_sent/suffix_sent.

Profiles are releases (`continue@0.9.262-vscode`, rules read from the source at each release
tag: replay/data/continue_releases.json) or dates (`continue@YYYY-MM-DD`: each of releases.RULES
is a commit of continuedev/continue that changed a rule modelled here); the default is the
newest. The rules that vary are the budgets, the template choice and each template's stop list
and file headers, the names counted with each tokenizer, pruning, re-pruning, the empty suffix,
the multipliers, the clipboard default and the FIM log form. Releases before the rewrite of
2024-10-30 (0.8.24..0.8.56 / 0.9.119..0.9.226) build the prompt in a different pipeline:
prompt08.py; the first rewritten releases (0.9.227..0.9.234, until 2024-11-21) still rank and
merge their snippets that way (ranking08.py) and format them as before. Older releases than
the table's first (0.8.24 / 0.9.119 / JetBrains 0.0.43, 2024-04-12) are refused.

Modules of the prompt side: releases.py (rules by release), tokens.py (Continue's counting
tokenizers), uri.py, languages.py, templates.py, snippets.py, route.py, profile.py (the pipeline
above), prompt08.py (the pre-rewrite pipeline), ranking08.py (its snippet ranking), logs.py (the
logged prompt rebuilt, and what explains a mismatch). Of the completion stage: completion.py
(what Continue shows, in its order), rules.py (its rule changes by date and release),
charstream.py and linestream.py (the stream transforms), brackets.py, multiline.py, langinfo.py,
postprocessing.py. In a typing session: timing.py (its timing rules), live.py (its client: the
extension's calls, core's debounce, cache and stream reuse). JavaScript string semantics are shared with Tabby (replay.editors.js).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from replay.editors.interface import PackageProfile, capture_input
from replay.editors.live import Doc, Host, LiveClient
from replay.editors.timed_client import Complete, Debouncer, Render
from replay.editors.timing import TimingRules
from replay.records import CaptureRecord, EditorInput


class ContinueProfile(PackageProfile):
    """Continue's autocomplete, by release or by the day of a rule's commit (the package's modules
    above, each imported when a method first needs it: naming the editor loads none of its tables)."""

    name = "continue"
    display = "Continue"
    releases = "Continue 0.8.24 - 2.1.0 (VS Code), 0.0.44 - 1.0.67 (JetBrains); or a day"
    capture_source = "Continue dev data, VS Code output channel, JetBrains prompt.log (`fimreplay import`); `fimreplay proxy`"
    stop_source = "continuedev/continue core/autocomplete/templating/getStopTokens.ts"
    logs_prompts = True
    rule_book = "rules"
    has_timing = True

    def rebuild_logged_prompt(self, record: CaptureRecord) -> str | None:
        from replay.editors.continue_ import logs

        return logs.rebuild_logged_prompt(record)

    def explain_mismatch(self, record: CaptureRecord) -> dict[str, str]:
        """Which rule of which release wrote the bytes (Continue's rules are kept per release)."""
        from replay.editors.continue_ import logs

        return logs.explain_mismatch(record)

    def capture_version(self, record: CaptureRecord) -> str | None:
        """Its own version (a JetBrains release when its IDE is one), else the day it was
        captured (None before the first dated rules: the newest rules stand)."""
        from replay.editors.continue_ import releases

        if record.editor_version:
            return releases.capture_release(record.editor_version, record.user_agent)
        day = record.day()
        return day.isoformat() if day is not None and day >= releases.ERAS[0].since else None

    def input_from_capture(self, record: CaptureRecord, item_id: str) -> EditorInput:
        """The logged model provider becomes the `provider` option: the budget and the route depend on it."""
        provider = record.extra.get("modelProvider")
        options: dict[str, Any] = {"provider": provider} if isinstance(provider, str) else {}
        return capture_input(record, item_id, options)

    def timed_client(self, host: Host, rules: TimingRules, body: Render, complete: Complete,
                     cursor_input: Callable[[Doc], EditorInput], debouncer: Debouncer | None, model: str,
                     version: str | None, options: Mapping[str, Any]) -> LiveClient:
        """Continue's own loop (live.py): its stream outlives the call that asked for it, and a
        later call reuses it or its cache serves what was typed into an answer; its cache and
        streams compared by the prefixes Continue builds for `model` (profile.cache_prefixes), its
        answers read as Continue's stream filters do at the cursor (stream.py)."""
        from replay.editors.continue_.live import ContinueClient
        from replay.editors.continue_.profile import cache_prefixes
        from replay.editors.continue_.stream import reader

        return ContinueClient(host, rules, body, complete, cursor_input,
                              lambda inp: cache_prefixes(inp, model, version),
                              lambda inp: reader(inp, model, version, rules.shown_by_ms))


PROFILE = ContinueProfile()

__all__ = ["PROFILE", "ContinueProfile"]
