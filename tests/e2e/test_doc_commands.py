# Not the cli fixture: each documented command is a bash line (pipes, $(…)); its collab is cli.argv.
"""Every command in the README and docs/*.md runs, as written, against the fake agent.

The fenced ``sh`` blocks are read with markdown-it; each command (a line, or lines joined
by a trailing backslash) runs in bash in one sandbox, in document order: a private HOME
and COLLAB_HOME whose config.toml makes the scripted fake agent every seat's default and
the subprocess runner the default runner, and a PATH whose ``collab`` is this working
tree's. A run id in a command (``ID``, a literal one, a batch's) becomes the newest such
id the sandbox has. The few commands that cannot run here are listed in ``CANNOT_RUN``
with the reason; a listed command that no longer appears in the docs fails the test, so
the list stays true.
"""

from __future__ import annotations

import functools
import json
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path
from typing import NamedTuple

import pytest
from markdown_it import MarkdownIt

from tests.fakes import FAKE_AGENT
from tests.helpers import Cli, wait_until

ROOT = Path(__file__).resolve().parents[2]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]

CANNOT_RUN = {
    "git clone REPO_URL collab && cd collab": "needs the network and the repository's URL",
    "pipx install .": "installs the package; this test runs the working tree's collab",
    "pip install '.[local]'": "builds llama-cpp-python (~4 min) and needs the model's wheel",
    "pip install -e '.[test]'": "installs the package into the environment running the test",
    "python -m pytest": "the test suite this test is part of",
    "claude mcp add collab -- collab mcp": "needs the real claude CLI: tests/real/test_hosts.py "
    "runs it",
}
# Commands that need what this machine lacks, by how they start.
CANNOT_RUN_PREFIX = {
    'collab debate "Tabs or spaces for Python code?" --agent llm': "needs llm and the "
    "SmolLM2 model ('.[local]')",
    'collab debate "Tabs or spaces" --agent command --agent-command \'llm': "needs the llm "
    "CLI and an OpenAI key",
    "GITHUB_TOKEN=": "posts to GitHub's API (tests/e2e/test_comment_cli.py covers it offline)",
    "python -m bench": "a benchmark of minutes (bench/, with tests of its own)",
}
# Commands shown on a run that has ended: the detached run the docs start just before
# them is waited for first (it may still be writing its Judge's summary).
AFTER_THE_RUN_ENDS = {"collab result ID"}
# Exit codes other than 0 a command is documented to give in this sandbox.
EXPECTED_EXIT = {
    "collab gate ID --fail-on major": 4,  # the fake's debate leaves a major issue open
    "collab resume ID": 2,  # the newest run here has finished: nothing to resume
}

# ``ID``, a whole run id, or the docs' example suffix ``3fa9c1``.
RUN_ID = re.compile(r"(?<!batch-)\b(?:ID|\d{8}-\d{6}-[0-9a-f]{6}|3fa9c1)\b")
BATCH_ID = re.compile(r"\b(?:BATCH|batch-\d{8}-\d{6}-[0-9a-f]{6})\b")

JUDGE_REPLY = """## TL;DR
- Keep sessions.

## Crux
Does logout have to be instant?

## Agreements
None.

## Open disagreements
- I1 Revocation needs server state: the sides disagree on cost.

## Minority report
Tokens avoid a lookup.

## Trade-offs
| Option | Gains | Costs | Favoured by |
|---|---|---|---|
| Sessions | revocation | a lookup | Position 1 |

## Recommended actions
1. Measure the lookup.
"""
POINT = {"title": "Revocation needs server state", "evidence": "OWASP JWT cheat sheet"}
CONTRACT = {"new_points": [POINT], "stances": [], "abstain": None}
DEBATER_REPLY = f"Revocation needs server state.\n\n```json\n{json.dumps(CONTRACT)}\n```\n"


class Command(NamedTuple):
    doc: str
    line: int
    text: str


def commands(path: Path) -> list[Command]:
    out = []
    for token in MarkdownIt().parse(path.read_text(encoding="utf-8")):
        if token.type != "fence" or token.info.strip() != "sh" or token.map is None:
            continue
        joined = token.content.replace("\\\n", " ")
        for n, line in enumerate(joined.splitlines()):
            text = line.strip()
            if text and not text.startswith("#"):
                out.append(Command(path.name, token.map[0] + 2 + n, text))
    return out


def _reason(text: str) -> str | None:
    bare = re.sub(r"\s+#.*$", "", text).strip()
    if bare in CANNOT_RUN:
        return CANNOT_RUN[bare]
    return next((why for p, why in CANNOT_RUN_PREFIX.items() if bare.startswith(p)), None)


def _sandbox(tmp: Path) -> dict[str, str]:
    home, data, bin_ = tmp / "home", tmp / "collab-home", tmp / "bin"
    for d in (home, data, bin_, tmp / "work" / "docs" / "rfcs"):
        d.mkdir(parents=True, exist_ok=True)
    os.chmod(data, 0o700)
    fake = f"[{json.dumps(sys.executable)}, {json.dumps(str(FAKE_AGENT))}"
    (data / "config.toml").write_text(
        '[defaults]\nagent = "fake"\nrunner = "subprocess"\n\n'
        f'[agents.fake]\nargv = {fake}, "--format", "claude-json"]\n'
        'model_argv = ["--model", "{model}"]\noutput = "claude-json"\n',
        encoding="utf-8",
    )
    script = {
        "rules": [{"match": ["## Trade-offs"], "replies": [JUDGE_REPLY]}],
        "default": DEBATER_REPLY,
    }
    (data / "script.json").write_text(json.dumps(script), encoding="utf-8")
    collab = bin_ / "collab"
    collab.write_text(f'#!/bin/sh\nexec {shlex.join(Cli.argv())} "$@"\n', encoding="utf-8")
    collab.chmod(0o755)
    work = tmp / "work"
    (work / "topics.txt").write_text("JWT vs sessions\n# a comment\nAdopt a monorepo?\n")
    (work / "docs" / "architecture.md").write_text("# Architecture\nOne service.\n")
    (work / "docs" / "rfcs" / "0007-cache.md").write_text("# RFC 7: a cache\nAdd redis.\n")
    (work / "pr.diff").write_text("--- a/x.py\n+++ b/x.py\n@@ -1 +1 @@\n-a\n+b\n")
    return {
        "HOME": str(home),
        "COLLAB_HOME": str(data),
        "COLLAB_FAKE_SCRIPT": str(data / "script.json"),
        "PATH": f"{bin_}:/usr/local/bin:/usr/bin:/bin",
        "PYTHONPATH": str(ROOT),
        "LANG": "C.UTF-8",
        "SHELL": "/bin/bash",
        "TERM": "dumb",
    }


def _ended(run_id: str, env: dict[str, str], work: Path) -> bool:
    """Has the run ended (``collab status ID --json``'s ``active`` false)?"""
    res = subprocess.run(
        ["collab", "status", run_id, "--json"], cwd=work, env=env, capture_output=True,
        text=True, timeout=60, stdin=subprocess.DEVNULL,
    )  # fmt: skip
    return json.loads(res.stdout)["active"] is False


def _newest(data: Path, sub: str) -> str | None:
    found = sorted((p for p in (data / sub).glob("*") if p.is_dir()), key=lambda p: p.name)
    return found[-1].name if found else None


def test_every_documented_command_runs(tmp_path: Path) -> None:
    found = [c for doc in DOCS for c in commands(doc)]
    assert found, "no fenced sh blocks found"
    texts = {re.sub(r"\s+#.*$", "", c.text).strip() for c in found}
    stale = [k for k in CANNOT_RUN if k not in texts]
    stale += [p for p in CANNOT_RUN_PREFIX if not any(t.startswith(p) for t in texts)]
    assert stale == [], f"CANNOT_RUN lists commands no doc has: {stale}"

    env = _sandbox(tmp_path)
    data, work = Path(env["COLLAB_HOME"]), tmp_path / "work"
    ran, failures = 0, []
    for c in found:
        if _reason(c.text) is not None:
            continue
        text = c.text
        run_id, batch_id = _newest(data, "runs"), _newest(data, "batches")
        if batch_id is not None:
            text = BATCH_ID.sub(batch_id, text)
        if run_id is not None:
            text = RUN_ID.sub(run_id, text)
        bare = re.sub(r"\s+#.*$", "", c.text).strip()
        if bare in AFTER_THE_RUN_ENDS and run_id is not None:
            ended = functools.partial(_ended, run_id, env, work)
            assert wait_until(ended, 120), f"{run_id} never ended"
        want = EXPECTED_EXIT.get(bare, 0)
        res = subprocess.run(
            ["bash", "-c", text], cwd=work, env=env, capture_output=True, text=True,
            timeout=300, stdin=subprocess.DEVNULL,
        )  # fmt: skip
        ran += 1
        if res.returncode != want:
            failures.append(
                f"{c.doc}:{c.line}: {c.text}\n  exit {res.returncode} (want {want}): "
                + (res.stderr.strip() or res.stdout.strip())[-400:]
            )
    print(f"ran {ran} documented commands; {len(found) - ran} marked as cannot run here")
    assert failures == [], "\n".join(failures)


@pytest.mark.parametrize("doc", DOCS, ids=[d.name for d in DOCS])
def test_doc_commands_parse(doc: Path) -> None:
    """A command is literal (no "…" standing for what to type) unless it is marked."""
    for c in commands(doc):
        bare = re.sub(r"\s+#.*$", "", c.text)
        assert "…" not in bare or _reason(c.text) is not None, f"{c.doc}:{c.line}: {c.text}"
