"""Byte-level damage to JSON lines, the seed lines it is done to, and what a reader must make
of the result: shared by the fuzz suite (tests/faults/test_fuzz_lines.py, Hypothesis) and the
long bench (bench/faults/fuzz_lines.py).

The seeds are real: every line of the Tabby event logs and Continue dev data in captures/,
and the line commands' inputs made from the Tabby captures' segments (render: prefix+suffix;
postprocess --received: the text the client received; score: reference and completion). Each
seed line is made unique (its ids, or a counter in its text), so that a file of many is many
records.

A mutation names what real files carry: a file cut mid-character by a crash, a byte that is not
UTF-8, a lone UTF-16 surrogate (escaped as JavaScript writes it, or raw as a WTF-8 writer
would), a BOM, CRLF line ends, NUL bytes, a cut line, a line written twice, a huge line. What
a reader must make of the mutated line (`expected_valid`) is decided here from JSON and UTF-8
alone, not by the code under test: a line is valid when it is strict UTF-8 holding one JSON
value whose strings have no lone surrogate (JSON written by JavaScript keeps one: the caller
says whether the format allows it), with a BOM only at the start of the file.
"""

from __future__ import annotations

import gzip
import json
import random
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any, NamedTuple

ROOT = Path(__file__).resolve().parent.parent.parent
CAPTURES = ROOT / "captures"

# Credentials planted into lines: the shapes replay.secrets knows (an OpenAI-like key under a
# credential key, a bearer token in a header line) and must keep off every file written.
SECRET_KEY = "sk-fuzzplanted0123456789abcdefXYZ"
SECRET_BEARER = "fuzzbearer0123456789abcdefghij"
SECRETS = (SECRET_KEY, SECRET_BEARER)

# An exception class's name as Python prints it ("ValueError", "UnicodeDecodeError", ...).
EXCEPTION_NAME = re.compile(r"\b[A-Z][A-Za-z]*(?:Error|Exception)\b")


class Seed(NamedTuple):
    """A seed line and the format or command it is an input of."""

    kind: str
    line: bytes


def _json_line(obj: Any) -> bytes:
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


def _lines(path: Path) -> list[bytes]:
    data = gzip.decompress(path.read_bytes()) if path.name.endswith(".gz") else path.read_bytes()
    return [ln.rstrip(b"\r") for ln in data.split(b"\n") if ln.strip()]


def tabby_seeds() -> list[bytes]:
    """Every line of the Tabby event logs in captures/ (every schema era)."""
    return [ln for p in sorted((CAPTURES / "tabby" / "events").iterdir()) for ln in _lines(p)]


def devdata_seeds() -> list[bytes]:
    """Every line of the Continue dev data in captures/ (the 0.8 layout and schema 0.2.0)."""
    return [ln for p in sorted((CAPTURES / "continue" / "dev_data").rglob("*.jsonl")) for ln in _lines(p)]


def _tabby_completions() -> list[dict[str, Any]]:
    out = []
    for ln in tabby_seeds():
        c = json.loads(ln)["event"].get("completion")
        if c and c.get("segments"):
            out.append(c)
    return out


def render_seeds(received: bool = False) -> list[bytes]:
    """`render` inputs: the cursors of the Tabby captures (prefix, suffix, filepath, language);
    with `received`, `postprocess --received` inputs: the same with the text the client
    received as `raw`."""
    rows = []
    for c in _tabby_completions():
        s = c["segments"]
        row = {"prefix": s["prefix"], "suffix": s.get("suffix") or "", "language": c["language"]}
        if s.get("filepath"):
            row["filepath"] = s["filepath"]
        if received:
            row["raw"] = c["choices"][0]["text"] if c["choices"] else ""
        rows.append(_json_line(row))
    return rows


def score_seeds() -> list[bytes]:
    """`score FILE` lines: the Tabby captures' received text as both reference and completion."""
    return [_json_line({"file": c["segments"].get("filepath") or "a.py", "reference": c["choices"][0]["text"],
                        "completion": c["choices"][0]["text"][::-1]})
            for c in _tabby_completions() if c["choices"]]


SEEDS: dict[str, Callable[[], list[bytes]]] = {
    "tabby": tabby_seeds, "continue-devdata": devdata_seeds, "render": render_seeds,
    "postprocess": lambda: render_seeds(received=True), "score": score_seeds,
}
# Formats whose writer is JavaScript: a lone surrogate escape is what the editor held (kept).
JS_WRITTEN = frozenset({"continue-devdata"})


def unique(kind: str, line: bytes, n: int) -> bytes:
    """`line` made the n-th distinct record of its kind (ids and texts given a counter)."""
    obj = json.loads(line)
    tag = f"-u{n}"
    if kind == "tabby":
        ev = obj["event"]
        for body in ev.values():
            if isinstance(body, dict) and isinstance(body.get("completion_id"), str):
                body["completion_id"] += tag
        obj["ts"] = obj["ts"] + n
    elif kind == "continue-devdata":
        for key in ("completionId", "completion", "prompt"):
            if isinstance(obj.get(key), str):
                obj[key] += tag
        if isinstance(obj.get("generatedTokens"), int):
            obj["generatedTokens"] += n
    elif kind in ("render", "postprocess"):
        obj["id"] = f"line{tag}"
    elif kind == "score":
        obj["id"] = f"pair{tag}"
    return _json_line(obj)


def plant_secret(line: bytes) -> bytes:
    """The line with a credential under a credential key and a bearer token in a header line
    inside its first string (both shapes replay.secrets scrubs)."""
    head = b'{"api_key":"' + SECRET_KEY.encode() + b'",'
    at = line.find(b'":"')
    if at < 0:
        return head + line[1:]
    header = f"Authorization: Bearer {SECRET_BEARER}\\n".encode()
    return head + line[1:at + 3] + header + line[at + 3:]


# -- mutations: (line, rng) -> the line's new bytes ---------------------------------------------
# The free-text fields of every seed kind (a prompt, a code segment, a completion's text): text
# put in one leaves the record as valid as it was, where an id, date or kind would not be.
_TEXT_FIELD = re.compile(rb'"(?:prompt|text|prefix|suffix|completion|raw|reference)":"')


def _string_spots(line: bytes) -> list[int]:
    """Offsets just after the opening quote of a free-text string value (where text can go in
    and keep the record valid)."""
    return [m.end() for m in _TEXT_FIELD.finditer(line)]


def cut_mid_character(line: bytes, rng: random.Random) -> bytes:
    starts = [i for i, b in enumerate(line) if b >= 0xC0]
    if not starts:  # an ASCII line: give it a character to cut
        spots = _string_spots(line) or [1]
        at = rng.choice(spots)
        line = line[:at] + "é€😀".encode() + line[at:]
        starts = [at, at + 2, at + 5]
    at = rng.choice(starts)
    return line[:at + 1]


def invalid_utf8(line: bytes, rng: random.Random) -> bytes:
    bad = rng.choice([b"\xc3\x28", b"\xff", b"\xfe\xfe", b"\x80", b"\xe2\x82", b"\xf0\x9f\x98", b"\xc0\xaf"])
    at = rng.randint(1, len(line) - 1)
    return line[:at] + bad + line[at:]


def lone_surrogate_escaped(line: bytes, rng: random.Random) -> bytes:
    spots = _string_spots(line)
    if not spots:
        return invalid_utf8(line, rng)
    at = rng.choice(spots)
    half = rng.choice([b"\\ud83d", b"\\uDE00", b"\\ud800x", b"\\udfff"])
    return line[:at] + half + line[at:]


def lone_surrogate_raw(line: bytes, rng: random.Random) -> bytes:
    spots = _string_spots(line) or [1]
    at = rng.choice(spots)
    return line[:at] + b"\xed\xa0\xbd" + line[at:]


def bom(line: bytes, rng: random.Random) -> bytes:
    return b"\xef\xbb\xbf" + line


def crlf(line: bytes, rng: random.Random) -> bytes:
    return line + b"\r"


def nul(line: bytes, rng: random.Random) -> bytes:
    at = rng.randint(1, len(line) - 1)
    return line[:at] + b"\x00" * rng.randint(1, 3) + line[at:]


def truncate(line: bytes, rng: random.Random) -> bytes:
    return line[:rng.randint(1, len(line) - 1)]


# How much text a huge line gets (the long bench sets larger sizes).
HUGE_BYTES = (16 * 1024, 64 * 1024)


def huge(line: bytes, rng: random.Random) -> bytes:
    spots = _string_spots(line) or [1]
    at = rng.choice(spots)
    return line[:at] + b"x" * rng.choice(HUGE_BYTES) + line[at:]


MUTATIONS: dict[str, Callable[[bytes, random.Random], bytes]] = {
    "cut_mid_character": cut_mid_character, "invalid_utf8": invalid_utf8, "lone_surrogate_escaped": lone_surrogate_escaped,
    "lone_surrogate_raw": lone_surrogate_raw, "bom": bom, "crlf": crlf, "nul": nul, "truncate": truncate, "huge": huge,
    "duplicate": lambda line, rng: line,  # written twice: see build_file
}


def _has_lone_surrogate(obj: Any) -> bool:
    stack = [obj]
    while stack:
        v = stack.pop()
        if isinstance(v, str):
            if re.search("[\ud800-\udfff]", v):
                return True
        elif isinstance(v, dict):
            stack.extend(v.keys())
            stack.extend(v.values())
        elif isinstance(v, list):
            stack.extend(v)
    return False


def expected_valid(line: bytes, first: bool, lone_ok: bool) -> bool:
    """Whether a reader must take the line (see the module docstring); `first`: the file's first line."""
    if line.endswith(b"\r"):
        line = line[:-1]
    if first and line.startswith(b"\xef\xbb\xbf"):
        line = line[3:]
    try:
        text = line.decode("utf-8")
        obj = json.loads(text)
    except ValueError:
        return False
    return lone_ok or not _has_lone_surrogate(obj)


class Built(NamedTuple):
    """A file of seed lines, some mutated: its bytes, and per line number (1-based) whether the
    line must be taken and by which mutation it was made ("" for none)."""

    data: bytes
    valid: dict[int, bool]
    mutation: dict[int, str]
    planted: set[int]


def build_file(kind: str, picks: list[tuple[int, str]], rng: random.Random, start: int = 0,
               plant: Callable[[int, str], bool] = lambda n, m: False) -> Built:
    """A file of the seeds of `kind` picked by index, each made unique, mutated as named ("" for
    none; "duplicate" writes the line twice). `plant(n, mutation)` says whether line n gets a
    planted credential before it is mutated."""
    seeds = SEEDS[kind]()
    out: list[bytes] = []
    valid: dict[int, bool] = {}
    mutation: dict[int, str] = {}
    planted: set[int] = set()
    lone_ok = kind in JS_WRITTEN
    for i, (pick, name) in enumerate(picks):
        line = unique(kind, seeds[pick % len(seeds)], start + i)
        copies = 2 if name == "duplicate" else 1
        if name and name != "duplicate":
            mutate = MUTATIONS[name]
            # A credential goes only into a line a reader must reject: a line it takes is kept
            # as the editor logged it (its code may hold what looks like a key).
            damaged = mutate(plant_secret(line), rng) if plant(len(out) + 1, name) else None
            if damaged is not None and not expected_valid(damaged, not out, lone_ok):
                line = damaged
                planted.add(len(out) + 1)
            else:
                line = mutate(line, rng)
        for _ in range(copies):
            out.append(line)
            n = len(out)
            mutation[n] = name
            valid[n] = expected_valid(line, n == 1, lone_ok)
    return Built(b"".join(ln + b"\n" for ln in out), valid, mutation, planted)
