"""The optional extras (pyproject.toml): tests of an engine that a default install lacks skip with
the reason and the command that installs it. CI installs every extra (.ci/run), so they run there."""

from __future__ import annotations

from importlib.util import find_spec

import pytest

needs_hf = pytest.mark.skipif(find_spec("transformers") is None or find_spec("torch") is None,
                              reason="transformers and torch (the `hf` extra) are not installed: pip install -e '.[hf]'")
LLAMA_CPP_PYTHON_MISSING = ("llama-cpp-python (the optional `llama-cpp-python` extra, a source build) is not installed: "
                            "pip install -e '.[llama-cpp-python]'")
