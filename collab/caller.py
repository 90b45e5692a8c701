"""Call an agent through a runner, with these retry rules:

timeout → 1 retry → "(timeout)"; non-zero exit → first 5 lines shown → 1 retry;
exit 0 with an empty reply → 1 retry → "(no response)". Never raises for a failed turn.
"""

from __future__ import annotations

import copy
import os
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from collab.agents import (
    AgentSetup,
    AgentSpec,
    ToolSet,
    build_argv,
    build_env,
    resolve_binary,
    spec_for,
)
from collab.agents.catalogue import decoder_for, interpret, reports_cost
from collab.agents.decoding import AgentReply, Usage, sum_usage
from collab.config import AgentChoice
from collab.errors import LoginFailed
from collab.prices import Price, estimate, load_prices, price_for
from collab.runners.base import OutputHook, Runner, TurnJob
from collab.runners.turnfiles import TurnDir
from collab.turns import AgentMeta, TurnStatus

MAX_ATTEMPTS = 2

# Called before a retry with (reason, detail): lets the UI show what went wrong.
RetryHook = Callable[[str, str], None]


# Called while a turn runs with the reply text it added (possibly "") and the elapsed time.
TextHook = Callable[[str, float], None]


@dataclass(frozen=True)
class CallResult:
    status: TurnStatus  # ok | timeout | no-response | error
    reply: AgentReply
    meta: AgentMeta
    step: str = ""  # the last attempt's step id (its files in the turn dir)


class AgentCaller:
    def __init__(
        self,
        runner: Runner,
        tdir: TurnDir,
        agents: Mapping[str, AgentSpec],
        base_env: Mapping[str, str] | None = None,
        setup: AgentSetup = "lean",
        binaries: Mapping[str, str] | None = None,
    ) -> None:
        """``binaries``: agent name → executable, already resolved for this run."""
        self.runner = runner
        self.setup: AgentSetup = setup
        self.tdir = tdir
        self.agents = agents
        self.base_env = dict(os.environ if base_env is None else base_env)
        self._binaries: dict[str, str] = dict(binaries or {})
        self._prices: tuple[Price, ...] | None = None
        # Each agent's environment, sorted: the same for every call of it (base_env is fixed).
        self._envs: dict[AgentSpec, tuple[tuple[str, str], ...]] = {}

    def with_runner(self, runner: Runner) -> AgentCaller:
        """The same caller on another runner (a turn running at the same time)."""
        other = copy.copy(self)
        other.runner = runner
        return other

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
        *,
        title: str = "",
        seat_title: str = "",
        tools: ToolSet = "none",
        on_text: TextHook | None = None,
        text_limit: int | None = None,
        cancel: threading.Event | None = None,
    ) -> CallResult:
        """One turn: up to ``attempts`` calls. ``on_text`` gets the reply as it is written
        (decoded from the agent's stream, capped at ``text_limit``) and the elapsed time;
        ``cancel`` set ends the call (the runner raises TurnCancelled)."""
        spec = spec_for(choice.agent, choice.command, self.agents)
        binary = self.binary(spec)
        env = self._envs.get(spec)
        if env is None:
            env = self._envs[spec] = tuple(sorted(build_env(spec, self.base_env).items()))
        total = 0.0
        restarts = 0
        reply = AgentReply(ok=False, text="", error="not run")
        status: TurnStatus = "error"
        exit_code: int | None = None
        costs: list[float] = []
        usages: list[Usage] = []
        n = 0
        sid = step
        for n in range(1, attempts + 1):
            sid = f"{step}-{n}"
            argv = build_argv(
                spec, binary, choice.model, self.tdir.prompt_path(sid),
                setup=self.setup, tools=tools, timeout=timeout, env=self.base_env,
            )  # fmt: skip
            job = TurnJob(
                step=sid,
                argv=tuple(argv),
                env=env,
                prompt=prompt,
                stdin_prompt=spec.prompt == "stdin",
                timeout=timeout,
                title=title if n == 1 else f"{title} (attempt {n})",
                # The pane's title: the seat (or the Judge) and the agent that speaks.
                pane_title=f"{seat_title} · {spec.name}" if seat_title else spec.name,
                output=spec.output,
                text_limit=text_limit,
                on_output=_text_hook(spec.output, on_text, text_limit),
                cancel=cancel,
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
                if not reply.ok and _login_failed(spec, reply):
                    # No retry can mend a lost login: stop the run, keep it resumable.
                    self.tdir.write_summary(sid, "login failed: the run stops here")
                    raise LoginFailed(
                        f"{spec.name} login failed: {_first_line(reply.error)}",
                        hint=spec.login_hint or None,
                    )
                if reply.cost_usd is not None:
                    costs.append(reply.cost_usd)
                if reply.usage is not None:
                    usages.append(reply.usage)
                if reply.ok:
                    status = "ok"
                    break
                status = "no-response" if reply.empty else "error"
            if n < attempts:
                self.tdir.write_summary(sid, f"{status}: {_first_line(reply.error)} · retrying")
                if on_retry is not None:
                    on_retry(status, reply.error or "")
        cost = round(sum(costs), 6) if costs else None
        estimated = False
        if cost is None and not reports_cost(spec):
            cost = self._estimate(choice, len(prompt) * n, reply.text, usages)
            estimated = cost is not None
        meta = AgentMeta(
            agent=choice.agent,
            model=choice.model,
            exit_code=exit_code,
            duration=round(total, 3),
            attempts=n,
            usage=sum_usage(usages),
            cost_usd=cost,
            session_id=reply.session_id,
            error=None if status == "ok" else reply.error,
            pane_restarts=restarts,
            cost_estimated=estimated,
        )
        return CallResult(status=status, reply=reply, meta=meta, step=sid)

    def _estimate(
        self, choice: AgentChoice, prompt_chars: int, text: str, usages: list[Usage]
    ) -> float | None:
        """The cost of an agent that reports none, from the price table (None: unpriced)."""
        if self._prices is None:
            self._prices = load_prices()
        price = price_for(choice.agent, choice.model, self._prices)
        if price is None:
            return None
        used = sum_usage(usages)
        tin = used.input_tokens if used is not None else None
        tout = used.output_tokens if used is not None else None
        return estimate(price, prompt_chars, len(text), tin, tout)

    def summarize(self, result: CallResult, text: str) -> None:
        """The one line the pane shows under the turn once it has been read."""
        self.tdir.write_summary(result.step, text)


def _text_hook(output: str, on_text: TextHook | None, limit: int | None) -> OutputHook | None:
    if on_text is None:
        return None
    decoder = decoder_for(output, limit)

    def hook(chunk: str, elapsed: float) -> None:
        on_text(decoder.feed(chunk) if chunk else "", elapsed)

    return hook


def _login_failed(spec: AgentSpec, reply: AgentReply) -> bool:
    error = reply.error or ""
    return reply.auth_failed or any(m in error for m in spec.login_failures)


def _first_line(text: str | None) -> str:
    lines = (text or "").strip().splitlines()
    return lines[0][:300] if lines else "no details"
