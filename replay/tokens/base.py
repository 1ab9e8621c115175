"""The tokenizer interface every spec loads into, and the one built on a `tokenizers` backend
(GGUF vocabularies, tokenizer.json, transformers): exact ids, pieces, special-token handling."""

from __future__ import annotations

import re
import threading
from abc import ABC, abstractmethod
from collections.abc import Sequence
from pathlib import Path

from tokenizers import Tokenizer as HFTokenizer

from replay.errors import UsageError
from replay.tokens.pieces import byte_level_bytes, readable

BYTE_PIECE = re.compile(r"<0x([0-9A-Fa-f]{2})>")  # a SentencePiece byte-fallback piece
_C_SPACE = " \t\n\v\f\r"  # C isspace() in the "C" locale

class TokenizerError(UsageError):
    """A spec that cannot be loaded (bad form, unknown name, unreadable file)."""


class Tokenizer(ABC):
    """One loaded tokenizer. Subclasses wrap a `tokenizers.Tokenizer` or mistral-common."""

    spec: str
    kind: str  # gguf | hf | file | hf-gguf | mistral
    bos_id: int | None = None
    eos_id: int | None = None
    add_bos: bool = False  # what the model's own config says (GGUF add_bos_token / HF config)
    spm: bool = False  # SentencePiece-style: a space is prepended to text after a special token
    gguf_path: Path | None = None  # the GGUF file the vocabulary was read from, when it was

    @abstractmethod
    def encode(self, text: str, *, special: bool = True) -> list[int]:
        """Ids of `text` alone: no BOS; sentinel text becomes special ids when `special`."""

    def encode_batch(self, texts: Sequence[str], *, special: bool = True) -> list[list[int]]:
        return [self.encode(t, special=special) for t in texts]

    @abstractmethod
    def token_bytes(self, token: int) -> bytes:
        """The raw bytes a token stands for (special tokens: their text)."""

    @abstractmethod
    def token_id(self, piece: str) -> int | None:
        """The id of a token given its vocabulary text (special/added tokens by their content)."""

    @abstractmethod
    def is_special(self, token: int) -> bool:
        """Whether the token is a control/added token rather than ordinary text."""

    @property
    @abstractmethod
    def vocab_size(self) -> int: ...

    def decode(self, ids: Sequence[int]) -> str:
        """The text of `ids`, without clean-up of tokenization spaces."""
        text = b"".join(self.token_bytes(i) for i in ids).decode("utf-8", errors="replace")
        return self._strip_first_space(ids, text)

    def _strip_first_space(self, ids: Sequence[int], text: str) -> str:
        return text

    def pieces(self, ids: Sequence[int]) -> list[str]:
        """The token strings, one per id, with bytes that are not text on their own as <0xNN>."""
        return [readable(self.token_bytes(i)) for i in ids]

    def count(self, text: str) -> int:
        return len(self.encode(text))

    def encode_with_offsets(self, text: str, *, special: bool = True) -> tuple[list[int], list[tuple[int, int]]]:
        """Ids and the (start, end) character span of `text` each token covers."""
        ids = self.encode(text, special=special)
        data = text.encode("utf-8")
        char_at = [0] * (len(data) + 1)
        pos = 0
        for k, ch in enumerate(text):
            n = len(ch.encode("utf-8"))
            for j in range(n):
                char_at[pos + j] = k
            pos += n
        char_at[len(data)] = len(text)
        spans, b = [], 0
        for i in ids:
            tb = self.token_bytes(i)
            if self.spm and tb.startswith(b" ") and not self.is_special(i) and not data.startswith(b" ", b):
                tb = tb[1:]  # the SentencePiece dummy-prefix space is not in the text
            start = min(b, len(data))
            b += len(tb)
            spans.append((char_at[start], char_at[min(b, len(data))]))
        return ids, spans

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.spec}>"


class BackendTokenizer(Tokenizer):
    """A `tokenizers.Tokenizer` (built from a GGUF, read from tokenizer.json, or transformers')."""

    def __init__(self, spec: str, kind: str, hf: HFTokenizer, *, bos_id: int | None, eos_id: int | None, add_bos: bool,
                 byte_level: bool, spm: bool = False, strip_first_space: bool = False,
                 byte_ids: set[int] | None = None, special_ids: set[int] | None = None,
                 texts: Sequence[str] | None = None, rstrip_ids: set[int] | None = None) -> None:
        self.spec, self.kind, self.hf = spec, kind, hf
        self.bos_id, self.eos_id, self.add_bos = bos_id, eos_id, add_bos
        self.byte_level, self.spm, self.strip_first_space = byte_level, spm, strip_first_space
        added = hf.get_added_tokens_decoder()
        self._added = {i: t.content for i, t in added.items()}
        self._special = special_ids if special_ids is not None else {i for i, t in added.items() if t.special}
        self._byte_ids = byte_ids if byte_ids is not None else set()
        self._texts = texts  # every id's vocab text (GGUF), for ids a repeated text hides from the model
        self._rstrip = rstrip_ids or set()
        self._lock = threading.Lock()
        self._bytes_cache: dict[int, bytes] = {}

    @property
    def vocab_size(self) -> int:
        return self.hf.get_vocab_size(with_added_tokens=True)

    def _run(self, special: bool, fn):  # noqa: ANN001, ANN202 - a small local helper
        """Run `fn(hf)` with special tokens parsed (the default) or left as text
        (`encode_special_tokens=True`, llama.cpp parse_special=false), switched under a lock."""
        with self._lock:
            if special:
                return fn(self.hf)
            self.hf.encode_special_tokens = True
            try:
                return fn(self.hf)
            finally:
                self.hf.encode_special_tokens = False

    def encode(self, text: str, *, special: bool = True) -> list[int]:
        if self._rstrip:
            return self.encode_with_offsets(text, special=special)[0]
        return self._run(special, lambda hf: hf.encode(text, add_special_tokens=False).ids)

    def encode_batch(self, texts: Sequence[str], *, special: bool = True) -> list[list[int]]:
        if self._rstrip:
            return [self.encode(t, special=special) for t in texts]
        return self._run(special, lambda hf: [e.ids for e in hf.encode_batch_fast(list(texts), add_special_tokens=False)])

    def encode_with_offsets(self, text: str, *, special: bool = True) -> tuple[list[int], list[tuple[int, int]]]:
        enc = self._run(special, lambda hf: hf.encode(text, add_special_tokens=False))
        ids, offsets = enc.ids, list(enc.offsets)
        if not self._rstrip:
            return ids, offsets
        # llama.cpp `tokenizer_st_partition`: after an RSTRIP token, drop the C-isspace chars.
        keep = [True] * len(text)
        for tid, (_, end) in zip(ids, offsets):
            if tid in self._rstrip:
                j = end
                while j < len(text) and text[j] in _C_SPACE:
                    keep[j] = False
                    j += 1
        if all(keep):
            return ids, offsets
        kept = [k for k in range(len(text)) if keep[k]]
        stripped = "".join(text[k] for k in kept)
        enc = self._run(special, lambda hf: hf.encode(stripped, add_special_tokens=False))
        back = kept + [len(text)]
        return enc.ids, [(back[a], back[b - 1] + 1 if b > a else back[a]) for a, b in enc.offsets]

    def token_bytes(self, token: int) -> bytes:
        cached = self._bytes_cache.get(token)
        if cached is not None:
            return cached
        if token in self._added:
            out = self._added[token].encode("utf-8")
        else:
            text = self.hf.id_to_token(token)
            if text is None and self._texts is not None and 0 <= token < len(self._texts):
                text = self._texts[token]
            if text is None:
                raise IndexError(f"token id {token} is outside the vocabulary of {self.spec}")
            if self.byte_level:
                out = byte_level_bytes(text)
            elif (token in self._byte_ids or not self._byte_ids) and (m := BYTE_PIECE.fullmatch(text)):
                out = bytes([int(m.group(1), 16)])
            else:
                out = text.replace("\u2581", " ").encode("utf-8")
        self._bytes_cache[token] = out
        return out

    def _strip_first_space(self, ids: Sequence[int], text: str) -> str:
        # llama.cpp `llama_vocab::impl::detokenize`: with add_space_prefix the first token's
        # leading space is removed (remove_space), unless it is BOS being skipped.
        if self.strip_first_space and ids and text.startswith(" ") and not self.is_special(ids[0]):
            return text[1:]
        return text

    def token_id(self, piece: str) -> int | None:
        return self.hf.token_to_id(piece)

    def is_special(self, token: int) -> bool:
        return token in self._special
