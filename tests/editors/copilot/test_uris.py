"""How Copilot's client names a document (uris.py): textDocumentManager.ts `getRelativePath`
over vscode-uri's parsing and encoding, and the URI an input's path stands for."""

from __future__ import annotations

from replay.editors.copilot import uris
from replay.editors.copilot.profile import request_body
from replay.records import EditorInput, OpenFile


def test_a_file_in_the_workspace_is_named_by_its_path_in_it_percent_encoded() -> None:
    assert uris.name("src/a.py", "/home/dev/proj") == "src/a.py"
    assert uris.name("/home/dev/proj/src/a.py", "/home/dev/proj") == "src/a.py"
    assert uris.name("src/my file.py", "/home/dev/my proj") == "src/my%20file.py"  # the URI's encoding kept
    assert uris.name("src/über (1).py", "/w") == "src/%C3%BCber%20%281%29.py"
    assert uris.name("file:///w/src/a%2Bb.py", "file:///w/") == "src/a%2Bb.py"
    assert uris.name("file:///w/src/a+b.py", "/w") == "src/a%2Bb.py"  # parsed and formatted again


def test_a_file_outside_the_workspace_or_with_none_is_named_by_its_file_name_decoded() -> None:
    assert uris.name("/home/dev/notes/colors.py", "/home/dev/proj") == "colors.py"
    assert uris.name("/home/dev/project2/main.go", "/home/dev/proj") == "main.go"  # a folder's name is not a prefix
    assert uris.name("/home/dev/proj/src/colors.py", None) == "colors.py"
    assert uris.name("src/colors.py", None) == "colors.py"
    assert uris.name("/tmp/scratch notes/draft #2.py", "/w") == "draft #2.py"
    assert uris.name("file:///x/caf%C3%A9%20bar.py", "/w") == "café bar.py"


def test_an_untitled_document_has_no_name() -> None:
    assert uris.name(None, "/w") is None
    assert uris.name("untitled:Untitled-2", "/w") is None


def test_vscode_uri_encodes_reserved_characters_by_its_table_and_the_rest_natively() -> None:
    assert uris.file_uri("/a b/c#d?e[f]@g!$&'()*+,;=:h-._~") == (
        "file:///a%20b/c%23d%3Fe%5Bf%5D%40g%21%24%26%27%28%29%2A%2B%2C%3B%3D%3Ah-._~")
    assert uris.file_uri('/x/"%<日😀') == "file:///x/%22%25%3C%E6%97%A5%F0%9F%98%80"
    assert uris.file_uri("//server/share/a") == "file://server/share/a"  # a share's host is the authority
    assert uris.normalize("file:///C:/x") == "file:///c%3A/x"  # drive letters lower-cased


def test_percent_decoding_is_graceful_as_vscode_uris() -> None:
    assert uris.percent_decode("a%C3%A9b") == "aéb"
    assert uris.percent_decode("%41%zz") == "%41%zz"  # a run that fails keeps its first escape as it is
    assert uris.percent_decode("%C3%41") == "%C3A"
    assert uris.basename("file:///x/a%zzb.py") == "a%zzb.py"


def test_normalize_keeps_what_vscode_uri_refuses() -> None:
    assert uris.normalize("no scheme here") == "no scheme here"
    assert uris.normalize("C:\\x\\a.py") == "C:\\x\\a.py"
    assert uris.normalize("file:////x/a b") == "file://x/a%20b"  # parseUri's four slashes


def test_an_inputs_path_becomes_the_uri_an_editor_gives() -> None:
    assert uris.document_uri("src/a b.py", "/home/dev/proj") == "file:///home/dev/proj/src/a%20b.py"
    assert uris.document_uri("../notes/n.py", "/home/dev/proj") == "file:///home/dev/notes/n.py"
    assert uris.document_uri("src/a.py", "file:///w/") == "file:///w/src/a.py"
    assert uris.document_uri("src/a.py", None) == "file:///src/a.py"
    assert uris.document_uri("untitled:Untitled-3", "/w") == "untitled:Untitled-3"
    assert uris.document_uri(None, "/w") == uris.UNTITLED


def test_the_prompt_names_files_outside_the_workspace_by_their_file_name() -> None:
    notes = "import bisect\n\n\ndef find_shade(shades, value):\n    return bisect.bisect_left(shades, value)\n"
    inp = EditorInput(prefix="import bisect\n\n\ndef nearest(shades, value):\n    ", suffix="\n", language="python",
                      filepath="/home/dev/notes/colors.py", workspace="/home/dev/proj",
                      open_files=(OpenFile("/home/dev/other/bisect_notes.py", notes, "python"),))
    body = request_body(inp)
    assert body is not None
    assert body["extra"]["context"][0].startswith("Path: colors.py\nCompare this snippet from bisect_notes.py:\n")
    untitled = request_body(EditorInput(prefix=inp.prefix, suffix="\n", language="python", open_files=inp.open_files))
    assert untitled is not None and untitled["extra"]["context"] == ["#!/usr/bin/env python3"]  # no tab compared
