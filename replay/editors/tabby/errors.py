"""The one error of the Tabby profile (its own module, so that every Tabby module can raise it
without importing the option tables)."""

from __future__ import annotations

from replay.errors import UsageError


class TabbyInputError(UsageError):
    """An option, version or input the Tabby profile cannot use (bad key, bad value, a release
    not modelled)."""
