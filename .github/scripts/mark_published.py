"""After the first upload of collab-debate: say so in the repository.

``python .github/scripts/mark_published.py VERSION [ROOT]`` (the release workflow runs it):

- ``.claude-plugin/launch``: ``PUBLISHED_VERSION=""`` → ``PUBLISHED_VERSION="VERSION"``, so
  the plugin's MCP server falls back to ``uvx --from collab-debate==VERSION collab mcp``;
- README.md: the lines between ``<!-- install:from-clone -->`` and ``<!-- install:end -->``
  become the install from the package index.

Idempotent; exits 1 with one line when a marker is missing.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

FROM_INDEX = """<!-- install:from-index -->
```sh
pipx install collab-debate    # or: uv tool install collab-debate (the command is `collab`)
collab doctor                 # checks tmux, the agent CLIs, the login and the data dir
```

The package's name is `collab-debate` (the command and the import stay `collab`). Not
`pip install collab`: that name belongs to an unrelated project. From a clone:
`pipx install .`.
<!-- install:end -->"""

_BLOCK = re.compile(r"<!-- install:from-(?:clone|index) -->.*?<!-- install:end -->", re.DOTALL)
_LAUNCHER = re.compile(r'^PUBLISHED_VERSION="[^"]*"$', re.MULTILINE)
_VERSION = re.compile(r"\d+\.\d+\.\d+(?:[.-]?[A-Za-z0-9.]+)?")


def mark(version: str, root: Path) -> None:
    if not _VERSION.fullmatch(version):
        raise SystemExit(f"not a version: {version!r}")
    launcher = root / ".claude-plugin" / "launch"
    readme = root / "README.md"
    text = launcher.read_text(encoding="utf-8")
    if not _LAUNCHER.search(text):
        raise SystemExit(f"{launcher}: no PUBLISHED_VERSION line")
    launcher.write_text(_LAUNCHER.sub(f'PUBLISHED_VERSION="{version}"', text), encoding="utf-8")
    text = readme.read_text(encoding="utf-8")
    if not _BLOCK.search(text):
        raise SystemExit(f"{readme}: no <!-- install:from-clone --> … <!-- install:end --> block")
    readme.write_text(_BLOCK.sub(lambda _: FROM_INDEX, text), encoding="utf-8")


if __name__ == "__main__":
    if len(sys.argv) not in (2, 3):
        raise SystemExit("usage: mark_published.py VERSION [ROOT]")
    mark(sys.argv[1], Path(sys.argv[2]) if len(sys.argv) == 3 else Path.cwd())
