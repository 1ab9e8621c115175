"""Continue's postprocessCompletion: the rules applied to the whole streamed completion before it
is shown (continuedev/continue core/autocomplete/postprocessing.ts, since 2024-10-30
core/autocomplete/postprocessing/index.ts), and the outcome filter of completionProvider.ts
provideInlineCompletionItems (until 2024-10-30). Text is in UTF-16 code units.

Model rules match `llm.model`, the configured model name, case-sensitively (the Qwen space rule
of 2024-06..11 lower-cases it).
"""

from __future__ import annotations

import re

from replay.editors.continue_.linestream import line_is_repeated
from replay.editors.continue_.rules import Rules
from replay.editors.js import JS_WHITESPACE as JS_SPACE
from replay.editors.js import js_trim, js_trim_end

_WS = re.escape(JS_SPACE)
_ONLY_WHITESPACE = re.compile(f"[{_WS}]+")
_ONLY_PUNCTUATION = re.compile(r"[^A-Za-z0-9_})\]]+")  # /^[^\w\d\}\)\]]+$/ (\w is ASCII in JavaScript)
_SPACES = re.compile(f"[{_WS}]+")
_THINK = re.compile(r"<think>.*?</think>", re.DOTALL)
_OUTER_NEWLINES = re.compile(r"^\n+|\n+$")
_BACKTICK_RUN = re.compile(r"`+")


def longest_common_subsequence(a: str, b: str) -> str:
    """core/util/lcs.ts longestCommonSubsequence, with its tie-breaking on the way back."""
    lengths = [[0] * (len(b) + 1) for _ in range(len(a) + 1)]
    for i in range(1, len(a) + 1):
        for j in range(1, len(b) + 1):
            lengths[i][j] = lengths[i - 1][j - 1] + 1 if a[i - 1] == b[j - 1] else max(lengths[i - 1][j], lengths[i][j - 1])
    out: list[str] = []
    x, y = len(a), len(b)
    while x and y:
        if lengths[x][y] == lengths[x - 1][y]:
            x -= 1
        elif lengths[x][y] == lengths[x][y - 1]:
            y -= 1
        else:
            out.append(a[x - 1])
            x, y = x - 1, y - 1
    return "".join(reversed(out))


def rewrites_line_above(completion: str, prefix: str, rule: str) -> bool:
    """rewritesLineAbove: the completion's first non-blank line repeats the last non-blank line of
    the prefix (lineIsRepeated)."""
    above = [line for line in prefix.split("\n") if js_trim(line)]
    first = next((line for line in completion.split("\n") if js_trim(line)), None)
    return bool(above) and first is not None and line_is_repeated(above[-1], first, rule)


def is_extreme_repetition(completion: str) -> bool:
    """isExtremeRepetition (2024-06-11): six lines or more where the common subsequence of the
    first line and the line 1 or 2 below recurs every 1 or 2 lines more than 8 times or in
    over 80% of the lines."""
    lines = completion.split("\n")
    if len(lines) < 6:
        return False
    for freq in (1, 2):
        lcs = longest_common_subsequence(lines[0], lines[freq])
        if len(lcs) > 5 or len(lcs) > len(lines[0]) * 0.5:
            matches = sum(1 for i in range(0, len(lines), freq) if lcs in lines[i])
            if matches * freq > 8 or matches * freq / len(lines) > 0.8:
                return True
    return False


def _remove_backticks(completion: str, variant: str) -> str:
    """removeBackticks (2025-10-01): a first line starting with ``` and a last line of backticks
    (exactly ``` until 2025-10-08) are dropped."""
    lines = completion.split("\n")
    start = 1 if js_trim(lines[0]).startswith("```") else 0
    end = len(lines)
    if len(lines) > start:
        last = js_trim(lines[-1])
        if (variant == "first_or_exact" and last == "```") or (variant == "backtick_run" and _BACKTICK_RUN.fullmatch(last)):
            end -= 1
    return "\n".join(lines[start:end]) if start or end < len(lines) else completion


def _granite_prefix_repeat(completion: str, prefix: str) -> str:
    """Granite (2024-11-21; Mercury too 2025-04-28..10-14) repeats the start of the line: drop
    the prefix's last line, or its last word, or the trimmed last line, from the front."""
    end = prefix.split("\n")[-1]
    if not end:
        return completion
    if completion.startswith(end):
        return completion[len(end):]
    trimmed = js_trim(end)
    last_word = _SPACES.split(trimmed)[-1]
    if last_word and completion.startswith(last_word):
        return completion[len(last_word):]
    if completion.startswith(trimmed):
        return completion[len(trimmed):]
    return completion


def _model_rules(completion: str, model: str, prefix: str, suffix: str, rules: Rules) -> str | None:
    """The model-specific and whitespace rules, in Continue's order."""
    if "codestral" in model:
        if completion[:1] == " " and completion[1:2] != " " and prefix.endswith(" ") and suffix.startswith("\n"):
            completion = completion[1:]
        if rules.pp_codestral_nosuffix and suffix == "" and prefix.endswith("\n\n") and completion.startswith("\n"):
            completion = completion[1:]
    if rules.pp_qwen3 and "qwen3" in model:
        completion = _THINK.sub("", completion, count=1).replace("</think>", "", 1)
        completion = _OUTER_NEWLINES.sub("", completion)
    if (rules.pp_granite and "granite" in model) or (rules.pp_mercury == "both" and "mercury" in model):
        completion = _granite_prefix_repeat(completion, prefix)
    indented_at_line_end = (completion.startswith(("  ", "\t")) and not prefix.endswith("\n")
                            and (suffix.startswith("\n") or js_trim(suffix) == ""))
    if rules.pp_indent_reject and indented_at_line_end:
        return None
    if rules.pp_mercury and "mercury" in model and indented_at_line_end:
        completion = "\n" + completion
    if rules.pp_gemini and ("gemini" in model or "gemma" in model) and completion.endswith("<|file_separator|>"):
        completion = completion[:-18]
    line_ok = rules.pp_prefix_space == "always" or js_trim(prefix.split("\n")[-1]) != ""
    if line_ok and prefix.endswith(" ") and completion.startswith(" "):
        completion = completion[1:]
    if rules.pp_qwen_space and "qwen" in model.lower() and completion.startswith(" "):
        completion = completion[1:]
    if rules.pp_backticks:
        completion = _remove_backticks(completion, rules.pp_backticks)
    return completion


def postprocess_completion(completion: str, model: str, prefix: str, suffix: str, rules: Rules) -> str | None:
    """postprocessCompletion: None (nothing shown) for a blank completion, one that re-types the
    line above, or an extreme repetition; else the model and whitespace rules."""
    if rules.pp_empty in ("trim", "blank") and js_trim(completion) == "":
        return None
    if rules.pp_empty in ("only_ws", "blank") and _ONLY_WHITESPACE.fullmatch(completion):
        return None
    if rewrites_line_above(completion, prefix, rules.repeat_rule) or is_extreme_repetition(completion):
        return None
    if rules.pp_trim_end:
        completion = js_trim_end(completion)
    return _model_rules(completion, model, prefix, suffix, rules)


def provider_filter(completion: str, variant: str) -> bool:
    """completionProvider.ts provideInlineCompletionItems: True when the outcome is dropped, for
    only punctuation and whitespace (isOnlyPunctuationAndWhitespace, until 2024-10-25) or only
    whitespace (isOnlyWhitespace, until 2024-10-30)."""
    if variant == "punctuation":
        return _ONLY_PUNCTUATION.fullmatch(completion) is not None
    if variant == "whitespace":
        return _ONLY_WHITESPACE.fullmatch(completion) is not None
    return False


__all__ = ["longest_common_subsequence", "postprocess_completion", "provider_filter"]
