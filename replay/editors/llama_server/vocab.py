"""What llama-server reads of the model for an /infill prompt: its tokenizer, its FIM tokens
(FIM_PRE/SUF/MID, and FIM_REP/FIM_SEP when the vocabulary has them), whether it puts BOS first,
and its training context (for `server.n_ctx` 0).

The tokenizer is the project's exact one (replay.tokens): `gguf:PATH` when the model is a GGUF
file, else the model family's offline vocabulary. The special roles are those llama.cpp gives
(`llama_vocab_fim_*`, src/llama-vocab.cpp: the GGUF's `tokenizer.ggml.fim_*_token_id` key, else
the token named in its auto-detection list: `<|repo_name|>` and `<|file_sep|>` for
Qwen2.5-Coder; most other code vocabularies have no FIM_SEP).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from replay.editors.standard import tokenizer_spec
from replay.editors.templates import family_for_model, get_family
from replay.errors import UsageError
from replay.tokens.gguf_tokenizer import role_id
from replay.tokens.gguf_vocab import read_metadata, read_vocab
from replay.tokens.tokenizer import Tokenizer, codellama_vocab, load_tokenizer


class NoInfill(UsageError):
    """The model's vocabulary has no FIM tokens: llama-server refuses /infill for it."""


@dataclass(frozen=True)
class InfillVocab:
    """The tokenizer and the special ids the assembly uses (None: the vocabulary has none)."""

    tokenizer: Tokenizer
    family: str
    fim_pre: int
    fim_suf: int
    fim_mid: int
    fim_rep: int | None
    fim_sep: int | None
    bos: int | None  # put first when the vocabulary adds BOS (llama_vocab_get_add_bos)
    n_ctx_train: int | None


@lru_cache(maxsize=8)
def infill_vocab(model: str) -> InfillVocab:
    """The vocabulary of `model` (a GGUF path, registry/HF name or family name) as llama-server
    reads it."""
    family = _family_name(model)
    try:
        fam = get_family(family) if family else None
    except KeyError:
        fam = None
    spec = f"gguf:{model}" if _is_gguf(model) else tokenizer_spec(model, fam) if fam else ""
    if not spec:
        raise NoInfill(f"no tokenizer known for model {model!r}: give a GGUF file or a known model name")
    tok = load_tokenizer(spec)
    if tok.gguf_path is None:
        raise NoInfill(f"{spec}: llama-server reads its FIM tokens from a GGUF vocabulary; give a GGUF file")
    vocab = read_vocab(tok.gguf_path)
    if tok.spec == "codellama":  # the offline CodeLlama tokenizer: Llama-2's vocabulary plus its 16 pieces
        vocab = codellama_vocab(vocab)
    ids = {role: role_id(vocab, role) for role in ("fim_pre", "fim_suf", "fim_mid", "fim_rep", "fim_sep")}
    missing = "".join(f"{part} token is missing. " for part, role in (("prefix", "fim_pre"), ("suffix", "fim_suf"),
                                                                      ("middle", "fim_mid")) if ids[role] is None)
    if missing:
        raise NoInfill(f"Infill is not supported by this model: {missing}")
    return InfillVocab(tokenizer=tok, family=family or "gguf", fim_pre=ids["fim_pre"], fim_suf=ids["fim_suf"],
                       fim_mid=ids["fim_mid"], fim_rep=ids["fim_rep"], fim_sep=ids["fim_sep"],
                       bos=tok.bos_id if tok.add_bos else None, n_ctx_train=_n_ctx_train(tok.gguf_path))


def _is_gguf(model: str) -> bool:
    return model.endswith(".gguf") and Path(model).expanduser().is_file()


def _family_name(model: str) -> str:
    found = family_for_model(model)
    return found.name if found is not None else ""


def _n_ctx_train(path: Path) -> int | None:
    """`<arch>.context_length` of the GGUF (llama.cpp's n_ctx_train: `-c 0` gives it)."""
    meta = read_metadata(path, prefix=("general.architecture",))
    arch = meta.get("general.architecture")
    if not arch:
        return None
    value = read_metadata(path, prefix=(f"{arch}.context_length",)).get(f"{arch}.context_length")
    return int(value) if isinstance(value, int) else None
