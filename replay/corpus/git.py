"""A corpus from a git repository: `git:URL[@REF]`, read at one commit with the real git.

URL is a remote URL (cloned bare into a scratch folder: blame needs every blob, so the clone is
whole, not partial), a `file://` URL (cloned the same way) or a local path (a work tree or a bare
repository, read where it is). REF is a branch, a tag or a commit (default HEAD). The corpus
records the commit and the URL without its user-info (`https://user:token@host/` keeps
`https://host/`): the credentials git needed are never written, and git's own messages are
scrubbed the same way before anyone sees them (replay.secrets).

The files are the commit's blobs (`git ls-tree`, `git cat-file --batch`), byte for byte: no
checkout, so no line-ending conversion and no filters. Symbolic links and submodules are left out.
"""

from __future__ import annotations

import os
import re
import subprocess
from dataclasses import dataclass
from pathlib import Path

from replay.corpus.linedates import utc_time
from replay.errors import UsageError, WorkError
from replay.secrets import scrub_text

PREFIX = "git:"
IGNORE_REVS = ".git-blame-ignore-revs"  # the name GitHub reads at the top of a repository (docs.github.com: "Ignore commits in the blame view")
_TIMEOUT = 3600  # a clone of a large repository over a slow link
_USERINFO = re.compile(r"(?i)\b([a-z][a-z0-9+.-]*://)[^/\s@]*@")
_SCP_LIKE = re.compile(r"^[\w.-]+@[\w.-]+:")  # git@github.com:owner/repo.git


class GitSpecError(UsageError):
    """The spec, the path or the REF does not name a commit."""


class GitFailed(WorkError):
    """git could not do the work (the remote unreachable, a clone failed)."""


@dataclass(frozen=True)
class GitSpec:
    url: str  # as given: may hold credentials, never stored
    ref: str | None

    @property
    def shown(self) -> str:
        """The URL as it may be stored and shown: without user-info."""
        return strip_credentials(self.url)

    @property
    def source(self) -> str:
        return PREFIX + self.shown + (f"@{self.ref}" if self.ref else "")

    @property
    def remote(self) -> bool:
        return "://" in self.url or bool(_SCP_LIKE.match(self.url))


def is_git_spec(spec: str) -> bool:
    return spec.startswith(PREFIX)


def parse_spec(spec: str) -> GitSpec:
    """`git:URL[@REF]`: REF follows the last `@` of the URL's path (user-info and scp-like
    `user@host:` come before the path, so their `@` is never taken for it)."""
    body = spec[len(PREFIX):]
    if "://" in body:
        scheme_end = body.index("://") + 3
        slash = body.find("/", scheme_end)
        path_start = len(body) if slash < 0 else slash
    elif _SCP_LIKE.match(body):
        path_start = body.index(":") + 1
    else:
        path_start = 0
    at = body.rfind("@", path_start)
    url, ref = (body[:at], body[at + 1:]) if at >= 0 else (body, None)
    if not url or ref == "":
        raise GitSpecError(f"{strip_credentials(spec)}: not git:URL[@REF]")
    return GitSpec(url, ref)


def strip_credentials(text: str) -> str:
    """`text` with every URL's user-info removed (`https://user:token@host/` -> `https://host/`: a
    token alone in the user part is a credential too), then scrubbed by the one rule (replay.secrets)."""
    return scrub_text(_USERINFO.sub(r"\1", text))


def default_name(spec: GitSpec) -> str:
    """`git:https://github.com/code-423n4/2024-07-benddao@v1` -> `2024-07-benddao-v1`."""
    base = re.sub(r"\.git$", "", spec.shown.rstrip("/").rsplit("/", 1)[-1].rsplit(":", 1)[-1]) or "repo"
    name = f"{base}-{spec.ref}" if spec.ref else base
    return re.sub(r"[^\w.@+-]", "-", name)


def git(args: list[str], *, cwd: Path | None = None, data: bytes | None = None, what: str = "") -> bytes:
    """git's stdout; GitFailed with git's last line (scrubbed) when it fails. git never prompts."""
    env = {**os.environ, "GIT_TERMINAL_PROMPT": "0", "GIT_SSH_COMMAND": "ssh -o BatchMode=yes", "LC_ALL": "C"}
    try:
        out = subprocess.run(["git", *args], input=data, capture_output=True, cwd=cwd, env=env, timeout=_TIMEOUT)
    except FileNotFoundError as exc:
        raise GitFailed("git is not installed (needed for git: corpora)") from exc
    except subprocess.TimeoutExpired as exc:
        raise GitFailed(f"{what or 'git'}: timed out") from exc
    if out.returncode != 0:
        lines = [ln for ln in out.stderr.decode("utf-8", "replace").strip().splitlines() if ln.strip()]
        said = next((ln for ln in lines if ln.startswith(("fatal:", "error:"))), lines[-1] if lines else "git failed")
        raise GitFailed(f"{what or 'git ' + args[0]}: {strip_credentials(said)}")
    return out.stdout


@dataclass(frozen=True)
class Repo:
    """A repository to read: its git dir, and the commit the corpus is made from."""

    git_dir: Path
    commit: str
    committed: str  # the commit's committer time, UTC ISO

    def run(self, args: list[str], **kw: object) -> bytes:
        return git(["--git-dir", str(self.git_dir), *args], **kw)  # type: ignore[arg-type]


def open_repo(spec: GitSpec, scratch: Path) -> Repo:
    """Clone a remote (or file://) URL into `scratch`, or find a local repository's git dir;
    resolve REF to its commit."""
    if spec.remote:
        git_dir = scratch / "repo.git"
        try:
            git(["clone", "--bare", "--quiet", "--", spec.url, str(git_dir)], what=f"git clone {spec.shown}")
        except GitFailed as exc:
            raise GitFailed(f"{exc} (is the URL right and reachable?)") from None
    else:
        path = Path(spec.url).expanduser()
        if not path.is_dir():
            raise GitSpecError(f"{spec.source}: no such folder")
        try:
            found = git(["-C", str(path), "rev-parse", "--absolute-git-dir"]).decode().strip()
        except GitFailed:
            raise GitSpecError(f"{spec.source}: not a git repository") from None
        git_dir = Path(found)
    ref = spec.ref or "HEAD"
    try:
        commit = git(["--git-dir", str(git_dir), "rev-parse", "--verify", "--quiet", "--end-of-options",
                      f"{ref}^{{commit}}"]).decode().strip()
    except GitFailed:
        raise GitSpecError(f"{spec.source}: {ref} is no branch, tag or commit of the repository") from None
    when = git(["--git-dir", str(git_dir), "show", "-s", "--format=%ct", commit]).decode().strip()
    return Repo(git_dir, commit, utc_time(int(when)))


def write_files(repo: Repo, dest: Path, wanted: set[str]) -> list[str]:
    """Write the commit's regular files with a wanted extension under `dest`; their paths."""
    listing = repo.run(["ls-tree", "-r", "-z", "--full-tree", repo.commit]).split(b"\0")
    blobs: list[tuple[str, str]] = []
    for entry in listing:
        if not entry:
            continue
        meta, _, raw = entry.partition(b"\t")
        mode, kind, sha = meta.decode().split()
        rel = raw.decode("utf-8", "surrogateescape")
        if kind == "blob" and mode in ("100644", "100755") and Path(rel).suffix.lstrip(".").lower() in wanted:
            if ".." not in Path(rel).parts:
                blobs.append((rel, sha))
    if not blobs:
        return []
    out = repo.run(["cat-file", "--batch"], data="".join(f"{sha}\n" for _, sha in blobs).encode())
    pos = 0
    for rel, sha in blobs:
        header_end = out.index(b"\n", pos)
        size = int(out[pos:header_end].split()[2])
        target = dest / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(out[header_end + 1:header_end + 1 + size])
        pos = header_end + 1 + size + 1  # the blob, then its "\n"
    return sorted(rel for rel, _ in blobs)


def ignore_revs(repo: Repo) -> bytes | None:
    """The commit's `.git-blame-ignore-revs`, if it has one."""
    try:
        return repo.run(["show", f"{repo.commit}:{IGNORE_REVS}"])
    except GitFailed:
        return None


def usable_revs(text: bytes) -> tuple[bytes, list[str]]:
    """The ignore list as git blame reads it, and the lines it would stop at. git reads each line
    up to a `#` as one unabbreviated object id (git/git oidset.c, read_oidset_line; non-commits and
    unknown ids are skipped since 2020, "blame: silently ignore invalid ignore file objects") but
    dies at any other text ("fatal: invalid object name"), which would leave every file undated:
    those lines are left out here and listed instead."""
    ids, bad = [], []
    for raw in text.splitlines():
        name = raw.split(b"#", 1)[0].strip().decode("utf-8", "replace")
        if name and len(name) in (40, 64) and all(c in "0123456789abcdef" for c in name.lower()):
            ids.append(name)
        elif name:
            bad.append(name)
    return "".join(f"{c}\n" for c in ids).encode(), bad


def work_tree(folder: Path) -> tuple[Path, str] | None:
    """(top of the work tree, HEAD's commit) when `folder` is inside a git work tree with a commit."""
    try:
        top = git(["-C", str(folder), "rev-parse", "--show-toplevel"]).decode().strip()
        head = git(["-C", str(folder), "rev-parse", "--verify", "HEAD"]).decode().strip()
    except GitFailed:
        return None
    return (Path(top), head) if top and head else None
