"""Editor release numbers: parse `0.25`, `v0.25.0`, `tabby@0.25.0` and compare them.

Profiles are versioned by the release in which a rule changed; a replay names any release
and gets the rules in force in it (the newest change at or before it).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from replay.editors.rulebook import UnknownRelease


@dataclass(frozen=True, order=True)
class Release:
    major: int
    minor: int
    patch: int = 0

    @classmethod
    def parse(cls, text: str) -> Release:
        match = re.fullmatch(r"(?:[a-z-]+@)?v?(\d+)\.(\d+)(?:\.(\d+))?", text.strip())
        if not match:
            raise UnknownRelease(f"not a release number: {text!r} (expected e.g. 0.25 or 0.25.0)")
        return cls(int(match[1]), int(match[2]), int(match[3] or 0))

    def __str__(self) -> str:
        return f"{self.major}.{self.minor}.{self.patch}"
