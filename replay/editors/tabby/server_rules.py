"""The Tabby server's rule changes, as the source has them: each with its commit, its day and the
first final release that contains it (`git tag --contains`), oldest release first: the rule book
of the server half (replay/editors/rulebook.py, counted by the final releases of
server_releases.py). TabbyRules (server.py) is what a release runs; this table is what
`fimreplay editors tabby --history` prints, and the names release candidates lacked (server.py
RC_LACKS) are its names.
"""

from __future__ import annotations

from replay.editors.rulebook import Rule, RuleBook
from replay.editors.tabby.server_releases import finals

_FINAL = {release.tag: release for release in finals()}


def _R(name: str, commit: str, day: str, first_release: str, source: str, summary: str) -> Rule:
    """One change of the server's prompt or decoding rules: its TabbyML/tabby commit
    (registry-tabby for registry rows), the commit's day, the first final release with it
    (`git tag --contains <commit>`) and the repository path(s) it was read from."""
    return Rule(name, commit, day, f"TabbyML/tabby {source}", summary, since=_FINAL[first_release])


# Ordered by first release, then day (the date of the commit).
SERVER_RULES: tuple[Rule, ...] = (
    _R("template-from-model-repo", "2779da3cb", "2023-06-02", "0.0.1",
       "crates/tabby/src/serve/completions.rs, completions/prompt.rs",
       "prompt = strfmt(prompt_template of the model's tabby.json, prefix, suffix); no template: the prefix"),
    _R("stop-words-by-language", "fd1baff8d", "2023-06-06", "0.0.1", "crates/tabby/src/serve/completions/languages.rs",
       "DEFAULT (\\n\\n, + indents from 9ca1f7e5f); python +\\ndef \\n# \\nfrom \\nclass; javascript/typescript own lists WITHOUT DEFAULT"),
    _R("decoding-128", "fd1baff8d", "2023-06-06", "0.0.1", "crates/tabby/src/serve/completions.rs",
       "max_decoding_length 128 tokens"),
    _R("missing-suffix-newline", "4388fd005", "2023-07-13", "0.0.1", "crates/tabby/src/serve/completions/prompt.rs",
       "a missing suffix becomes \"\\n\"; an empty one stays empty"),
    _R("repository-snippets-experimental", "4388fd005", "2023-07-13", "0.0.1", "crates/tabby/src/serve/completions/prompt.rs",
       "only with config experimental.enable_prompt_rewrite: code-index snippets as comments under \"Below are some "
       "relevant {language} snippets found in the repository:\" and \"== Snippet N ==\" headers; not in segments"),
    _R("empty-suffix-newline", "d85cd8113", "2023-09-05", "0.1.0", "crates/tabby/src/serve/completions/prompt.rs",
       "get_default_suffix: an empty suffix becomes \"\\n\" too"),
    _R("engine-keeps-last-1536-tokens", "87b6b3412", "2023-09-08", "0.1.0",
       "crates/ctranslate2-bindings/src/lib.rs, crates/llama-cpp-bindings (truncate_tokens)",
       "the local engine keeps the last max_input_length = 1536 TOKENS of the prompt (HTTP engines ignore it); "
       "the log keeps it whole"),
    _R("stop-match-sees-prompt", "486e50707", "2023-09-29", "0.2.0", "crates/tabby-inference/src/decoding.rs",
       "stop words are matched on the end of prompt + generated text (0.0.1 .. 0.1.x: the generated text alone)"),
    _R("repository-snippets-by-default", "92c1f5a8c", "2023-10-11", "0.3.0", "crates/tabby/src/serve/completions/prompt.rs",
       "snippets from the server's code index (768 chars) go before the prefix as comments; not in segments"),
    _R("segments-logged", "1ad871e1f", "2023-10-12", "0.3.0", "crates/tabby-common/src/events.rs",
       "the completion event carries segments {prefix, suffix}: logged prompts can be rebuilt from here on"),
    _R("stop-words-revisited", "ac73cbb6f", "2023-10-13", "0.3.0", "crates/tabby/src/serve/completions/languages.rs",
       "python +\\nimport; rust keywords; javascript/typescript one keyword list with DEFAULT"),
    _R("languages-toml", "99a7053b6", "2023-10-15", "0.4.0", "crates/tabby-common/src/languages.rs, assets/languages.toml",
       "stops = \\n+line_comment, \\n+each top-level keyword, then DEFAULT; unknown: comment \"\" so \\n stops; +go, ruby"),
    _R("template-from-registry", "0e4a2d2a1", "2023-11-02", "0.5.0", "crates/tabby-common/src/registry.rs",
       "prompt_template of the models.json entry named exactly as the model (registry-tabby main, fetched at every "
       "start; see registry.py); a model given by path: its own tabby.json"),
    _R("languages-java-kotlin", "3fb844574", "2023-11-08", "0.6.0", "crates/tabby-common/assets/languages.toml",
       "java (3fb844574), kotlin (b9cb5a025)"),
    _R("languages-c-cpp-csharp-php", "5c4f8de46", "2023-12-16", "0.8.0", "crates/tabby-common/assets/languages.toml",
       "c, cpp (5c4f8de46), csharp (c0269e0ee), php (8e36bee91)"),
    _R("language-solidity", "8203dd965", "2024-03-28", "0.10.0", "crates/tabby-common/assets/languages.toml",
       "solidity"),
    _R("segment-snippets", "938797138", "2024-04-08", "0.10.0", "crates/tabby/src/services/completion/completion_prompt.rs",
       "the request's declarations, within 768 bytes of body, as comments before the prefix"),
    _R("changed-file-snippets", "9af64efcb", "2024-04-11", "0.10.0",
       "crates/tabby/src/services/completion/completion_prompt.rs",
       "then the request's snippets from changed files, in the same 768 bytes"),
    _R("languages-without-comment", "9c96e5fa8", "2024-04-22", "0.11.0",
       "crates/tabby-common/src/languages.rs, assets/languages.toml",
       "DEFAULT first; entries without line_comment (no snippets, no \\n stop) or keywords; javascript-typescript id"),
    _R("decoding-64", "b76a10144", "2024-04-28", "0.11.0", "crates/tabby/src/services/completion.rs",
       "max_decoding_tokens 64"),
    _R("languages-dart-r", "62db7bdbd", "2024-05-03", "0.11.0", "crates/tabby-common/assets/languages.toml",
       "dart (62db7bdbd), r (b71f9c5c3)"),
    _R("sentinel-stop-words", "d0e813bc1", "2024-05-04", "0.11.0", "crates/tabby-common/src/languages.rs",
       "DEFAULT + \" <EOT>\", <|fim_prefix|> <|fim_suffix|> <|fim_middle|> <|file_separator|>, <|system|> <|user|> <|end|> <|assistant|>"),
    _R("engine-no-token-clip", "b674eb792", "2024-05-13", "0.12.0", "crates/llama-cpp-server",
       "llama.cpp runs as its own server: the prompt goes whole (max_input_length only sizes the context)"),
    _R("starcoder-stop-words", "268fa56d8", "2024-05-31", "0.12.0", "crates/tabby-common/src/languages.rs",
       "DEFAULT + <fim_prefix> <fim_suffix> <fim_middle> <file_sep> (release branch; main: 7251cb861)"),
    _R("language-lua", "24af7a1bb", "2024-06-27", "0.14.0", "crates/tabby-common/assets/languages.toml",
       "lua gets \"--\" and keywords"),
    _R("language-elixir", "f9842a273", "2024-08-08", "0.16.0", "crates/tabby-common/assets/languages.toml", "elixir"),
    _R("language-ocaml", "502b0525d", "2024-09-01", "0.17.0", "crates/tabby-common/assets/languages.toml",
       "ocaml keywords, no line comment"),
    _R("opened-file-snippets", "42e1cedc1", "2024-10-05", "0.19.0",
       "crates/tabby/src/services/completion/completion_prompt.rs", "snippets from recently opened files after the others"),
    _R("crlf-to-lf", "0e75cb296", "2024-10-28", "0.20.0", "crates/tabby/src/services/completion.rs",
       "a prefix or suffix with CRLF: the whole prompt gets LF"),
    _R("language-txt", "4787ef78a", "2024-11-15", "0.21.0", "crates/tabby-common/assets/languages.toml", "txt"),
    _R("completion-model-check", "0314db632", "2024-12-14", "0.22.0", "crates/tabby-download/src/lib.rs",
       "validate_model_kind: a registry entry without prompt_template is refused as the completion model"),
    _R("language-gdscript", "6824ddcbc", "2025-02-10", "0.25.0", "crates/tabby-common/assets/languages.toml", "gdscript"),
    _R("clip-last-1536-bytes", "863b78854", "2025-02-11", "0.25.0", "crates/tabby-inference/src/lib.rs, code.rs",
       "clip_prompt keeps the last max_input_length BYTES (to a character boundary) before the engine"),
    _R("language-scala", "c48052988", "2025-05-03", "0.29.0", "crates/tabby-common/assets/languages.toml",
       "scala gets \"//\" and keywords"),
)
BOOK = RuleBook("tabby", finals(), SERVER_RULES, part="server")
