"""The profile end to end on the demo model's vocabulary: the body, llama-server's half, and the
server the extension starts."""

from __future__ import annotations

import pytest

from replay.assets import DEMO_MODEL, asset_path
from replay.editors.llama_server import InfillRefused
from replay.editors.llama_vscode.profile import render
from replay.records import EditorInput


@pytest.fixture(scope="module")
def gguf() -> str:
    return str(asset_path(DEMO_MODEL.name))


def test_a_document_line_is_assembled_by_the_server_the_extension_starts(gguf: str) -> None:
    """`llama serve --fim-qwen-1.5b-default` (src/lists.ts): 4 slots, so the default n_cmpl 3 fits."""
    rendered = render(EditorInput(prefix="def f():\n    ret", suffix="\n"), gguf)
    assert rendered.request["n_cmpl"] == 3 and rendered.text.endswith("<|fim_suffix|>\n\n<|fim_middle|>")
    with pytest.raises(InfillRefused, match="n_cmpl"):
        render(EditorInput(prefix="x", suffix="", options={"server.n_parallel": 1}), gguf)


def test_a_request_only_line_runs_the_server_half_under_its_defaults(gguf: str) -> None:
    body = {"input_prefix": "a\n", "input_suffix": "\n", "prompt": "b", "n_cmpl": 3}
    with pytest.raises(InfillRefused, match="n_cmpl"):
        render(EditorInput(prefix="", suffix="", request=body), gguf)
    rendered = render(EditorInput(prefix="", suffix="", request=body, options={"server.n_parallel": 4}), gguf, "v0.0.40")
    assert rendered.request == body and rendered.version_why.startswith("llama.vscode v0.0.40")
