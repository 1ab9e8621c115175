"""llama-server's /infill prompt, token by token, as the server assembles it.

ggml-org/llama.cpp `format_infill` (examples/server/utils.hpp, then tools/server/utils.hpp) and,
after the server was split into several files, `format_prompt_infill` (tools/server/
server-common.cpp), called from the /infill handler with the server's own n_batch, n_predict
(`-n`, not the request's) and the slot's context:

    [FIM_REP]myproject\\n  [FIM_SEP]<filename>\\n<text>  ...  [FIM_SEP]filename\\n      (the extra context)
    [FIM_PRE]<prefix><prompt>[FIM_SUF]<suffix>[FIM_MID]

- input_prefix / input_suffix / the chunks and their filenames are tokenized without parsing
  special tokens (a `<|fim_prefix|>` typed in the code stays text); the request's `prompt`
  (llama.vscode: the current line up to the cursor) with parsing;
- the prefix keeps its last 3·(n_batch/4) tokens, the suffix its first
  max(0, n_batch/4 − 2 − |prompt|) (integer division, as C++ does);
- the extra context keeps its LAST max(0, n_ctx − n_batch − 2·n_predict) tokens, so its head
  (FIM_REP and the first chunks) goes first; with the server's default n_predict −1 that is
  n_ctx − n_batch + 2;
- without a FIM_REP token no repository line; without FIM_SEP each chunk is introduced by
  "\\n\\n--- snippet ---\\n\\n" and no closing `filename` line is written;
- BOS first when the vocabulary adds it; with `--spm-infill` the suffix part comes before the
  prefix part.
The whole is then evaluated as is: a prompt of n_ctx tokens or more is refused (refusal.py).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from replay.editors.llama_server.vocab import InfillVocab

REPO_LINE = "myproject\n"  # "TODO: make project name an input"
CURRENT_FILE_LINE = "filename\n"  # "TODO: current filename"
SNIPPET_SEPARATOR = "\n\n--- snippet ---\n\n"  # k_chunk_prefix_str, written as bytes in the source
DEFAULT_FILENAME = "tmp"  # a chunk without a filename


@dataclass(frozen=True)
class Assembled:
    """The prompt's ids and the parts that survived the budgets."""

    ids: list[int]
    prefix_ids: list[int]  # FIM prefix part as kept (before the prompt)
    prompt_ids: list[int]
    suffix_ids: list[int]
    extra_ids: list[int]  # the extra context as kept (its tail)
    n_extra: int  # the extra context's whole length before the cut


def mixed_ids(vocab: InfillVocab, value: Any, parse_special: bool) -> list[int]:
    """`tokenize_mixed`: a string, or a list of strings and token ids, as ids (no BOS)."""
    tok = vocab.tokenizer
    if isinstance(value, str):
        return tok.encode(value, special=parse_special) if value else []
    out: list[int] = []
    for part in value:
        if isinstance(part, bool) or not isinstance(part, (str, int)):
            raise TypeError("must be a string or a list of strings and token ids")
        out += [part] if isinstance(part, int) else (tok.encode(part, special=parse_special) if part else [])
    return out


def extra_context_ids(vocab: InfillVocab, chunks: list[dict[str, Any]]) -> list[int]:
    """The repository-level context before the FIM prefix: FIM_REP line, one part per chunk,
    the closing FIM_SEP line (https://arxiv.org/pdf/2409.12186, as the source cites)."""
    tok = vocab.tokenizer
    out: list[int] = []
    if vocab.fim_rep is not None:
        out += [vocab.fim_rep, *tok.encode(REPO_LINE, special=False)]
    for chunk in chunks:
        filename = chunk.get("filename", DEFAULT_FILENAME)
        if vocab.fim_sep is not None:
            out += [vocab.fim_sep, *tok.encode(filename + "\n", special=False)]
        else:
            out += tok.encode(SNIPPET_SEPARATOR, special=False)
        text = chunk.get("text", "")
        out += tok.encode(text, special=False) if text else []
    if vocab.fim_sep is not None:
        out += [vocab.fim_sep, *tok.encode(CURRENT_FILE_LINE, special=False)]
    return out


def assemble(vocab: InfillVocab, prefix: Any, suffix: Any, chunks: list[dict[str, Any]], prompt: str, *,
             n_batch: int, n_predict: int, n_ctx: int, spm_infill: bool, prompt_bos: bool = False) -> Assembled:
    """The ids llama-server evaluates for one /infill body (format_prompt_infill); `prompt_bos`:
    the release tokenized the request's prompt with BOS in front (releases.py)."""
    prefix_ids = mixed_ids(vocab, prefix, parse_special=False)
    suffix_ids = mixed_ids(vocab, suffix, parse_special=False)
    prompt_ids = vocab.tokenizer.encode(prompt, special=True) if prompt else []
    if prompt_bos and vocab.bos is not None:
        prompt_ids = [vocab.bos, *prompt_ids]
    extra = extra_context_ids(vocab, chunks)
    quarter = _cdiv(n_batch, 4)
    n_prefix_take = min(len(prefix_ids), 3 * quarter)
    n_suffix_take = min(len(suffix_ids), max(0, quarter - (2 + len(prompt_ids))))
    n_extra_take = min(max(0, n_ctx - n_batch - 2 * n_predict), len(extra))
    kept_prefix = prefix_ids[len(prefix_ids) - n_prefix_take:]
    kept_suffix = suffix_ids[:n_suffix_take]
    kept_extra = extra[len(extra) - n_extra_take:]
    pre_part = [vocab.fim_pre, *kept_prefix, *prompt_ids]
    suf_part = [vocab.fim_suf, *kept_suffix]
    first, second = (suf_part, pre_part) if spm_infill else (pre_part, suf_part)
    bos = [vocab.bos] if vocab.bos is not None else []
    ids = [*kept_extra, *bos, *first, *second, vocab.fim_mid]
    return Assembled(ids=ids, prefix_ids=kept_prefix, prompt_ids=prompt_ids, suffix_ids=kept_suffix,
                     extra_ids=kept_extra, n_extra=len(extra))


def _cdiv(a: int, b: int) -> int:
    """Integer division truncating toward zero, as C++'s `/` on ints."""
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b >= 0) else -q
