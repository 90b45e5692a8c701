"""The debate loop and nothing else: it calls the pieces and tells a Listener what happened."""

from __future__ import annotations

import hashlib
import signal
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from types import FrameType

from collab import contract as contract_mod
from collab import convergence, report
from collab.agents import AgentSpec, load_agents, spec_for
from collab.caller import AgentCaller, CallResult
from collab.config import DebateConfig
from collab.errors import Interrupted, PrerequisiteError, RunnerError
from collab.events import Listener
from collab.ledger import Ledger, Side
from collab.prompts import Prompts, TurnView
from collab.runners import RunnerFactory, runner_factory
from collab.runners.base import Runner
from collab.runners.turnfiles import TurnDir, reap_stale
from collab.state import Angle, Judge, RunState
from collab.store import RunDir
from collab.turns import PLACEHOLDER, AgentMeta, TurnRecord, TurnStatus

SIDES: tuple[Side, Side] = ("A", "B")


@dataclass(frozen=True)
class Outcome:
    state: RunState
    run_dir: RunDir


class Orchestrator:
    def __init__(
        self,
        state: RunState,
        run_dir: RunDir,
        *,
        agents: Mapping[str, AgentSpec],
        runner_factory: RunnerFactory,
        listener: Listener | None = None,
        env: Mapping[str, str] | None = None,
        resumed: bool = False,
    ) -> None:
        self.state = state
        self.cfg: DebateConfig = state.config
        self.run_dir = run_dir
        self.agents = agents
        self.runner_factory = runner_factory
        self.ui = listener or Listener()
        self.env = env
        self.resumed = resumed
        self.prompts = Prompts(self.cfg.lang)
        self._started = time.monotonic()

    # -- public ------------------------------------------------------------------------
    def run(self) -> Outcome:
        with self.run_dir.locked(), _sigterm_as_interrupt():
            if self.state.temp_dir:
                reap_stale(Path(self.state.temp_dir))
            tdir = TurnDir(keep=self.cfg.keep_temp)
            self.state.temp_dir = str(tdir.path)
            runner: Runner | None = None
            try:
                runner = self.runner_factory(tdir, self.state.run_id)
                caller = AgentCaller(runner, tdir, self.agents, self.env)
                for choice in (self.cfg.agent_a, self.cfg.agent_b, self.cfg.judge):
                    caller.binary(spec_for(choice.agent, choice.command, self.agents))
                self.state.status = "running"
                self.state.error = None
                self._save()
                self.ui.run_started(
                    self.state.run_id, self.cfg, runner.name, runner.attach_hint(), self.resumed
                )
                self._debate(caller)
                self._judge(caller)
                spoke = [t for t in self.state.turns if t.status in ("ok", "abstain")]
                if self.state.turns and not spoke:
                    self.state.status = "failed"
                    last = self.state.turns[-1].meta.error or self.state.turns[-1].status
                    self.state.error = f"every turn failed (last: {last})"
                else:
                    self.state.status = "done"
                self._save()
                report.write_reports(self.state, self.run_dir)
            except KeyboardInterrupt:
                if self.state.status == "done":
                    # The signal came after the debate ended: keep the result, finish the files.
                    report.write_reports(self.state, self.run_dir)
                    return Outcome(self.state, self.run_dir)
                self.state.status = "interrupted"
                self.state.error = "interrupted"
                self._save()
                raise Interrupted(
                    f"interrupted; state saved — continue with: collab resume {self.state.run_id}"
                ) from None
            except (RunnerError, PrerequisiteError) as exc:
                self.state.status = "failed"
                self.state.error = str(exc)
                self._save()
                exc.message = (
                    f"{exc.message}; state saved — fix it, then: collab resume {self.state.run_id}"
                )
                raise
            finally:
                try:  # a late Ctrl-C/SIGTERM during close must not leave the temp dir behind
                    if runner is not None:
                        runner.close()
                finally:
                    tdir.cleanup()
                if not tdir.keep:
                    self.state.temp_dir = None
                    self._save()
        return Outcome(self.state, self.run_dir)

    # -- the loop ----------------------------------------------------------------------
    def _debate(self, caller: AgentCaller) -> None:
        st = self.state
        if st.stop_reason is not None:
            return
        for r in range(1, self.cfg.rounds + 1):
            if r in st.checked_rounds:
                continue
            self.ui.round_started(r, self.cfg.rounds)
            for side in SIDES:
                if st.turn(r, side) is not None:
                    continue
                reason = self._pre_turn_stop()
                if reason is not None:
                    self._stop(reason[0], reason[1])
                    return
                self._turn(caller, r, side)
            ledger = st.ledger()
            self.ui.round_finished(r, ledger)
            decision = convergence.check(
                st.round_ledgers(),
                self.cfg.rounds,
                angle_injected=st.angle is not None,
                budget_spent=self._budget_spent(),
            )
            st.checked_rounds.append(r)
            if decision.inject_angle:
                text = self.prompts.angle(r - 1)
                st.angle = Angle(round_no=r + 1, text=text, issue_ids=decision.circular_ids)
                self.ui.angle_injected(r + 1, text, decision.circular_ids)
            if decision.stop is not None:
                self._stop(decision.stop, decision.detail)
                return
            self._save()

    def _pre_turn_stop(self) -> tuple[str, str] | None:
        if self._budget_spent():
            return "timeout", f"time budget of {self.cfg.budget:g}s spent"
        cap = self.cfg.max_cost
        cost = self.state.cost_usd() or 0.0
        if cap is not None and cost >= cap:
            return "budget", f"cost ${cost:.4f} reached the --max-cost cap of ${cap:g}"
        return None

    def _stop(self, reason: str, detail: str) -> None:
        self.state.stop_reason = reason
        self.state.stop_detail = detail
        self._save()
        self.ui.stopped(reason, detail)

    def _turn(self, caller: AgentCaller, r: int, side: Side) -> None:
        st = self.state
        role = self.cfg.role(side)
        ledger = st.ledger()
        angle = st.angle.text if st.angle is not None and st.angle.round_no == r else None
        prompt = self.prompts.role(self.cfg, side, r, ledger, self._history(), angle)
        self.ui.turn_started(r, side, role.name)
        res = caller.call(
            f"r{r}-{side}",
            self.cfg.agent(side),
            prompt,
            self._timeout(self.cfg.turn_timeout),
            on_retry=lambda why, detail: self.ui.turn_retry(r, side, why, detail),
        )
        warnings: list[str] = []
        reask_meta: AgentMeta | None = None
        if res.status != "ok":
            rec = TurnRecord(
                round_no=r, side=side, role_name=role.name, status=res.status,
                reply=res.reply.text, prose=PLACEHOLDER[res.status], contract=None,
                contract_error=None, prompt_sha256=_digest(prompt), meta=res.meta,
                warnings=(f"turn failed: {res.meta.error}",) if res.meta.error else (),
            )  # fmt: skip
        else:
            known = [i.id for i in ledger.issues]
            parsed = contract_mod.parse(res.reply.text, known)
            contract, error = parsed.contract, parsed.error
            if contract is None:
                reask = self._reask(
                    caller, r, side, error or "invalid contract", ledger, parsed.prose
                )
                reask_meta = reask.meta
                if reask.status == "ok":
                    again = contract_mod.parse(reask.reply.text, known)
                    contract, error = again.contract, again.error
                if contract is None:
                    warnings.append(
                        f"Role {side}'s contract block was invalid twice ({error}); "
                        "ledger unchanged for this turn"
                    )
            status: TurnStatus = "abstain" if contract is not None and contract.abstain else "ok"
            rec = TurnRecord(
                round_no=r, side=side, role_name=role.name, status=status,
                reply=res.reply.text, prose=parsed.prose or "(contract only)",
                contract=contract, contract_error=error if contract is None else None,
                prompt_sha256=_digest(prompt), meta=res.meta, reask=reask_meta,
                warnings=tuple(warnings),
            )  # fmt: skip
        st.turns.append(rec)
        self._save()
        for w in rec.warnings:
            self.ui.warning(w)
        self.ui.turn_finished(rec)

    def _reask(
        self, caller: AgentCaller, r: int, side: Side, error: str, ledger: Ledger, prose: str
    ) -> CallResult:
        prompt = self.prompts.reask(self.cfg, side, error, ledger, previous=prose)
        return caller.call(
            f"r{r}-{side}-fix", self.cfg.agent(side), prompt,
            self._timeout(self.cfg.turn_timeout), attempts=1,
        )  # fmt: skip

    def _judge(self, caller: AgentCaller) -> None:
        st = self.state
        if st.judge is not None:
            return
        if st.stop_reason is None:
            st.stop_reason, st.stop_detail = "max-rounds", f"reached {self.cfg.rounds} rounds"
        self.ui.judge_started()
        ledger = st.ledger()
        cap = self.cfg.max_cost
        over_cap = cap is not None and (st.cost_usd() or 0.0) >= cap
        meta: AgentMeta | None = None
        text: str | None = None
        if not over_cap:
            prompt = self.prompts.judge(self.cfg, ledger, self._history(), st.stop_reason)
            res = caller.call(
                "judge", self.cfg.judge, prompt, self.cfg.judge_timeout,
                on_retry=lambda why, d: self.ui.warning(f"the judge: {why}, retrying once ({d})"),
            )  # fmt: skip
            meta = res.meta
            if res.status == "ok":
                text = res.reply.text
            else:
                self.ui.warning(f"the judge failed ({res.meta.error}); summarising from the ledger")
        else:
            self.ui.warning("cost cap reached: summarising from the ledger instead of the judge")
        fallback = text is None
        if text is None:
            text = report.fallback_summary(st)
        st.judge = Judge(text=text, fallback=fallback, meta=meta)
        self._save()
        self.ui.judge_finished(text, fallback)

    # -- helpers -----------------------------------------------------------------------
    def _history(self) -> list[TurnView]:
        return [
            TurnView(t.round_no, t.side, t.role_name, t.prose, t.status) for t in self.state.turns
        ]

    def _elapsed(self) -> float:
        return time.monotonic() - self._started

    def _budget_spent(self) -> bool:
        return self._elapsed() >= self.cfg.budget

    def _timeout(self, turn_timeout: float) -> float:
        """A turn may not run past the whole run's budget (but gets at least a second)."""
        return max(1.0, min(turn_timeout, self.cfg.budget - self._elapsed()))

    def _save(self) -> None:
        self.run_dir.save(self.state.to_dict())


def drive(state: RunState, run_dir: RunDir, listener: Listener, *, resumed: bool) -> RunState:
    """Start or continue one run with the user's agents and the run's runner."""
    orch = Orchestrator(
        state,
        run_dir,
        agents=load_agents(),
        runner_factory=runner_factory(state.config.runner),
        listener=listener,
        resumed=resumed,
    )
    return orch.run().state


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


@contextmanager
def _sigterm_as_interrupt() -> Iterator[None]:
    """SIGTERM ends a run like Ctrl-C: agents killed, state saved, resumable."""

    def handler(signum: int, frame: FrameType | None) -> None:
        raise KeyboardInterrupt

    try:
        old = signal.signal(signal.SIGTERM, handler)
    except ValueError:  # not the main thread
        yield
        return
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, old)
