"""The real ``claude`` binary against tests/fakes FakeAnthropic: what the tokens and stream
benches share. A fresh throwaway HOME (no user CLAUDE.md, hooks or MCP servers), a
neutral working directory, and one bare call first (the CLI writes ``~/.claude.json``).
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from bench.env import Ctx
from bench.procs import run_cmd

if TYPE_CHECKING:
    from tests.fakes import FakeAnthropic

# The first release's claude argv (collab 40a9fac): Claude Code's own system prompt,
# every tool, the user's whole setup.
FIRST_RELEASE_TAIL = ("-p", "--output-format", "json", "--no-session-persistence")


@dataclass
class RealClaude:
    binary: str
    version: str | None
    server: FakeAnthropic
    env: dict[str, str]  # the environment a turn (or a bare call) runs with
    work: Path  # neutral working directory
    home: Path

    def current_argv(self, prompt_file: Path, timeout: float = 120.0) -> list[str]:
        """collab's built-in claude argv, default path (lean setup, no tools)."""
        from collab.agents import BUILTIN, build_argv

        return build_argv(
            BUILTIN["claude"], self.binary, None, prompt_file,
            setup="lean", tools="none", timeout=timeout, env=self.env,
        )  # fmt: skip

    def first_release_argv(self) -> list[str]:
        return [self.binary, *FIRST_RELEASE_TAIL]

    def call(self, argv: Sequence[str], prompt_file: Path, timeout: float = 120) -> Call:
        """One bare call, the prompt on stdin, in the neutral directory."""
        from collab.agents import BUILTIN, build_env

        env = build_env(BUILTIN["claude"], self.env)
        before = len(self.server.requests)
        with prompt_file.open("rb") as stdin:
            wall, proc = run_cmd(list(argv), env, self.work, timeout=timeout, stdin=stdin)
        doc = last_json(proc.stdout.decode("utf-8", "replace"))
        if proc.returncode != 0 or doc is None or doc.get("is_error") is not False:
            raise RuntimeError(
                f"bare claude call failed (exit {proc.returncode}): {proc.stdout[-300:]!r}"
            )
        return Call(wall, doc, self.server.requests[before:])


@dataclass(frozen=True)
class Call:
    wall: float
    doc: dict[str, Any]  # the CLI's result object
    requests: Sequence[Any]  # what reached the fake API during the call

    @property
    def input_tokens(self) -> int:
        usage = self.doc.get("usage") or {}
        return int(usage.get("input_tokens") or 0)

    @property
    def cost(self) -> float:
        return float(self.doc.get("total_cost_usd") or 0.0)


def last_json(stdout: str) -> dict[str, Any] | None:
    """The CLI's result object: the last JSON line (stream-json) or the whole output."""
    for line in reversed(stdout.strip().splitlines()):
        line = line.strip()
        if line.startswith("{"):
            try:
                doc = json.loads(line)
            except ValueError:
                continue
            if isinstance(doc, dict) and doc.get("type") == "result":
                return doc
    return None


def unavailable() -> str | None:
    """Why the real claude cannot run here, or None."""
    try:
        from tests.fakes import claude_binary
    except ImportError as exc:
        return f"tests.fakes not importable: {exc}"
    if claude_binary() is None:
        return "claude binary not found (PATH, $COLLAB_CLAUDE_BIN, /opt/claude)"
    return None


@contextmanager
def real_claude(ctx: Ctx, tag: str) -> Iterator[RealClaude]:
    """A running FakeAnthropic and the env to point the real claude at it (call
    ``unavailable()`` first). The process's cwd is the neutral directory meanwhile, so
    in-process debates start their panes and agents there too."""
    from tests.fakes import FakeAnthropic, claude_binary, claude_full_env
    from tests.fakes.claude_env import claude_version

    binary = claude_binary()
    assert binary is not None
    work = ctx.env.root / f"{tag}-work"
    work.mkdir(exist_ok=True)
    home = ctx.env.root / f"{tag}-claude-home"
    old_cwd = Path.cwd()
    with FakeAnthropic() as server:
        env = claude_full_env(server.url, home, ctx.env.base_env())
        env["PATH"] = f"{Path(binary).parent}{os.pathsep}{env.get('PATH', '')}"
        rc = RealClaude(binary, claude_version(binary), server, env, work, home)
        warm = work / "warm-up.txt"
        warm.write_text("Say hi", encoding="utf-8")
        os.environ["COLLAB_CLAUDE_BIN"] = binary
        os.chdir(work)
        try:
            rc.call(rc.first_release_argv(), warm)  # creates ~/.claude.json
            server.reset()
            yield rc
        finally:
            os.chdir(old_cwd)
            os.environ.pop("COLLAB_CLAUDE_BIN", None)


def wait_quiet(seconds: float = 0.3) -> None:
    """A short pause between variants so one call's exit does not overlap the next."""
    time.sleep(seconds)
