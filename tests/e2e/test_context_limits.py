"""Context files are sized before they are read, and at most 20 go with a debate, on every
surface: the command line, a batch entry, an MCP call."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest

from collab.options import MAX_CONTEXT_FILES
from collab.request import load_contexts
from tests.conftest import Cli, FakeAgent
from tests.e2e.mcp_client import call, mcp_session, text_of

TOO_MANY = f"{MAX_CONTEXT_FILES + 1} context files; at most {MAX_CONTEXT_FILES} per debate"


def _files(folder: Path, n: int) -> list[str]:
    folder.mkdir(exist_ok=True)
    names = []
    for i in range(n):
        (folder / f"c{i}.md").write_text(f"note {i}\n", encoding="utf-8")
        names.append(f"c{i}.md")
    return names


def test_a_huge_file_is_refused_without_being_read(tmp_path: Path) -> None:
    """A 1 GB (sparse) file: refused by its size; the process never holds it."""
    big = tmp_path / "big.md"
    with big.open("wb") as fh:
        fh.truncate(1 << 30)
    code = (
        "import resource, sys\n"
        "from collab.errors import UsageError\n"
        "from collab.request import load_contexts\n"
        "try:\n    load_contexts((sys.argv[1],) * 12, 60000)\n"
        "except UsageError as exc:\n    print(exc.message)\n"
        "print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)\n"
    )
    res = subprocess.run([sys.executable, "-c", code, str(big)], capture_output=True, text=True,
                         timeout=60)  # fmt: skip
    message, maxrss_kb = res.stdout.splitlines()
    assert f"context file {big} is 1,073,741,824 bytes, over the context budget" in message
    assert int(maxrss_kb) < 200_000


@pytest.mark.parametrize("surface", ["cli", "batch", "mcp"])
def test_at_most_20_context_files_on_every_surface(
    fake_agent: FakeAgent,
    hermetic_env: Path,
    tmp_path: Path,
    cli: Cli,
    monkeypatch: pytest.MonkeyPatch,
    surface: str,
) -> None:
    folder = tmp_path / "docs"
    names = _files(folder, MAX_CONTEXT_FILES + 1)
    monkeypatch.chdir(folder)
    if surface == "mcp":

        async def go() -> Any:
            async with mcp_session(cwd=folder) as s:
                return await call(s, "debate_start", topic="T", agent="fake", context=names)

        res = anyio.run(go)
        assert res.is_error and TOO_MANY in text_of(res)
    else:
        if surface == "cli":
            argv = ["debate", "T", "--agent", "fake", "--json"]
            argv += [a for n in names for a in ("--context", n)]
        else:
            topics = folder / "t.jsonl"
            topics.write_text(json.dumps({"topic": "T", "context": names}) + "\n")
            argv = ["batch", str(topics), "--agent", "fake", "--json"]
        res = cli(*argv)
        assert res.code == 2
        assert TOO_MANY in res.json()["error"]["message"]
    assert not (hermetic_env / "runs").exists()
    # The limit's edge: twenty load.
    assert len(load_contexts(tuple(str(folder / n) for n in names[:-1]), 60000)) == 20
