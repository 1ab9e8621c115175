"""Named corpora of real code: an npm package's source files, or a local folder, kept on disk.

`fimreplay corpus add npm:@openzeppelin/contracts@5.7.0` runs `npm pack` (the registry's own
client, so proxies and caches work as the user set them up), verifies the tarball against the
registry's integrity value, and unpacks only the files with the wanted extensions into
`<data dir>/corpora/<name>/files/`. A `corpus.json` beside them records the source, name,
version, the tarball's sha256 and npm's integrity string, and each file's sha256, so that a
benchmark can always say which code it was cut from. A `.tgz` made by `npm pack` is taken as
is (offline).

The manifest also records when the version was published, from every source it has
(replay.corpus.dates), and, given an older version (`since`), which of its lines are new
(replay.corpus.newcode): the code a model trained before that older version cannot have seen.

`git:URL[@REF]` reads a repository at one commit (replay.corpus.git), and a local folder in a
git work tree is read as it is; both date every line of every file by git blame
(replay.corpus.blame), kept in the manifest's `line_dates`.
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
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

from replay.assets import sha256_file
from replay.corpus import blame, dates, newcode
from replay.corpus import git as _git
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
    if _git.is_git_spec(spec):
        return _git.default_name(_git.parse_spec(spec))
    if m:
        return f"{m['name'].lstrip('@').replace('/', '-')}-{m['version']}"
    path = Path(spec).resolve()
    return path.name.removesuffix(".tgz") if path.name.endswith(".tgz") else path.name


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
        lines = out.stderr.strip().splitlines()
        said = [ln for ln in lines if ln.startswith(("npm error", "npm ERR!")) and "complete log" not in ln]
        raise CorpusError(f"npm pack {name}@{version}: {(said or lines or ['npm pack failed'])[0]}")
    try:
        info = json.loads(out.stdout)[0]
    except (ValueError, IndexError) as exc:
        raise CorpusError(f"npm pack {name}@{version}: unreadable output") from exc
    return dest / info["filename"], info


def _unpack(tarball: Path, target: Path, exts: set[str]) -> tuple[list[str], dict[str, str]]:
    """Extract the regular files with a wanted extension; never outside `target`. Also return
    the texts of the top-level changelog and package.json ({"changelog": ..., "package.json": ...})."""
    names = []
    tops: dict[str, str] = {}
    with tarfile.open(tarball, "r:gz") as tar:
        for member in tar.getmembers():
            parts = PurePosixPath(member.name).parts
            if not member.isfile() or ".." in parts or member.name.startswith("/"):
                continue
            rel = PurePosixPath(*parts[1:]) if len(parts) > 1 else PurePosixPath(parts[0])  # drop "package/"
            top = rel.name if len(rel.parts) == 1 else ""
            if top == "package.json" or (dates.CHANGELOG_NAMES.match(top) and "changelog" not in tops):
                src = tar.extractfile(member)
                assert src is not None
                tops["package.json" if top == "package.json" else "changelog"] = src.read().decode("utf-8", "replace")
            if rel.suffix.lstrip(".").lower() not in exts:
                continue
            out = target / rel
            out.parent.mkdir(parents=True, exist_ok=True)
            src = tar.extractfile(member)
            assert src is not None
            out.write_bytes(src.read())
            names.append(rel.as_posix())
    return sorted(names), tops


Registry = Callable[[str], dict[str, str]]  # package name -> the registry's `time` map


def add_corpus(spec: str, name: str | None = None, exts: tuple[str, ...] = ("sol",), force: bool = False, *,
               date: str | None = None, since: str | None = None, since_date: str | None = None,
               registry: Registry = dates.registry_times, progress: blame.Progress | None = None) -> Corpus:
    """Make the named corpus from `npm:NAME@VERSION`, an `npm pack` tarball, `git:URL[@REF]` or a
    local folder;
    return it. `date`: the publication day the user gives; `since` (a spec) or `since_date` (the
    newest version published before that day): the older version whose lines are not new code.

    An existing corpus of the same name and source is returned as is unless `force` (or a date
    or an older version is asked for). `progress` hears how far git blame is.
    """
    shown = _git.parse_spec(spec).source if _git.is_git_spec(spec) else spec  # a git URL without credentials
    name = name or default_name(spec)
    if not re.fullmatch(r"[\w.@+-]+", name):
        raise CorpusError(f"bad corpus name {name!r} (letters, digits, . _ - + @ only)")
    if since and since_date:
        raise CorpusError("give --since or --since-date, not both")
    home = corpora_dir() / name
    existing = load_corpus(name)
    if existing and existing.manifest.get("source") != shown and not force:
        raise CorpusError(f"corpus {name!r} already exists from {existing.manifest.get('source')!r}")
    if existing and not (force or date or since or since_date):
        return existing
    wanted = {e.lower().lstrip(".") for e in exts}
    staging = Path(tempfile.mkdtemp(prefix=f".{name}.", dir=corpora_dir()))
    try:
        files_dir = staging / "files"
        files_dir.mkdir()
        manifest: dict[str, Any] = {"name": name, "source": shown, "extensions": sorted(wanted), "created": time.time()}
        files, tops, git_day = _fill(spec, staging, files_dir, wanted, manifest, progress)
        if not files:
            raise CorpusError(f"{shown}: no files with extension {', '.join(sorted(wanted))}")
        manifest["files"] = {f: sha256_file(files_dir / f) for f in files}
        changelog = dates.changelog_dates(tops.get("changelog", ""))
        registry_days = dates.registry_days(registry(manifest["package"])) if manifest.get("package") else {}
        manifest["published"] = dates.published(
            manifest.get("version"), user=date, changelog=changelog, registry=registry_days,
            git=git_day)
        if since_date:
            since = _since_from_date(manifest, dates.parse_day(since_date), changelog, registry_days)
        if since:
            manifest["new_code"] = _new_code(since, files_dir, files, exts, registry)
            _check_order(manifest)
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


def _fill(spec: str, staging: Path, files_dir: Path, wanted: set[str], manifest: dict[str, Any],
          progress: blame.Progress | None) -> tuple[list[str], dict[str, str], str | None]:
    """Put the source's files in `files_dir` and what it says of itself in `manifest` (with git,
    each line's date); return the files, the top-level changelog and package.json texts, and
    the day of the last commit (git sources)."""
    if _git.is_git_spec(spec):
        files, day = _fill_git(_git.parse_spec(spec), files_dir, wanted, manifest, progress)
        return files, {}, day
    m = _NPM_SPEC.match(spec)
    if m or spec.endswith(".tgz"):
        if m:
            tarball, info = _npm_pack(m["name"], m["version"], staging)
            if info.get("integrity"):
                _check_integrity(tarball, info["integrity"])
        else:
            tarball, info = Path(spec), {"filename": Path(spec).name}
            if not tarball.is_file():
                raise CorpusError(f"{spec}: no such tarball")
        try:
            files, tops = _unpack(tarball, files_dir, wanted)
        except (tarfile.TarError, OSError) as exc:
            raise CorpusError(f"{spec}: not a readable .tgz ({exc})") from exc
        package = _package_json(tops.get("package.json"))
        manifest.update(kind="npm", package=m["name"] if m else package.get("name"),
                        version=info.get("version") or (m["version"] if m else package.get("version")),
                        tarball=info["filename"], tarball_sha256=sha256_file(tarball),
                        integrity=info.get("integrity"), shasum=info.get("shasum"))
        if m:
            tarball.unlink()
        return files, tops, None
    folder = Path(spec)
    if not folder.is_dir():
        raise CorpusError(f"{spec}: not a folder, not a .tgz and not npm:NAME@VERSION")
    files = []
    for path in sorted(folder.rglob("*")):
        if path.is_file() and path.suffix.lstrip(".").lower() in wanted:
            rel = path.relative_to(folder)
            (files_dir / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(path, files_dir / rel)
            files.append(rel.as_posix())
    tops = {}
    changelog = dates.find_changelog(folder)
    if changelog is not None:
        tops["changelog"] = changelog.read_text(encoding="utf-8", errors="replace")
    package = _package_json((folder / "package.json").read_text(encoding="utf-8", errors="replace")
                            if (folder / "package.json").is_file() else None)
    manifest.update(kind="folder", path=str(folder.resolve()), version=package.get("version"))
    tree = _git.work_tree(folder)
    if tree is not None:
        top, head = tree
        prefix = folder.resolve().relative_to(top.resolve()).as_posix()
        ignore = top / _git.IGNORE_REVS
        blamer = blame.Blamer(corpora_dir() / ".blame", head, ignore.read_bytes() if ignore.is_file() else None,
                              work_tree=top, prefix="" if prefix == "." else prefix + "/")
        manifest.update(blame.record(blamer, [(f, files_dir / f) for f in files], progress))
    return files, tops, dates.git_day(folder)


def _fill_git(spec: _git.GitSpec, files_dir: Path, wanted: set[str], manifest: dict[str, Any],
              progress: blame.Progress | None) -> tuple[list[str], str]:
    """The files of the commit REF names, each line dated by git blame (a remote is cloned into
    a scratch folder that is gone afterwards), and the commit's day."""
    with tempfile.TemporaryDirectory(prefix=".clone.", dir=corpora_dir()) as scratch:
        repo = _git.open_repo(spec, Path(scratch))
        files = _git.write_files(repo, files_dir, wanted)
        manifest.update(kind="git", url=spec.shown, ref=spec.ref or "HEAD", commit=repo.commit, committed=repo.committed,
                        version=None)
        if files:
            blamer = blame.Blamer(corpora_dir() / ".blame", repo.commit, _git.ignore_revs(repo), repo=repo)
            manifest.update(blame.record(blamer, [(f, files_dir / f) for f in files], progress))
    return files, repo.committed[:10]


def _package_json(text: str | None) -> dict[str, Any]:
    try:
        data = json.loads(text) if text else {}
    except ValueError:
        return {}
    return data if isinstance(data, dict) else {}


def _since_from_date(manifest: dict[str, Any], day: str, changelog: dict[str, str], registry_days: dict[str, str]) -> str:
    """The spec of the newest version of the same package published before `day`."""
    if not manifest.get("package"):
        raise CorpusError("--since-date needs an npm package (its versions and their dates)")
    known = dates.version_dates(changelog, registry_days)
    old = dates.newest_before(known, day, below=manifest.get("version"))
    if old is None:
        first = min((d for d, _ in known.values()), default=None)
        raise CorpusError(f"{manifest['package']}: no version before {manifest.get('version')} published before {day}"
                          f" ({len(known)} versions dated, the earliest {first}; a registry mirror dates versions when"
                          " it copied them: use --since npm:NAME@OLD)")
    return f"npm:{manifest['package']}@{old}"


def _new_code(since: str, files_dir: Path, files: list[str], exts: tuple[str, ...], registry: Registry) -> dict[str, Any]:
    """The older version (made a corpus of its own) and the line ranges of each file that it lacks."""
    old = add_corpus(since, exts=exts, registry=registry)
    lines = newcode.corpus_new_lines(files_dir, files, old.root, sorted(old.manifest.get("files", {})))
    when = old.manifest.get("published") or {}
    return {"since": since, "since_corpus": old.name, "since_date": when.get("date"),
            "since_date_source": when.get("source"), "lines": lines, **newcode.summary(lines)}


def _check_order(manifest: dict[str, Any]) -> None:
    """Note in `published` an older version dated after this one (a mirror's registry times)."""
    new, mine = manifest.get("new_code") or {}, manifest["published"].get("date")
    if new.get("since_date") and mine and new["since_date"] > mine:
        manifest["published"]["notes"].append(
            f"{new['since']} is dated {new['since_date']} ({new.get('since_date_source')}), after this version:"
            " a registry mirror's times? give --date")


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


def item_fields(corpus: Corpus, new_code_only: bool = False) -> tuple[dict[str, Any], dict[str, list[tuple[int, int]]] | None]:
    """The FimItem fields every item cut from `corpus` carries (its version's day and the day's
    source; new code and since when), and, for new code only, each file's new line ranges."""
    when = corpus.manifest.get("published") or {}
    fields: dict[str, Any] = {"published": when.get("date"), "published_source": when.get("source")}
    lines = None
    if new_code_only:
        new = corpus.manifest.get("new_code")
        if not new:
            raise CorpusError(f"{corpus.name}: no new code recorded (make it with `corpus add SPEC --since OLD`)")
        fields.update(new_code=True, since=new["since"], since_date=new.get("since_date"))
        lines = {rel: [(a, b) for a, b in ranges] for rel, ranges in new["lines"].items()}
    return {k: v for k, v in fields.items() if v}, lines


def line_dates(corpus: Corpus) -> dict[str, Any] | None:
    """rel -> its lines' date runs (replay.corpus.linedates), for a corpus dated by git blame."""
    return corpus.manifest.get("line_dates")


def corpus_of(arg: str) -> Corpus | None:
    """The stored corpus an evalgen CORPUS argument names (by name, or its files folder)."""
    path = Path(arg)
    if not path.exists():
        return load_corpus(arg)
    for corpus in list_corpora():
        if path.resolve() == corpus.root.resolve():
            return corpus
    return None


def resolve_corpus_arg(arg: str) -> Path:
    """An evalgen CORPUS argument: an existing path, or the name of a stored corpus."""
    path = Path(arg)
    if path.exists():
        return path
    corpus = load_corpus(arg)
    if corpus is None:
        raise CorpusError(f"{arg}: no such file, folder or corpus (see `fimreplay corpus list`)")
    return corpus.root
