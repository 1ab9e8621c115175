"""How Copilot's client names a document in its prompt: the document's URI, and the path the
`Path:` marker and the `Compare this snippet from <path>:` headline show.

Sources (microsoft/vscode-copilot-chat; checked in `@vscode/chat-lib` 0.66.0's compiled dist and
in `@github/copilot-language-server` 1.539.0's `dist/main.js`, which bundles the same code):
- src/extension/completions-core/vscode-node/lib/src/textDocumentManager.ts `getRelativePath`:
  no path for an `untitled:` document; else the document's normalised URI less the first
  workspace folder's normalised URI (query and fragment cut, one "/" appended) that starts it,
  still percent-encoded; else, outside every folder or with none, the URI's `basename`,
  percent-decoded. The language server's folders are `initialize`'s `workspaceFolders`
  (its `rootUri` is not read): an editor that gives none names every file by its file name.
- lib/src/util/uri.ts `normalizeUri` (`parseUri`: a Windows path or an unparsable URI is kept as
  it is) and `basename`; src/util/vs/base/common/uri.ts (vscode-uri): `URI.parse` decodes each
  component (`percentDecode`), `toString` encodes it again (`encodeURIComponentFast`: the
  unreserved characters and, in a path, "/" kept, the reserved ones by its table, anything
  else as `encodeURIComponent` does), `URI.file` makes a `file:` URI of a path.

What an input gives (`filepath`, `workspace`, an open file's `filepath`) is a path or a URI;
this module makes the URI the editor hands the client, as VS Code and the LSP clients do
(`URI.file` of the absolute path): a URI is kept as given, an absolute path is made a `file:`
URI, a relative path is joined to the workspace folder (to "/" without one), and a document
with no path is an untitled buffer.
"""

from __future__ import annotations

import posixpath
import re
import string
from dataclasses import dataclass
from urllib.parse import quote

UNTITLED = "untitled:Untitled-1"
_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]+:")  # uri.ts makeFsUri: what counts as "has a scheme"
_ANY = r"[^\n\r\u2028\u2029]"  # JavaScript's "." (a line terminator ends it)
_URI = re.compile(rf"^(([^:/?#]+?):)?(//([^/?#]*))?([^?#]*)(\?([^#]*))?(#({_ANY}*))?")
_SCHEME_NAME = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_+.-]*\Z")  # uri.ts _schemePattern (\w is ASCII there)
_DOUBLE_SLASH = re.compile(rf"^(?:([^:/?#]+?:)?//)(//{_ANY}*)\Z")
_HEX_RUN = re.compile(r"(%[0-9A-Za-z][0-9A-Za-z])+")
_UNRESERVED = frozenset(string.ascii_letters + string.digits + "-._~")
_RESERVED = {c: f"%{ord(c):02X}" for c in ":/?#[]@!$&'()*+,;= "}  # uri.ts encodeTable


@dataclass(frozen=True)
class Uri:
    """vscode-uri's five components, decoded."""

    scheme: str
    authority: str = ""
    path: str = ""
    query: str = ""
    fragment: str = ""

    def __str__(self) -> str:
        """uri.ts `_asFormatted` (`toString()`, encoding on)."""
        out = f"{self.scheme}:" if self.scheme else ""
        if self.authority or self.scheme == "file":
            out += "//"
        if self.authority:
            userinfo, at, host = self.authority.partition("@")
            if at:
                user, colon, password = userinfo.rpartition(":")
                out += (_encode(user) + ":" + _encode(password, authority=True) if colon else _encode(userinfo)) + "@"
            else:
                host = self.authority
            host = host.lower()
            name, colon, port = host.rpartition(":")
            out += _encode(name, authority=True) + ":" + port if colon else _encode(host, authority=True)
        if self.path:
            path = self.path
            if len(path) >= 3 and path[0] == "/" and path[2] == ":" and "A" <= path[1] <= "Z":
                path = "/" + path[1].lower() + path[2:]
            elif len(path) >= 2 and path[1] == ":" and "A" <= path[0] <= "Z":
                path = path[0].lower() + path[1:]
            out += _encode(path, path=True)
        if self.query:
            out += "?" + _encode(self.query)
        if self.fragment:
            out += "#" + _encode(self.fragment)
        return out


def _encode(component: str, path: bool = False, authority: bool = False) -> str:
    """uri.ts `encodeURIComponentFast`."""
    out = []
    for char in component:
        if char in _UNRESERVED or (path and char == "/") or (authority and char in "[]:"):
            out.append(char)
        else:
            out.append(_RESERVED.get(char) or quote(char, safe="", errors="strict"))
    return "".join(out)


def _decode_graceful(run: str) -> str:
    """uri.ts `decodeURIComponentGraceful`: a run of %XX that is not valid UTF-8 (or not hex)
    is decoded from where it becomes so, its first three characters kept as they are."""
    try:
        return bytes(int(run[i + 1:i + 3], 16) for i in range(0, len(run), 3)).decode("utf-8")
    except ValueError:
        return run[:3] + _decode_graceful(run[3:]) if len(run) > 3 else run


def percent_decode(text: str) -> str:
    """uri.ts `percentDecode`."""
    return _HEX_RUN.sub(lambda m: _decode_graceful(m.group(0)), text)


def parse(value: str) -> Uri | None:
    """vscode-uri `URI.parse(value, true)` (None where it throws: its callers here keep the
    text as it is)."""
    match = _URI.match(value)  # every part of the pattern is optional: it always matches
    assert match is not None
    scheme = match.group(2) or ""
    authority, path, query, fragment = (percent_decode(match.group(i) or "") for i in (4, 5, 7, 9))
    if scheme in ("http", "https", "file") and not path.startswith("/"):
        path = "/" + path  # uri.ts _referenceResolution
    if not _SCHEME_NAME.match(scheme):  # no scheme, or a bad one
        return None
    if path and (not path.startswith("/") if authority else path.startswith("//")):
        return None
    return Uri(scheme, authority, path, query, fragment)


def file_uri(path: str) -> str:
    """vscode-uri `URI.file(path).toString()` (a path starting "//" names a share's host)."""
    authority = ""
    if path.startswith("//"):
        host, slash, rest = path[2:].partition("/")
        authority, path = host, (slash + rest if slash else "/")
    return str(Uri("file", authority, path or "/"))


def normalize(uri: str) -> str:
    """uri.ts `normalizeUri`: parsed and formatted again; what vscode-uri refuses is kept."""
    if re.match(r"^[A-Za-z]:\\", uri):
        return uri
    double = _DOUBLE_SLASH.match(uri)
    # the JavaScript of parseUri joins a missing scheme group as "undefined"
    parsed = parse((double.group(1) or "undefined") + double.group(2) if double else uri)
    try:
        return uri if parsed is None else str(parsed)
    except UnicodeError:  # a lone surrogate: encodeURIComponent throws
        return uri


def basename(uri: str) -> str:
    """uri.ts `basename`: the last segment, query and fragment cut, percent-decoded."""
    return percent_decode(re.sub(rf"^{_ANY}*[/:]", "", re.sub(r"/\Z", "", re.sub(rf"[#?]{_ANY}*\Z", "", uri))))


def workspace_uri(workspace: str | None) -> str | None:
    """The workspace folder's URI (None: the editor gives no folder)."""
    if not workspace:
        return None
    return workspace if _SCHEME.match(workspace) else file_uri(workspace)


def document_uri(filepath: str | None, workspace: str | None) -> str:
    """The URI the editor gives the client for a document or open file at `filepath`."""
    if not filepath:
        return UNTITLED
    if _SCHEME.match(filepath):
        return filepath
    if filepath.startswith("/"):
        return file_uri(filepath)
    folder = workspace_uri(workspace)
    if folder is None:
        return file_uri("/" + filepath)
    base = parse(folder)
    if base is None:
        return file_uri("/" + filepath)
    path = posixpath.normpath(posixpath.join(base.path or "/", filepath))  # node's path.posix.join
    return str(Uri(base.scheme, base.authority, path + "/" if filepath.endswith("/") and path != "/" else path))


def relative_path(uri: str, workspace: str | None) -> str | None:
    """textDocumentManager.ts `getRelativePath` of the document at `uri` with the editor's
    workspace folder (None: an untitled document, which has no path)."""
    if uri.startswith("untitled:"):
        return None
    normalized = normalize(uri)
    folder = workspace_uri(workspace)
    if folder is not None:
        parent = re.sub(r"/?\Z", "/", re.sub(rf"[#?]{_ANY}*", "", normalize(folder), count=1), count=1)
        if normalized.startswith(parent):
            return normalized[len(parent):]
    return basename(normalized)


def name(filepath: str | None, workspace: str | None) -> str | None:
    """What the prompt calls the file at `filepath` (None: an untitled document)."""
    return relative_path(document_uri(filepath, workspace), workspace)
