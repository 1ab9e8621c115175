"""The golden data of every editor sits in one layout: tests/data/golden/<editor>/, each folder with
a README.md that says what made its files (the editor's own code, at which commit or package) and
names every file the folder holds, so that no recorded file is left without its recipe."""

from __future__ import annotations

from pathlib import Path

import pytest

GOLDEN = Path(__file__).resolve().parents[1] / "data" / "golden"
FOLDERS = sorted(p for p in GOLDEN.iterdir() if p.is_dir())


def test_golden_data_lives_in_one_folder_per_editor() -> None:
    data = GOLDEN.parent
    assert not [p.name for p in data.iterdir() if p.is_dir() and p.name.endswith("golden") and p != GOLDEN]
    assert {p.name for p in FOLDERS} >= {"tabby", "continue", "copilot", "copilot-ls", "llama.vscode", "llama.vim",
                                         "llama-server"}
    assert not [p.name for p in GOLDEN.iterdir() if p.is_file()]


@pytest.mark.parametrize("folder", FOLDERS, ids=lambda p: p.name)
def test_every_golden_folder_has_a_readme_naming_each_file(folder: Path) -> None:
    readme = folder / "README.md"
    assert readme.is_file(), f"{folder.name} has no README.md saying what made its files"
    text = readme.read_text(encoding="utf-8")
    unnamed = [p.name for p in sorted(folder.rglob("*")) if p.is_file() and p != readme and p.name not in text]
    assert not unnamed, f"{folder.name}/README.md does not name {unnamed}"
