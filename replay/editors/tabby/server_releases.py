"""Every Tabby release tag (final releases and their release candidates) with its commit and day.

Read from TabbyML/tabby's tags (`git log -1 --format='%h %ad' --date=short <tag>^{commit}`): the
day is the tagged commit's date (UTC). Tags that name CTranslate2 commits (v0.5.1, v0.7.1..v0.7.4,
v0.10.1, v0.10.2, v0.15.1, v0.16.2..v0.16.4 point into that submodule's history, not Tabby's)
and the `-dev` version markers are left out. Tabby logs no version, so a capture's day picks the
newest tag out by then (`newest_on`); a release candidate stands for the release it precedes.
"""

from __future__ import annotations

import re
from functools import cache

from replay.editors.rulebook import Release, releases_of
from replay.editors.versions import Release as SemVer

_TAGS = """
0.0.1-rc0 0eb489b9c 2023-08-30    0.0.1-rc.1 0eb489b9c 2023-08-30    0.0.1-rc.2 e3d33141e 2023-08-31
0.0.1-rc.3 c44a9c719 2023-08-31    0.0.1-rc.4 cfa0e66c4 2023-08-31    0.0.1-rc.5 fe3e73c51 2023-08-31
0.0.1-rc.6 b3fe375af 2023-08-31    0.0.1 c76edeaa8 2023-08-31    0.1.0-rc.0 3af32c8c7 2023-09-12
0.1.0-rc.1 30afa19bc 2023-09-12    0.1.0 30afa19bc 2023-09-12    0.1.1 c107c991f 2023-09-17
0.1.2 61ade2654 2023-09-19    0.2.0-rc.0 692c2fe0f 2023-10-02    0.2.0-rc.1 e045e1572 2023-10-03
0.2.0 c04eae5e8 2023-10-03    0.2.1 2d5b3e4ff 2023-10-03    0.2.2-rc.0 90e85c79c 2023-10-09
0.2.2-rc.1 c8d9b4d9c 2023-10-09    0.2.2-rc.2 26a1a1e16 2023-10-09    0.2.2-rc.3 e466c1d6c 2023-10-09
0.2.2-rc.4 47c27ef9a 2023-10-09    0.2.2 3580d6f55 2023-10-09    0.3.0-rc.0 182aceed4 2023-10-13
0.3.0-rc.1 eb463ba49 2023-10-13    0.3.0 00c918548 2023-10-14    0.3.1-rc.0 0f63d239a 2023-10-19
0.3.1 d5fdcf3a2 2023-10-21    0.4.0-rc.0 7494f1f6e 2023-10-24    0.4.0 b6b313fde 2023-10-24
0.5.0-rc.0 61605ca55 2023-11-03    0.5.0-rc.1 f97cdf2ad 2023-11-03    0.5.0-rc.2 a5bb20bec 2023-11-03
0.5.0-rc.3 03fe1e9f6 2023-11-03    0.5.0-rc.4 281d18984 2023-11-03    0.5.0 536c7e86a 2023-11-03
0.5.1-rc.0 94913001b 2023-11-05    0.5.1-rc.1 345e304be 2023-11-05    0.5.1-rc.2 4a44f4452 2023-11-05
0.5.1-rc.3 54ed00375 2023-11-05    0.5.1-rc.4 8d0a7c3db 2023-11-05    0.5.1-rc.5 e088bc09a 2023-11-05
0.5.1-rc.6 e98acc002 2023-11-05    0.5.2-rc.0 551d1dc0b 2023-11-06    0.5.2 0226a379d 2023-11-07
0.5.3 8046a482e 2023-11-07    0.5.4 732f02270 2023-11-07    0.5.5 507a9d937 2023-11-09
0.6.0-rc.0 820465d59 2023-11-23    0.6.0-rc.1 d7340c96e 2023-11-25    0.6.0-rc.2 de3b22366 2023-11-26
0.6.0 1f1e95751 2023-11-27    0.7.0-rc.0 81b8450c5 2023-12-11    0.7.0-rc.1 a90db708d 2023-12-11
0.7.0-rc.2 fe789dbbe 2023-12-14    0.7.0-rc.3 fa8bd67d4 2023-12-14    0.7.0-rc.4 b268ffddc 2023-12-15
0.7.0 c3db6d829 2023-12-15    0.8.0-rc.0 94486af9e 2024-01-26    0.8.0-rc.1 c16b704b3 2024-01-31
0.8.0 d4f36a565 2024-02-02    0.8.1 087963a34 2024-02-06    0.8.2 72c38f7c5 2024-02-06
0.8.3 9b8c0865d 2024-02-06    0.9.0-rc.0 752d2ed8d 2024-02-23    0.9.0-rc.1 d2787baab 2024-02-27
0.9.0-rc.2 61cf99f8c 2024-02-29    0.9.0-rc.3 a31bbeb01 2024-03-02    0.9.0-rc.4 cc7803d6b 2024-03-05
0.9.0-rc.5 79ac74aef 2024-03-05    0.9.0-rc.6 4d91e233b 2024-03-06    0.9.0 58ec4c69b 2024-03-06
0.9.1 1d450458a 2024-03-20    0.10.0-rc.0 7f8634500 2024-04-08    0.10.0-rc.1 a8a1d9f1b 2024-04-10
0.10.0-rc.2 8a95f7859 2024-04-10    0.10.0-rc.3 75d0eb01f 2024-04-12    0.10.0-rc.4 e4a36812c 2024-04-16
0.10.0-rc.5 3604898cc 2024-04-18    0.10.0-rc.6 199e27312 2024-04-22    0.10.0 0b5504ecc 2024-04-22
0.11.0-rc.0 d6cdee288 2024-04-28    0.11.0-rc.1 47db7539d 2024-04-30    0.11.0-rc.2 d4f47c1ce 2024-05-02
0.11.0-rc.3 efa7bbb24 2024-05-02    0.11.0-rc.4 994bd6ccb 2024-05-03    0.11.0-rc.5 2efddaf03 2024-05-03
0.11.0-rc.6 b7b528793 2024-05-04    0.11.0-rc.7 9a321c640 2024-05-06    0.11.0-rc.8 914b19433 2024-05-08
0.11.0 41e66964e 2024-05-10    0.11.1 c3eb1c131 2024-05-14    0.12.0-rc.0 abd0341ea 2024-05-27
0.12.0-rc.1 90446a6d8 2024-05-29    0.12.0-rc.2 c06c6cab7 2024-05-29    0.12.0-rc.3 a1bf2594a 2024-05-30
0.12.0-rc.4 9b962a6cc 2024-06-03    0.12.0-rc.5 61f5b9795 2024-06-05    0.12.0 8ab927614 2024-06-06
0.12.1-rc.0 c934b5574 2024-06-11    0.13.0-rc.0 5e2891e4a 2024-06-20    0.13.0-rc.1 55aea915e 2024-06-21
0.13.0-rc.2 34187ca5d 2024-06-24    0.13.0-rc.3 8dab45919 2024-06-26    0.13.0-rc.4 088ff4682 2024-06-27
0.13.0 3b3f1f0e4 2024-06-28    0.13.1-rc.0 df431e2cd 2024-07-01    0.13.1-rc.1 ec020313a 2024-07-03
0.13.1-rc.2 98f1b169d 2024-07-03    0.13.1-rc.3 f4d15fbbb 2024-07-04    0.13.1-rc.4 1be173a8b 2024-07-04
0.13.1-rc.5 8f364e804 2024-07-04    0.13.1-rc.6 7f535ebbb 2024-07-05    0.13.1-rc.7 272ec80d3 2024-07-08
0.13.1-rc.8 835d71e61 2024-07-08    0.13.1-rc.9 022efbfa9 2024-07-09    0.13.1 55d0b696e 2024-07-10
0.14.0-rc.0 5fb1ffa23 2024-07-15    0.14.0-rc.1 b1089662b 2024-07-17    0.14.0 f99ac5571 2024-07-22
0.15.0-rc.0 c7a2eeb4f 2024-07-31    0.15.0-rc.1 45ba6ab8a 2024-08-02    0.15.0-rc.2 ad76682e4 2024-08-06
0.15.0-rc.3 09b15bf25 2024-08-08    0.15.0 0564a6756 2024-08-08    0.16.0-rc.0 d677c55f8 2024-08-19
0.16.0-rc.1 153d6143a 2024-08-21    0.16.0-rc.2 7de3db1f3 2024-08-22    0.16.0-rc.3 f1b98e0b5 2024-08-22
0.16.0-rc.4 2153aef98 2024-08-23    0.16.0 9ce83b101 2024-08-26    0.16.1-rc.0 b161ef9bb 2024-08-26
0.16.1 c1f67eebd 2024-08-27    0.17.0-rc.0 965f094d9 2024-09-04    0.17.0-rc.1 2a58c789b 2024-09-05
0.17.0-rc.2 d229ee56c 2024-09-05    0.17.0-rc.3 f561c5c3f 2024-09-06    0.17.0-rc.4 1ad74b4a8 2024-09-09
0.17.0-rc.5 0f15e9995 2024-09-09    0.17.0-rc.6 7e7b412d0 2024-09-10    0.17.0 cde04d7d7 2024-09-10
0.18.0-rc.0 60a8a313b 2024-09-19    0.18.0-rc.1 275debdce 2024-09-20    0.18.0-rc.2 ed6d867fc 2024-09-23
0.18.0-rc.3 ef67dbea3 2024-09-25    0.18.0-rc.4 2d7e1adf3 2024-09-27    0.18.0-rc.5 fb6c754d2 2024-09-29
0.18.0-rc.6 d2beef2a3 2024-09-30    0.18.0 004346815 2024-10-02    0.19.0-rc.0 f6d13bb24 2024-10-21
0.19.0-rc.1 3dffb22cf 2024-10-23    0.19.0-rc.2 a7dd2e171 2024-10-27    0.19.0-rc.3 ea6cb2a65 2024-10-28
0.19.0-rc.4 c96b7828d 2024-10-30    0.19.0 a2c62d2b6 2024-10-31    0.20.0-rc.0 244f7a30f 2024-11-01
0.20.0-rc.1 d7fe74ae5 2024-11-05    0.20.0-rc.2 75dc302bb 2024-11-06    0.20.0-rc.3 7ce5fb237 2024-11-08
0.20.0 a89cb2960 2024-11-09    0.21.0-rc.0 382d1faac 2024-11-19    0.21.0-rc.1 b0ef2be3b 2024-11-21
0.21.0-rc.2 f4ee2374c 2024-11-26    0.21.0-rc.3 7ee0092ec 2024-11-27    0.21.0-rc.4 c11ccf043 2024-11-28
0.21.0-rc.5 89fd5e39a 2024-11-29    0.21.0-rc.6 b9efa89b9 2024-11-30    0.21.0-rc.7 14d025b5a 2024-12-01
0.21.0-rc.8 9a9b6270d 2024-12-03    0.21.0-rc.9 cae975b0f 2024-12-03    0.21.0 e8ce9199d 2024-12-03
0.21.1-rc.0 60c108c72 2024-12-06    0.21.1 72d876bc4 2024-12-06    0.21.2-rc.0 aed12e5a7 2024-12-09
0.21.2-rc.1 a81e3bf9f 2024-12-09    0.21.2-rc.2 975265635 2024-12-09    0.21.2-rc.3 81d331e8c 2024-12-13
0.21.2-rc.4 291be2fe5 2024-12-13    0.21.2-rc.5 3029dbecc 2024-12-16    0.22.0-rc.0 e3fc47000 2024-12-16
0.22.0-rc.1 33fc81c9b 2024-12-16    0.21.2 15098b42d 2024-12-18    0.22.0-rc.2 a5cbe055a 2024-12-19
0.22.0-rc.3 9fba21547 2024-12-20    0.22.0-rc.4 5b5a612b1 2024-12-23    0.22.0 90161ff48 2024-12-24
0.23.0-rc0 4ebb39feb 2024-12-31    0.23.0-rc.1 29fd99afd 2025-01-03    0.23.0-rc.2 d283de34c 2025-01-05
0.23.0-rc.3 341e10b81 2025-01-06    0.23.0 3bd55a297 2025-01-09    0.24.0-rc.0 929cb1280 2025-01-17
0.24.0-rc.1 f6f8ac778 2025-01-21    0.24.0-rc.2 23faaf918 2025-01-23    0.24.0-rc.3 e04a06d2a 2025-01-26
0.24.0-rc.4 848ac7046 2025-01-27    0.23.1-rc.0 8b4c81ef0 2025-01-31    0.23.1-rc.1 dbf679610 2025-01-31
0.23.1 0370b6397 2025-01-31    0.24.0-rc.5 d327d3ba9 2025-02-04    0.24.0-rc.6 2e5de21ef 2025-02-04
0.24.0 566a5ee1f 2025-02-05    0.25.0-rc.0 430e82a33 2025-02-11    0.25.0-rc.1 21e048e48 2025-02-11
0.25.0-rc.2 38a8e48db 2025-02-13    0.25.0-rc.3 55b13c84f 2025-02-15    0.25.0-rc.4 5f2de0be7 2025-02-17
0.25.0-rc.5 06b3dbabc 2025-02-20    0.25.0 95f03528d 2025-02-20    0.25.1-rc.0 c4778f30a 2025-02-24
0.25.1 b98aa5794 2025-02-25    0.25.2-rc.0 cb7abd13b 2025-02-27    0.25.2 2074cad31 2025-02-28
0.26.0-rc.0 d261b7c38 2025-03-06    0.26.0-rc.1 3ed026732 2025-03-10    0.26.0-rc.2 3b6047350 2025-03-12
0.26.0-rc.3 5ba398c4f 2025-03-14    0.26.0-rc.4 de202eafa 2025-03-15    0.26.0 46e9b0e32 2025-03-16
0.27.0-rc.0 dfa783481 2025-03-21    0.27.0-rc.1 cc3c14578 2025-03-24    0.27.0-rc.2 fa14b2190 2025-03-24
0.27.0-rc.3 647cfcb2e 2025-03-29    0.27.0 296267a0e 2025-03-31    0.27.1-rc.0 1ddfcf7e1 2025-04-07
0.27.1-rc.1 361c17521 2025-04-08    0.27.1-rc.2 9cb505cab 2025-04-08    0.27.1-rc.3 0c8eade83 2025-04-09
0.27.1-rc.4 9f7ed4ca5 2025-04-10    0.27.1 838ee25a5 2025-04-11    0.28.0-rc.0 91e432ab9 2025-04-15
0.28.0-rc.1 716543e77 2025-04-17    0.28.0-rc.2 c91fd1b3f 2025-04-18    0.28.0-rc.3 bb3c5a5a4 2025-04-21
0.28.0-rc.4 cbea9a0f5 2025-04-27    0.28.0-rc.5 ff5c227d1 2025-04-27    0.28.0 7ae22eac9 2025-04-28
0.29.0-rc.0 80af4371a 2025-05-08    0.29.0-rc.1 f34106fab 2025-05-10    0.29.0-rc.2 2e86b3594 2025-05-15
0.29.0-rc.3 f5f045b42 2025-05-17    0.29.0-rc.4 0e14bef40 2025-05-19    0.29.0 bb777cd49 2025-05-19
0.30.0-rc.0 e0ee635ff 2025-06-11    0.30.0-rc.1 874030f08 2025-07-02    0.30.0-rc.2 4a724df60 2025-07-02
0.30.0 8bfa1a02b 2025-07-02    0.30.1-rc.0 6eb637b18 2025-07-11    0.30.1-rc.1 d3493ebab 2025-07-12
0.30.1 78af294a1 2025-07-13    0.30.2-rc.0 6bbcaf717 2025-07-31    0.30.2-rc.1 101a9b2e2 2025-08-01
0.30.2-rc.2 93736ff1c 2025-08-01    0.30.2 e89fd5ada 2025-08-07    0.31.0-rc.0 7863d721e 2025-08-08
0.31.0-rc.1 afc44944b 2025-08-18    0.31.0-rc.2 5366e6378 2025-08-19    0.31.0 0331fa471 2025-08-20
0.31.1-rc.0 c99155e81 2025-08-27    0.31.1 49ae1e4e4 2025-08-27    0.31.2-rc.0 9f06ee9a4 2025-09-25
0.31.2 b109535f7 2025-09-25    0.32.0-rc.0 2ddfd2340 2026-01-12    0.32.0-rc.1 1f2c9d2e0 2026-01-22
0.32.0 d4c033a13 2026-01-26
"""

_TAG = re.compile(r"(\d+)\.(\d+)\.(\d+)(?:-rc\.?(\d+))?")


def semver(tag: Release) -> SemVer:
    """The release `tag` is or precedes (a candidate of 0.10.0 stands for 0.10.0)."""
    match = _TAG.fullmatch(tag.tag)
    assert match is not None
    return SemVer(int(match[1]), int(match[2]), int(match[3]))


def is_final(tag: Release) -> bool:
    return "-" not in tag.tag


def order(tag: Release) -> tuple[SemVer, int, int]:
    """Release number first, then a candidate before its release, candidates by number."""
    match = _TAG.fullmatch(tag.tag)
    assert match is not None
    return (semver(tag), 1 if match[4] is None else 0, int(match[4] or 0))


@cache
def tags() -> tuple[Release, ...]:
    """Every tag (without the leading "v": "0.10.0", "0.10.0-rc.3", "0.23.0-rc0"), in the
    table's order, with its commit and day."""
    fields = _TAGS.split()
    return releases_of(tuple(fields[i:i + 3]) for i in range(0, len(fields), 3))


@cache
def finals() -> tuple[Release, ...]:
    """The final releases in release order (their place in it is their index): the releases
    the server's rule book counts its rules by."""
    out = sorted((t for t in tags() if is_final(t)), key=semver)
    return tuple(Release(t.tag, t.commit, t.day, n) for n, t in enumerate(out))


def find(tag: str) -> Release | None:
    label = tag.strip().removeprefix("tabby@").removeprefix("v")
    return next((t for t in tags() if t.tag == label), None)


def newest_on(day: str) -> Release | None:
    """The highest-numbered tag out on `day` (ISO, UTC), release candidates included: a server
    started that day from a published image ran it at the newest. None before the first tag."""
    out = [t for t in tags() if t.day <= day[:10]]
    return max(out, key=order) if out else None
