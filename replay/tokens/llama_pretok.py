"""llama.cpp's pre-tokenizer rules, keyed by the GGUF's `tokenizer.ggml.pre`.

Source: ggml-org/llama.cpp src/llama-vocab.cpp as vendored in llama-cpp-python 0.3.36
(vendor/llama.cpp/src/llama-vocab.cpp): `llm_tokenizer_bpe::llm_tokenizer_bpe` holds the
regex list of each `LLAMA_VOCAB_PRE_TYPE_*`, and `llama_vocab::impl::load` maps the
`tokenizer.ggml.pre` string to the pre-type and sets `ignore_merges` / `add_bos` for it.
llama.cpp applies the regexes one after the other, each splitting every piece left by the
previous one and keeping matches and the text between them (`unicode_regex_split`): that is
`tokenizers.pre_tokenizers.Split(..., behavior="isolated")` in sequence.

Only the regexes are data here; the splitting itself is the `tokenizers` library's.
"""

from __future__ import annotations

from dataclasses import dataclass

_GPT2 = "'s|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+|\\s+(?!\\S)"
_LLAMA3 = ("(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1,3}"
           "| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+")
_QWEN2 = ("(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}"
          "| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+")
_QWEN35 = ("(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])|[^\\r\\n\\p{L}\\p{N}]?[\\p{L}\\p{M}]+|\\p{N}"
           "| ?[^\\s\\p{L}\\p{M}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+")
_DEEPSEEK3 = ["\\p{N}{1,3}", "[一-龥぀-ゟ゠-ヿ]+",
              "[!\"#$%&'()*+,\\-./:;<=>?@\\[\\\\\\]^_`{|}~][A-Za-z]+|[^\r\n\\p{L}\\p{P}\\p{S}]?[\\p{L}\\p{M}]+"
              "| ?[\\p{P}\\p{S}]+[\r\n]*|\\s*[\r\n]+|\\s+(?!\\S)|\\s+"]
_SEED_CODER = ("(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1}"
               "| ?[^\\s\\p{L}\\p{N}\\r\\n]+|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+")
_TEKKEN = ("[^\\r\\n\\p{L}\\p{N}]?[\\p{Lu}\\p{Lt}\\p{Lm}\\p{Lo}\\p{M}]*[\\p{Ll}\\p{Lm}\\p{Lo}\\p{M}]+"
           "|[^\\r\\n\\p{L}\\p{N}]?[\\p{Lu}\\p{Lt}\\p{Lm}\\p{Lo}\\p{M}]+[\\p{Ll}\\p{Lm}\\p{Lo}\\p{M}]*"
           "|\\p{N}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n/]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+")


@dataclass(frozen=True)
class PreTokenizer:
    """One llama.cpp pre-type: its regexes and the flags `load` sets for it."""

    regexes: tuple[str, ...]
    ignore_merges: bool = False  # a pre-token that is a whole vocab entry is taken as is
    add_bos: bool = False  # llama.cpp's default before tokenizer.ggml.add_bos_token overrides it


DEFAULT = PreTokenizer(("[\\p{P}\\$\\+<=>\\^~\\|]+", _GPT2, "\\p{N}+", "[0-9][0-9][0-9]"))
_STARCODER = PreTokenizer(("\\p{N}", _GPT2))
_GPT2_PT = PreTokenizer((_GPT2,))
_LLAMA3_PT = PreTokenizer((_LLAMA3,), ignore_merges=True, add_bos=True)
_QWEN2_PT = PreTokenizer((_QWEN2,))

PRE_TOKENIZERS: dict[str, PreTokenizer] = {
    "default": DEFAULT,
    **{name: _LLAMA3_PT for name in ("llama3", "llama-v3", "llama-bpe", "falcon3", "falcon-h1", "pixtral", "midm-2.0", "lfm2", "jina-v5-nano")},
    "deepseek-llm": PreTokenizer(("[\r\n]",
                                  "\\s?[A-Za-z\u00b5\u00c0-\u00d6\u00d8-\u00f6\u00f8-\u01ba\u01bc-\u01bf\u01c4-\u0293\u0295-\u02af\u0370-\u0373\u0376\u0377\u037b-\u037d\u037f\u0386\u0388-\u038a\u038c\u038e-\u03a1\u03a3-\u03f5\u03f7-\u0481\u048a-\u052f\u0531-\u0556\u10a0-\u10c5\u13a0-\u13f5\u13f8-\u13fd\u1c90-\u1cba\u1cbd-\u1cbf\u1d00-\u1d2b\u1d6b-\u1d77\u1d79-\u1d9a\u1e00-\u1f15\u1f18-\u1f1d\u1f20-\u1f45\u1f48-\u1f4d\u1f50-\u1f57\u1f59\u1f5b\u1f5d\u1f5f-\u1f7d\u1f80-\u1fb4\u1fb6-\u1fbc\u1fbe\u1fc2-\u1fc4\u1fc6-\u1fcc\u1fd0-\u1fd3\u1fd6-\u1fdb\u1fe0-\u1fec\u1ff2-\u1ff4\u1ff6-\u1ffc\u2102\u2107\u210a-\u2113\u2115\u2119-\u211d\u2124\u2126\u2128\u212a-\u212d\u212f-\u2134\u2139\u213c-\u213f\u2145-\u2149\u214e\u2183\u2184\u2c00-\u2c7b\u2c7e-\u2ce4\u2ceb-\u2cee\u2cf2\u2cf3\ua640-\ua66d\ua680-\ua69b\ua722-\ua76f\ua771-\ua787\ua78b-\ua78e\uab70-\uabbf\ufb00-\ufb06\ufb13-\ufb17\uff21-\uff3a\uff41-\uff5a\U00010400-\U0001044f\U000104b0-\U000104d3\U000104d8-\U000104fb\U00010c80-\U00010cb2\U00010cc0-\U00010cf2\U000118a0-\U000118df\U0001e900-\U0001e943]+",
                                  "\\s?[!-/:-~！-／：-～‘-‟　-。]+", "\\s+$", "[一-龥ࠀ-一가-퟿]+", "\\p{N}+")),
    "deepseek-coder": PreTokenizer(("[\r\n]", "\\s?\\p{L}+", "\\s?\\p{P}+", "[一-龥ࠀ-一가-퟿]+", "\\p{N}")),
    **{name: PreTokenizer(tuple(_DEEPSEEK3)) for name in ("deepseek-v3", "hunyuan-dense", "joyai-llm", "hy_v4")},
    "falcon": PreTokenizer(("[\\p{P}\\$\\+<=>\\^~\\|`]+", "'s|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+|\\s+(?!\\S)", "[0-9][0-9][0-9]")),
    **{name: _STARCODER for name in ("starcoder", "refact", "command-r", "smollm", "codeshell", "exaone", "minerva-7b", "mellum2")},
    **{name: _GPT2_PT for name in ("gpt-2", "phi-2", "jina-es", "jina-de", "gigachat", "jina-v2-es", "jina-v2-de", "a.x-4.0", "mellum",
                                   "modern-bert", "mpt", "olmo", "jais", "trillion", "granite-docling", "exaone4",
                                   "jina-v1-en", "jina-v2-code", "roberta-bpe")},
    **{name: _QWEN2_PT for name in ("qwen2", "deepseek-r1-qwen", "kormo", "f2llmv2", "megrez", "stablelm2", "hunyuan", "solar-open")},
    "qwen35": PreTokenizer((_QWEN35,)),
    "dbrx": PreTokenizer((_LLAMA3,)),
    "smaug-bpe": PreTokenizer((_LLAMA3,)),
    "chatglm-bpe": PreTokenizer((_LLAMA3,)),
    "glm4": PreTokenizer((_LLAMA3,), ignore_merges=True),
    "glm5": PreTokenizer((_LLAMA3,), ignore_merges=True),
    **{name: PreTokenizer((" ?[^(\\s|.,!?…。，、।۔،)]+",)) for name in ("poro-chat", "bloom", "gpt3-finnish")},
    "viking": PreTokenizer((" ?[^(\\s|.,!?…。，、।۔،)]+", "\\p{N}")),
    "tekken": PreTokenizer((_TEKKEN,), ignore_merges=True, add_bos=True),
    "seed-coder": PreTokenizer((_SEED_CODER,)),
}


def pre_tokenizer(name: str) -> PreTokenizer:
    """The rules for `tokenizer.ggml.pre`; a missing name means llama.cpp's "default"."""
    if not name:
        return DEFAULT
    try:
        return PRE_TOKENIZERS[name]
    except KeyError:
        raise ValueError(f"pre-tokenizer {name!r} (tokenizer.ggml.pre) is not supported here; known: "
                         + ", ".join(sorted(PRE_TOKENIZERS))) from None
