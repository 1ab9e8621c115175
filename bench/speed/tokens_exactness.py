"""Exactness figures for the GGUF tokenizer: llama.cpp's reference pairs, and token-for-token
equality with llama.cpp's own tokenizer (llama_cpp.Llama(vocab_only=True)) on real files.

    python -m bench.speed.tokens_exactness [DIR_OR_FILE...]

With no argument the Solidity files of @openzeppelin/contracts 5.7.0 are fetched with
`npm pack` into a temp dir. Prints one line per vocabulary and a JSON summary.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

from replay.assets import DEMO_MODEL, asset_path
from replay.tokens.tokenizer import load_tokenizer

VOCABS = ["starcoder", "deepseek-coder", "llama-spm", "gpt-2", "qwen2", "phi-3", "refact", "llama-bpe",
          "deepseek-llm", "falcon", "mpt", "command-r"]


def solidity_files(args: list[str]) -> list[Path]:
    if args:
        out: list[Path] = []
        for a in args:
            p = Path(a)
            out += sorted(p.rglob("*.sol")) if p.is_dir() else [p]
        return out
    tmp = Path(tempfile.mkdtemp(prefix="fimreplay-sol-"))
    subprocess.run(["npm", "pack", "@openzeppelin/contracts@5.7.0", "--pack-destination", str(tmp)], check=True,
                   capture_output=True, cwd=tmp)
    with tarfile.open(next(tmp.glob("*.tgz"))) as tar:
        tar.extractall(tmp, filter="data")
    return sorted((tmp / "package").rglob("*.sol"))


def llama_cpp_tokenize(path: Path):
    from replay.backends.llama_library import LlamaVocab

    llm = LlamaVocab(path)
    return lambda text, special=True: llm.tokenize(text.encode("utf-8"), add_bos=False, special=special)


def main() -> None:
    files = solidity_files(sys.argv[1:])
    texts = [f.read_text(encoding="utf-8") for f in files]
    summary = {"solidity_files": len(files), "solidity_chars": sum(map(len, texts)), "vocabs": {}}
    for name in [*VOCABS, "qwen2.5-coder"]:
        path = asset_path(DEMO_MODEL.name) if name == "qwen2.5-coder" else asset_path(f"vocab-{name}")
        ours = load_tokenizer(f"gguf:{path}")
        ref_ok = ref_n = 0
        if name != "qwen2.5-coder":
            inp = asset_path(f"vocab-{name}", 1).read_text(encoding="utf-8").split("\n__ggml_vocab_test__\n")
            out = asset_path(f"vocab-{name}", 2).read_text(encoding="utf-8").split("\n")
            ref_n = len(inp)
            ref_ok = sum(ours.encode(t) == [int(x) for x in o.split()] for t, o in zip(inp, out))
        oracle = llama_cpp_tokenize(path)
        strings = asset_path("vocab-starcoder", 1).read_text(encoding="utf-8").split("\n__ggml_vocab_test__\n")
        inp_same = sum(ours.encode(s) == oracle(s) for s in strings)
        sol_same = plain_same = sol_tokens = 0
        for t in texts:
            got, want = ours.encode(t), oracle(t)
            sol_same += got == want
            plain_same += ours.encode(t, special=False) == oracle(t, False)
            sol_tokens += len(want)
        row = {"reference": f"{ref_ok}/{ref_n}", "llama_cpp_inp": f"{inp_same}/{len(strings)}",
               "llama_cpp_solidity": f"{sol_same}/{len(texts)}", "llama_cpp_solidity_parse_special_off": f"{plain_same}/{len(texts)}",
               "solidity_tokens": sol_tokens}
        summary["vocabs"][name] = row
        print(f"{name:16} reference {row['reference']:>6}  llama.cpp .inp {row['llama_cpp_inp']:>6}  "
              f"llama.cpp solidity {row['llama_cpp_solidity']:>8} (parse_special off {plain_same}/{len(texts)})  "
              f"({sol_tokens} tokens)", flush=True)
    print(json.dumps(summary))


if __name__ == "__main__":
    main()
