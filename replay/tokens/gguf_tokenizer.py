"""An exact `tokenizers.Tokenizer` built from a GGUF vocabulary, the way llama.cpp tokenizes.

llama.cpp (src/llama-vocab.cpp in llama-cpp-python 0.3.36) tokenizes in two steps:
1. `tokenizer_st_partition` cuts the text at every special token: CONTROL, USER_DEFINED and
   UNKNOWN tokens, longest text first. With parse_special=false CONTROL/UNKNOWN ones are left
   as text but USER_DEFINED ones are still cut out. Here: CONTROL/UNKNOWN become special added
   tokens and USER_DEFINED ones non-special added tokens; `encode_special_tokens=True` on a
   second instance gives parse_special=false.
2. Each text fragment is tokenized by the vocab type:
   - "gpt2" (byte-level BPE): the pre-type's regexes split it (llama_pretok), each piece is
     GPT-2 byte-encoded and merged by the ranks of tokenizer.ggml.merges (`llm_tokenizer_bpe_session`).
     `ignore_merges` pre-types take a piece that is itself a vocab entry whole.
   - "llama" (SentencePiece BPE, `llm_tokenizer_spm_session`): spaces become U+2581, a space is
     prepended to every fragment that starts the text or follows a special token
     (`add_space_prefix && is_prev_special`), then the highest-scoring adjacent pair whose
     concatenation is in the vocab is merged until none is left; pieces not in the vocab fall
     back to <0xXX> byte tokens. As BPE merges: every split of a vocab entry into two vocab
     entries, ranked by the entry's score (ties by id).
Per-token lstrip/rstrip: llama.cpp sets rstrip on the special tokens of models named
phi-3/phi3 (except <unk>, <s>, <|endoftext|>) (`llama_vocab::impl::load`, "Handle per token
attributes"), and `tokenizer_st_partition` then drops the C `isspace` bytes (ASCII space,
\t \n \v \f \r only) after such a token. `tokenizers`' own rstrip removes Unicode
whitespace too, so the stripping is done by `strip_ids` + the tokenizer wrapper instead.
"""

from __future__ import annotations

from tokenizers import AddedToken, Regex, decoders, models, normalizers, pre_tokenizers
from tokenizers import Tokenizer as HFTokenizer

from replay.tokens.gguf_vocab import (
    TOKEN_CONTROL,
    TOKEN_UNKNOWN,
    TOKEN_USER_DEFINED,
    GgufVocab,
)
from replay.tokens.llama_pretok import pre_tokenizer

SPM_SPACE = "\u2581"


def effective_add_bos(vocab: GgufVocab) -> bool:
    """Whether llama.cpp adds BOS: the GGUF key when present, else the default of the vocab type
    (SPM: true; BPE: true only for pre-types that set it, e.g. llama3) (`llama_vocab::impl::load`)."""
    if vocab.add_bos is not None:
        return bool(vocab.add_bos)
    if vocab.model == "llama":
        return True
    if vocab.model == "gpt2":
        return pre_tokenizer(vocab.pre).add_bos
    return False


# llama.cpp `llama_vocab::impl::load`, "auto-detect special tokens by text": when the GGUF has no
# id key for a role, a token with one of these texts is taken for it and gets the CONTROL
# attribute (so parse_special=false leaves it as text even if the GGUF typed it USER_DEFINED).
_ROLE_TEXTS: dict[tuple[str, ...], tuple[str, ...]] = {
    ("eot_token_id",): ("<|eot_id|>", "<|im_end|>", "<|end|>", "<end_of_turn>", "<|endoftext|>", "<|end_of_text|>", "<EOT>",
                        "_<EOT>", "[EOT]", "<｜end▁of▁sentence｜>", "<end_of_utterance>"),
    ("eom_token_id",): ("<|eom_id|>",),
    ("fim_pre_token_id", "prefix_token_id"): ("<|fim_prefix|>", "<fim-prefix>", "<fim_prefix>", "<｜fim▁begin｜>", "<PRE>",
                                              "▁<PRE>", "<|code_prefix|>", "<|prefix|>"),
    ("fim_suf_token_id", "suffix_token_id"): ("<|fim_suffix|>", "<fim-suffix>", "<fim_suffix>", "<｜fim▁hole｜>", "<SUF>",
                                              "▁<SUF>", "<|code_suffix|>", "<|suffix|>"),
    ("fim_mid_token_id", "middle_token_id"): ("<|fim_middle|>", "<fim-middle>", "<fim_middle>", "<｜fim▁end｜>", "<MID>",
                                              "▁<MID>", "<|code_middle|>", "<|middle|>"),
    ("fim_pad_token_id",): ("<|fim_pad|>", "<fim-pad>", "<fim_pad>", "<PAD>", "[PAD]"),
    ("fim_rep_token_id",): ("<|fim_repo|>", "<|repo_name|>", "<fim-repo>", "<REPO>", "<reponame>"),
    ("fim_sep_token_id",): ("<|file_sep|>",),
}


def role_id(vocab: GgufVocab, role: str) -> int | None:
    """The id llama.cpp gives a special role (`fim_pre`, `fim_rep`, `fim_sep`, ...): the GGUF's
    `tokenizer.ggml.<role>_token_id` key (or its older name), else the first token whose text the
    role's auto-detection list names, else None (`llama_vocab::impl::load`; `llama_vocab_fim_*`)."""
    for keys, texts in _ROLE_TEXTS.items():
        if f"{role}_token_id" not in keys:
            continue
        for key in keys:
            if f"tokenizer.ggml.{key}" in vocab.special_ids:
                return vocab.special_ids[f"tokenizer.ggml.{key}"]
        by_text = {t: i for i, t in enumerate(vocab.tokens) if t in texts}
        return next((by_text[t] for t in texts if t in by_text), None)
    raise KeyError(f"unknown special role {role!r}")


# ... and every token with one of these texts ends generation and is made CONTROL.
_EOG_TEXTS = ("<|eot_id|>", "<|im_end|>", "<|end|>", "<|return|>", "<|call|>", "<|flush|>", "<|calls|>", "<end_of_turn>",
              "<|endoftext|>", "</s>", "<|eom_id|>", "<EOT>", "_<EOT>", "[EOT]", "[EOS]", "<|end_of_text|>",
              "<end_of_utterance>", "<eos>", "<turn|>", "<|tool_response>", "<｜end▁of▁sentence｜>", "[e~[")
# gpt-oss: these are forced back to USER_DEFINED ("always render these tokens").
_FORCED_USER = ("<|channel|>", "<|message|>", "<|start|>", "<|constrain|>")


def control_ids(vocab: GgufVocab) -> set[int]:
    """Ids llama.cpp treats as CONTROL after loading: typed so in the GGUF, or made so by text."""
    ids = {i for i, t in enumerate(vocab.token_types) if t == TOKEN_CONTROL}
    by_text = {t: i for i, t in enumerate(vocab.tokens)}
    for keys, texts in _ROLE_TEXTS.items():
        if any(f"tokenizer.ggml.{k}" in vocab.special_ids for k in keys):
            continue
        ids |= {by_text[t] for t in texts if t in by_text}
    ids |= {by_text[t] for t in _EOG_TEXTS if t in by_text}
    ids -= {by_text[t] for t in _FORCED_USER if t in by_text}
    return ids


def rstrip_ids(vocab: GgufVocab) -> set[int]:
    """Special tokens after which llama.cpp strips whitespace (phi-3 models)."""
    name = vocab.name.lower()
    if "phi-3" not in name and "phi3" not in name:
        return set()
    control = control_ids(vocab)
    out = {i for i, (t, ttype) in enumerate(zip(vocab.tokens, vocab.token_types))
           if (i in control or ttype in (TOKEN_USER_DEFINED, TOKEN_UNKNOWN)) and t}
    by_text = {t: i for i, t in enumerate(vocab.tokens)}
    out |= {by_text[t] for t in ("</s>",) if t in by_text}
    out -= {by_text[t] for t in ("<unk>", "<s>", "<|endoftext|>") if t in by_text}
    return out


def _added_tokens(vocab: GgufVocab) -> list[AddedToken]:
    control = control_ids(vocab)
    out = []
    for i, (text, ttype) in enumerate(zip(vocab.tokens, vocab.token_types)):
        if (ttype not in (TOKEN_CONTROL, TOKEN_USER_DEFINED, TOKEN_UNKNOWN) and i not in control) or not text:
            continue
        if text in _FORCED_USER:
            ttype = TOKEN_USER_DEFINED
        out.append(AddedToken(text, special=(i in control or ttype == TOKEN_UNKNOWN), normalized=False, rstrip=False,
                              lstrip=False, single_word=False))
    return out


def _spm_merges(vocab: GgufVocab) -> list[tuple[str, str]]:
    """Every split of a vocab entry into two vocab entries, best score first (llama.cpp merges
    the highest-scoring pair whose concatenation is a vocab entry)."""
    ids = {t: i for i, t in enumerate(vocab.tokens)}
    scores = vocab.scores or [0.0] * len(vocab.tokens)
    ranked = []
    for piece, pid in ids.items():
        if len(piece) < 2:
            continue
        for k in range(1, len(piece)):
            left, right = piece[:k], piece[k:]
            lid, rid = ids.get(left), ids.get(right)
            if lid is not None and rid is not None:
                ranked.append((-scores[pid], pid, lid, rid, left, right))
    ranked.sort()
    return [(r[4], r[5]) for r in ranked]


def build(vocab: GgufVocab) -> HFTokenizer:
    """The tokenizer llama.cpp would use for this vocabulary (byte-level BPE or SPM)."""
    vocab_map = {t: i for i, t in enumerate(vocab.tokens)}  # a repeated text maps to its last id, as llama.cpp's token_to_id
    if vocab.model == "gpt2":
        pt = pre_tokenizer(vocab.pre)
        merges = [tuple(m.split(" ", 1)) for m in (vocab.merges or [])]
        tok = HFTokenizer(models.BPE(vocab=vocab_map, merges=merges, ignore_merges=pt.ignore_merges,
                                     byte_fallback=False, fuse_unk=False))
        splits = [pre_tokenizers.Split(Regex(r), behavior="isolated", invert=False) for r in pt.regexes]
        tok.pre_tokenizer = pre_tokenizers.Sequence([*splits, pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False)])
        tok.decoder = decoders.ByteLevel()
    elif vocab.model == "llama":
        unk = vocab.tokens[vocab.unk_id] if vocab.unk_id is not None else None
        tok = HFTokenizer(models.BPE(vocab=vocab_map, merges=_spm_merges(vocab), unk_token=unk, byte_fallback=True,
                                     fuse_unk=True))
        add_prefix = True if vocab.add_space_prefix is None else bool(vocab.add_space_prefix)
        steps = ([normalizers.Prepend(SPM_SPACE)] if add_prefix else []) + [normalizers.Replace(" ", SPM_SPACE)]
        tok.normalizer = normalizers.Sequence(steps)
        tok.decoder = decoders.Sequence([decoders.Replace(SPM_SPACE, " "), decoders.ByteFallback(), decoders.Fuse()])
    else:
        raise ValueError(f"{vocab.path}: tokenizer model {vocab.model!r} is not supported (gpt2 and llama are)")
    tok.add_tokens(_added_tokens(vocab))
    return tok

