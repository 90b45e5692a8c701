"""A runner that answers turns from a script, in this process: the test double of the
runner seam (like httpx's ``MockTransport``). The real orchestrator, caller and turn drive
it exactly as they drive tmux or a subprocess; only the agent is replaced.

    runner = InProcessRunner(script({"r1-A": [Reply(hang=True), "my point ..."]}, "ok"))
    Orchestrator(state, run_dir, agents=SCRIPTED_AGENTS, runner_factory=runner.factory,
                 clock=runner.clock)

A reply is chosen per seat and turn by the job's step (``r2-B``, ``r2-B-fix``, ``judge``)
and attempt (the ``-1``/``-2`` the caller appends). Time is a :class:`FakeClock` that a
reply advances by its ``seconds``: budgets and timeouts are tested without waiting.
"""

from __future__ import annotations

import json
import sys
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from collab.agents import AgentSpec
from collab.runners.base import ProcessResult, TurnCancelled, TurnJob
from collab.runners.turnfiles import TurnDir

SCRIPTED = "scripted"
# An agent whose replies come from the runner's script: its binary is this Python (it
# resolves like any agent's, and is never started) and it answers in claude's JSON.
SCRIPTED_AGENT = AgentSpec(
    name=SCRIPTED,
    argv=(sys.executable,),
    output="claude-json",
    login_failures=("not logged in",),
    login_hint="log in again",
)
SCRIPTED_AGENTS: Mapping[str, AgentSpec] = {SCRIPTED: SCRIPTED_AGENT}
CANCEL_WAIT = 10.0  # the longest a ``wait_cancel`` reply waits for the flag (a safety net)


@dataclass(frozen=True)
class Reply:
    """One scripted attempt of one turn."""

    text: str = ""
    cost_usd: float | None = None
    seconds: float = 0.0  # how far the turn moves the fake clock
    exit_code: int = 0
    stderr: str = ""
    hang: bool = False  # never ends: times out at the job's timeout
    wait_cancel: bool = False  # runs until the run's cancel flag is set
    error: BaseException | None = None  # raised by the runner (a lost tmux server, Ctrl-C)


# Answers one job; a plain string is a reply of that text.
Handler = Callable[[TurnJob], "Reply | str"]


def script(
    replies: Mapping[str, Sequence[Reply | str]], default: Reply | str | Handler = ""
) -> Handler:
    """A handler from a table: ``replies[step]`` lists the attempts of that step in order;
    a step or attempt not in the table gets ``default`` (a reply, or a handler)."""

    def handler(job: TurnJob) -> Reply | str:
        step, _, attempt = job.step.rpartition("-")
        attempts = replies.get(step, ())
        n = int(attempt) - 1
        if 0 <= n < len(attempts):
            return attempts[n]
        return default(job) if callable(default) else default

    return handler


class FakeClock:
    """A monotonic clock that moves only when told to."""

    def __init__(self, start: float = 1000.0) -> None:
        self.now = start
        self._lock = threading.Lock()

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        with self._lock:
            self.now += seconds


class InProcessRunner:
    """Answers each job from ``handler``; every job it was given is kept in ``jobs``
    (shared with its companions, in the order they started)."""

    name = "in-process"

    def __init__(
        self,
        handler: Handler,
        *,
        clock: FakeClock | None = None,
        jobs: list[TurnJob] | None = None,
    ) -> None:
        self.handler = handler
        self.clock = clock or FakeClock()
        self.jobs: list[TurnJob] = [] if jobs is None else jobs
        self.closed = False
        self.companions: list[InProcessRunner] = []
        self.at_once: int | None = None  # a companion: the turns its round ran together
        self._lock = threading.Lock()

    def factory(self, tdir: TurnDir, run_id: str) -> InProcessRunner:
        """A ``RunnerFactory`` that hands out this runner."""
        return self

    def run(self, job: TurnJob) -> ProcessResult:
        with self._lock:
            self.jobs.append(job)
        answer = self.handler(job)
        reply = Reply(text=answer) if isinstance(answer, str) else answer
        if reply.error is not None:
            raise reply.error
        if reply.wait_cancel:
            if job.cancel is None or not job.cancel.wait(CANCEL_WAIT):
                raise AssertionError(f"{job.step}: the cancel flag was never set")
            raise TurnCancelled
        stdout = _stdout(job, reply)
        if reply.hang or reply.seconds >= job.timeout:
            self.clock.advance(job.timeout)
            return ProcessResult(None, "", reply.stderr, timed_out=True, duration=job.timeout)
        if job.on_output is not None:
            half = len(stdout) // 2
            job.on_output(stdout[:half], reply.seconds / 2)
            job.on_output(stdout[half:], reply.seconds)
        self.clock.advance(reply.seconds)
        return ProcessResult(reply.exit_code, stdout, reply.stderr, False, reply.seconds)

    def attach_hint(self) -> str | None:
        return None

    def companion(self, at_once: int | None = None) -> InProcessRunner:
        other = InProcessRunner(self.handler, clock=self.clock, jobs=self.jobs)
        other._lock, other.at_once = self._lock, at_once
        self.companions.append(other)
        return other

    def close(self) -> None:
        self.closed = True

    def steps(self) -> list[str]:
        """The steps run so far (``r1-A-1``, ``judge-2`` …)."""
        return [job.step for job in self.jobs]


def _stdout(job: TurnJob, reply: Reply) -> str:
    """What the agent prints: claude's stream (the text as an assistant message, then the
    result) for a JSON agent, else the text."""
    if job.output != "claude-json":
        return reply.text
    if not reply.text and reply.cost_usd is None:
        return ""
    message = {"content": [{"type": "text", "text": reply.text}]}
    doc: dict[str, object] = {
        "type": "result",
        "is_error": reply.exit_code != 0,
        "result": reply.text,
        "usage": {"input_tokens": len(job.prompt) // 4, "output_tokens": len(reply.text) // 4},
    }
    if reply.cost_usd is not None:
        doc["total_cost_usd"] = reply.cost_usd
    return json.dumps({"type": "assistant", "message": message}) + "\n" + json.dumps(doc) + "\n"
