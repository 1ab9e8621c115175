"""Test programs of the languages other than Python this machine runs (JavaScript on node, Java on
a JDK), on the SantaCoder-FIM layout (tests/data/benchmarks/santacoder-fim.jsonl: MultiPL-E's test
programs), each contained as Python is: the canonical middles pass, empty middles fail, a
runaway is timed out, and a Java program's exit, compile error and writes do not pass or leak."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from replay.scoring import execute, sandbox
from replay.scoring.sandbox import Limits
from tests.benchmarks.test_formats import SAMPLES, read

MODES = ["guards"] + (["namespaces"] if sandbox.isolation() == "namespaces" else [])
pytestmark = pytest.mark.skipif(not (shutil.which("node") and shutil.which("java") and shutil.which("javac")),
                                reason="needs node and a JDK")


def _items(tmp_path: Path):
    items, _ = read(SAMPLES["santacoder-fim"], "santacoder-fim", tmp_path)
    return [it for it in items if it.language in ("javascript", "java")]


def _run(items, completion, how: str, seconds: float = 3.0):
    programs = [(it.language, execute.program(it.language, it.prefix, completion(it), it.suffix, it.test, it.entry_point))
                for it in items]
    return sandbox.run_programs(programs, Limits(seconds=seconds), workers=2, how=how)


def test_java_and_javascript_are_runnable_here() -> None:
    assert execute.runnable("java") and execute.runnable("javascript")
    assert not execute.runnable("go")  # no Go toolchain on this machine


def test_java_layout_leaves_the_closing_braces_to_the_test() -> None:
    # prepare_fim_prompt.py ends the FIM program with the method's and the class's braces;
    # MultiPL-E's test opens by closing the method and closes the class itself.
    code = execute.program("java", "class P {\n    static int f() {\n", "        return 1;\n", "    }\n}\n",
                           "    }\n    public static void main(String[] a) {\n    }\n\n}\n", "")
    assert code == ("class P {\n    static int f() {\n        return 1;\n"
                    "    }\n    public static void main(String[] a) {\n    }\n\n}\n")
    # A test that does not close the method itself gets the program as it is.
    assert execute.program("java", "P", "C", "S", "T", "") == "PCS\nT"


@pytest.mark.parametrize("how", MODES)
def test_canonical_middles_pass_and_empty_ones_do_not(tmp_path: Path, how: str) -> None:
    items = _items(tmp_path)
    assert sorted(it.language for it in items) == ["java", "javascript"]
    assert [o.status for o in _run(items, lambda it: it.middle, how)] == ["passed", "passed"]
    empty = _run(items, lambda it: "", how)
    assert [o.status for o in empty] == ["failed", "failed"]
    assert "does not compile" in empty[[it.language for it in items].index("java")].detail


@pytest.mark.parametrize("how", MODES)
def test_a_wrong_line_fails_its_assertions(tmp_path: Path, how: str) -> None:
    items = _items(tmp_path)
    wrong = {"java": "        return 0;\n", "javascript": "  return 0;\n"}
    out = _run(items, lambda it: wrong[it.language], how)
    assert [o.status for o in out] == ["failed", "failed"]
    java = out[[it.language for it in items].index("java")]
    assert "AssertionError" in java.detail  # the asserts ran: -ea is on


@pytest.mark.parametrize("how", MODES)
def test_a_runaway_is_timed_out(tmp_path: Path, how: str) -> None:
    items = _items(tmp_path)
    loop = {"java": "        while (true) {}\n", "javascript": "  while (true) {}\n"}
    assert [o.status for o in _run(items, lambda it: loop[it.language], how, seconds=0.5)] == ["timed out"] * 2


@pytest.mark.parametrize("how", MODES)
def test_a_java_program_that_exits_early_does_not_pass(how: str) -> None:
    exits = "class Problem {\n    public static void main(String[] args) {\n        System.exit(0);\n    }\n}\n"
    assert sandbox.run_programs([("java", exits)], how=how)[0].status == "failed"


def test_a_java_program_cannot_write_outside_or_connect_when_contained(tmp_path: Path) -> None:
    if sandbox.isolation() != "namespaces":
        pytest.skip("only the namespaces contain a Java program's writes and connections")
    target = tmp_path / "escaped.txt"
    writes = ("import java.nio.file.*;\nclass Problem {\n    public static void main(String[] args) throws Exception {\n"
              f"        Files.writeString(Path.of(\"{target}\"), \"x\");\n    }}\n}}\n")
    connects = ("class Problem {\n    public static void main(String[] args) throws Exception {\n"
                "        new java.net.Socket(\"1.1.1.1\", 80).close();\n    }\n}\n")
    out = sandbox.run_programs([("java", writes), ("java", connects)], how="namespaces")
    assert not target.exists()  # the namespace's /tmp is a throwaway tmpfs
    assert out[1].status == "failed"


REAL = "santacoder-fim-qwen-3cf0bba.jsonl"  # real SantaCoder-FIM rows (tests/data/benchmarks/README.md)


def _real(tmp_path: Path):
    from tests.benchmarks.test_formats import DATA

    items, _ = read(DATA / REAL, "santacoder-fim", tmp_path)
    return items


def test_real_rows_run_with_their_lines_joined(tmp_path: Path) -> None:
    # The rows hold lines without the breaks around the middle: the program puts them back.
    items = _real(tmp_path)
    assert {it.language for it in items} == {"python", "javascript", "java"} and len(items) == 9
    assert not any(it.prefix.endswith("\n") or it.middle.endswith("\n") for it in items)
    checks = [execute.item_checks(it, it.middle, "auto") for it in items]
    assert all(len(c) == 1 and it.prefix + "\n" + it.middle + "\n" + it.suffix in c[0][1] or it.language == "java"
               for it, c in zip(items, checks))
    canonical = execute.execute_many([c[0] for c in checks], workers=2, cache=tmp_path / "x.sqlite")
    empty = execute.execute_many([execute.item_checks(it, "", "auto")[0] for it in items], workers=2,
                                 cache=tmp_path / "x.sqlite")
    assert [o.status for o in empty] == ["failed"] * 9
    by_language = {}
    for it, o in zip(items, canonical):
        by_language.setdefault(it.language, []).append(o)
    assert all(o.passed for lang in ("python", "javascript") for o in by_language[lang])
    # Every real Java row imports org.javatuples: with javatuples on the class path they pass,
    # without it they do not compile, and say why.
    if any("--class-path" in part for part in sandbox.interpreter("java")):
        assert all(o.passed for o in by_language["java"]), by_language["java"]
    else:
        assert all("org.javatuples does not exist" in o.detail for o in by_language["java"])


def test_the_java_class_path_is_the_users_else_debians_javatuples(monkeypatch: pytest.MonkeyPatch) -> None:
    from replay.scoring import runners

    monkeypatch.setenv("FIMREPLAY_JAVA_CLASSPATH", "/x/a.jar:/y")
    assert runners.java_class_path() == ["--class-path", "/x/a.jar:/y"]
    monkeypatch.delenv("FIMREPLAY_JAVA_CLASSPATH")
    monkeypatch.setattr(runners, "JAVATUPLES", "/nowhere/javatuples.jar")
    assert runners.java_class_path() == []
