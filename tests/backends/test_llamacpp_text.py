"""Generated ids to text as llama.cpp's server makes it (replay.backends.llamacpp_text), on every
token of the demo model's vocabulary (a vocab_only load: no weights, about a second)."""

from __future__ import annotations

import codecs
import ctypes
from functools import lru_cache
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from replay.assets import DEMO_MODEL, asset_path
from replay.backends.llamacpp_text import FIRST_BUFFER, GeneratedText, Pieces, complete_length
from replay.tokens.gguf_vocab import TOKEN_UNUSED, read_vocab
from replay.tokens.tokenizer import load_tokenizer
from tests.support.extras import LLAMA_CPP_PYTHON_MISSING


SLASHES = 64575  # Qwen2.5-Coder: sixty "/", the Solidity banner comment's token
FRAKTUR_U = (124026, 246)  # "𝔘" (U+1D518, F0 9D 94 98): its first three bytes, then the fourth


@pytest.fixture(scope="module")
def llama_cpp() -> Any:
    """The engine the replay used before, as an optional extra (a 10-minute source build): the
    tests that ask its library run where it is installed (`pip install -e '.[llama-cpp-python]'`,
    as CI does); the text rules below it need none."""
    return pytest.importorskip("llama_cpp", reason=LLAMA_CPP_PYTHON_MISSING)


@lru_cache(maxsize=1)
def vocab_only() -> Any:
    import llama_cpp

    return llama_cpp.Llama(model_path=str(asset_path(DEMO_MODEL.name)), vocab_only=True, verbose=False)


@pytest.fixture(scope="module")
def pieces(llama_cpp: Any) -> Pieces:
    return Pieces(vocab_only()._model.vocab)


def test_every_token_of_the_vocabulary_is_its_whole_piece(llama_cpp: Any, pieces: Pieces) -> None:
    """For each of the 151,936 ids: the piece is what llama_token_to_piece writes into a buffer
    large enough at once, what llama_detokenize gives for the id alone, and the bytes of the GGUF's
    own token text (byte-level BPE, read by the project's tokenizer), empty for the control tokens
    and the unused padding ids (llama.cpp renders neither without `special`)."""
    llm = vocab_only()
    vocab = llm._model.vocab
    path = asset_path(DEMO_MODEL.name)
    ours = load_tokenizer(f"gguf:{path}")
    types = read_vocab(path).token_types
    n = llama_cpp.llama_vocab_n_tokens(vocab)
    assert n == ours.vocab_size == len(types) == 151936
    big = ctypes.create_string_buffer(1024)
    one = (llama_cpp.llama_token * 1)()
    longer = 0
    for token in range(n):
        piece = pieces(token)
        size = llama_cpp.llama_token_to_piece(vocab, token, big, len(big), 0, False)
        assert piece == big.raw[:size], token
        one[0] = token
        size = llama_cpp.llama_detokenize(vocab, one, 1, big, len(big), False, False)
        assert piece == big.raw[:size], token
        text = b"" if ours.is_special(token) or types[token] == TOKEN_UNUSED else ours.token_bytes(token)
        assert piece == text, token
        longer += len(piece) > 32
    assert longer == 240  # the ids llama-cpp-python's 32-byte detokenize returns nothing for
    assert max(len(pieces(t)) for t in range(n)) > FIRST_BUFFER  # the buffer was grown on the way


def test_the_sixty_slashes_token_is_kept(pieces: Pieces) -> None:
    assert pieces(SLASHES) == b"/" * 60
    text = GeneratedText()
    for token in vocab_only().tokenize(b"/*" + b"/" * 60, add_bos=False, special=False):
        text.add(pieces(token))
    assert text.answer() == text.streamed() == "/*" + "/" * 60


def test_a_character_split_across_tokens_waits_for_its_last_byte(pieces: Pieces) -> None:
    """"𝔘" comes as two tokens: after the first the stream has sent nothing of it (the server
    holds the three bytes back), a non-streamed answer cut there shows U+FFFD (the server's JSON
    writes bytes that are not UTF-8 so), and after the second both are the character."""
    assert vocab_only().tokenize("𝔘".encode(), add_bos=False, special=False) == list(FRAKTUR_U)
    text = GeneratedText()
    text.add(b"a")
    text.add(pieces(FRAKTUR_U[0]))
    assert (text.streamed(), text.answer()) == ("a", "a\ufffd")
    text.add(pieces(FRAKTUR_U[1]))
    assert text.streamed() == text.answer() == "a𝔘"


def test_complete_length_is_the_whole_characters_of_any_prefix() -> None:
    """validate_utf8 on every prefix of a text of 1- to 4-byte characters: the bytes up to the
    last whole character, as an incremental UTF-8 decoder would have decoded them."""
    data = "a/é—✓𝔘 🦙x".encode()
    for end in range(len(data) + 1):
        whole = codecs.getincrementaldecoder("utf-8")().decode(data[:end])
        assert complete_length(data[:end]) == len(whole.encode()), end
    assert complete_length(b"") == 0 and complete_length(b"\xf0\x9d\x94") == 0


@settings(max_examples=300, deadline=None)
@given(st.text(st.characters(blacklist_categories=("Cs",)), max_size=40), st.lists(st.integers(min_value=0, max_value=200), max_size=12))
def test_streamed_utf8_split_anywhere_is_the_whole_decoded_at_once(text: str, cuts: list[int]) -> None:
    """Text cut into tokens at any byte: asked after every token, the streamed text is the whole
    characters so far, decoded at once (what it was before it was decoded piece by piece)."""
    data = text.encode("utf-8")
    bounds = sorted({min(c, len(data)) for c in cuts} | {len(data)})
    out, last = GeneratedText(), 0
    for end in bounds:
        out.add(data[last:end])
        last = end
        so_far = bytes(out.data)
        assert out.streamed() == so_far[: complete_length(so_far)].decode("utf-8", errors="replace")


@settings(max_examples=300, deadline=None)
@given(st.lists(st.binary(max_size=6), max_size=24))
def test_what_was_streamed_stays_streamed(chunks: list[bytes]) -> None:
    """Any bytes, valid or not: each answer of `streamed` extends the one before (a stream never
    takes back what it sent; decoding the whole each time did: b"\\xf0\\xc0" streams U+FFFD for
    its lead byte, and one more byte makes that lead byte look cut short again)."""
    out, before = GeneratedText(), ""
    for chunk in chunks:
        out.add(chunk)
        now = out.streamed()
        assert now.startswith(before)
        before = now
