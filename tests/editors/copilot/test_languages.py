"""The language Copilot's client names a document by (languages.py, languageDetection.ts)."""

from __future__ import annotations

import pytest

from replay.editors.copilot.languages import detect_language, detected, extname
from replay.records import EditorInput, OpenFile


@pytest.mark.parametrize(("uri", "given", "expected"), [
    ("file:///w/src/ring.c", "c", "cpp"),  # C is grouped with C++
    ("file:///w/src/ring.h", "c", "cpp"),  # a header: `c` lists `.h` first, then grouped
    ("file:///w/Ring.h", "objective-c", "cpp"),  # the extension wins over the editor's id
    ("file:///w/q.cc", "cpp", "cpp"),
    ("file:///w/TWICE.C", "plaintext", "cpp"),  # the extension is compared lower-cased
    ("file:///w/geometry.py", "javascript", "python"),
    ("file:///w/src/math.ts", "javascript", "typescript"),
    ("file:///w/lib/cart.rb", "plaintext", "ruby"),
    ("file:///w/tools/probe.xyz", "c", "c"),  # no rule knows the name: the editor's id, not grouped
    ("file:///w/bin/run", "python", "python"),
    ("untitled:Untitled-1", "c", "c"),  # the editor names an untitled document, not grouped
    ("vscode-notebook-cell:/w/n.ipynb#W0", "python", "python"),
    ("untitled:a.js", "python", "python"),
    ("file:///w/Dockerfile", "plaintext", "dockerfile"),  # a known file name
    ("file:///w/Dockerfile.prod", "plaintext", "dockerfile"),  # extensions cut until a known name
    ("file:///w/.env", "plaintext", "dotenv"),  # a name that starts with a dot has no extension
    ("file:///w/app/index.html.erb", "erb", "html"),  # a template extension after a known one
    ("file:///w/app/index.erb", "erb", "erb"),  # a template extension alone: the editor's id
    ("file:///w/v/home.blade.php", "php", "blade"),  # .php is a template only after .blade
    ("file:///w/v/home.html.php", "html", "php"),
    ("file:///w/my%20ring.c", "c", "cpp"),  # the name is the URI's last segment, decoded
    ("file:///w/d.c/notes", "markdown", "markdown"),  # only the last segment counts
])
def test_detect_language(uri: str, given: str, expected: str) -> None:
    assert detect_language(uri, given) == expected


@pytest.mark.parametrize(("name", "ext"), [("a.c", ".c"), ("a.h.in", ".in"), (".env", ""), ("..", ""), ("...", "."),
                                           ("..b", ".b"), ("b.", "."), ("Makefile", "")])
def test_extname_is_nodes(name: str, ext: str) -> None:
    assert extname(name) == ext


def test_detected_names_the_document_and_its_open_files() -> None:
    inp = EditorInput(item_id="x", prefix="int f(void) {\n    ", suffix="\n}\n", filepath="src/f.c", workspace="/w",
                      language="c", open_files=[OpenFile("src/f.h", "int f(void);\n", "c"),
                                                OpenFile("notes.txt", "f returns 0\n"),
                                                OpenFile("g.py", "def g(): pass\n")])
    out = detected(inp)
    assert out.language == "cpp"
    assert [f.language for f in out.open_files] == ["cpp", None, "python"]  # none named, none known
    assert detected(out) == out  # what the client detected it detects again
