"""`fimreplay postprocess` end to end, as separate processes: render input + `raw` in, what the
editor shows out, in input order, with bad lines named by file:line."""

from __future__ import annotations

import json
from pathlib import Path

from tests.cli.test_render_verify import write_lines

SOL = "contract Token {\n    function transfer(address to, uint256 value) public returns (bool) {\n        "
SOL_AFTER = "\n    }\n}\n"
RAW = "balanceOf[to] += value;\n        emit Transfer(msg.sender, to, value);\n        return true;\n    }\n\n    function x() {}"


def rows_of(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def test_standard_shows_the_text_cut_at_the_stop_words_in_input_order(cli, tmp_path: Path) -> None:
    src = write_lines(tmp_path / "in.jsonl", [
        {"id": "b", "prefix": "x = ", "suffix": "\n", "raw": "1<|fim_pad|>junk"},
        {"id": "a", "prefix": "y = ", "suffix": "\n", "raw": "2"},
    ])
    out = tmp_path / "out.jsonl"
    proc = cli("postprocess", str(src), "--editor", "standard", "--model", "qwen2.5-coder", "-o", str(out), "--json")
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["postprocessed"] == 2
    rows = rows_of(out)
    assert [r["id"] for r in rows] == ["b", "a"]
    assert rows[0] == {"id": "b", "shown_text": "1", "replace_after": 0, "multiline": True,
                       "trace": [{"step": "stopWords", "source": "replay/editors/templates.py (the family's stop words)"}]}
    assert rows[1]["shown_text"] == "2" and rows[1]["trace"] == []


def test_bad_lines_stop_with_file_and_line_or_are_kept(cli, tmp_path: Path) -> None:
    src = write_lines(tmp_path / "in.jsonl", [
        {"id": 1, "prefix": "x = ", "suffix": "", "raw": "1"},
        {"id": 2, "prefix": "x = ", "suffix": ""},
        "{not json",
        {"id": 4, "prefix": "x = ", "suffix": "", "raw": 7},
        {"id": 5, "prefix": "x = ", "suffix": "", "raw": "1", "timing": [[1, "soon"]]},
    ])
    stop = cli("postprocess", str(src), "--editor", "standard", "--model", "qwen2.5-coder")
    assert stop.returncode == 2 and stop.stderr.strip() == f"fimreplay: {src}:2: missing 'raw' (the model's text, a string)"
    out = tmp_path / "out.jsonl"
    kept = cli("postprocess", str(src), "--editor", "standard", "--model", "qwen2.5-coder", "-o", str(out), "--keep-going", "--json")
    assert kept.returncode == 0, kept.stderr
    summary = json.loads(kept.stdout)
    assert summary["postprocessed"] == 1 and summary["rejected"] == 4
    rejects = rows_of(Path(summary["rejects_file"]))
    assert [r["where"] for r in rejects] == [f"{src}:{n}" for n in (2, 3, 4, 5)]
    assert "'raw' must be a string" in rejects[2]["reason"] and "timing" in rejects[3]["reason"]
    assert "Traceback" not in kept.stderr + stop.stderr


def test_a_bom_and_crlf_file_is_read_like_any_other(cli, tmp_path: Path) -> None:
    src = tmp_path / "in.jsonl"
    src.write_bytes(b"\xef\xbb\xbf" + json.dumps({"id": "x", "prefix": "a = ", "suffix": "", "raw": "1"}).encode() + b"\r\n")
    proc = cli("postprocess", str(src), "--editor", "standard", "--model", "qwen2.5-coder")
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["shown_text"] == "1"


def test_unknown_editor_is_a_usage_error(cli, tmp_path: Path) -> None:
    src = write_lines(tmp_path / "in.jsonl", [{"prefix": "a", "suffix": "", "raw": "b"}])
    proc = cli("postprocess", str(src), "--editor", "vim", "--model", "qwen2.5-coder")
    assert proc.returncode == 2 and "vim" in proc.stderr


def test_tabby_shows_the_block_up_to_its_scope_and_one_line_mid_line(cli, tmp_path: Path) -> None:
    """The accepted line of a Tabby capture came with more lines of model output: the server stops
    at the blank line ("\n\n"), the agent drops the block's closing line that the document
    already has; mid-line, 1.5.0 keeps one line without what the line already has after the cursor."""
    body = "contract Token {\n    mapping(address => uint256) public balanceOf;\n" \
           "    function transfer(address to, uint256 value) public returns (bool) {\n        balanceOf[msg.sender] -= value;\n        "
    document = body + "\n    }\n}\n"
    mid = body + "balanceOf[to] ;\n    }\n}\n"
    src = write_lines(tmp_path / "in.jsonl", [
        {"id": "block", "document": document, "cursor": len(body), "language": "solidity",
         "raw": "balanceOf[to] += value;\n        emit Transfer(msg.sender, to, value);\n        return true;\n    }\n\n    function x() {}"},
        {"id": "line", "document": mid, "cursor": len(body) + len("balanceOf[to] "), "language": "solidity",
         "raw": "+= value;\n        emit X();"},
    ])
    proc = cli("postprocess", str(src), "--editor", "tabby", "--model", "TabbyML/Qwen2.5-Coder-1.5B")
    assert proc.returncode == 0, proc.stderr
    block, line = [json.loads(x) for x in proc.stdout.splitlines()]
    assert block["shown_text"] == "balanceOf[to] += value;\n        emit Transfer(msg.sender, to, value);\n        return true;"
    assert block["multiline"] is True
    src_dir = "TabbyML/tabby clients/tabby-agent/src/codeCompletion/postprocess/"  # the newest agent's
    assert [s["step"] for s in block["trace"]] == ["stopWords", "removeDuplicatedBlockClosingLine"]
    assert block["trace"][0]["source"] == "TabbyML/tabby crates/tabby-inference/src/decoding.rs"
    assert block["trace"][1]["source"] == src_dir + "removeDuplicatedBlockClosingLine.ts"
    # the newest agent counts a rest of line without word characters (";") as a line end: the
    # item covers it (contexts.ts); 1.5.0 kept one line without what the line already had
    assert (line["shown_text"], line["replace_after"], line["multiline"]) == ("+= value;", 1, True)
    proc = cli("postprocess", str(src), "--editor", "tabby", "--editor-version", "1.5.0", "--model", "TabbyML/Qwen2.5-Coder-1.5B")
    assert proc.returncode == 0, proc.stderr
    old_line = json.loads(proc.stdout.splitlines()[1])
    assert old_line["shown_text"] == "+= value" and old_line["multiline"] is False
    assert [s["step"] for s in old_line["trace"]] == ["trimMultiLineInSingleLineMode"]


def test_received_runs_the_client_stage_alone(cli, tmp_path: Path) -> None:
    """With --received the text is what the client got from its server: the server's stop words
    are not applied again (a "\\n\\n" inside it stays), and Tabby needs no model."""
    raw = "balanceOf[to] += value;\n\n        return true;"
    src = write_lines(tmp_path / "in.jsonl", [{"id": "r", "prefix": SOL, "suffix": SOL_AFTER, "language": "solidity", "raw": raw}])
    out = tmp_path / "out.jsonl"
    proc = cli("postprocess", str(src), "--editor", "tabby", "--editor-version", "1.8.0", "--received", "-o", str(out))
    assert proc.returncode == 0, proc.stderr
    assert rows_of(out)[0]["shown_text"] == raw and rows_of(out)[0]["trace"] == []
    engine = tmp_path / "engine.jsonl"
    proc = cli("postprocess", str(src), "--editor", "tabby", "--editor-version", "1.8.0", "--model", "qwen2.5-coder", "-o", str(engine))
    assert proc.returncode == 0, proc.stderr
    assert rows_of(engine)[0]["shown_text"] == "balanceOf[to] += value;"  # the engine's text stops at "\n\n"
    assert rows_of(engine)[0]["trace"][0]["step"] == "stopWords"


def test_received_for_continue_keeps_its_client_side_stops(cli, tmp_path: Path) -> None:
    """Continue cuts its stream at its stop tokens on the client too (charStream.ts
    stopAtStopTokens): with --received that step, not the LLM call's stop, cuts the fence."""
    src = write_lines(tmp_path / "in.jsonl", [{"id": "c", "prefix": "function f() {\n  const x = [\n    1,\n",
                                               "suffix": "\n  ];\n}\n", "language": "typescript", "filepath": "/w/a.ts",
                                               "raw": "    2,\n    3,\n```\nmore"}])
    out = tmp_path / "out.jsonl"
    proc = cli("postprocess", str(src), "--editor", "continue", "--model", "qwen2.5-coder:1.5b", "--received", "-o", str(out))
    assert proc.returncode == 0, proc.stderr
    shown = rows_of(out)[0]
    assert shown["shown_text"] == "    2,\n    3,"
    assert [s["step"] for s in shown["trace"]] == ["stopAtStopTokens", "noDoubleNewLine"]
    nomodel = cli("postprocess", str(src), "--editor", "continue", "--received", "-o", str(out))
    assert nomodel.returncode == 2 and "--model is needed" in nomodel.stderr


def test_tabby_names_the_config_keys_its_release_leaves_unread(cli, tmp_path: Path) -> None:
    """A config.toml kept from an older agent: 1.8.0 reads neither switch (edb23ff99 removed them)
    and runs as without them; both commands name the keys in `ignored_options`. A typo is refused."""
    old = {"completion.prompt.experimentalStripAutoClosingCharacters": True,
           "postprocess.limitScope.indentation.experimentalKeepBlockScopeWhenCompletingLine": True}
    lines = [{"id": "old", "prefix": SOL, "suffix": SOL_AFTER, "language": "solidity", "raw": RAW, "options": old},
             {"id": "plain", "prefix": SOL, "suffix": SOL_AFTER, "language": "solidity", "raw": RAW}]
    src = write_lines(tmp_path / "in.jsonl", lines)
    shown, rendered = tmp_path / "shown.jsonl", tmp_path / "rendered.jsonl"
    proc = cli("postprocess", str(src), "--editor", "tabby", "--editor-version", "1.8.0", "--received", "-o", str(shown))
    assert proc.returncode == 0, proc.stderr
    inputs = write_lines(tmp_path / "render.jsonl", [{k: v for k, v in line.items() if k != "raw"} for line in lines])
    proc = cli("render", str(inputs), "--editor", "tabby", "--editor-version", "1.8.0", "--model", "qwen2.5-coder", "-o", str(rendered))
    assert proc.returncode == 0, proc.stderr
    for path in (shown, rendered):
        with_old, plain = rows_of(path)
        assert with_old.pop("ignored_options") == sorted(old) and "ignored_options" not in plain
        assert {k: v for k, v in with_old.items() if k not in ("id", "line")} == \
            {k: v for k, v in plain.items() if k not in ("id", "line")}
    typo = write_lines(tmp_path / "typo.jsonl", [{**lines[1], "options": {"postprocess.limitScope.indentaton": True}}])
    proc = cli("postprocess", str(typo), "--editor", "tabby", "--editor-version", "1.8.0", "--received")
    assert proc.returncode != 0 and "typo.jsonl:1" in proc.stderr and "unknown Tabby option" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_tabby_config_credentials_reach_no_output_reject_or_store(cli, home: Path, tmp_path: Path) -> None:
    """A real config.toml holds the server token, an Authorization header and a proxy password;
    the agent reads them (no effect on the body or the item) and so does the replay, but none
    of them may be written: not in an output line, a trace, a rejects file (which keeps the
    input line, here one with a mistyped `server.tokn`), stderr, nor the store of a run."""
    token, header, proxy = "auth_4f0c2b7e9d1a46c38e5b0a7f21d9c6e3", "hdr-8b1d6f0e2c4a", "pw-4567-secret"
    config = {"server": {"endpoint": "http://tabby.internal:8080", "token": token,
                         "requestHeaders": {"Authorization": f"Bearer {header}", "X-Team": "infra"}},
              "proxy.url": "http://proxy:3128", "proxy.authorization": f"alice:{proxy}", "logs.level": "debug",
              "anonymousUsageTracking": {"disable": True}, "completion.debounce.mode": "adaptive"}
    base = {"prefix": SOL, "suffix": SOL_AFTER, "language": "solidity"}
    render_lines = [{"id": "real", **base, "options": config},
                    {"id": "typo", **base, "options": {"server.tokn": token, "completion.prompt.maxPrefixLines": 5}}]
    src = write_lines(tmp_path / "in.jsonl", render_lines)
    raw_src = write_lines(tmp_path / "raw.jsonl", [{**line, "raw": RAW} for line in render_lines])
    outs = [tmp_path / "rendered.jsonl", tmp_path / "shown.jsonl"]
    procs = [cli("render", str(src), "--editor", "tabby", "--editor-version", "1.8.0", "--model", "qwen2.5-coder",
                 "-o", str(outs[0])),
             cli("postprocess", str(raw_src), "--editor", "tabby", "--editor-version", "1.8.0", "--received",
                 "--keep-going", "-o", str(outs[1])),
             cli("run", str(src), "--editor", "tabby@1.8.0", "--model", "default", "--max-new-tokens", "4",
                 "--run-id", "secret-config", "--threads", "1", "--json")]
    assert [p.returncode for p in procs[1:]] == [0, 0], [p.stderr for p in procs]
    for path in outs:
        rows = rows_of(path)
        assert [row["id"] for row in rows] == ["real"] and "ignored_options" not in rows[0]
    written = [p.stdout + p.stderr for p in procs] + [f.read_bytes().decode("utf-8", "replace")
                                                     for f in [*tmp_path.rglob("*"), *home.rglob("*")] if f.is_file()
                                                     and f not in (src, raw_src)]
    assert any("server.tokn" in text for text in written)  # the typo line was kept, named
    assert not [text[:80] for text in written if token in text or header in text or proxy in text]


def test_a_line_is_decoded_once_into_its_cursor_raw_and_timing() -> None:
    """render and postprocess read a line through one decoding: the cursor, `raw` and `timing`
    checked there (a bad one names what it should be), nothing read twice."""
    import pytest

    from replay.editors.inputs import BadInputLine
    from replay.usecases.render_file import RENDER_KEYS, FileLine, decode_line

    own = frozenset({"raw", "timing"})
    got = decode_line(json.dumps({"prefix": "a", "suffix": "b", "raw": "x", "timing": [[1, 0.5], [3, 1]]}), own, "the model's text")
    assert isinstance(got, FileLine) and (got.input.prefix, got.raw, got.timing) == ("a", "x", [(1, 0.5), (3, 1.0)])
    assert decode_line(json.dumps({"prefix": "a", "suffix": ""}), RENDER_KEYS, "the text the client received").raw is None
    with pytest.raises(BadInputLine, match=r"'raw' must be a string \(the text the client received\)"):
        decode_line(json.dumps({"prefix": "a", "suffix": "", "raw": 3}), RENDER_KEYS, "the text the client received")
    with pytest.raises(BadInputLine, match="'timing' must be a list"):
        decode_line(json.dumps({"prefix": "a", "suffix": "", "raw": "x", "timing": [[1, True]]}), own, "the model's text")
    with pytest.raises(BadInputLine, match="timing"):  # not a key render reads
        decode_line(json.dumps({"prefix": "a", "suffix": "", "timing": []}), RENDER_KEYS, "the text the client received")


def test_a_line_not_utf8_or_with_a_lone_surrogate_costs_that_line_alone(cli, tmp_path: Path) -> None:
    """Decoded line by line: a byte that is not UTF-8 or a lone surrogate escape is its line's
    reject (file:line, what is wrong, no exception's name), the lines after it still processed."""
    good = json.dumps({"id": "a", "prefix": "x = ", "suffix": "", "raw": "1"}).encode()
    src = tmp_path / "in.jsonl"
    src.write_bytes(b"\n".join([good, good.replace(b'"1"', b'"\xff1"'), good.replace(b'"1"', b'"\\ud83d"'), good]) + b"\n")
    stop = cli("postprocess", str(src), "--editor", "standard", "--model", "qwen2.5-coder")
    assert stop.returncode == 2 and stop.stderr.strip() == f"fimreplay: {src}:2: not JSON: invalid UTF-8: byte 0xff at column 53"
    out = tmp_path / "out.jsonl"
    kept = cli("postprocess", str(src), "--editor", "standard", "--model", "qwen2.5-coder", "-o", str(out), "--keep-going", "--json")
    assert kept.returncode == 0 and "Error" not in kept.stderr, kept.stderr
    summary = json.loads(kept.stdout)
    assert summary["postprocessed"] == 2 and summary["rejected"] == 2
    rejects = rows_of(Path(summary["rejects_file"]))
    assert [r["where"] for r in rejects] == [f"{src}:2", f"{src}:3"]
    assert "lone UTF-16 surrogate" in rejects[1]["reason"] and "\\xff1" in rejects[0]["raw"]
