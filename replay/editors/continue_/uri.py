"""Continue's URI path helpers (continuedev/continue core/util/uri.ts), as its templates use them.

Continue works on URIs (`file:///home/me/proj/a.ts`) and workspace folder URIs; snippet headers
and multi-file templates show paths relative to the first workspace folder that contains the
file, or the bare file name when none does. Inputs here may be plain paths: they are turned into
`file://` URIs first, as VS Code would hand them to Continue.
"""

from __future__ import annotations

import re
from urllib.parse import quote, unquote, urlsplit

from replay.errors import UsageError


class InvalidUri(UsageError):
    """Continue's findUriInDirs throws `Invalid uri: ...` for a string without a scheme."""


def to_uri(path_or_uri: str, workspace: str | None = None) -> str:
    """A `file://` URI for a path (relative paths are taken inside `workspace`); URIs pass through."""
    if re.match(r"^[A-Za-z][A-Za-z0-9+.-]*://", path_or_uri):
        return path_or_uri
    path = path_or_uri.replace("\\", "/")
    if not path.startswith("/"):
        root = clean_uri_path(to_uri(workspace)) if workspace else ""
        path = f"/{root}/{path}" if root else f"/{path}"
    return "file://" + quote(path, safe="/:@!$&'()*+,;=-._~")


def _scheme(uri: str) -> str:
    return urlsplit(uri).scheme


def clean_uri_path(uri: str) -> str:
    """getCleanUriPath: the URI's (still encoded) path without leading or trailing slash."""
    path = urlsplit(uri).path
    path = path[1:] if path.startswith("/") else path
    return path[:-1] if path.endswith("/") else path


def uri_basename(uri: str) -> str:
    """getUriPathBasename: the decoded last path segment."""
    return unquote(clean_uri_path(uri).split("/")[-1] or "")


def relative_path_or_basename(uri: str, dirs: list[str]) -> str:
    """findUriInDirs(...).relativePathOrBasename: path inside the first containing dir, else the
    basename. Raises InvalidUri like Continue for a string with no scheme."""
    if not _scheme(uri):
        raise InvalidUri(f"Invalid uri: {uri}")
    parts = clean_uri_path(uri).split("/")
    for d in dirs:
        if not _scheme(d):
            raise InvalidUri(f"Invalid uri: {d}")
        if _scheme(d) != _scheme(uri):
            continue
        dparts = clean_uri_path(d).split("/")
        if len(parts) < len(dparts):
            continue
        if all(dparts[i] == parts[i] for i in range(len(dparts))):
            return "/".join(unquote(p) for p in parts[len(dparts) :])
    return uri_basename(uri)


def last_n_path_parts(path: str, n: int) -> str:
    """getLastNPathParts: split on / and \\, keep the last n."""
    if n <= 0:
        return ""
    return "/".join(re.split(r"[\\/]", path)[-n:])


def last_n_uri_relative_path_parts(dirs: list[str], uri: str, n: int) -> str:
    """getLastNUriRelativePathParts."""
    return last_n_path_parts(relative_path_or_basename(uri, dirs), n)


def shortest_unique_relative_paths(uris: list[str], dirs: list[str]) -> list[tuple[str, str]]:
    """getShortestUniqueRelativeUriPaths: (uri, uniquePath) per uri, where uniquePath is the
    shortest trailing run of path segments that no other uri in the list shares."""
    counts: dict[str, int] = {}
    infos = []
    for uri in uris:
        rel = relative_path_or_basename(uri, dirs)
        segments = rel.split("/")
        suffixes = ["/".join(segments[i:]) for i in range(len(segments) - 1, -1, -1)]
        for s in suffixes:
            counts[s] = counts.get(s, 0) + 1
        infos.append((uri, suffixes, rel))
    return [(uri, next((s for s in suffixes if counts[s] == 1), rel)) for uri, suffixes, rel in infos]


def plain_path(path_or_uri: str, workspace: str | None = None) -> str:
    """The file system path of a `file://` URI (decoded), a relative path taken inside
    `workspace`; an absolute path as given. Releases before core moved to URIs (2024-12) handed
    Continue `document.uri.fsPath`."""
    if path_or_uri.startswith("file://"):
        return unquote(urlsplit(path_or_uri).path)
    if workspace and not re.match(r"^([A-Za-z]:)?[\\/]", path_or_uri):
        return f"{plain_path(workspace).rstrip('/')}/{path_or_uri}"
    return path_or_uri


def shortest_relative_paths(paths: list[str]) -> list[str]:
    """shortestRelativePaths (core/util/index.ts, the plain-path releases): start from each base
    name and lengthen the names of the first duplicated one, part by part. A name counts as
    duplicated only when at least two other paths share it, as Continue's `> 1` test has it."""
    parts_lengths = [len(re.split(r"[\\/]", p)) for p in paths]
    current = [last_n_path_parts(p, 1) for p in paths]
    num_parts = [1] * len(paths)
    dup = [sum(1 for j, y in enumerate(current) if y == x and paths[i] != paths[j]) > 1 for i, x in enumerate(current)]
    while any(dup):
        first = next(x for x, d in zip(current, dup, strict=True) if d)
        if not first:
            break
        for i, x in enumerate(current):
            if x == first:
                num_parts[i] += 1
                current[i] = last_n_path_parts(paths[i], num_parts[i])
        dup = [d and num_parts[i] < parts_lengths[i] and current.count(current[i]) > 1 for i, d in enumerate(dup)]
    return current
