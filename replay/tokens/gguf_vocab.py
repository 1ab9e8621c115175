"""The tokenizer metadata of a GGUF file, read straight from its key/value header.

`gguf.GGUFReader` maps and parses the whole file including every tensor descriptor and turns
each of the 151,936 vocabulary strings into a numpy view: 20+ s for the demo model. Only the
key/value section is needed for a tokenizer, so it is parsed here with `struct` over the first
bytes of the file (the layout is the GGUF v2/v3 header: ggml-org/ggml docs/gguf.md).
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO

import numpy as np

from replay.errors import UsageError

# GGUF value types (ggml-org/ggml docs/gguf.md, `enum gguf_type`).
_SCALARS: dict[int, str] = {0: "<B", 1: "<b", 2: "<H", 3: "<h", 4: "<I", 5: "<i", 6: "<f", 7: "<?", 10: "<Q", 11: "<q", 12: "<d"}
_NUMPY: dict[int, str] = {0: "<u1", 1: "<i1", 2: "<u2", 3: "<i2", 4: "<u4", 5: "<i4", 6: "<f4", 7: "<u1", 10: "<u8", 11: "<i8", 12: "<f8"}
_STRING, _ARRAY = 8, 9

# llama.cpp token types (`enum llama_token_type`, src/llama-vocab.h via gguf TokenType).
TOKEN_NORMAL, TOKEN_UNKNOWN, TOKEN_CONTROL, TOKEN_USER_DEFINED, TOKEN_UNUSED, TOKEN_BYTE = 1, 2, 3, 4, 5, 6


class GgufError(UsageError):
    """The file is not a GGUF file or lacks a tokenizer."""


@dataclass(frozen=True)
class GgufVocab:
    """What llama.cpp reads to build its tokenizer (src/llama-vocab.cpp `llama_vocab::impl::load`)."""

    path: str
    model: str  # tokenizer.ggml.model: "gpt2" (byte-level BPE), "llama" (SentencePiece BPE), ...
    pre: str  # tokenizer.ggml.pre: names the pre-tokenizer regexes
    tokens: list[str]
    token_types: list[int]
    scores: list[float] | None
    merges: list[str] | None
    bos_id: int | None
    eos_id: int | None
    unk_id: int | None
    add_bos: bool | None  # tokenizer.ggml.add_bos_token when present
    add_eos: bool | None
    add_space_prefix: bool | None  # tokenizer.ggml.add_space_prefix when present
    name: str = ""  # general.name (llama.cpp keys per-token attributes off it, e.g. phi-3)
    special_ids: dict[str, int] = field(default_factory=dict)  # tokenizer.ggml.*_token_id keys present
    extra: dict[str, Any] = field(default_factory=dict)


def _read_exact(f: BinaryIO, n: int) -> bytes:
    data = f.read(n)
    if len(data) != n:
        raise GgufError("truncated GGUF header")
    return data


def _read_str(f: BinaryIO) -> str:
    (n,) = struct.unpack("<Q", _read_exact(f, 8))
    return _read_exact(f, n).decode("utf-8", errors="surrogateescape")


def _read_value(f: BinaryIO, vtype: int) -> Any:
    if vtype in _SCALARS:
        fmt = _SCALARS[vtype]
        return struct.unpack(fmt, _read_exact(f, struct.calcsize(fmt)))[0]
    if vtype == _STRING:
        return _read_str(f)
    if vtype == _ARRAY:
        etype, count = struct.unpack("<IQ", _read_exact(f, 12))
        if etype in _NUMPY:
            dt = np.dtype(_NUMPY[etype])
            arr = np.frombuffer(_read_exact(f, dt.itemsize * count), dtype=dt)
            return arr.astype(bool).tolist() if etype == 7 else arr.tolist()
        if etype == _STRING:
            out = []
            unpack, read = struct.unpack, f.read
            for _ in range(count):
                (n,) = unpack("<Q", read(8))
                out.append(read(n).decode("utf-8", errors="surrogateescape"))
            return out
        return [_read_value(f, etype) for _ in range(count)]
    raise GgufError(f"unknown GGUF value type {vtype}")


def read_metadata(path: Path, prefix: tuple[str, ...] = ("tokenizer.", "general.")) -> dict[str, Any]:
    """The GGUF key/values whose names start with `prefix` (others are skipped over)."""
    with open(path, "rb") as f:
        if _read_exact(f, 4) != b"GGUF":
            raise GgufError(f"{path}: not a GGUF file")
        (version,) = struct.unpack("<I", _read_exact(f, 4))
        if version < 2:
            raise GgufError(f"{path}: GGUF version {version} is not supported (v2 or v3 needed)")
        _n_tensors, n_kv = struct.unpack("<QQ", _read_exact(f, 16))
        out: dict[str, Any] = {}
        for _ in range(n_kv):
            key = _read_str(f)
            (vtype,) = struct.unpack("<I", _read_exact(f, 4))
            value = _read_value(f, vtype)
            if key.startswith(prefix):
                out[key] = value
        return out


def read_vocab(path: Path) -> GgufVocab:
    """The tokenizer of a GGUF file (model or vocab-only)."""
    meta = read_metadata(path)
    if "tokenizer.ggml.tokens" not in meta:
        raise GgufError(f"{path}: the GGUF file has no tokenizer (tokenizer.ggml.tokens missing)")
    tokens = meta["tokenizer.ggml.tokens"]
    return GgufVocab(
        path=str(path),
        model=meta.get("tokenizer.ggml.model", ""),
        pre=meta.get("tokenizer.ggml.pre", ""),
        tokens=tokens,
        token_types=meta.get("tokenizer.ggml.token_type") or [TOKEN_NORMAL] * len(tokens),
        scores=meta.get("tokenizer.ggml.scores"),
        merges=meta.get("tokenizer.ggml.merges"),
        bos_id=meta.get("tokenizer.ggml.bos_token_id"),
        eos_id=meta.get("tokenizer.ggml.eos_token_id"),
        unk_id=meta.get("tokenizer.ggml.unknown_token_id"),
        add_bos=meta.get("tokenizer.ggml.add_bos_token"),
        add_eos=meta.get("tokenizer.ggml.add_eos_token"),
        add_space_prefix=meta.get("tokenizer.ggml.add_space_prefix"),
        name=str(meta.get("general.name", "")),
        special_ids={k: int(v) for k, v in meta.items() if k.startswith("tokenizer.ggml.") and k.endswith("_token_id")
                     and isinstance(v, int)},
        extra={k: v for k, v in meta.items() if k.startswith("general.") and isinstance(v, (str, int, float, bool))},
    )
