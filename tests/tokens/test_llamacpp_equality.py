"""Token-for-token equality with llama.cpp's own tokenizer (the library of the xllamacpp wheel,
a vocabulary loaded alone: replay.backends.llama_library).

The full figures (every file of @openzeppelin/contracts 5.7.0 and solady, every vocabulary) come
from bench/speed/tokens_exactness.py; here: the reference strings, Solidity written here, FIM prompts
with sentinels, sentinel text with parse_special off, and a slice of the real OpenZeppelin files
(the `openzeppelin-contracts` asset that `fimreplay assets install` puts in the cache).
"""

from __future__ import annotations

from functools import lru_cache

import pytest

from replay.assets import DEMO_MODEL, asset_path
from replay.backends.llama_library import LlamaVocab
from replay.tokens.tokenizer import load_tokenizer

SOLIDITY = [
    "// SPDX-License-Identifier: MIT\npragma solidity ^0.8.20;\n\nimport {IERC20} from \"./IERC20.sol\";\n",
    "contract Vault is Ownable {\n    mapping(address => uint256) private _balances;\n\n"
    "    event Deposit(address indexed from, uint256 amount);\n\n"
    "    function deposit(uint256 amount) external payable {\n        require(amount > 0, \"zero\");\n"
    "        _balances[msg.sender] += amount;\n        emit Deposit(msg.sender, amount);\n    }\n}\n",
    "\tuint256 constant MAX = 0xffffffffffffffffffffffffffffffff; // 2**128-1\r\n\tbytes32 h = keccak256(abi.encodePacked(a, b));\r\n",
    "    /**\n     * @dev Returns the amount of tokens owned by `account`.\n     */\n    function balanceOf(address account) public view virtual returns (uint256) {\n",
    "unchecked { x := add(mul(x, 0x10000000000000000), shr(192, y)) }   \n\n\n  ",
    "string memory s = \"héllo wörld — ünïcode ✓ 🦙\";",
]
FIM = {
    "qwen2.5-coder": "<|fim_prefix|>contract A {\n    function f() public {\n        <|fim_suffix|>\n    }\n}\n<|fim_middle|>",
    "starcoder": "<fim_prefix>contract A {\n  uint x = 1;<fim_suffix>}\n<fim_middle>",
    "deepseek-coder": "<｜fim▁begin｜>contract A {\n<｜fim▁hole｜>\n}<｜fim▁end｜>",
    "llama-spm": "<s> contract A {\n</s>x",
}


@lru_cache(maxsize=None)
def oracle(name: str):
    path = asset_path(DEMO_MODEL.name) if name == "qwen2.5-coder" else asset_path(f"vocab-{name}")
    return LlamaVocab(path), path


def reference_strings() -> list[str]:
    return asset_path("vocab-starcoder", 1).read_text(encoding="utf-8").split("\n__ggml_vocab_test__\n")


@pytest.mark.parametrize("name", ["qwen2.5-coder", "starcoder", "deepseek-coder", "llama-spm", "gpt-2"])
def test_equal_to_llama_cpp(name: str) -> None:
    llm, path = oracle(name)
    ours = load_tokenizer(f"gguf:{path}")
    texts = reference_strings() + SOLIDITY + [FIM.get(name, "")]
    for text in texts:
        want = llm.tokenize(text.encode("utf-8"), add_bos=False, special=True)
        assert ours.encode(text) == want, text
        plain = llm.tokenize(text.encode("utf-8"), add_bos=False, special=False)
        assert ours.encode(text, special=False) == plain, text
    assert ours.add_bos == llm.add_bos
    assert ours.bos_id == llm.bos_id


def test_qwen_fim_tokens_are_the_documented_ids() -> None:
    tok = load_tokenizer("qwen2.5-coder")
    assert [tok.token_id(s) for s in ("<|fim_prefix|>", "<|fim_middle|>", "<|fim_suffix|>", "<|fim_pad|>", "<|repo_name|>",
                                      "<|file_sep|>", "<|endoftext|>")] == [151659, 151660, 151661, 151662, 151663, 151664, 151643]
    ids = tok.encode(FIM["qwen2.5-coder"])
    assert ids[0] == 151659 and ids[-1] == 151660 and 151661 in ids


def test_decode_is_llama_cpp_detokenize_without_clean_up() -> None:
    """llama.cpp's llama_detokenize drops the SentencePiece dummy-prefix space of the first
    token (remove_space = add_space_prefix), as the decode does; the token's piece keeps it."""
    llm, path = oracle("llama-spm")
    ours = load_tokenizer(f"gguf:{path}")
    for text in SOLIDITY:
        ids = ours.encode(text)
        assert ours.decode(ids) == text
        assert ours.decode(ids) == llm.detokenize(ids).decode("utf-8", errors="replace")
        assert " " + ours.decode(ids) == b"".join(map(llm.piece, ids)).decode("utf-8", errors="replace")
    star = load_tokenizer(f"gguf:{oracle('starcoder')[1]}")
    assert star.decode(star.encode("a , b . c ' d")) == "a , b . c ' d"  # no clean_up_tokenization_spaces


def write_codellama_gguf(path) -> None:  # noqa: ANN001
    """A vocab-only GGUF of the `codellama` tokenizer (Llama-2 + CodeLlama's 16 pieces)."""
    import gguf

    from replay.tokens.gguf_vocab import read_metadata, read_vocab
    from replay.tokens.tokenizer import codellama_vocab

    src = asset_path("vocab-llama-spm")
    meta = read_metadata(src, prefix=("llama.",))
    vocab = codellama_vocab(read_vocab(src))
    w = gguf.GGUFWriter(str(path), arch="llama")
    for key, value in meta.items():
        if key == "llama.attention.layer_norm_rms_epsilon":
            w.add_float32(key, value)
        elif key != "llama.vocab_size":
            w.add_uint32(key, value)
    w.add_uint32("llama.vocab_size", len(vocab.tokens))
    w.add_name("codellama")
    w.add_tokenizer_model("llama")
    w.add_tokenizer_pre("default")
    w.add_token_list(vocab.tokens)
    w.add_token_scores(vocab.scores)
    w.add_token_types(vocab.token_types)
    w.add_bos_token_id(1)
    w.add_eos_token_id(2)
    w.add_unk_token_id(0)
    w.add_add_bos_token(True)
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()


def test_codellama_pieces_tokenize_as_llama_cpp_does(tmp_path) -> None:  # noqa: ANN001
    """The merge emulation of SentencePiece with CodeLlama's extra pieces agrees with llama.cpp's
    own SPM tokenizer on the same vocabulary ("▁<PRE>" formed by merges from " <PRE>")."""
    path = tmp_path / "codellama.gguf"
    write_codellama_gguf(path)
    llm = LlamaVocab(path)
    ours = load_tokenizer("codellama")
    texts = ["<PRE> def f(x):\n    return <SUF>\n\nprint(f(2)) <MID>", "<PRE> contract A {\n  uint x; <SUF>} <MID>",
             "x<PRE>y <EOT><EOT> <EOT>", "<PRE>  <SUF> <MID>", *SOLIDITY]
    for text in texts:
        assert ours.encode(text) == llm.tokenize(text.encode("utf-8"), add_bos=False, special=True), text
    assert llm.tokenize(texts[0].encode("utf-8"), add_bos=True, special=True)[:2] == [1, 32007]


FUZZ_ALPHABET = [*"abcXYZ019 _-+*/=<>()[]{};:'\",.!?\n\t\r\\", "  ", "\u00a0", "\u2009", "\u3000", "\u200b", "é", "ß", "中文",
                 "🦙", "\u0301", "\u2028", "\x0b", "\x0c", "\x85", "'s", "'S", "'ll", "１２", "٣", "Ⅻ", "<|fim_prefix|>",
                 "<fim_prefix>", "<｜fim▁hole｜>", "<s>", "</s>", "<|endoftext|>", "▁", "\x00"]


@pytest.mark.parametrize("name", ["qwen2.5-coder", "starcoder", "deepseek-coder", "llama-spm", "phi-3"])
def test_random_strings_equal_llama_cpp(name: str) -> None:
    """Random mixes of Unicode whitespace, sentinels, digits and contractions, both parse_special
    settings (phi-3 covers llama.cpp's rstrip of C-isspace bytes after its special tokens)."""
    import random

    llm, path = oracle(name)
    ours = load_tokenizer(f"gguf:{path}")
    rnd = random.Random(20261122)
    for _ in range(400):
        text = "".join(rnd.choice(FUZZ_ALPHABET) for _ in range(rnd.randint(1, 30)))
        for special in (True, False):
            assert ours.encode(text, special=special) == llm.tokenize(text.encode("utf-8"), add_bos=False, special=special), (text, special)


@pytest.mark.parametrize("name", ["qwen2.5-coder", "starcoder", "deepseek-coder"])
def test_equal_to_llama_cpp_on_real_solidity_files(name: str) -> None:
    files = sorted((asset_path("openzeppelin-contracts") / "package").rglob("*.sol"))
    assert len(files) > 200
    llm, path = oracle(name)
    ours = load_tokenizer(f"gguf:{path}")
    for f in files[::8]:  # every 8th file: 31 real files, about 190k characters
        text = f.read_text(encoding="utf-8")
        assert ours.encode(text) == llm.tokenize(text.encode("utf-8"), add_bos=False, special=True), f.name

