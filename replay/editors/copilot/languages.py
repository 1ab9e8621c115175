"""The language Copilot's client names a document by: its own guess from the file's name, not the
editor's language id.

Source: microsoft/vscode-copilot-chat src/extension/completions-core/vscode-node/lib/src/language/
languageDetection.ts, generatedLanguages.ts and languages.ts (the folder as 3d428a95d left it,
unchanged at 31acd00a8; checked against `@vscode/chat-lib` 0.66.0's compiled dist of the same
paths, whose tables are equal; `@github/copilot-language-server` 1.539.0's dist/main.js bundles
the same classes and tables):
- textDocument.ts `CopilotTextDocument.create`: every document and open file gets
  `detectedLanguageId = detectLanguage({uri, languageId})`; the completion path reads only that
  one (the request's `extra.language`, the `Language:` marker, the comment markers of the
  language server's prompt, the neighbor files' language match, the block mode and stops, the
  block parsers, the statement splitter, the multiline model, the similar-file options, the
  languages spared the short-document rule). The editor's own id is read only
  by parts not modelled here (the related-files providers, recent edits).
- `detectLanguage` asks the detector with the language id "UNKNOWN" and gives the editor's id
  back only when the detector answers "UNKNOWN": for an `untitled:` or `vscode-notebook-cell:`
  document (`ClientProvidedLanguageDetection`) and for a name no rule knows.
- `FilenameAndExensionLanguageDetection`: the URI's last segment, decoded (util/uri.ts
  `basename`); its extension `path.extname(name).toLowerCase()`; a template extension
  (languages.ts `knownTemplateLanguageExtensions`, `.php` only after `.blade`) gives way to
  the known extension before it (`x.html.erb` is HTML); then an exact known file name, else
  the first language listing the extension (generatedLanguages.ts `knownLanguages`, in its
  order), else the name with its extensions cut one by one until it is a known file name.
- `GroupingLanguageDetection`: what the detector names `c` or `cpp` is `cpp` (a header is
  named `c` first). The editor's id given back is never grouped: an untitled C buffer, or a C
  file with an unknown extension, stays `c`.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import msgspec

from replay.editors.copilot import uris
from replay.records import EditorInput

_TABLE_FILE = Path(__file__).resolve().parent.parent.parent / "data" / "copilot_languages.json"
_UNKNOWN = "UNKNOWN"
_CLIENT_NAMED = ("untitled:", "vscode-notebook-cell:")
_GROUPED = {"c": "cpp", "cpp": "cpp"}


@dataclass(frozen=True)
class _Tables:
    """replay/data/copilot_languages.json: extension and file name -> the languages naming it, in
    the table's order; the template extensions and the extensions they may follow."""

    extensions: dict[str, list[str]]
    filenames: dict[str, list[str]]
    template_extensions: frozenset[str]
    template_limitations: dict[str, list[str]]


@cache
def _tables() -> _Tables:
    data = json.loads(_TABLE_FILE.read_text(encoding="utf-8"))
    extensions: dict[str, list[str]] = {}
    filenames: dict[str, list[str]] = {}
    for language, exts, names in data["known_languages"]:
        for ext in exts:
            extensions.setdefault(ext, []).append(language)
        for name in names:
            filenames.setdefault(name, []).append(language)
    return _Tables(extensions, filenames, frozenset(data["template_extensions"]), data["template_limitations"])


def extname(name: str) -> str:
    """node's `path.posix.extname` of a name without slashes: from the last dot, unless that dot
    starts the name (`.env` has none) or the name is `..`."""
    dot = name.rfind(".")
    return "" if dot <= 0 or name == ".." else name[dot:]


def _without_template(name: str, extension: str) -> str:
    """`extensionWithoutTemplateLanguage`: the known extension under a template one, if allowed."""
    tables = _tables()
    if extension in tables.template_extensions:
        inner = extname(name[:name.rfind(".")]).lower()
        allowed = tables.template_limitations.get(extension)
        if inner and inner in tables.extensions and (allowed is None or inner in allowed):
            return inner
    return extension


def _by_name(name: str, extension: str) -> str | None:
    """`detectLanguageId`: a known file name, the extension's first language, then the name
    with its extensions cut one by one (a known file name again)."""
    tables = _tables()
    if name in tables.filenames:
        return tables.filenames[name][0]
    if tables.extensions.get(extension):
        return tables.extensions[extension][0]
    while "." in name:
        name = re.sub(r"\.[^.]*$", "", name)
        if name in tables.filenames:
            return tables.filenames[name][0]
    return None


def detect_language(uri: str, language_id: str) -> str:
    """languageDetection.ts `detectLanguage`: the language the client names the document at
    `uri` by, which the editor calls `language_id`."""
    if uri.startswith(_CLIENT_NAMED):
        return language_id
    name = uris.basename(uri)
    detected = _by_name(name, _without_template(name, extname(name).lower()))
    if detected is None:
        return language_id
    return _GROUPED.get(detected, detected)


def detected(inp: EditorInput) -> EditorInput:
    """The input as the client reads it: the document's and every open file's language the
    detected one (an open file named with no language and no known extension matches none)."""
    files = [msgspec.structs.replace(f, language=detect_language(uris.document_uri(f.filepath, inp.workspace),
                                                                 f.language or "") or f.language)
             for f in inp.open_files]
    language = detect_language(uris.document_uri(inp.filepath, inp.workspace), inp.language or "")
    return msgspec.structs.replace(inp, language=language, open_files=files)
