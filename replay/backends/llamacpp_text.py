"""Generated token ids to text, the way llama.cpp's server turns them into the answer it sends.

llama-cpp-python's own `detokenize` (llama_cpp/_internals.py `LlamaModel.detokenize`, 0.3.36)
asks `llama_token_to_piece` for each id with a 32-byte buffer and keeps `buffer[:n]`: for a piece
longer than 32 bytes the call returns minus the size it needs and the slice is empty, so the token
is lost (abetlen/llama-cpp-python#2362; 240 ids of Qwen2.5-Coder's vocabulary, among them 64575,
sixty slashes, and long runs of spaces). `create_completion` then decodes with errors ignored,
dropping the bytes of a character that a token ends in the middle of. The server does neither
(ggml-org/llama.cpp):

- common/common.cpp `common_token_to_piece`: `llama_token_to_piece(vocab, token, buf, size,
  lstrip 0, special)`; a negative return is minus the size needed: the buffer is grown to it and
  the call made again. `special` is false for a generated token unless the server runs with
  `--special` (tools/server/server-context.cpp `accept_special_token`), so a control token
  renders as nothing.
- tools/server/server-context.cpp `process_token`: the pieces' bytes are appended to the slot's
  `generated_text`; `validate_utf8` (tools/server/server-common.cpp) gives the length without an
  incomplete multi-byte character at the end, and nothing is streamed (nor a stop word looked
  for) while one is pending: the bytes wait for the next token's.
- `send_final_response`: a non-streamed answer is the whole `generated_text`, written by
  `safe_json_to_str` with nlohmann's `error_handler_t::replace` (bytes that are not UTF-8, such as
  a character the budget cut in half, become U+FFFD); a streamed one has sent only what was
  complete, and its final chunk carries no text.
"""

from __future__ import annotations

from typing import Any

FIRST_BUFFER = 16  # bytes: the server's first buffer is std::string's inline capacity (15 + NUL)


class Pieces:
    """The piece bytes of a vocabulary's tokens, as `common_token_to_piece` renders them with
    `special` false; computed once per id."""

    def __init__(self, vocab: Any) -> None:
        import ctypes

        import llama_cpp

        self._vocab = vocab
        self._to_piece = llama_cpp.llama_token_to_piece
        self._buffer = ctypes.create_string_buffer(FIRST_BUFFER)
        self._grow = ctypes.create_string_buffer
        self._known: dict[int, bytes] = {}

    def __call__(self, token: int) -> bytes:
        piece = self._known.get(token)
        if piece is None:
            n = self._to_piece(self._vocab, token, self._buffer, len(self._buffer), 0, False)
            if n < 0:  # too small: -n bytes are needed
                self._buffer = self._grow(-n)
                n = self._to_piece(self._vocab, token, self._buffer, len(self._buffer), 0, False)
            piece = self._known[token] = self._buffer.raw[:n]
        return piece


def complete_length(data: bytes) -> int:
    """`validate_utf8`: the length of `data` without a multi-byte character cut short at its end
    (a lead byte among the last four whose sequence needs more bytes than follow it)."""
    for back in range(1, min(4, len(data)) + 1):
        byte = data[-back]
        needs = 2 if byte & 0xE0 == 0xC0 else 3 if byte & 0xF0 == 0xE0 else 4 if byte & 0xF8 == 0xF0 else 0
        if back < needs:
            return len(data) - back
    return len(data)


class GeneratedText:
    """The bytes of the generated tokens' pieces, and the text the server answers with."""

    def __init__(self) -> None:
        self.data = bytearray()
        self._sent = ""  # the text streamed so far, of data[:_upto]
        self._upto = 0

    def add(self, piece: bytes) -> None:
        self.data += piece

    def streamed(self) -> str:
        """What a stream has sent so far: the bytes up to the last whole character (an incomplete
        one waits for the next token's bytes, and is never sent if none come). What a stream
        sent is never taken back, so only the bytes since the last call are decoded: on valid
        UTF-8 the same as decoding the whole at once, and a stream asked after every token costs
        its length once, not its length per token."""
        end = complete_length(self.data)
        if end > self._upto:
            self._sent += self.data[self._upto:end].decode("utf-8", errors="replace")
            self._upto = end
        return self._sent

    def answer(self) -> str:
        """The non-streamed answer: every byte, those that are not UTF-8 as U+FFFD."""
        return self.data.decode("utf-8", errors="replace")
