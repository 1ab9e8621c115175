"""A small git repository with backdated commits, built with the real git (offline).

2023-03-01: `src/Old.sol` and `src/Vault.sol` added. 2024-06-01: three lines of Vault.sol's
`deposit` rewritten, `src/New.sol` added. 2025-02-01: Old.sol reindented (4 spaces to 2) and its
`owner` function moved below `total`: whitespace and a move only, so git blame -w -M -C still
dates every line of Old.sol 2023. Tagged `v1` at the 2024 commit."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

OLD = """pragma solidity ^0.8.20;

contract Old {
    address internal admin;
    uint256 internal counter;

    function owner() external view returns (address currentOwner) {
        currentOwner = admin;
        return currentOwner;
    }

    function total() external view returns (uint256 currentTotal) {
        currentTotal = counter * 2;
        return currentTotal;
    }
}
"""

# Reindented to two spaces, `owner` moved below `total`.
OLD_2025 = """pragma solidity ^0.8.20;

contract Old {
  address internal admin;
  uint256 internal counter;

  function total() external view returns (uint256 currentTotal) {
    currentTotal = counter * 2;
    return currentTotal;
  }

  function owner() external view returns (address currentOwner) {
    currentOwner = admin;
    return currentOwner;
  }
}
"""

VAULT = """pragma solidity ^0.8.20;

contract Vault {
    mapping(address => uint256) internal balances;

    function deposit() external payable {
        balances[msg.sender] += msg.value;
    }

    function balanceOf(address who) external view returns (uint256) {
        return balances[who];
    }
}
"""

REWRITTEN = (  # the lines of deposit() written in 2024
    "        require(msg.value > 0, \"nothing sent\");\n",
    "        uint256 before = balances[msg.sender];\n",
    "        balances[msg.sender] = before + msg.value;\n",
)
VAULT_2024 = VAULT.replace("        balances[msg.sender] += msg.value;\n", "".join(REWRITTEN))

NEW = """pragma solidity ^0.8.20;

contract Fresh {
    event Ping(uint256 round);

    function ping(uint256 round) external {
        emit Ping(round + 1);
    }
}
"""


def git(repo: Path, *args: str, when: str | None = None) -> str:
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@example.com", "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1"}
    if when:
        env.update(GIT_AUTHOR_DATE=when, GIT_COMMITTER_DATE=when)
    return subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True, text=True, env=env).stdout.strip()


def commit(repo: Path, files: dict[str, str], when: str, message: str) -> str:
    for rel, text in files.items():
        (repo / rel).parent.mkdir(parents=True, exist_ok=True)
        (repo / rel).write_text(text, encoding="utf-8")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", message, when=when)
    return git(repo, "rev-parse", "HEAD")


def make_repo(repo: Path) -> dict[str, str]:
    """Build the repository; its commits by year, and `tag`: v1 (the 2024 commit)."""
    repo.mkdir(parents=True)
    git(repo, "init", "-q", "-b", "main")
    shas = {"2023": commit(repo, {"src/Old.sol": OLD, "src/Vault.sol": VAULT}, "2023-03-01T10:00:00+00:00", "first")}
    shas["2024"] = commit(repo, {"src/Vault.sol": VAULT_2024, "src/New.sol": NEW}, "2024-06-01T10:00:00+00:00", "rewrite")
    git(repo, "tag", "v1")
    shas["2025"] = commit(repo, {"src/Old.sol": OLD_2025}, "2025-02-01T10:00:00+00:00", "reindent and move")
    return shas
