"""Continue's rules before and around the core refactor of 2024-05-24 (0.8.24..0.8.40, 0.9.119..),
each checked at its boundary (the last release without it and the first with it, read at the
tags of continuedev/continue), the merge of overlapping snippets of one file (ranking.ts), the
per-file deduplication of the newer pipeline, and the refusal of releases older than the table."""

from __future__ import annotations

import json

import pytest

from replay.editors.continue_.profile import render
from replay.editors.continue_ import tokens as ct
from replay.editors.continue_.ranking08 import merge_by_range, rank_and_fill
from replay.editors.continue_.releases import era_for
from replay.editors.rulebook import UnknownRelease
from replay.records import EditorInput, Snippet

BODY = "".join(f"    uint256 public value{i} = {i};  // slot {i}\n" for i in range(200))
B_SOL = Snippet(filepath="/ws/contracts/B.sol", content="contract B {\n    function g() public {}\n}")


def sol(*snippets: Snippet, **options: object) -> EditorInput:
    return EditorInput(prefix="contract A {\n" + BODY + "    function f() public {\n        ", suffix="\n    }\n}\n",
                       filepath="/ws/contracts/A.sol", workspace="/ws", snippets=snippets, options=options)


@pytest.mark.parametrize("version", ["0.8.23", "v0.8.20-vscode", "0.9.118", "0.0.42-jetbrains", "2024-04-11", "0.7.9"])
def test_releases_older_than_the_table_are_refused(version: str) -> None:
    with pytest.raises(UnknownRelease, match=r"predates the first release modelled \(0\.(8\.24|9\.119|0\.43)-"):
        era_for(version)


def test_first_releases_of_each_line_render() -> None:
    for version in ("0.8.24", "0.9.119", "0.0.43-jetbrains", "2024-04-12"):
        assert era_for(version).pre_rewrite


def test_cli_refuses_an_old_release_in_one_line(cli, tmp_path) -> None:
    src = tmp_path / "in.jsonl"
    src.write_text(json.dumps({"prefix": "a", "suffix": "b", "filepath": "/ws/a.ts"}) + "\n", encoding="utf-8")
    done = cli("render", str(src), "--editor", "continue", "--model", "starcoder2:3b", "--editor-version", "0.8.20")
    assert done.returncode == 2 and "predates the first release modelled (0.8.24-vscode, 2024-04-12)" in done.stderr
    assert "Traceback" not in done.stderr


def test_other_files_and_newline_stop_words_from_57ca9f1dd7() -> None:
    """0.9.127: useOtherFiles false by default, language stop words sent bare; 0.8.27 (57ca9f1dd7,
    2024-05-08): snippets on, each stop word after a newline."""
    old, new = (render(sol(B_SOL, provider="openai"), "starcoder2:3b", v) for v in ("0.9.127", "0.8.27"))
    assert "Path: B.sol" not in old.text and new.text.startswith("<fim_prefix>// Path: B.sol\n// contract B {")
    assert "contract" in old.stop and "\ncontract" not in old.stop
    assert "\ncontract" in new.stop and "contract" not in new.stop
    assert render(sol(B_SOL, provider="openai", useOtherFiles=True), "starcoder2:3b", "0.9.127").text == new.text


def test_starcoder2_and_python_stops_from_cf4b557568() -> None:
    """0.9.124: starcoder2 artifacts "t.", "\\nt"; Python stops def, class; .ipynb is TypeScript.
    0.9.125 (cf4b557568, 2024-05-03): "<file_sep>" too, '\"\"\"#' for Python, .ipynb is Python."""
    py = EditorInput(prefix="def f():\n    ", suffix="\n", filepath="/ws/a.py", workspace="/ws", options={"provider": "openai"})
    old, new = (render(py, "starcoder2:3b", v).stop for v in ("0.9.124", "0.9.125"))
    assert old[-4:] == ("t.", "\nt", "def", "class")
    assert new[-6:] == ("t.", "\nt", "<file_sep>", "def", "class", '"""#')
    nb = EditorInput(prefix="", suffix="", filepath="/ws/nb.ipynb", workspace="/ws", options={"provider": "openai"})
    assert render(nb, "codellama:7b", "0.9.124").stop[-5:] == ("function", "class", "module", "export", "import")
    assert render(nb, "codellama:7b", "0.9.125").stop[-3:] == ("def", "class", '"""#')


def test_fim_route_from_d5b5e1ac43() -> None:
    """0.8.32 always sends the rendered prompt; 0.8.33 (d5b5e1ac43, 2024-05-29) sends prefix and
    suffix to a provider whose supportsFim() is true."""
    inp = sol(provider="mistral", supportsFim=True)
    assert render(inp, "codestral-latest", "0.8.32").route == "raw"
    assert render(inp, "codestral-latest", "0.8.33").route == "fim"


def test_local_budget_overrides_the_user_until_aa18568c60() -> None:
    """0.8.39: a local provider gets maxPromptTokens 500 even when the user set one; 0.8.40
    (aa18568c60, 2024-06-06): the user's value stands. Before 0.8.30 (53b61288ec) there is no
    local rule: 500 is everyone's default."""
    chosen = sol(provider="ollama", maxPromptTokens=1024)
    old, new = (render(chosen, "starcoder2:3b", v).prefix_sent for v in ("0.8.39", "0.8.40"))
    assert ct.count_tokens(old, "starcoder2:3b", False) <= 500 * 0.85 < ct.count_tokens(new, "starcoder2:3b", False)
    assert render(sol(provider="ollama"), "starcoder2:3b", "0.8.29").prefix_sent == old
    assert render(sol(provider="openai"), "starcoder2:3b", "0.8.29").prefix_sent == old


def _s(path: str, text: str, start: int, end: int) -> Snippet:
    return Snippet(filepath=path, content=text, lines=(start, end))


def test_overlapping_snippets_of_one_file_are_merged_as_ranking_ts_does() -> None:
    """mergeSnippetsByRange: sorted by first line; a snippet starting at or before the previous
    end is merged into it: the higher score, the later end, and the last (end - start of the
    later) lines of the earlier text + "\\n" + the later text."""
    a = _s("/ws/f.ts", "l10\nl11\nl12\nl13", 10, 14)
    b = _s("/ws/f.ts", "l0\nl1\nl2\nl3\nl4\nl5\nl6\nl7\nl8\nl9\nl10\nl11", 0, 12)
    c = _s("/ws/f.ts", "l14\nl15", 14, 16)  # touches a's end: merged too
    far = _s("/ws/f.ts", "l30", 30, 31)
    merged = merge_by_range([(0.5, a), (0.2, b), (0.9, c), (0.1, far)])
    assert [(score, s.lines) for score, s in merged] == [(0.9, (0, 16)), (0.1, (30, 31))]
    # b + a: the last 4 lines of b, then a; then the last 2 lines of that, then c
    assert merged[0][1].content == "l12\nl13\nl14\nl15"
    nested = merge_by_range([(0.3, _s("/ws/g.ts", "x0\nx1\nx2\nx3\nx4", 0, 5)), (0.4, _s("/ws/g.ts", "x2", 2, 3))])
    assert nested[0][1].lines == (0, 3) and nested[0][1].content == "x4\nx2"  # the range shrinks to the inner end
    same = _s("/ws/h.ts", "y", 3, 3)
    assert merge_by_range([(0.1, same), (0.2, same)])[0][1].content == "y\ny"  # slice(-0): all of the first


def test_snippets_without_ranges_are_not_merged() -> None:
    a, b = Snippet(filepath="/ws/f.ts", content="one"), _s("/ws/f.ts", "two", 0, 1)
    assert merge_by_range([(0.1, a), (0.2, b)]) == [(0.1, a), (0.2, b)]
    era = era_for("0.8.55")
    assert rank_and_fill([a, b], "one two", 100, "starcoder2", era) == [a, b]


def test_merged_snippet_reaches_the_prompt() -> None:
    first = _s("/ws/contracts/B.sol", "contract B {\n    function g() public {}", 0, 2)
    second = _s("/ws/contracts/B.sol", "    function g() public {}\n}", 1, 3)
    text = render(sol(first, second, provider="openai"), "starcoder2:3b", "0.8.55").text
    assert text.startswith("<fim_prefix>// Path: B.sol\n// contract B {\n//     function g() public {}\n"
                           "//     function g() public {}\n// }\n//\n\n")
    assert render(sol(first, second, provider="openai"), "starcoder2:3b", "0.9.235").text.count("Path: contracts/B.sol") == 2


def test_one_code_snippet_per_file_from_1_1_48() -> None:
    """1.1.47: a recently edited range and a definition of the same file both go in; 1.1.48
    (398730364f, 2025-06-09): the file already given by the higher-priority group is skipped;
    recently opened files are a group from 1.1.48 on (0a632b5401)."""
    edited = Snippet(filepath="/ws/contracts/B.sol", content="uint256 edited = 1;", kind="edited")
    opened = Snippet(filepath="/ws/contracts/C.sol", content="contract C {}", kind="opened")
    inp = sol(edited, B_SOL, opened, provider="openai", experimental_includeRecentlyEditedRanges=True)
    old, new = (render(inp, "codellama:7b", v).text for v in ("1.1.47", "1.1.48"))
    assert "uint256 edited" in old and "contract B {" in old and "contract C" not in old
    assert "uint256 edited" in new and "contract B {" not in new and "contract C {}" in new


def test_render_input_carries_snippet_ranges() -> None:
    """`lines` of a render input's snippet: [first, end], 0-based; bad ones name the snippet."""
    from replay.editors.inputs import BadInputLine, parse_line

    line = {"prefix": "a", "suffix": "", "snippets": [{"filepath": "/ws/b.ts", "content": "x", "lines": [2, 5]},
                                                     {"filepath": "/ws/c.ts", "content": "y"}]}
    got = parse_line(json.dumps(line))
    assert got.snippets[0].lines == (2, 5) and got.snippets[1] == Snippet(filepath="/ws/c.ts", content="y")
    for bad in ([5, 2], [1], [-1, 2], ["1", 2], [1.0, 2]):
        line["snippets"][0]["lines"] = bad
        with pytest.raises(BadInputLine, match=r"snippets\[0\]\.lines"):
            parse_line(json.dumps(line))


def test_first_rewrite_ranks_snippets_and_keeps_the_sent_prefix_bare_until_51e1c4216b() -> None:
    """0.9.231: constructPrompt.ts ranks and merges the snippets as before the rewrite; their
    `// Path: <basename>` comments go into the Handlebars prompt only, the FIM prefix stays bare.
    0.9.232 (51e1c4216b): comments + "// <last two path parts>" before the prefix sent too.
    0.9.235 (fec4b21f7b): formatSnippets' header of the newer pipeline."""
    inp = sol(B_SOL, provider="openai")
    old, mid, new = (render(inp, "starcoder2:3b", v) for v in ("0.9.231", "0.9.232", "0.9.235"))
    header = "// Path: B.sol\n// contract B {\n//     function g() public {}\n// }\n//"
    body = "    uint256 public value"
    assert old.text.startswith(f"<fim_prefix>{header}\n\n{body}") and old.prefix_sent.startswith(body)
    assert mid.prefix_sent.startswith(f"{header}\n\n// contracts/A.sol\n\n{body}")
    assert new.prefix_sent.startswith("// Path: contracts/B.sol\n// contract B {")


def test_snippet_share_is_half_the_budget_from_1adbd9a456() -> None:
    """maxSnippetPercentage 0.6 until 0.9.231, 0.5 in 0.9.232..0.9.234 (1adbd9a456): a snippet
    of 560 tokens fits 1024 x 0.6 but not 1024 x 0.5."""
    big = Snippet(filepath="/ws/contracts/C.sol", content="".join(f"uint x{i};\n" for i in range(95)))
    n = ct.count_tokens(big.content, "starcoder2:3b", False)
    assert 512 < n <= 614
    inp = sol(big, provider="openai")
    assert "Path: C.sol" in render(inp, "starcoder2:3b", "0.9.231").text
    assert "Path: C.sol" not in render(inp, "starcoder2:3b", "0.9.232").text


def test_history_names_each_early_rule_with_its_first_release(cli) -> None:
    done = cli("editors", "continue", "--history", "--json")
    assert done.returncode == 0, done.stderr
    rows = {r["commit"]: r for r in json.loads(done.stdout)["history"]}
    expected = {"cf4b557568": ("2024-05-03", "0.9.125-vscode", "0.9.124-vscode"),
                "57ca9f1dd7": ("2024-05-08", "0.8.27-vscode", "0.9.127-vscode"),
                "d5b5e1ac43": ("2024-05-29", "0.8.33-vscode", "0.9.145-vscode"),
                "aa18568c60": ("2024-06-06", "0.8.40-vscode", "0.8.39-vscode"),
                "51e1c4216b": ("2024-11-18", "0.9.232-vscode", "0.9.231-vscode"),
                "1adbd9a456": ("2024-11-19", "0.9.232-vscode", "0.9.231-vscode"),
                "fec4b21f7b": ("2024-11-21", "0.9.235-vscode", "0.8.58-vscode"),
                "398730364f": ("2025-06-09", "1.1.48-vscode", "1.1.47-vscode")}
    for commit, (day, first, last_without) in expected.items():
        assert (rows[commit]["date"], rows[commit]["first_release"], rows[commit]["last_without"]) == (day, first, last_without)


def test_git_diff_before_the_comments_in_0_9_232_to_0_9_234() -> None:
    """formatDiff (1adbd9a456): the diff and a blank line open the prefix while it fits
    maxPromptTokens x 0.5; not in 0.9.231 (no diff yet)."""
    diff = Snippet(filepath="", content="diff --git a/x b/x\n+added", kind="diff")
    inp = sol(diff, provider="openai")
    assert render(inp, "starcoder2:3b", "0.9.232").prefix_sent.startswith("diff --git a/x b/x\n+added\n\n\n\n// contracts/A.sol")
    assert "diff --git" not in render(inp, "starcoder2:3b", "0.9.231").text
    huge = Snippet(filepath="", content="+line\n" * 600, kind="diff")
    assert render(sol(huge, provider="openai"), "starcoder2:3b", "0.9.232").prefix_sent.startswith("\n\n// contracts/A.sol")
