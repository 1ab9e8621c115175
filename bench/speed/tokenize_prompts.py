"""Tokenizing rendered prompts: fimreplay's Tokenizer vs the bare `tokenizers` library.

    python -m bench.speed.tokenize_prompts [--n 10000] [--tokenizer qwen2.5-coder]

Builds N FIM prompts (Qwen2.5-Coder template around real-looking Solidity, ~1k tokens each),
then times, in the same run, `Tokenizer.encode_batch` (what fimreplay calls) and the bare
`tokenizers.Tokenizer.encode_batch` on the same tokenizer object. Prints prompts/s of each and
the ratio (target >= 0.9). Not a test: speeds depend on the machine.
"""

from __future__ import annotations

import argparse
import random
import time

from replay.tokens.tokenizer import load_tokenizer

LINES = [
    "    function transfer(address to, uint256 amount) public virtual returns (bool) {",
    "        address owner = _msgSender();",
    "        _transfer(owner, to, amount);",
    "        return true;",
    "    }",
    "    mapping(address account => uint256) private _balances;",
    "    /// @dev Emitted when `value` tokens are moved from one account (`from`) to another (`to`).",
    "    event Transfer(address indexed from, address indexed to, uint256 value);",
    "        if (from == address(0)) { revert ERC20InvalidSender(address(0)); }",
    "        unchecked { _balances[from] = fromBalance - value; }",
    "",
]


def prompts(n: int, seed: int = 7) -> list[str]:
    rnd = random.Random(seed)
    out = []
    for _ in range(n):
        pre = "\n".join(rnd.choice(LINES) for _ in range(rnd.randint(40, 80)))
        suf = "\n".join(rnd.choice(LINES) for _ in range(rnd.randint(10, 30)))
        out.append(f"<|fim_prefix|>{pre}\n        <|fim_suffix|>\n{suf}<|fim_middle|>")
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=10_000)
    ap.add_argument("--tokenizer", default="qwen2.5-coder")
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    tok = load_tokenizer(args.tokenizer)
    bare = tok.hf  # the same tokenizers.Tokenizer, called directly
    texts = prompts(args.n)

    def ours() -> list[list[int]]:
        return tok.encode_batch(texts)

    def raw() -> list[list[int]]:
        return [e.ids for e in bare.encode_batch(texts, add_special_tokens=False)]

    assert ours() == raw()
    best = {"fimreplay": float("inf"), "bare": float("inf")}
    for _ in range(args.repeat):
        for name, fn in (("bare", raw), ("fimreplay", ours)):
            t = time.perf_counter()
            fn()
            best[name] = min(best[name], time.perf_counter() - t)
    n_tok = sum(map(len, raw()))
    for name in ("bare", "fimreplay"):
        print(f"{name:10} {args.n / best[name]:10.0f} prompts/s  {n_tok / best[name]:12.0f} tokens/s")
    print(f"ratio fimreplay/bare = {best['bare'] / best['fimreplay']:.3f} (target >= 0.9); "
          f"{args.n} prompts, {n_tok / args.n:.0f} tokens each")


if __name__ == "__main__":
    main()
