"""What the engines' tests on the real demo model share: the model."""

from __future__ import annotations

import pytest

from replay.backends.models import ModelRef, resolve_model


@pytest.fixture(scope="module")
def ref() -> ModelRef:
    """The demo model (the default asset): a GGUF file both llama.cpp engines load."""
    return resolve_model("default")
