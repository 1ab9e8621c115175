"""What the benchmarks share: the checkout they measure."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
