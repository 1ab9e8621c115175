"""`fimreplay tui` as a command: help, bad store, and the library staying free of textual."""

from __future__ import annotations


def test_tui_help_lists_its_options(cli) -> None:
    out = cli("tui", "--help")
    assert out.returncode == 0
    for option in ("--db", "--watch", "--proxy", "--proxy-listen", "--tokenizer", "--compare-tokenizer"):
        assert option in out.stdout


def test_tui_refuses_a_store_that_is_not_one(cli, tmp_path) -> None:
    bad = tmp_path / "not.db"
    bad.write_bytes(b"this is not sqlite" * 100)
    out = cli("tui", "--db", str(bad))
    assert out.returncode == 2
    assert out.stderr.startswith("fimreplay: ") and str(bad) in out.stderr and len(out.stderr.splitlines()) == 1


def test_tui_proxy_needs_an_http_upstream(cli) -> None:
    out = cli("tui", "--proxy", "ftp://model")
    assert out.returncode == 2 and "not an http(s) URL" in out.stderr


def test_tui_watch_needs_an_existing_folder(cli, tmp_path) -> None:
    out = cli("tui", "--watch", str(tmp_path / "missing"))
    assert out.returncode == 2 and "missing" in out.stderr
