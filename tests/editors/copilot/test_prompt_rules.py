"""Copilot's prompt rules one by one (layout.py, similar.py, tokens.py), with the o200k counts."""

from __future__ import annotations

from replay.editors.copilot import layout as lay
from replay.editors.copilot import tokens
from replay.editors.copilot.similar import CPP_OPTIONS, best_windows, neighbors, options_for, similar_snippets, words
from replay.records import OpenFile


def test_o200k_ids_are_the_clients() -> None:
    # what chat-lib's TTokenizer gave for the same text (tests/data/golden/copilot/README.md)
    assert tokens.encode('def hello_world():\n    print("hi")') == [1314, 40617, 76816, 8595, 271, 2123, 568, 3686, 1405]
    assert tokens.count("<|endoftext|>") > 1  # no special token is parsed


def test_take_first_and_last_cut_whole_tokens() -> None:
    text = "alpha beta gamma delta epsilon"
    first, ids = tokens.take_first(text, 2)
    assert first == "alpha beta" and len(ids) == 2
    last, ids = tokens.take_last(text, 2)
    assert last == " delta epsilon" and len(ids) == 2
    assert tokens.take_first(text, 100)[0] == text and tokens.take_first(text, 0) == ("", [])


def test_document_marker() -> None:
    assert lay.document_marker("src/a.py", "python", "x") == "Path: src/a.py"
    assert lay.document_marker(None, "python", "x") == "#!/usr/bin/env python3"
    assert lay.document_marker(None, "solidity", "x") == "Language: solidity"
    assert lay.document_marker(None, "python", "#!/bin/python\n") == ""
    assert lay.document_marker(None, "php", "x") == ""


def test_suffix_starts_at_the_next_line_without_leading_blanks() -> None:
    assert lay.suffix_text(" };\n}\n") == "}\n"
    assert lay.suffix_text(")\n\n    return x\n") == "return x\n"
    assert lay.suffix_text("rest of line only") == ""


def test_trim_last_line_only_when_the_last_line_is_blank() -> None:
    assert lay.trim_last_line("def f():\n    ") == ("def f():\n", "    ")
    assert lay.trim_last_line("    x = 1  ") == ("    x = 1  ", "  ")


def test_budget_reserves_for_the_suffix() -> None:
    assert lay.limits("") == (7692, 0)
    assert lay.limits("x") == (7687 - 1154, 1154)
    assert lay.max_characters() == 31537  # floor(7692 × 4 + 7692 × 0.1)


def test_context_groups_join_trimmed_blocks() -> None:
    blocks = [lay.context_block("Path: a.py", 0.7), lay.context_block("Compare this snippet from b.py:", 0.8, chunk=0),
              lay.context_block("x = 1\n\n", 0.8, chunk=0)]
    for block in blocks:
        block.elided = block.value
    assert lay.context_groups(blocks) == ("Path: a.py\nCompare this snippet from b.py:\nx = 1",)


def test_elision_drops_the_lightest_block_then_lines_from_the_top() -> None:
    marker = lay.context_block("Path: " + "/".join(f"folder_{i}" for i in range(12)) + "/a.py", 0.7)
    prefix = "".join(f"line_{i} = {i}\n" for i in range(3000))
    out = lay.layout([marker], prefix, "")
    assert out.context == ("",)  # the marker (0.7) went first, and what the lines leave is too small for it
    short = lay.layout([lay.context_block("Path: a.py", 0.7)], prefix, "")
    assert short.context == ("Path: a.py",)  # a dropped block comes back when it fits in what is left
    assert prefix.endswith(out.prefix) and out.prefix.startswith("line_") and out.prefix_tokens <= 7692


def test_similar_files_pick_the_best_window_per_file() -> None:
    assert words("def total_cost(items): return sum") == {"total", "cost", "items", "sum"}  # "_" splits too
    lines = [f"unrelated_{i} = {i}" for i in range(100)] + ["price = item.price * quantity"] + ["pass"] * 10
    [(score, start, end)] = best_windows(words("price quantity item"), "\n".join(lines), 1)
    assert end - start == 60 and start <= 100 < end and score > 0
    doc = "item = get()\ntotal = item.price * quantity\n"
    found = similar_snippets(doc, len(doc), [("b.py", "price = item.price * quantity\n"), ("c.py", "nothing here")])
    assert [s.relative_path for s in found] == ["b.py"]
    assert found[0].headline == "Compare this snippet from b.py:"


def test_cpp_documents_take_up_to_four_windows_a_file_and_sixteen_in_all() -> None:
    """similarFileOptionsProvider.ts: `cpp` (C and C++ as the client names them) has
    defaultCppSimilarFilesOptions; every other language the defaults."""
    assert options_for("cpp") is CPP_OPTIONS and options_for("c") is not CPP_OPTIONS
    region = ["price = item.price * quantity"] + ["pass"] * 70
    text = "\n".join(region * 3)  # three windows that match, apart
    doc = "total = item.price * quantity\n"
    files = [(f"f{i}.c", text) for i in range(6)]
    default, cpp = similar_snippets(doc, len(doc), files), similar_snippets(doc, len(doc), files, CPP_OPTIONS)
    assert [s.relative_path for s in default] == ["f2.c", "f3.c", "f4.c", "f5.c"]  # one a file, the best 4
    assert len(cpp) == 16 and {s.relative_path for s in cpp} == {f"f{i}.c" for i in range(6)}
    big = "\n".join(region * 150)  # over 10,000 characters: only C and C++ compare it
    assert similar_snippets(doc, len(doc), [("big.c", big)]) == []
    assert len(similar_snippets(doc, len(doc), [("big.c", big)], CPP_OPTIONS)) == 4


def _opened(*files: OpenFile) -> list[tuple[str, OpenFile]]:
    return [("file:///w/" + f.filepath if ":" not in f.filepath else f.filepath, f) for f in files]


def test_neighbors_keep_the_editors_order_and_the_language() -> None:
    files = _opened(OpenFile("b.ts", "x", "typescriptreact"), OpenFile("a.py", "y", "python"), OpenFile("c.ts", "z", "typescript"))
    assert [f.filepath for _, f in neighbors(files, "file:///w/main.ts", "typescript")] == ["b.ts", "c.ts"]
    big = _opened(OpenFile("big.py", "x" * 200_001, "python"), OpenFile("small.py", "y", "python"))
    assert [f.filepath for _, f in neighbors(big, "file:///w/main.py", "python")] == ["small.py"]


def test_neighbors_are_file_documents_of_a_file_document_but_the_document_itself() -> None:
    files = _opened(OpenFile("untitled:Untitled-2", "x", "python"), OpenFile("a.py", "y", "python"), OpenFile("b.py", "z", "python"))
    assert [f.filepath for _, f in neighbors(files, "file:///w/a.py", "python")] == ["b.py"]
    assert neighbors(files, "untitled:Untitled-1", "python") == []  # an untitled buffer compares with none
    twice = _opened(OpenFile("b.py", "old", "python"), OpenFile("c.py", "z", "python"), OpenFile("b.py", "new", "python"))
    assert [f.text for _, f in neighbors(twice, "file:///w/a.py", "python")] == ["new", "z"]  # one URI, one tab
