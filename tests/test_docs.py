"""The README is the front door and docs/ holds the rest: the README stays short, its test command
is the one CI runs, and every link between the pages (anchors included) leads somewhere."""

from __future__ import annotations

import re
from pathlib import Path

from tests.conftest import ROOT

README = ROOT / "README.md"
DOCS = ROOT / "docs"
LINK = re.compile(r"\]\(([^)\s]+)\)")


def slug(heading: str) -> str:
    """A heading's anchor as GitHub makes it: lower case, punctuation dropped, spaces to hyphens."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def anchors(page: Path) -> set[str]:
    text = re.sub(r"```.*?```", "", page.read_text(encoding="utf-8"), flags=re.S)
    return {slug(m) for m in re.findall(r"^#+ (.+)$", text, flags=re.M)}


def pages() -> list[Path]:
    return [README, *sorted(DOCS.glob("*.md"))]


def test_the_readme_is_short() -> None:
    assert len(README.read_text(encoding="utf-8").splitlines()) <= 250


def test_the_readme_test_command_is_the_one_ci_runs() -> None:
    readme = README.read_text(encoding="utf-8").split("## The two commands", 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(r"^```\n(.*?)\n```$", readme, flags=re.S | re.M)
    assert len(blocks) == 2, blocks
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    command = ci[ci.index("# README test command:") + 1]
    assert blocks[1] == command == ".venv/bin/python -m pytest -n 2"


def test_the_readme_links_every_docs_page() -> None:
    linked = {target.split("#")[0] for target in LINK.findall(README.read_text(encoding="utf-8"))}
    assert {f"docs/{p.name}" for p in DOCS.glob("*.md")} <= linked


def test_every_link_between_the_pages_leads_somewhere() -> None:
    checked = 0
    for page in pages():
        for target in LINK.findall(page.read_text(encoding="utf-8")):
            if re.match(r"[a-z]+:", target):
                continue
            path, _, anchor = target.partition("#")
            dest = (page.parent / path).resolve() if path else page
            assert dest.exists(), f"{page.name}: {target}"
            if anchor:
                assert anchor in anchors(dest), f"{page.name}: {target}"
            checked += 1
    assert checked > 20


def test_the_readme_figures_are_among_those_of_the_figures_page() -> None:
    """Each headline figure's command is one figures.md gives too, where its date and load are."""
    readme = README.read_text(encoding="utf-8").split("## Five figures", 1)[1].split("\n## ", 1)[0]
    rows = [line for line in readme.splitlines() if line.startswith("| ")][1:]  # the header row first
    assert len(rows) == 5
    figures = (DOCS / "figures.md").read_text(encoding="utf-8")
    for row in rows:
        command = row.strip().strip("|").split("|")[-1].strip()
        assert command in figures, command
