"""Tokenizers (exact GGUF, HF, mistral-common), token ids per engine, the gotcha audit, diffs."""
