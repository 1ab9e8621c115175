"""The Copilot language server's prompt: the inline, commented layout (no separate context).

Modelled release: `@github/copilot-language-server` 1.539.0 (npm; the client of copilot.vim,
copilot.lua, JetBrains and Xcode), checked in its bundled `dist/main.js` and by running it
(tests/data/golden/copilot-ls). Its prompt code is the one microsoft/vscode-copilot-chat keeps
under src/extension/completions-core/vscode-node/; what differs from chat-lib (layout.py):
- lib/src/prompt/prompt.ts `extractPrompt`: chat-lib always asks for the split context; the
  language server asks for it only under the experiment flags `UseSplitContextPrompt` or
  `copilotenablepromptcontextproxyfield` (main.js `shouldUseSplitContextPrompt`), which default
  to off, so its prompt is `defaultCompletionsPrompt`: one context (document marker 0.7, traits
  0.6, code snippets 0.9, similar files 0.8, recent edits 0.99), then the current file (1).
- components/completionsPromptRenderer.tsx `CompletionsPromptRenderer.processSnapshot` (called
  with the delimiter "\\n"): a context node is ended by the delimiter and commented line by line
  in the document's language (prompt/src/languageMarker.ts `commentBlockAsSingles`), unless it
  is a shebang line (`isShebangLine`); `makePrompt` joins every kept block, context and prefix,
  into the prompt, and the body carries no `extra.context`.
- Budgets, elision and the suffix are chat-lib's (layout.py): the same defaults in the bundle
  (prompt.ts DEFAULT_MAX_PROMPT_LENGTH 8192 − 500, suffixPercent 15, 5 tokens reserved).
"""

from __future__ import annotations

from dataclasses import replace

from replay.editors.copilot import layout as lay

# prompt/src/languageMarker.ts `languageMarkers` (lineComment start, end); any other language: "//".
COMMENT_MARKERS: dict[str, tuple[str, str]] = {
    "abap": ('"', ""), "aspdotnet": ("<%--", "--%>"), "bat": ("REM", ""), "bibtex": ("%", ""), "blade": ("#", ""),
    "BluespecSystemVerilog": ("//", ""), "c": ("//", ""), "clojure": (";", ""), "coffeescript": ("//", ""),
    "cpp": ("//", ""), "csharp": ("//", ""), "css": ("/*", "*/"), "cuda": ("//", ""), "dart": ("//", ""),
    "dockerfile": ("#", ""), "dotenv": ("#", ""), "elixir": ("#", ""), "erb": ("<%#", "%>"), "erlang": ("%", ""),
    "fsharp": ("//", ""), "go": ("//", ""), "graphql": ("#", ""), "groovy": ("//", ""), "haml": ("-#", ""),
    "handlebars": ("{{!", "}}"), "haskell": ("--", ""), "hlsl": ("//", ""), "html": ("<!--", "-->"), "ini": (";", ""),
    "java": ("//", ""), "javascript": ("//", ""), "javascriptreact": ("//", ""), "jsonc": ("//", ""), "jsx": ("//", ""),
    "julia": ("#", ""), "kotlin": ("//", ""), "latex": ("%", ""), "legend": ("//", ""), "less": ("//", ""),
    "lua": ("--", ""), "makefile": ("#", ""), "markdown": ("[]: #", ""), "objective-c": ("//", ""),
    "objective-cpp": ("//", ""), "perl": ("#", ""), "php": ("//", ""), "powershell": ("#", ""), "pug": ("//", ""),
    "python": ("#", ""), "ql": ("//", ""), "r": ("#", ""), "razor": ("<!--", "-->"), "ruby": ("#", ""),
    "rust": ("//", ""), "sass": ("//", ""), "scala": ("//", ""), "scss": ("//", ""), "shellscript": ("#", ""),
    "slang": ("//", ""), "slim": ("/", ""), "solidity": ("//", ""), "sql": ("--", ""), "stylus": ("//", ""),
    "svelte": ("<!--", "-->"), "swift": ("//", ""), "systemverilog": ("//", ""), "terraform": ("#", ""),
    "tex": ("%", ""), "typescript": ("//", ""), "typescriptreact": ("//", ""), "vb": ("'", ""), "verilog": ("//", ""),
    "vue-html": ("<!--", "-->"), "vue": ("//", ""), "xml": ("<!--", "-->"), "xsl": ("<!--", "-->"), "yaml": ("#", ""),
}
DEFAULT_COMMENT = ("//", "")
DELIMITER = "\n"


def comment_line(text: str, language: str) -> str:
    """languageMarker.ts `comment`: "<start> <text>", then " <end>" when the language has one."""
    start, end = COMMENT_MARKERS.get(language, DEFAULT_COMMENT)
    return f"{start} {text}" + (f" {end}" if end else "")


def comment_block(text: str, language: str) -> str:
    """languageMarker.ts `commentBlockAsSingles`: every line commented (a blank one too), the
    trailing newline kept when there is one."""
    if not text:
        return ""
    body = text[:-1] if text.endswith("\n") else text
    commented = "\n".join(comment_line(line, language) for line in body.split("\n"))
    return commented + "\n" if text.endswith("\n") else commented


def is_shebang_line(text: str) -> bool:
    """languageMarker.ts `isShebangLine`: one of the known shebang markers, blanks aside."""
    return text.strip() in lay.SHEBANG_LINES.values()


def inline_block(block: lay.Block, language: str) -> lay.Block:
    """A split-context block (its text ended by the delimiter) as the default renderer holds it:
    commented, unless the node is a shebang line."""
    value = block.value if is_shebang_line(block.value) else comment_block(block.value, language)
    return replace(block, value=lay.normalize_eol(value))


def layout(context: list[lay.Block], before_cursor: str, suffix: str, language: str) -> lay.Layout:
    """The inline prompt: the commented context blocks then the text before the cursor, elided
    together as chat-lib elides them (layout.elide), then `trimLastLine` over the whole."""
    prefix_block = lay.Block(lay.normalize_eol(lay.prefix_text(before_cursor)), 1.0, kind="prefix", group=None)
    blocks = [inline_block(b, language) for b in context] + ([prefix_block] if prefix_block.value else [])
    suffix = lay.normalize_eol(suffix)
    prefix_limit, suffix_limit = lay.limits(suffix)
    sent_suffix, suffix_tokens, prefix_tokens = lay.elide(blocks, suffix, prefix_limit, suffix_limit)
    prompt, trailing = lay.trim_last_line("".join(b.elided for b in blocks))
    return lay.Layout(prefix=prompt, trailing_ws=trailing, suffix=sent_suffix, context=(),
                      prefix_tokens=prefix_tokens, suffix_tokens=suffix_tokens)
