"""transformers (torch, CPU or GPU): greedy, batched with left padding.

Generation stops on the same end-of-generation tokens llama.cpp uses, looked up by text in the
model's vocabulary: the EOS, the FIM pad / repo / file-separator tokens and the end-of-turn
texts that ggml-org/llama.cpp src/llama-vocab.cpp marks as end-of-generation (for Qwen2.5-Coder:
<|endoftext|>, <|im_end|>, <|fim_pad|>, <|repo_name|>, <|file_sep|>). The generated ids are
decoded with `clean_up_tokenization_spaces=False` (clean-up rewrites " ." and " 's" and so
changes code) and with special tokens kept, up to the first stop id. Prompts are the audited
token ids, else the text tokenized with the tokenizer's own special-token rule (its BOS setting).
"""

from __future__ import annotations

import time
from typing import Any

from replay.backends.base import Backend, BackendError, GenParams
from replay.backends.models import ModelError, ModelRef
from replay.records import Completion, RenderedPrompt

# Texts llama.cpp treats as end of generation (src/llama-vocab.cpp, EOG auto-detection and the
# FIM pad/rep/sep ids), with the spellings of the FIM families' own separators.
END_TEXTS = (
    "<|eot_id|>", "<|im_end|>", "<|end|>", "<end_of_turn>", "<|endoftext|>", "<|eom_id|>", "<EOT>", "_<EOT>",
    "▁<EOT>", "<|end_of_text|>", "<｜end▁of▁sentence｜>", "<|fim_pad|>", "<|repo_name|>", "<|file_sep|>",
    "<fim_pad>", "<repo_name>", "<file_sep>", "<|file_separator|>",
)


class HFBackend(Backend):
    name = "hf"
    max_concurrency = 1
    sends_ids = True

    def __init__(self, ref: ModelRef, model: Any = None, tokenizer: Any = None, device: str = "cpu",
                 dtype: str | None = None) -> None:
        super().__init__(ref.name, ref.model_id)
        import torch
        from transformers import AutoModelForCausalLM, AutoTokenizer

        self.torch = torch
        if model is None:
            if not ref.path:
                raise ModelError(f"{ref.name}: the hf backend needs a local model folder with config.json")
            kwargs = {"dtype": getattr(torch, dtype)} if dtype else {}
            model = AutoModelForCausalLM.from_pretrained(ref.path, **kwargs)
        if tokenizer is None:
            tokenizer = AutoTokenizer.from_pretrained(ref.path)
        self.lm = model.to(device).eval()
        self.device = device
        self.tokenizer = tokenizer
        self.stop_ids = sorted(stop_token_ids(tokenizer, model))
        pad = tokenizer.pad_token_id
        self.pad_id = pad if pad is not None else self.stop_ids[0]

    def token_ids(self, prompt: RenderedPrompt) -> list[int]:
        if prompt.token_ids:
            return list(prompt.token_ids)
        return list(self.tokenizer(prompt.text, add_special_tokens=True)["input_ids"])

    def complete(self, prompt: RenderedPrompt, params: GenParams) -> Completion:
        return self.complete_batch([prompt], params)[0]

    def complete_batch(self, prompts: list[RenderedPrompt], params: GenParams) -> list[Completion]:
        """Greedy generation for several prompts at once, left-padded to one length."""
        torch = self.torch
        started = time.perf_counter()
        ids = [self.token_ids(p) for p in prompts]
        for row in ids:
            if len(row) >= params.ctx:
                raise BackendError(f"prompt of {len(row)} tokens does not fit the context of {params.ctx}")
        width = max(len(r) for r in ids)
        input_ids = torch.tensor([[self.pad_id] * (width - len(r)) + r for r in ids], device=self.device)
        mask = torch.tensor([[0] * (width - len(r)) + [1] * len(r) for r in ids], device=self.device)
        limits = [min(params.new_tokens(p), params.ctx - len(r)) for p, r in zip(prompts, ids)]
        with torch.no_grad():
            out = self.lm.generate(input_ids=input_ids, attention_mask=mask, max_new_tokens=max(limits),
                                      do_sample=False, eos_token_id=self.stop_ids, pad_token_id=self.pad_id)
        results = []
        stops = set(self.stop_ids)
        for prompt, row, limit in zip(prompts, out[:, width:].tolist(), limits):
            row = row[:limit]
            end = next((i for i, t in enumerate(row) if t in stops), None)
            generated = row if end is None else row[:end]
            raw = self.tokenizer.decode(generated, skip_special_tokens=False, clean_up_tokenization_spaces=False)
            results.append(self.finish(prompt, raw, len(generated), "length" if end is None else "stop", started))
        return results

    def describe(self) -> dict[str, Any]:
        return {**super().describe(), "device": self.device, "stop_ids": self.stop_ids}


def stop_token_ids(tokenizer: Any, model: Any) -> set[int]:
    """EOS ids of the tokenizer and generation config, and every END_TEXTS token in the vocab."""
    ids: set[int] = set()
    eos = getattr(getattr(model, "generation_config", None), "eos_token_id", None)
    for value in (tokenizer.eos_token_id, eos):
        if isinstance(value, int):
            ids.add(value)
        elif isinstance(value, list):
            ids.update(v for v in value if isinstance(v, int))
    vocab = tokenizer.get_vocab()
    ids.update(vocab[t] for t in END_TEXTS if t in vocab)
    if not ids:
        raise BackendError("the model has no EOS or end-of-generation token to stop on")
    return ids
