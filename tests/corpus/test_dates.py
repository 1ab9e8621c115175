"""Dated corpora: when a version was published, from every source it has, cross-checked.

Offline: the registry's `time` map is the one `npm view lodash time --json` printed on this
machine's registry mirror (recorded below; it dates 4.17.20 after 4.17.21), tarballs are made
here with tarfile as `npm pack` lays them out, git repositories with the real git."""

from __future__ import annotations

import io
import json
import os
import subprocess
import tarfile
from pathlib import Path

import pytest

from replay.corpus import dates, sources

# `npm view lodash time --json` on this machine (a mirror: its times are when it mirrored).
LODASH_TIMES = {
    "created": "2024-02-23T22:24:08.672000+00:00", "modified": "2026-01-21T19:18:47.812000+00:00",
    "4.17.15": "2024-11-22T23:22:51.926000+00:00", "4.17.19": "2024-11-23T04:03:28.667000+00:00",
    "4.17.20": "2024-11-22T20:25:35.014000+00:00", "4.17.21": "2024-02-23T22:24:08.672000+00:00",
    "4.17.23": "2026-01-21T19:18:47.812000+00:00",
}

CHANGELOG = """# Changelog

## [Unreleased]

## 4.17.21 (2021-02-20)
- security fix

## [4.17.20] - 2020-08-13
- see 4.17.21 (2021-02-20) below

### v4.17.19 — 2020/07/08
"""

CONTRACT = "pragma solidity ^0.8.0;\ncontract A {\n    uint256 x;\n    function f() external { x = 1; }\n}\n"


def test_changelog_headings_give_each_version_its_day() -> None:
    assert dates.changelog_dates(CHANGELOG) == {"4.17.21": "2021-02-20", "4.17.20": "2020-08-13", "4.17.19": "2020-07-08"}
    assert dates.changelog_dates("- 1.0.0 (2020-01-01) in a list, not a heading\n## 2.0.0 (2020-13-45)\n") == {}


def test_the_changelog_wins_over_a_mirrors_registry_time_and_says_so() -> None:
    registry = dates.registry_days(LODASH_TIMES)
    assert "created" not in registry and registry["4.17.20"] == "2024-11-22"
    got = dates.published("4.17.20", changelog=dates.changelog_dates(CHANGELOG), registry=registry)
    assert got["date"] == "2020-08-13" and got["source"] == "changelog"
    assert got["dates"] == {"changelog": "2020-08-13", "registry": "2024-11-22"}
    assert any("registry says 2024-11-22" in n for n in got["notes"])
    assert any("after 4.17.21" in n and "mirror" in n for n in got["notes"])  # out of version order


def test_sources_in_order_of_trust_and_a_day_of_slack() -> None:
    changelog = {"1.0.0": "2024-03-01"}
    registry = {"1.0.0": "2024-03-02"}  # published the next day (UTC): agreement
    got = dates.published("1.0.0", changelog=changelog, registry=registry, git="2024-02-28")
    assert (got["date"], got["source"]) == ("2024-03-01", "changelog")
    assert [n for n in got["notes"] if "registry" in n] == [] and any(n.startswith("git says") for n in got["notes"])
    user = dates.published("1.0.0", user="2024-03-05T10:00:00Z", changelog=changelog)
    assert (user["date"], user["source"]) == ("2024-03-05", "user")
    only = dates.published("1.0.0", registry=registry)
    assert (only["date"], only["source"]) == ("2024-03-02", "registry")
    assert dates.published("9.9.9", registry=registry) == {"date": None, "source": None, "dates": {}, "notes": []}


def test_newest_version_before_a_day_prefers_the_changelog() -> None:
    known = dates.version_dates(dates.changelog_dates(CHANGELOG), dates.registry_days(LODASH_TIMES))
    assert known["4.17.20"] == ("2020-08-13", "changelog") and known["4.17.15"] == ("2024-11-22", "registry")
    assert dates.newest_before(known, "2021-01-01") == "4.17.20"
    assert dates.newest_before(known, "2021-03-01") == "4.17.21"
    assert dates.newest_before(known, "2021-03-01", below="4.17.21") == "4.17.20"
    assert dates.newest_before(known, "2019-01-01") is None
    assert dates.version_key("1.10.0") > dates.version_key("1.9.3") > dates.version_key("1.9.3-rc.1")


def _tarball(path: Path, version: str, changelog: str | None) -> Path:
    """A package tarball laid out as `npm pack` makes it (package/...)."""
    with tarfile.open(path, "w:gz") as tar:
        members = {"package/package.json": json.dumps({"name": "lodash", "version": version}),
                   "package/src/A.sol": CONTRACT}
        if changelog is not None:
            members["package/CHANGELOG.md"] = changelog
        for name, text in members.items():
            data = text.encode()
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return path


def test_a_tarball_corpus_is_dated_from_its_changelog_and_the_registry(tmp_path: Path, home: Path) -> None:
    asked = []

    def registry(name: str) -> dict[str, str]:
        asked.append(name)
        return LODASH_TIMES

    tgz = _tarball(tmp_path / "lodash-4.17.20.tgz", "4.17.20", CHANGELOG)
    corpus = sources.add_corpus(str(tgz), registry=registry)
    assert corpus.name == "lodash-4.17.20" and asked == ["lodash"]
    m = corpus.manifest
    assert (m["package"], m["version"]) == ("lodash", "4.17.20")
    assert m["published"]["date"] == "2020-08-13" and m["published"]["source"] == "changelog"
    assert m["published"]["dates"]["registry"] == "2024-11-22"
    fields, lines = sources.item_fields(corpus)
    assert fields == {"published": "2020-08-13", "published_source": "changelog"} and lines is None
    bare = sources.add_corpus(str(_tarball(tmp_path / "lodash-4.17.23.tgz", "4.17.23", None)), registry=registry)
    assert (bare.manifest["published"]["date"], bare.manifest["published"]["source"]) == ("2026-01-21", "registry")


def _git(folder: Path, *args: str, when: str) -> None:
    env = dict(os.environ, GIT_AUTHOR_DATE=when, GIT_COMMITTER_DATE=when, GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@t",
               GIT_COMMITTER_NAME="t", GIT_COMMITTER_EMAIL="t@t")
    subprocess.run(["git", "-C", str(folder), *args], check=True, capture_output=True, env=env)


def test_a_git_folder_is_dated_by_its_last_commit_and_the_user_date_wins(tmp_path: Path, home: Path, cli) -> None:
    repo = tmp_path / "repo"
    (repo / "src").mkdir(parents=True)
    (repo / "src" / "A.sol").write_text(CONTRACT)
    _git(repo, "init", "-q", when="2025-01-01T00:00:00+00:00")
    _git(repo, "add", ".", when="2025-01-01T00:00:00+00:00")
    _git(repo, "commit", "-qm", "one", when="2025-03-04T23:30:00-05:00")  # 2025-03-05 in UTC
    res = cli("corpus", "add", str(repo / "src"), "--json")
    assert res.returncode == 0, res.stderr
    assert json.loads(res.stdout)["published"]["date"] == "2025-03-05"
    assert json.loads(res.stdout)["published"]["source"] == "git"
    res = cli("corpus", "add", str(repo / "src"), "--date", "2025-02-01")
    assert res.returncode == 0 and "published 2025-02-01 (user)" in res.stdout
    assert "git says 2025-03-05, user says 2025-02-01: user kept" in res.stderr
    listed = cli("corpus", "list")
    assert "src\t" in listed.stdout and "published 2025-02-01 (user)" in listed.stdout
    listed_json = json.loads(cli("corpus", "list", "--json").stdout)["corpora"]
    assert listed_json[0]["published"]["dates"] == {"user": "2025-02-01", "git": "2025-03-05"}


def test_bad_dates_and_sources_are_usage_errors(tmp_path: Path, home: Path, cli) -> None:
    (tmp_path / "c").mkdir()
    (tmp_path / "c" / "A.sol").write_text(CONTRACT)
    res = cli("corpus", "add", str(tmp_path / "c"), "--date", "last tuesday")
    assert res.returncode == 2 and "not a date" in res.stderr
    res = cli("corpus", "add", str(tmp_path / "c"), "--since-date", "2024-01-01")
    assert res.returncode == 2 and "needs an npm package" in res.stderr
    res = cli("corpus", "add", str(tmp_path / "nope.tgz"))
    assert res.returncode == 2 and "no such tarball" in res.stderr
    assert "Traceback" not in res.stderr


@pytest.mark.parametrize("text", ["## 1.0.0", "# Release 1.0.0 on 2024-01-02"])
def test_headings_without_a_date_or_in_prose_form(text: str) -> None:
    expected = {"1.0.0": "2024-01-02"} if "2024" in text else {}
    assert dates.changelog_dates(text) == expected


def test_since_date_picks_the_spec_of_the_newest_version_before_it() -> None:
    manifest = {"package": "lodash", "version": "4.17.21"}
    changelog = dates.changelog_dates(CHANGELOG)
    registry = dates.registry_days(LODASH_TIMES)
    assert sources._since_from_date(manifest, "2021-03-01", changelog, registry) == "npm:lodash@4.17.20"
    with pytest.raises(sources.CorpusError, match="earliest 2020-07-08.*--since npm:NAME@OLD"):
        sources._since_from_date(manifest, "2019-01-01", changelog, registry)


def test_an_older_version_dated_after_the_newer_one_is_noted() -> None:
    manifest = {"published": {"date": "2026-03-29", "source": "registry", "notes": []},
                "new_code": {"since": "npm:solady@0.1.4", "since_date": "2026-04-01", "since_date_source": "registry"}}
    sources._check_order(manifest)
    assert manifest["published"]["notes"] == [
        "npm:solady@0.1.4 is dated 2026-04-01 (registry), after this version: a registry mirror's times? give --date"]


# `npm view @openzeppelin/contracts time --json` on this machine, the versions around 5.x: the
# mirror copied 36 of the package's 83 versions on 2024-12-07; OpenZeppelin's CHANGELOG dates
# 5.0.2 (and its 4.9.6 backport) 2024-02-29 and 5.1.0 2024-10-17.
OZ_TIMES = {
    "created": "2024-12-07T07:50:02.113000+00:00", "modified": "2025-10-02T10:11:12.000000+00:00",
    "4.9.5": "2024-12-07T08:04:01.301000+00:00", "4.9.6": "2024-12-07T08:04:17.003000+00:00",
    "5.0.0": "2024-12-07T08:03:26.922000+00:00", "5.0.1": "2024-12-07T08:02:58.612000+00:00",
    "5.0.2": "2024-12-07T08:02:34.046000+00:00", "5.1.0-rc.0": "2024-12-07T08:18:40.120000+00:00",
    "5.1.0": "2024-12-07T08:19:11.752000+00:00", "5.2.0": "2024-12-13T11:20:31.500000+00:00",
}


def test_a_day_the_mirror_gave_many_versions_dates_none_of_them() -> None:
    registry = dates.registry_days(OZ_TIMES)
    assert dates.same_day(registry, "5.2.0") == []
    assert dates.same_day(registry, "5.0.2") == ["4.9.5", "4.9.6", "5.0.0", "5.0.1", "5.0.2", "5.1.0"]  # not the rc
    got = dates.published("5.0.2", registry=registry)
    assert (got["date"], got["source"]) == (None, None) and got["dates"] == {"registry": "2024-12-07"}
    assert got["notes"] == ["registry dates 6 versions on 2024-12-07 (4.9.5, 4.9.6, 5.0.0, ...): a mirror's copy time,"
                            " not the publication", "5.0.2: no trusted date (the registry's is a mirror's): give --date"]
    user = dates.published("5.0.2", user="2024-02-29", registry=registry)
    assert (user["date"], user["source"]) == ("2024-02-29", "user")
    assert "registry says 2024-12-07, user says 2024-02-29: user kept" in user["notes"]
    assert (dates.published("5.2.0", registry=registry)["date"]) == "2024-12-13"
    # a mirror's bulk day picks no baseline for --since-date; one under the threshold still counts
    known = dates.version_dates({}, registry)
    assert known == {"5.2.0": ("2024-12-13", "registry")}  # the rc copied that day too
    assert dates.newest_before(known, "2024-12-10", below="5.2.0") is None
    two = {"4.9.6": "2024-02-29", "5.0.2": "2024-02-29", "5.1.0": "2024-10-17"}  # a backport on the same day
    assert dates.same_day(two, "5.0.2") == [] and dates.published("5.0.2", registry=two)["date"] == "2024-02-29"


def test_an_out_of_order_registry_date_alone_leaves_the_version_undated() -> None:
    got = dates.published("4.17.20", registry=dates.registry_days(LODASH_TIMES))
    assert got["date"] is None and got["dates"] == {"registry": "2024-11-22"}
    assert got["notes"][-1] == "4.17.20: no trusted date (the registry's is a mirror's): give --date"
