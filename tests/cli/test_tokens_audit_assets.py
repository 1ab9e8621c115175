"""End-to-end: `fimreplay tokens`, `fimreplay audit`, `fimreplay assets` as a user runs them."""

from __future__ import annotations

import json
from pathlib import Path

from replay.records import CaptureRecord, RenderedPrompt, Segments, Source, to_json
from replay.store import Store

FIM = "<|fim_prefix|>def f(x):\n    return x<|fim_suffix|>\n<|fim_middle|>"


def test_tokens_json_pieces_and_ids(cli) -> None:
    out = cli("tokens", FIM, "--tokenizer", "qwen2.5-coder", "--json")
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert data["ids"][0] == 151659 and data["ids"][-1] == 151660
    assert len(data["ids"]) == len(data["pieces"]) == data["count"]
    assert "".join(data["pieces"]) == FIM


def test_tokens_from_file_with_engine_and_visible_whitespace(cli, tmp_path: Path) -> None:
    p = tmp_path / "prompt.txt"
    p.write_bytes("<｜fim▁begin｜>x = 1\r\n<｜fim▁hole｜>\t<｜fim▁end｜>".encode())
    out = cli("tokens", f"@{p}", "--tokenizer", "deepseek-coder", "--engine", "llama.cpp")
    assert out.returncode == 0, out.stderr
    assert "BOS added" in out.stdout and "32013" in out.stdout.splitlines()[1]
    assert "␍↵" in out.stdout or "␍" in out.stdout
    js = json.loads(cli("tokens", f"@{p}", "--tokenizer", "deepseek-coder", "--engine", "llama.cpp", "--json").stdout)
    assert js["bos_added"] and js["ids"][:2] == [32013, 32016]


def test_tokens_diff_between_tokenizers(cli) -> None:
    out = cli("tokens", "x = 12345", "--tokenizer", "starcoder2", "--diff", "gpt-2", "--json")
    d = json.loads(out.stdout)["diff"]
    assert not d["identical"] and d["a_label"] == "starcoder2" and d["b_label"] == "gpt-2"
    text = cli("tokens", "x = 12345", "--tokenizer", "starcoder2", "--diff", "gpt-2").stdout
    assert "diff starcoder2" in text and "replace" in text


def test_tokens_bad_usage_exits_2(cli) -> None:
    out = cli("tokens", "x", "--tokenizer", "no-such")
    assert out.returncode == 2 and "unknown tokenizer" in out.stderr and len(out.stderr.strip().splitlines()) == 1
    out = cli("tokens", "x", "--tokenizer", "gpt-2", "--engine", "nope")
    assert out.returncode == 2 and "unknown engine" in out.stderr
    out = cli("tokens", "@/no/such/file", "--tokenizer", "gpt-2")
    assert out.returncode == 2 and "/no/such/file" in out.stderr


def test_audit_rendered_jsonl_with_a_bad_line(cli, tmp_path: Path, home: Path) -> None:
    good = RenderedPrompt(profile="tabby@test", family="qwen2.5-coder", text=FIM, prefix_sent="def f(x):\n    return x", suffix_sent="\n")
    clipped = RenderedPrompt(profile="tabby@test", family="qwen2.5-coder", text="return x<|fim_suffix|>\n<|fim_middle|>",
                             prefix_sent="return x", suffix_sent="\n")
    path = tmp_path / "rendered.jsonl"
    path.write_bytes(to_json(good) + b"\n" + b"{not json\n" + to_json(clipped) + b"\n")
    rejects = tmp_path / "rejects.jsonl"
    out = cli("audit", str(path), "--tokenizer", "qwen2.5-coder", "--json", "--rejects", str(rejects))
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    s = data["summary"]
    assert s["subjects"] == 2 and s["rejects"] == 1 and s["by_kind"]["clipped-sentinel"] == 1
    assert f"{path}:2" in out.stderr
    assert json.loads(rejects.read_text())["line"] == 2
    f = next(x for x in data["findings"] if x["kind"] == "clipped-sentinel")
    assert f["where"] == f"{path}:3" and f["severity"] == "error" and {"char", "token", "message"} <= set(f)


def test_audit_prompt_file_and_store_captures(cli, tmp_path: Path, home: Path) -> None:
    db = tmp_path / "s.db"
    with Store(db) as store:
        store.add_captures([
            CaptureRecord(source=Source("events/2025-01-01.json", 1), editor="tabby", format="tabby-events",
                          logged_prompt="<fim_prefix>a\nb<fim_suffix>\n<fim_middle>",
                          segments=Segments(prefix="a\r\nb", suffix="\n"), raw="{}"),
            CaptureRecord(source=Source("events/2025-01-01.json", 2), editor="tabby", format="tabby-events", raw="{}"),
        ])
    out = cli("audit", "--captures", "--db", str(db), "--tokenizer", "starcoder2", "--json")
    assert out.returncode == 0, out.stderr
    s = json.loads(out.stdout)["summary"]
    assert s["subjects"] == 1 and s["rejects"] == 1 and s["by_kind"]["crlf-mismatch"] == 1
    assert Path(s["rejects_file"]).is_file()
    p = tmp_path / "p.txt"
    p.write_text("<fim_prefix>x<fim_suffix>", encoding="utf-8")
    text = cli("audit", f"@{p}", "--tokenizer", "qwen2.5-coder")
    assert text.returncode == 0 and "sentinel-not-special" in text.stdout and "1 prompts" in text.stdout
    assert cli("audit", "--tokenizer", "gpt-2").returncode == 2


def test_assets_list_and_install_present(cli) -> None:
    out = cli("assets", "list", "--json")
    assert out.returncode == 0
    names = {a["name"]: a for a in json.loads(out.stdout)["assets"]}
    assert names["vocab-starcoder"]["installed"] and "qwen2.5-coder-0.5b-instruct-q4_k_m" in names
    inst = cli("assets", "install", "vocab-starcoder", "--json", "--no-index")
    assert inst.returncode == 0, inst.stderr
    assert json.loads(inst.stdout)["assets"][0]["action"] == "present"
    assert cli("assets", "install", "no-such-asset").returncode == 2
