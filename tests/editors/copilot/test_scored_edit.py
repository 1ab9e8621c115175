"""What a replayed Copilot item is scored on: the edit it makes, as the document holds it after
accepting (Completion.scored_pair), from the rule to `fimreplay run` + `score` end to end."""

from __future__ import annotations

import json
from pathlib import Path

import msgspec

from replay.editors.copilot.completion import complete
from replay.editors.inputs import parse_object
from replay.reading import RunConfig
from replay.records import Completion, CompletionTexts, FimItem
from replay.scoring import run_scores
from replay.store import Store


def _shown(text: str | None, replaced: str, **kw: object) -> Completion:
    return Completion(item_id="i", text="x", raw_text="x", backend="b", model="m", stage="copilot@0.66.0",
                      shown_text=text, replace_before=len(replaced) if text is not None else 0,
                      replaced=replaced if text is not None else "", **kw)  # type: ignore[arg-type]


def test_the_line_before_the_cursor_is_not_scored_as_inserted() -> None:
    comp = _shown("    return math.pi * r * r", "    return math.")
    assert comp.scored_pair("pi * r ** 2", "shown") == ("pi * r ** 2", "pi * r * r")
    assert comp.scored_text("shown") == "pi * r * r"


def test_a_rewritten_indentation_is_compared_from_the_line_start() -> None:
    """Copilot re-indents a blank line (the model answered at column 0): the line loses the
    blanks the reference keeps, so the line is compared from its start and is no exact match."""
    comp = _shown("return a + b", "    ")
    assert comp.scored_pair("return a + b", "shown") == ("    return a + b", "return a + b")


def test_raw_nothing_shown_and_other_editors_are_unchanged() -> None:
    comp = _shown("    return x", "    return ")
    assert comp.scored_pair("x", "raw") == ("x", "x")  # the received text, inserted at the cursor
    assert _shown(None, "    ").scored_pair("x", "shown") == ("x", "")
    other = Completion(item_id="i", text="ab", raw_text="ab", backend="b", model="m", stage="tabby@0.25", shown_text="a")
    assert other.scored_pair("a", "shown") == ("a", "a")
    failed = msgspec.structs.replace(comp, error="boom")
    assert failed.scored_pair("x", "shown") == ("x", "")


def test_what_scoring_reads_scores_the_same() -> None:
    """The store's scoring view (CompletionTexts) keeps the fields the rule reads; a record
    written before them reads as replacing nothing."""
    for comp in (_shown("    return x", "    return "), _shown("x", "  ")):
        texts = msgspec.json.decode(msgspec.json.encode(comp), type=CompletionTexts)
        assert texts.scored_pair("x", "shown") == comp.scored_pair("x", "shown")
    old = msgspec.json.decode(b'{"item_id":"i","text":"a","raw_text":"a","backend":"b","model":"m","stage":"s",'
                              b'"shown_text":"a"}', type=CompletionTexts)
    assert old.scored_pair("a", "shown") == ("a", "a")


def test_the_stage_and_the_rule_agree_on_the_document() -> None:
    """Copilot's shown edit applied to the document gives prefix + scored text + suffix."""
    inp = parse_object({"prefix": "def area(r):\n    return math.", "suffix": "\n", "filepath": "a.py", "language": "python"})
    seen = complete(inp, "pi * r * r")
    comp = _shown(seen.text, inp.prefix[len(inp.prefix) - seen.replace_before:])
    after = inp.prefix[: len(inp.prefix) - seen.replace_before] + (seen.text or "") + inp.suffix[seen.replace_after:]
    assert after == inp.prefix + comp.scored_text("shown") + inp.suffix[seen.replace_after:]


ITEMS = [
    {"id": "midline", "file": "src/calc.py", "language": "python", "mode": "random",
     "prefix": "import math\n\n\ndef area(r):\n    return math.", "middle": "pi * r * r", "suffix": "\n"},
    {"id": "assign", "file": "src/calc.py", "language": "python", "mode": "random",
     "prefix": "def add(a, b):\n    total = ", "middle": "a + b", "suffix": "\n    return total\n"},
    {"id": "blank", "file": "src/calc.py", "language": "python", "mode": "line",
     "prefix": "def add(a, b):\n    ", "middle": "return a + b", "suffix": "\n\n\nprint(add(1, 2))\n"},
]


def test_run_and_score_copilot_items(cli, tmp_path: Path) -> None:
    """`fimreplay run --editor copilot` on the demo model in process, then `score`: each item's
    scored text is what its shown edit inserts at the cursor (the line before it left out)."""
    items = tmp_path / "items.jsonl"
    items.write_text("".join(json.dumps(item) + "\n" for item in ITEMS), encoding="utf-8")
    db = str(tmp_path / "s.db")
    with Store(db) as store:
        store.add_items([FimItem(**item) for item in ITEMS])  # as evalgen does: the middles are the references
    done = cli("run", str(items), "--editor", "copilot", "--model", "default", "--max-new-tokens", "12",
               "--run-id", "cp", "--threads", "1", "--db", db, "--json")
    assert done.returncode == 0, done.stderr
    scored = cli("score", "cp", "--db", db, "--json")
    assert scored.returncode == 0, scored.stderr
    assert json.loads(scored.stdout)["n_scored"] == len(ITEMS)
    with Store(db) as store:
        comps = {c.item_id: c for c in store.completions("cp")}
        rows = {row.item_id: row for row in run_scores(store, "cp").rows}
    by_id = {item["id"]: item for item in ITEMS}
    replaced = 0
    for item_id, comp in comps.items():
        item, row = by_id[item_id], rows[item_id]
        assert comp.stage.startswith("copilot") and comp.error is None
        if comp.shown_text is None:
            assert row.completion == "" and comp.replace_before == 0
            continue
        prefix = item["prefix"]
        assert comp.replace_before == len(prefix.split("\n")[-1]) and prefix.endswith(comp.replaced)
        kept = prefix[: len(prefix) - comp.replace_before]
        if comp.shown_text.startswith(comp.replaced):
            assert kept + comp.shown_text == prefix + row.completion and row.reference == item["middle"]
        else:
            assert row.completion == comp.shown_text and row.reference == comp.replaced + item["middle"]
        replaced += comp.replace_before > 0
    assert replaced >= 2  # the two mid-line items are shown over their line's start


def test_a_stored_re_indented_item_scores_its_line(tmp_path: Path) -> None:
    """In the store: the kept line's start is left out, a re-indented line is compared whole."""
    kept = msgspec.structs.replace(_shown("    return a + b", "    "), item_id="midline")
    moved = msgspec.structs.replace(_shown("return a + b", "    "), item_id="blank")
    with Store(tmp_path / "s.db") as store:
        store.add_items([FimItem(**item) for item in ITEMS])
        store.create_run("r", RunConfig(backend="b", model="m", editor="copilot"))
        store.add_completion("r", kept)
        store.add_completion("r", moved)
        rows = {row.item_id: row for row in run_scores(store, "r").rows}
    assert (rows["midline"].reference, rows["midline"].completion) == ("pi * r * r", "return a + b")
    assert (rows["blank"].reference, rows["blank"].completion) == ("    return a + b", "return a + b")
    assert rows["blank"].values["exact"] == 0.0 and rows["blank"].middle_len == len("return a + b")
