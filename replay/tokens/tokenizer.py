"""Tokenizers by spec: the exact ids a model sees for a text.

Specs (accepted everywhere a tokenizer is named):
- `gguf:PATH`      the vocabulary inside a GGUF file, tokenized as llama.cpp does (gguf_tokenizer)
- `hf:NAME_OR_DIR` transformers' AutoTokenizer (a hub name where the user has a hub)
- `file:PATH`      a tokenizers `tokenizer.json` (its tokenizer_config.json beside it is read)
- `hf-gguf:PATH`   transformers' own GGUF tokenizer import: lossy for code models, offered so the
                   audit can show where it disagrees with the exact one
- `mistral:v3`     mistral-common's v3 SentencePiece tokenizer (Codestral)
- a short name     an installed asset: qwen2.5-coder, starcoder2, deepseek-coder, llama-spm,
                   codellama, gpt-2, phi-3, refact, qwen2, llama3, codestral, ...

`encode` never adds BOS (engine.py decides that per engine) and, with special=True, turns
sentinel text into its special id; `decode` does no clean-up of tokenization spaces.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import replace
from functools import lru_cache
from pathlib import Path

from tokenizers import Tokenizer as HFTokenizer

from replay.assets import DEMO_MODEL, MissingAsset, asset_path
from replay.tokens import gguf_tokenizer
from replay.tokens.base import BYTE_PIECE, BackendTokenizer, Tokenizer, TokenizerError
from replay.tokens.gguf_vocab import TOKEN_BYTE, TOKEN_NORMAL, GgufError, GgufVocab, read_vocab

__all__ = ["BackendTokenizer", "Tokenizer", "TokenizerError", "default_tokenizer_spec", "load_tokenizer"]




class MistralV3Tokenizer(Tokenizer):
    """mistral-common's v3 tokenizer (Codestral). Control tokens written as text ([SUFFIX],
    [PREFIX], [MIDDLE], ...) become their ids; the text after [SUFFIX] is encoded without the
    SentencePiece dummy prefix, other text with it, as `InstructTokenizerV3.encode_fim` does
    (mistral_common/tokens/tokenizers/instruct.py, `_encode_infilling`)."""

    kind = "mistral"
    spm = True

    def __init__(self, spec: str) -> None:
        try:
            from mistral_common.tokens.tokenizers.mistral import MistralTokenizer
        except ImportError as exc:  # pragma: no cover - pinned dependency
            raise TokenizerError(f"{spec}: mistral-common is not installed ({exc})") from exc
        try:
            self._mt = MistralTokenizer.v3()
        except ImportError as exc:
            raise TokenizerError(f"{spec}: {exc}") from exc
        self.sp = self._mt.instruct_tokenizer.tokenizer
        self.spec = spec
        self.bos_id, self.eos_id, self.add_bos = self.sp.bos_id, self.sp.eos_id, True
        self._control = {self.sp.id_to_piece(i): i for i in range(self.sp.num_special_tokens)}
        self._control_re = re.compile("|".join(re.escape(p) for p in sorted(self._control, key=len, reverse=True)))
        self._suffix_id = self._control.get("[SUFFIX]")

    @property
    def vocab_size(self) -> int:
        return self.sp.n_words

    def encode(self, text: str, *, special: bool = True) -> list[int]:
        if not special:
            return self.sp.encode(text, bos=False, eos=False) if text else []
        out: list[int] = []
        prev: int | None = None
        pos = 0
        for m in [*self._control_re.finditer(text), None]:
            chunk = text[pos:m.start()] if m else text[pos:]
            if chunk:
                if prev is not None and prev == self._suffix_id:
                    out += self.sp.encode("☺" + chunk, bos=False, eos=False)[2:]
                else:
                    out += self.sp.encode(chunk, bos=False, eos=False)
            if m is None:
                break
            prev = self._control[m.group(0)]
            out.append(prev)
            pos = m.end()
        return out

    def token_bytes(self, token: int) -> bytes:
        piece = self.sp.id_to_piece(token)
        if self.is_special(token):
            return piece.encode("utf-8")
        if m := BYTE_PIECE.fullmatch(piece):
            return bytes([int(m.group(1), 16)])
        return piece.replace("\u2581", " ").encode("utf-8")

    def token_id(self, piece: str) -> int | None:
        if piece in self._control:
            return self._control[piece]
        tid = self.sp._model.PieceToId(piece)
        return None if tid == self.sp.unk_id and piece != "<unk>" else tid

    def is_special(self, token: int) -> bool:
        return token < self.sp.num_special_tokens

    def _strip_first_space(self, ids: Sequence[int], text: str) -> str:
        if ids and text.startswith(" ") and not self.is_special(ids[0]):
            return text[1:]
        return text


# --- GGUF ---------------------------------------------------------------------------------

# CodeLlama's tokenizer is Llama-2's plus 16 pieces at 32000-32015 (CodeLlama-7b/13b
# tokenizer.json; the same list is spelled out in microsoft/aici's tokenizer table
# "llama16"). They are ordinary SentencePiece pieces trained as merges (hence the partial
# "▁<SU", "▁<PRE" steps), so llama.cpp forms "▁<PRE>" = 32007 from the text " <PRE>" by merging,
# not by special-token matching. Their scores are not published with this vocab; they are
# placed below every Llama-2 piece in id order (merges appended after the base merges).
CODELLAMA_ADDED = ("▁<SU", "▁<SUF", "▁<PRE", "▁<M", "▁<MID", "▁<E", "▁<EOT", "▁<PRE>", "▁<SUF>", "▁<MID>", "▁<EOT>",
                   "▁<EOT><EOT>", "▁<EOT><EOT><EOT>", "▁<EOT><EOT><EOT><EOT>", "▁<EOT><EOT><EOT><EOT><EOT>",
                   "▁<EOT><EOT><EOT><EOT><EOT><EOT>")


def codellama_vocab(base: GgufVocab) -> GgufVocab:
    """Llama-2's SPM vocab extended with CodeLlama's 16 pieces (ids 32000-32015)."""
    scores = list(base.scores or [0.0] * len(base.tokens))
    floor = min(scores)
    return replace(base, tokens=[*base.tokens, *CODELLAMA_ADDED],
                   token_types=[*base.token_types, *[TOKEN_NORMAL] * len(CODELLAMA_ADDED)],
                   scores=scores + [floor - 1 - k for k in range(len(CODELLAMA_ADDED))],
                   name="codellama")


def from_gguf_vocab(spec: str, vocab: GgufVocab) -> BackendTokenizer:
    tok = _from_gguf_vocab(spec, vocab)
    tok.gguf_path = Path(vocab.path)
    return tok


def _from_gguf_vocab(spec: str, vocab: GgufVocab) -> BackendTokenizer:
    hf = gguf_tokenizer.build(vocab)
    spm = vocab.model == "llama"
    add_prefix = spm and (vocab.add_space_prefix is None or bool(vocab.add_space_prefix))
    special = gguf_tokenizer.control_ids(vocab) | {i for i, t in enumerate(vocab.token_types) if t == gguf_tokenizer.TOKEN_UNKNOWN}
    return BackendTokenizer(spec, "gguf", hf, bos_id=vocab.bos_id, eos_id=vocab.eos_id,
                            add_bos=gguf_tokenizer.effective_add_bos(vocab), byte_level=vocab.model == "gpt2", spm=add_prefix,
                            strip_first_space=add_prefix,
                            byte_ids={i for i, t in enumerate(vocab.token_types) if t == TOKEN_BYTE}, special_ids=special,
                            texts=vocab.tokens, rstrip_ids=gguf_tokenizer.rstrip_ids(vocab))


# --- tokenizer.json / transformers -------------------------------------------------------


def _decoder_is_byte_level(hf: HFTokenizer) -> bool:
    if hf.decoder is None:
        return False
    state = json.loads(hf.decoder.__getstate__())
    kinds = [state.get("type")] + [d.get("type") for d in state.get("decoders", []) or []]
    return "ByteLevel" in kinds


def _config_token_id(hf: HFTokenizer, value: object) -> int | None:
    content = value.get("content") if isinstance(value, dict) else value
    return hf.token_to_id(content) if isinstance(content, str) else None


def _detect_add_bos(hf: HFTokenizer, bos_id: int | None) -> bool:
    """Whether the tokenizer's post-processor puts BOS first (what `add_special_tokens=True` does)."""
    if bos_id is None:
        return False
    with_special = hf.encode("a", add_special_tokens=True).ids
    return bool(with_special) and with_special[0] == bos_id and hf.encode("a", add_special_tokens=False).ids[:1] != [bos_id]


def from_tokenizer_json(spec: str, path: Path) -> BackendTokenizer:
    try:
        hf = HFTokenizer.from_file(str(path))
    except Exception as exc:
        raise TokenizerError(f"{path}: not a tokenizer.json ({exc})") from exc
    config: dict = {}
    for name in ("tokenizer_config.json", "special_tokens_map.json"):
        side = path.parent / name
        if side.is_file():
            try:
                config = {**json.loads(side.read_text(encoding="utf-8")), **config}
            except ValueError as exc:
                raise TokenizerError(f"{side}: invalid JSON ({exc})") from exc
    bos_id = _config_token_id(hf, config.get("bos_token"))
    eos_id = _config_token_id(hf, config.get("eos_token"))
    add_bos = config["add_bos_token"] if isinstance(config.get("add_bos_token"), bool) else _detect_add_bos(hf, bos_id)
    return _backend_from_hf(spec, "file", hf, bos_id, eos_id, bool(add_bos))


def _backend_from_hf(spec: str, kind: str, hf: HFTokenizer, bos_id: int | None, eos_id: int | None, add_bos: bool) -> BackendTokenizer:
    byte_level = _decoder_is_byte_level(hf)
    norm = json.loads(hf.normalizer.__getstate__()) if hf.normalizer is not None else {}
    pre = json.loads(hf.pre_tokenizer.__getstate__()) if hf.pre_tokenizer is not None else {}
    spm = not byte_level and ("Prepend" in json.dumps(norm) or '"prepend_scheme": "always"' in json.dumps(pre)
                              or '"prepend_scheme": "first"' in json.dumps(pre))
    return BackendTokenizer(spec, kind, hf, bos_id=bos_id, eos_id=eos_id, add_bos=add_bos, byte_level=byte_level, spm=spm,
                            strip_first_space=spm)


def from_transformers(spec: str, name: str, gguf_file: str | None = None) -> BackendTokenizer:
    """transformers' AutoTokenizer: its fast backend, its BOS rule (`add_special_tokens=True`)."""
    try:
        from transformers import AutoTokenizer
    except ImportError as exc:
        raise TokenizerError(f"{spec}: transformers is not installed (the `hf` extra: pip install -e '.[hf]')") from exc
    kwargs = {"gguf_file": gguf_file} if gguf_file else {}
    local = Path(name).exists()
    try:
        tok = AutoTokenizer.from_pretrained(name, local_files_only=local, **kwargs)
    except Exception as exc:
        raise TokenizerError(f"{spec}: transformers could not load it ({type(exc).__name__}: {str(exc).splitlines()[0][:200]})") from exc
    hf = getattr(tok, "backend_tokenizer", None)
    if hf is None:
        raise TokenizerError(f"{spec}: transformers gave a slow tokenizer with no tokenizers backend")
    with_special = tok("a", add_special_tokens=True)["input_ids"]
    add_bos = tok.bos_token_id is not None and bool(with_special) and with_special[0] == tok.bos_token_id
    return _backend_from_hf(spec, "hf-gguf" if gguf_file else "hf", hf, tok.bos_token_id, tok.eos_token_id, add_bos)


# --- specs ---------------------------------------------------------------------------------

# Short names -> (asset, transform). The vocab assets hold llama.cpp's vocab-only GGUFs.
SHORT_NAMES: dict[str, str] = {
    "qwen2.5-coder": DEMO_MODEL.name,
    "starcoder2": "vocab-starcoder",
    "starcoder": "vocab-starcoder",
    "deepseek-coder": "vocab-deepseek-coder",
    "llama-spm": "vocab-llama-spm",
    "llama2": "vocab-llama-spm",
    "codellama": "vocab-llama-spm",
    "gpt-2": "vocab-gpt-2",
    "gpt2": "vocab-gpt-2",
    "phi-3": "vocab-phi-3",
    "refact": "vocab-refact",
    "qwen2": "vocab-qwen2",
    "qwen1.5": "vocab-qwen2",
    "llama3": "vocab-llama-bpe",
    "llama-bpe": "vocab-llama-bpe",
    "deepseek-llm": "vocab-deepseek-llm",
    "falcon": "vocab-falcon",
    "mpt": "vocab-mpt",
    "command-r": "vocab-command-r",
}

# Model family (as editor templates name them) -> tokenizer spec.
FAMILY_TOKENIZERS: dict[str, str] = {
    "qwen2.5-coder": "qwen2.5-coder",
    "qwen2.5": "qwen2.5-coder",
    "starcoder2": "starcoder2",
    "starcoder": "starcoder2",
    "deepseek-coder": "deepseek-coder",
    "deepseek": "deepseek-coder",
    "codellama": "codellama",
    "codestral": "mistral:v3",
    "mistral": "mistral:v3",
    "gpt-2": "gpt-2",
}


def default_tokenizer_spec(family: str) -> str:
    """The tokenizer a model family is checked with offline (an installed asset or mistral:v3)."""
    key = family.lower().strip()
    if key in FAMILY_TOKENIZERS:
        return FAMILY_TOKENIZERS[key]
    if key in SHORT_NAMES:
        return key
    raise TokenizerError(f"no default tokenizer for model family {family!r}; known families: "
                         + ", ".join(sorted(FAMILY_TOKENIZERS)) + " (or pass --tokenizer SPEC)")


def _load(spec: str) -> Tokenizer:
    kind, sep, rest = spec.partition(":")
    if not sep or len(kind) == 1:  # no scheme (or a Windows drive letter): a short name
        kind, rest = "", spec
    if kind == "gguf":
        path = Path(rest).expanduser()
        if not path.is_file():
            raise TokenizerError(f"{spec}: no such GGUF file")
        try:
            return from_gguf_vocab(spec, read_vocab(path))
        except (OSError, ValueError, GgufError) as exc:
            raise TokenizerError(f"{spec}: {exc}") from exc
    if kind == "file":
        path = Path(rest).expanduser()
        if path.is_dir():
            path = path / "tokenizer.json"
        if not path.is_file():
            raise TokenizerError(f"{spec}: no such tokenizer.json")
        return from_tokenizer_json(spec, path)
    if kind == "hf":
        return from_transformers(spec, rest)
    if kind == "hf-gguf":
        path = Path(rest).expanduser()
        if not path.is_file():
            raise TokenizerError(f"{spec}: no such GGUF file")
        return from_transformers(spec, str(path.parent), gguf_file=path.name)
    if kind == "mistral":
        if rest != "v3":
            raise TokenizerError(f"{spec}: only mistral:v3 (Codestral) is supported")
        return MistralV3Tokenizer(spec)
    if kind:
        raise TokenizerError(f"{spec}: unknown tokenizer scheme {kind!r} (use gguf:, hf:, file:, hf-gguf:, mistral:v3 or a short name)")
    name = rest.lower()
    if name in ("codestral", "mistral"):
        return MistralV3Tokenizer("mistral:v3")
    asset = SHORT_NAMES.get(name) or (name if name.startswith("vocab-") else None)
    if asset is None:
        raise TokenizerError(f"unknown tokenizer {spec!r}: use gguf:PATH, hf:NAME_OR_DIR, file:PATH/tokenizer.json, "
                             f"hf-gguf:PATH, mistral:v3 or one of {', '.join(sorted(SHORT_NAMES))}")
    path = asset_path(asset)  # raises MissingAsset naming `fimreplay assets install`
    vocab = read_vocab(path)
    if name == "codellama":
        vocab = codellama_vocab(vocab)
    return from_gguf_vocab(spec, vocab)


def converter_spec(tok: Tokenizer) -> str:
    """The `hf-gguf:` spec of transformers' own import of the same GGUF (for the audit's
    converter-disagreement check)."""
    if tok.gguf_path is None:
        raise TokenizerError(f"{tok.spec} was not read from a GGUF file: there is no converter to compare with")
    return f"hf-gguf:{tok.gguf_path}"


@lru_cache(maxsize=16)
def load_tokenizer(spec: str) -> Tokenizer:
    """The tokenizer named by `spec`, loaded once per process.

    Raises TokenizerError for a bad spec and MissingAsset (naming the install command) when a
    short name's asset is not installed."""
    return _load(spec.strip())


__all__ = ["Tokenizer", "TokenizerError", "MissingAsset", "load_tokenizer", "default_tokenizer_spec", "CODELLAMA_ADDED"]
