"""The isolated environment every bench runs in, and the context handed to each bench.

Isolation: a throwaway ``COLLAB_HOME`` (with the bench agent registered in its
``config.toml``), a private tmux server (``COLLAB_TMUX_SOCKET``, killed at the end), and
no inherited ``TMUX``/``TMUX_PANE`` (so no run ever splits the user's own pane).
"""

from __future__ import annotations

import json
import os
import random
import secrets
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from bench.agent import AGENT_SCRIPT, any_seat_reply, claude_json_doc
from bench.stats import interleave

REPO = Path(__file__).resolve().parent.parent
RESULTS_DIR = Path(__file__).resolve().parent / "results"

# Variables that would leak the caller's tmux / Claude Code session into our runs.
_LEAKY = (
    "TMUX",
    "TMUX_PANE",
    "COLLAB_TMUX_SESSION",
    "CLAUDECODE",
    "CLAUDE_CODE_ENTRYPOINT",
    "PYTHONPATH",
    "PYTHONSTARTUP",
    "PYTHONPROFILEIMPORTTIME",
)

Mode = Literal["quick", "full"]


def python_exe() -> str:
    return sys.executable


class BenchEnv:
    """Temporary COLLAB_HOME, private tmux socket, the bench agent; undone by ``close``."""

    def __init__(self, keep: bool = False) -> None:
        self.keep = keep
        self.root = Path(tempfile.mkdtemp(prefix="collab-bench-"))
        self.home = self.root / "home"
        self.home.mkdir()
        self.logs = self.root / "logs"
        self.logs.mkdir()
        self.work = self.root / "work"  # a neutral cwd for child processes
        self.work.mkdir()
        self.pycache = self.root / "pycache"
        self.socket = f"collab-bench-{os.getpid()}-{secrets.token_hex(3)}"
        self.reply_path = self.root / "reply.json"
        self.reply_path.write_text(claude_json_doc(any_seat_reply()), encoding="utf-8")
        self.bash = shutil.which("bash") or "/bin/bash"
        (self.home / "config.toml").write_text(
            "[agents.bench]\n"
            f"argv = [{json.dumps(self.bash)}, {json.dumps(str(AGENT_SCRIPT))}]\n"
            'output = "claude-json"\n',
            encoding="utf-8",
        )
        self._saved: dict[str, str | None] = {}
        self._n = 0

    # -- environments --------------------------------------------------------------------
    def base_env(self) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if k not in _LEAKY}
        env.update(
            COLLAB_HOME=str(self.home),
            COLLAB_TMUX_SOCKET=self.socket,
            BENCH_AGENT_REPLY=str(self.reply_path),
            SHELL=self.bash,
        )
        env.pop("BENCH_AGENT_SLEEP", None)
        env.pop("BENCH_AGENT_LOG", None)
        return env

    def child_env(self, pycache: bool = True, **extra: str) -> dict[str, str]:
        """For ``python -m collab`` children.

        ``pycache``: this machine sets PYTHONDONTWRITEBYTECODE=1 and collab is an editable
        install, so every child would recompile collab's modules from source. An installed
        collab has .pyc files; to measure like one, children cache bytecode in a private
        PYTHONPYCACHEPREFIX (never inside collab/).
        """
        env = self.base_env()
        # This checkout's collab, not whatever is installed in the interpreter (the CI
        # venv holds a non-editable install of main): the bench measures the tree it is in.
        env["PYTHONPATH"] = str(REPO)
        if pycache:
            env.pop("PYTHONDONTWRITEBYTECODE", None)
            env["PYTHONPYCACHEPREFIX"] = str(self.pycache)
        env.update(extra)
        return env

    def activate(self) -> None:
        """Point this process at the isolated home and tmux server (for in-process runs)."""
        wanted: dict[str, str | None] = {k: None for k in _LEAKY}
        wanted.update(
            COLLAB_HOME=str(self.home),
            COLLAB_TMUX_SOCKET=self.socket,
            BENCH_AGENT_REPLY=str(self.reply_path),
            BENCH_AGENT_SLEEP=None,
            BENCH_AGENT_LOG=None,
        )
        for k, v in wanted.items():
            if k not in self._saved:
                self._saved[k] = os.environ.get(k)
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v

    def new_log(self, tag: str) -> Path:
        self._n += 1
        return self.logs / f"{self._n:04d}-{tag}.log"

    def tmux(self, *args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            ["tmux", "-L", self.socket, *args],
            capture_output=True,
            text=True,
            check=False,
            timeout=10,
        )

    def close(self) -> None:
        if shutil.which("tmux"):
            self.tmux("kill-server")
            # tmux 3.3 leaves the socket file of a killed server behind: remove ours.
            tmpdir = os.environ.get("TMUX_TMPDIR") or "/tmp"
            Path(tmpdir, f"tmux-{os.getuid()}", self.socket).unlink(missing_ok=True)
        for k, v in self._saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
        self._saved.clear()
        if not self.keep:
            shutil.rmtree(self.root, ignore_errors=True)


@dataclass
class Ctx:
    env: BenchEnv
    mode: Mode
    rng: random.Random
    say: Callable[[str], None]

    @property
    def quick(self) -> bool:
        return self.mode == "quick"

    def n(self, quick: int, full: int) -> int:
        return quick if self.quick else full

    def interleaved(
        self, name: str, variants: Sequence[str], n: int, warm_up: Callable[[str], object]
    ) -> Iterator[str]:
        """``warm_up`` each variant once (tmux server, page cache, bytecode cache), then
        ``n`` rounds of all of them in turn, so noise on a busy machine hits every variant
        alike; says each round done."""
        for v in variants:
            warm_up(v)
        for i, v in enumerate(interleave(variants, n)):
            yield v
            if (i + 1) % len(variants) == 0:
                self.say(f"  {name}: {(i + 1) // len(variants)}/{n} rounds of variants")
