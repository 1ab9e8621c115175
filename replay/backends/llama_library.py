"""llama.cpp's own tokenizer, from the library the xllamacpp wheel carries (its extension module
exports llama.cpp's C API): a vocabulary loaded alone (`vocab_only`), no weights, no context.

It is the oracle the token audit is checked against: what llama.cpp, and so Ollama, Tabby and
llama-server, makes of a text (`llama_tokenize` with `add_special` and `parse_special`), whether
it adds BOS (`llama_vocab_get_add_bos`), each token's piece (`llama_token_to_piece`) and the text
of ids (`llama_detokenize`). The C declarations are those of include/llama.h of the llama.cpp
build xllamacpp 2026.10.11549 pins (b11549): `llama_model_params` starts with the devices and
buffer-override pointers, four 32-bit fields (n_gpu_layers, split_mode, load_mode, lazy_mode),
main_gpu, four pointers, then the booleans, vocab_only first.
"""

from __future__ import annotations

import ctypes
from functools import cache
from pathlib import Path

from replay.backends.models import ModelError

_LOG = ctypes.CFUNCTYPE(None, ctypes.c_int, ctypes.c_char_p, ctypes.c_void_p)


class _ModelParams(ctypes.Structure):
    """struct llama_model_params (llama.h, b11549)."""

    _fields_ = [("devices", ctypes.c_void_p), ("tensor_buft_overrides", ctypes.c_void_p),
                ("n_gpu_layers", ctypes.c_int32), ("split_mode", ctypes.c_int32), ("load_mode", ctypes.c_int32),
                ("lazy_mode", ctypes.c_int32), ("main_gpu", ctypes.c_int32),
                ("tensor_split", ctypes.c_void_p), ("progress_callback", ctypes.c_void_p),
                ("progress_callback_user_data", ctypes.c_void_p), ("kv_overrides", ctypes.c_void_p),
                ("vocab_only", ctypes.c_bool), ("check_tensors", ctypes.c_bool), ("use_extra_bufts", ctypes.c_bool),
                ("no_host", ctypes.c_bool), ("no_alloc", ctypes.c_bool), ("load_mtp", ctypes.c_bool)]


@_LOG
def _quiet(level: int, text: bytes, data: object) -> None:
    """llama.cpp's log goes nowhere: loading a vocabulary prints its whole metadata otherwise."""


@cache
def _library() -> ctypes.CDLL:
    from xllamacpp import xllamacpp

    lib = ctypes.CDLL(xllamacpp.__file__)
    p, i32, b = ctypes.c_void_p, ctypes.c_int32, ctypes.c_bool
    signatures = {
        "llama_log_set": (None, [_LOG, p]),
        "llama_backend_init": (None, []),
        "llama_model_default_params": (_ModelParams, []),
        "llama_model_load_from_file": (p, [ctypes.c_char_p, _ModelParams]),
        "llama_model_free": (None, [p]),
        "llama_model_get_vocab": (p, [p]),
        "llama_vocab_n_tokens": (i32, [p]),
        "llama_vocab_get_add_bos": (b, [p]),
        "llama_vocab_bos": (i32, [p]),
        "llama_vocab_is_eog": (b, [p, i32]),
        "llama_tokenize": (i32, [p, ctypes.c_char_p, i32, ctypes.POINTER(i32), i32, b, b]),
        "llama_token_to_piece": (i32, [p, i32, ctypes.c_char_p, i32, i32, b]),
        "llama_detokenize": (i32, [p, ctypes.POINTER(i32), i32, ctypes.c_char_p, i32, b, b]),
    }
    for name, (restype, argtypes) in signatures.items():
        function = getattr(lib, name)
        function.restype, function.argtypes = restype, argtypes
    lib.llama_log_set(_quiet, None)
    lib.llama_backend_init()
    return lib


class LlamaVocab:
    """One GGUF's vocabulary in llama.cpp (its weights are not read)."""

    def __init__(self, path: Path | str) -> None:
        self._lib = lib = _library()
        params = lib.llama_model_default_params()
        params.vocab_only = True
        self._model = lib.llama_model_load_from_file(str(path).encode(), params)
        if not self._model:
            raise ModelError(f"{path}: llama.cpp could not load its vocabulary")
        self._vocab = lib.llama_model_get_vocab(self._model)
        self.n_tokens: int = lib.llama_vocab_n_tokens(self._vocab)
        self.add_bos: bool = bool(lib.llama_vocab_get_add_bos(self._vocab))
        self.bos_id: int = lib.llama_vocab_bos(self._vocab)

    def tokenize(self, text: bytes, add_bos: bool, special: bool) -> list[int]:
        """`llama_tokenize(vocab, text, add_special=add_bos, parse_special=special)`; a negative
        count is minus the room needed: asked again with that much."""
        room = len(text) + 2
        while True:
            out = (ctypes.c_int32 * room)()
            n = self._lib.llama_tokenize(self._vocab, text, len(text), out, room, add_bos, special)
            if n >= 0:
                return list(out[:n])
            room = -n

    def piece(self, token: int, special: bool = False) -> bytes:
        """`llama_token_to_piece` (lstrip 0), grown to the size it asks for."""
        size = 32
        while True:
            buffer = ctypes.create_string_buffer(size)
            n = self._lib.llama_token_to_piece(self._vocab, token, buffer, size, 0, special)
            if n >= 0:
                return buffer.raw[:n]
            size = -n

    def detokenize(self, ids: list[int], remove_special: bool = False, unparse_special: bool = False) -> bytes:
        """`llama_detokenize`: the whole text of `ids` (the SentencePiece dummy-prefix space of
        the first token removed where the vocabulary adds one)."""
        tokens = (ctypes.c_int32 * len(ids))(*ids)
        size = 64 + 16 * len(ids)
        while True:
            buffer = ctypes.create_string_buffer(size)
            n = self._lib.llama_detokenize(self._vocab, tokens, len(ids), buffer, size, remove_special, unparse_special)
            if n >= 0:
                return buffer.raw[:n]
            size = -n

    def is_eog(self, token: int) -> bool:
        return bool(self._lib.llama_vocab_is_eog(self._vocab, token))

    def close(self) -> None:
        if self._model:
            self._lib.llama_model_free(self._model)
            self._model = None
