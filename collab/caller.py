"""Call an agent through a runner with the retry rules of DESIGN §4.

timeout → 1 retry → "(timeout)"; non-zero exit → first 5 lines shown → 1 retry;
exit 0 with an empty reply → 1 retry → "(no response)". Never raises for a failed turn.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from collab.agents import AgentSpec, build_argv, build_env, resolve_binary, spec_for
from collab.config import AgentChoice
from collab.errors import PrerequisiteError
from collab.replies import AgentReply, Usage, interpret, sum_usage
from collab.runners.base import Runner, TurnJob
from collab.runners.turnfiles import TurnDir
from collab.turns import AgentMeta, TurnStatus

MAX_ATTEMPTS = 2

# Called before a retry with (reason, detail): lets the UI show what went wrong.
RetryHook = Callable[[str, str], None]


@dataclass(frozen=True)
class CallResult:
    status: TurnStatus  # ok | timeout | no-response | error
    reply: AgentReply
    meta: AgentMeta


class AgentCaller:
    def __init__(
        self,
        runner: Runner,
        tdir: TurnDir,
        agents: Mapping[str, AgentSpec],
        base_env: Mapping[str, str] | None = None,
    ) -> None:
        self.runner = runner
        self.tdir = tdir
        self.agents = agents
        self.base_env = dict(os.environ if base_env is None else base_env)
        self._binaries: dict[str, str] = {}

    def binary(self, spec: AgentSpec) -> str:
        if spec.name not in self._binaries:
            self._binaries[spec.name] = resolve_binary(spec, self.base_env.get("PATH"))
        return self._binaries[spec.name]

    def call(
        self,
        step: str,
        choice: AgentChoice,
        prompt: str,
        timeout: float,
        on_retry: RetryHook | None = None,
        attempts: int = MAX_ATTEMPTS,
    ) -> CallResult:
        spec = spec_for(choice.agent, choice.command, self.agents)
        binary = self.binary(spec)
        env = tuple(sorted(build_env(spec, self.base_env).items()))
        total = 0.0
        restarts = 0
        reply = AgentReply(ok=False, text="", error="not run")
        status: TurnStatus = "error"
        exit_code: int | None = None
        costs: list[float] = []
        usages: list[Usage] = []
        n = 0
        for n in range(1, attempts + 1):
            sid = f"{step}-{n}"
            argv = build_argv(spec, binary, choice.model, self.tdir.prompt_path(sid))
            job = TurnJob(
                step=sid,
                argv=tuple(argv),
                env=env,
                prompt=prompt,
                stdin_prompt=spec.prompt == "stdin",
                timeout=timeout,
            )
            result = self.runner.run(job)
            total += result.duration
            restarts += result.pane_restarts
            exit_code = result.exit_code
            if result.timed_out:
                status = "timeout"
                reply = AgentReply(ok=False, text="", error=f"no reply within {timeout:g}s")
            else:
                reply = interpret(spec, result.exit_code or 0, result.stdout, result.stderr)
                if not reply.ok and any(m in (reply.error or "") for m in spec.login_failures):
                    # No retry can mend a missing login: stop the run, keep it resumable.
                    raise PrerequisiteError(
                        f"{spec.name} is not logged in", hint=spec.login_hint or None
                    )
                if reply.cost_usd is not None:
                    costs.append(reply.cost_usd)
                if reply.usage is not None:
                    usages.append(reply.usage)
                if reply.ok:
                    status = "ok"
                    break
                status = "no-response" if reply.empty else "error"
            if on_retry is not None and n < attempts:
                on_retry(status, reply.error or "")
        meta = AgentMeta(
            agent=choice.agent,
            model=choice.model,
            exit_code=exit_code,
            duration=round(total, 3),
            attempts=n,
            usage=sum_usage(usages),
            cost_usd=round(sum(costs), 6) if costs else None,
            session_id=reply.session_id,
            error=None if status == "ok" else reply.error,
            pane_restarts=restarts,
        )
        return CallResult(status=status, reply=reply, meta=meta)
