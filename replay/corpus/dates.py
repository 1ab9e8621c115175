"""When a version of a corpus was published, from every source it has, cross-checked.

Sources, in the order they are trusted:
- `user`: `corpus add --date D`, what the user says;
- `changelog`: the package's own CHANGELOG (CHANGES, HISTORY) release headings, written by its
  authors: "## 4.17.21 (2021-02-20)", "## [1.2.0] - 2024-01-15", "# v5.0.0 — 2023/10/05";
- `git`: the date of the last commit of a folder corpus that is a git work tree;
- `registry`: the npm registry's `time` field for the version (`npm view NAME time --json`).
A registry mirror can report when it mirrored a version rather than when it was published (here
lodash 4.17.20 is dated after 4.17.21), so the registry comes last: where it disagrees with the
changelog by more than a day, the changelog's date stands and the disagreement is recorded, and
a registry date later than the date of a higher version is flagged as a mirror's time, and so is
a day the registry gives to many versions at once (this machine's mirror dates 36 of the 83
versions of @openzeppelin/contracts, 2.x to 5.1, on 2024-12-07: the day it copied them). A
flagged registry date is kept among the dates seen but not used: with no other source the
version is undated (`--date` dates it), since a copy time would make old code look newer than a
model's training cutoff.

Dates are calendar days (YYYY-MM-DD, UTC): what a changelog gives, and fine enough to compare
with a model's training cutoff.
"""

from __future__ import annotations

import datetime as dt
import json
import re
import subprocess
from collections import Counter
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from replay.errors import UsageError

SOURCES = ("user", "changelog", "git", "registry")  # most trusted first
CHANGELOG_NAMES = re.compile(r"^(changelog|changes|history|releases)(\.(md|markdown|txt|rst))?$", re.I)
_SLACK_DAYS = 1  # a release tagged late in the evening is published the next day (UTC)
# Releases on one day: a major line and its backports (OpenZeppelin released 4.9.6 and 5.0.2 on
# 2024-02-29) stay well under this; a mirror's bulk copy is far over it.
MIRROR_BULK = 6

_VERSION = r"v?(?P<version>\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?)"
_DATE = r"(?P<y>\d{4})[-/.](?P<m>\d{1,2})[-/.](?P<d>\d{1,2})"
_HEADING = re.compile(rf"^\s*#{{1,6}}\s+.*?\[?{_VERSION}\]?\b.*?{_DATE}")


def parse_day(text: str) -> str:
    """A user's date (YYYY-MM-DD, or a full ISO time) as a calendar day; UsageError otherwise."""
    try:
        return dt.date.fromisoformat(text[:10]).isoformat()
    except ValueError:
        raise UsageError(f"{text!r}: not a date (YYYY-MM-DD)") from None


def version_key(version: str) -> tuple[tuple[int, ...], int]:
    """Order of versions: the numbers, then a prerelease before its release."""
    main, _, pre = version.lstrip("v").partition("-")
    nums = tuple(int(p) if p.isdigit() else 0 for p in main.split("+")[0].split("."))
    return nums, 0 if pre else 1


def changelog_dates(text: str) -> dict[str, str]:
    """version -> day from the release headings of a Markdown changelog (the first heading of a
    version wins: later ones are usually quotes of it)."""
    found: dict[str, str] = {}
    for line in text.splitlines():
        m = _HEADING.match(line)
        if not m:
            continue
        try:
            day = dt.date(int(m["y"]), int(m["m"]), int(m["d"])).isoformat()
        except ValueError:
            continue
        found.setdefault(m["version"], day)
    return found


def find_changelog(folder: Path) -> Path | None:
    """The package's changelog at the top of an unpacked package or a folder."""
    if not folder.is_dir():
        return None
    hits = sorted(p for p in folder.iterdir() if p.is_file() and CHANGELOG_NAMES.match(p.name))
    return hits[0] if hits else None


def registry_times(name: str, npm: str = "npm") -> dict[str, str]:
    """The registry's `time` map of a package (version -> ISO time, plus created/modified), with
    npm's own client; {} when it cannot be had (offline: the other sources still count)."""
    try:
        out = subprocess.run([npm, "view", name, "time", "--json"], capture_output=True, text=True, timeout=120)
        data = json.loads(out.stdout) if out.returncode == 0 else {}
    except (OSError, subprocess.TimeoutExpired, ValueError):
        return {}
    return {str(k): str(v) for k, v in data.items()} if isinstance(data, dict) else {}


def git_day(folder: Path) -> str | None:
    """The day of the last commit touching `folder`, when it is inside a git work tree."""
    try:
        out = subprocess.run(["git", "-C", str(folder), "log", "-1", "--format=%cI", "--", "."],
                             capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return None
    stamp = out.stdout.strip()
    return _utc_day(stamp) if out.returncode == 0 and stamp else None


def _utc_day(stamp: str) -> str:
    when = dt.datetime.fromisoformat(stamp.replace("Z", "+00:00"))
    return (when.astimezone(dt.timezone.utc) if when.tzinfo else when).date().isoformat()


def registry_days(times: Mapping[str, str]) -> dict[str, str]:
    """version -> UTC day of the registry's `time` map (created/modified left out)."""
    out = {}
    for version, stamp in times.items():
        if version in ("created", "modified"):
            continue
        try:
            out[version] = _utc_day(stamp)
        except ValueError:
            continue
    return out


def out_of_order(days: Mapping[str, str], version: str) -> list[str]:
    """Higher versions (no prereleases) dated before `version`: a sign its date is a mirror's."""
    mine = days.get(version)
    if mine is None:
        return []
    return sorted((v for v, d in days.items() if "-" not in v and version_key(v) > version_key(version) and d < mine),
                  key=version_key)


def bulk_days(days: Mapping[str, str]) -> set[str]:
    """The days the registry gives to MIRROR_BULK or more released versions: a mirror's bulk
    copy, not publications."""
    released = Counter(d for v, d in days.items() if "-" not in v)
    return {d for d, n in released.items() if n >= MIRROR_BULK}


def same_day(days: Mapping[str, str], version: str) -> list[str]:
    """The released versions the registry dates on `version`'s day, when that day is a bulk
    copy (bulk_days); [] otherwise."""
    mine = days.get(version)
    if mine is None or mine not in bulk_days(days):
        return []
    return sorted((v for v, d in days.items() if d == mine and "-" not in v), key=version_key)


def mirror_notes(registry: Mapping[str, str], version: str) -> list[str]:
    """Why the registry's date of `version` is a mirror's time rather than the publication."""
    notes = []
    later = out_of_order(registry, version)
    if later:
        notes.append(f"registry dates {version} after {', '.join(later[:3])}: a mirror's time, not the publication")
    bulk = same_day(registry, version)
    if bulk:
        notes.append(f"registry dates {len(bulk)} versions on {registry[version]} ({', '.join(bulk[:3])}, ...):"
                     " a mirror's copy time, not the publication")
    return notes


def _apart(a: str, b: str) -> int:
    return abs((dt.date.fromisoformat(a) - dt.date.fromisoformat(b)).days)


def published(version: str | None, *, user: str | None = None, changelog: Mapping[str, str] | None = None,
              git: str | None = None, registry: Mapping[str, str] | None = None) -> dict[str, Any]:
    """The day `version` was published and where that came from, with every source's day and
    the disagreements found. `changelog` and `registry` are version -> day maps."""
    days: dict[str, str] = {}
    if user:
        days["user"] = parse_day(user)
    if version and changelog and version in changelog:
        days["changelog"] = changelog[version]
    if git:
        days["git"] = git
    if version and registry and version in registry:
        days["registry"] = registry[version]
    notes = mirror_notes(registry, version) if version and registry else []
    trusted = [s for s in SOURCES if s in days and not (s == "registry" and notes)]
    if not trusted:
        if days:
            notes.append(f"{version}: no trusted date (the registry's is a mirror's): give --date")
        return {"date": None, "source": None, "dates": days, "notes": notes}
    source = trusted[0]
    chosen = days[source]
    for other, day in days.items():
        if other != source and _apart(day, chosen) > _SLACK_DAYS:
            notes.append(f"{other} says {day}, {source} says {chosen}: {source} kept")
    return {"date": chosen, "source": source, "dates": days, "notes": notes}


def version_dates(changelog: Mapping[str, str], registry: Mapping[str, str]) -> dict[str, tuple[str, str]]:
    """version -> (day, source) for every version either source knows, the changelog preferred;
    registry days shared by a mirror's bulk copy are left out (they date nothing)."""
    bulk = bulk_days(registry)
    out = {v: (d, "registry") for v, d in registry.items() if d not in bulk}
    out.update({v: (d, "changelog") for v, d in changelog.items()})
    return out


def newest_before(dates: Mapping[str, tuple[str, str]], day: str, below: str | None = None) -> str | None:
    """The highest released version (no prerelease) published before `day`, below `below` if
    given. (The highest, not the last published: a backport released later on an old branch is
    a worse baseline than the newest line that existed at that day.)"""
    cands = [v for v, (d, _) in dates.items() if d < day and "-" not in v
             and (below is None or version_key(v) < version_key(below))]
    return max(cands, key=version_key) if cands else None
