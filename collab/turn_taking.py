"""One debater's turn, and the Judge's: prompt, call, contract (with the one re-ask) and
the record that is saved. The orchestrator decides when; this decides what a turn is.

Both may run on a worker thread (the blind round 1 runs both sides at once), so they
touch no shared state: they read what they are given and return a record.
"""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from collab.caller import AgentCaller, CallResult
from collab.config import DebateConfig
from collab.contract import Contract
from collab.contract_parse import parse as parse_contract
from collab.decision import option_ids as option_ids_of
from collab.eventlog import EventStream
from collab.events import FollowupFinished, FollowupStarted, RunWarning, TurnRetry, TurnStarted
from collab.judge import answer
from collab.judge.labels import Labels
from collab.ledger import Ledger
from collab.prices import fmt_cost
from collab.prompts import Prompts, TurnView
from collab.seats import SEAT_ICON, Side
from collab.store import RunDir
from collab.text import cap
from collab.turns import PLACEHOLDER, AgentMeta, TurnRecord, TurnStatus

# A reply beyond this many times --max-chars is cut with a marker (stored, shown, forwarded).
REPLY_CAP_FACTOR = 8
JUDGE_TEXT_CAP = 40_000
SIDE_ICON = SEAT_ICON

REPLIES_DIR = "replies"

# A monotonic clock: time.monotonic, or a fake one in tests.
Clock = Callable[[], float]


@dataclass(frozen=True)
class TurnContext:
    """What a turn needs from its run, built once by the orchestrator and handed down:
    nothing below asks back up for the time left or for where things go."""

    events: EventStream  # who hears what the turn does (safe across threads)
    deadline: float  # when the run's time budget ends, on ``clock``
    clock: Clock
    cancel: threading.Event  # set when the run stops: a running call ends
    run_dir: RunDir | None = None  # where the whole reply goes (replies/); None: nowhere

    def timeout(self, turn_timeout: float) -> float:
        """A call may not run past the run's budget (but gets at least a second)."""
        return max(1.0, min(turn_timeout, self.deadline - self.clock()))

    def keep_reply(self, r: int, side: Side, text: str) -> str | None:
        """The whole reply, once, as a file: state.json keeps it cut at the reply cap."""
        if self.run_dir is None:
            return None
        name = f"{REPLIES_DIR}/r{r}-{side}.txt"
        (self.run_dir.path / REPLIES_DIR).mkdir(mode=0o700, exist_ok=True)
        self.run_dir.write_text(name, text)
        return name


@dataclass(frozen=True)
class JudgeAnswer:
    text: str | None  # None: the Judge did not answer (the caller falls back to the ledger)
    raw: str | None
    meta: AgentMeta | None


@dataclass(frozen=True)
class FollowUpAnswer:
    text: str  # as kept; a placeholder when the call failed
    status: str
    meta: AgentMeta
    prompt_chars: int


class Turns:
    def __init__(self, cfg: DebateConfig, prompts: Prompts) -> None:
        self.cfg = cfg
        self.prompts = prompts

    def reply_cap(self) -> int:
        """Beyond this a reply is cut (a generous multiple of --max-chars)."""
        return REPLY_CAP_FACTOR * self.cfg.max_chars

    def take(
        self,
        ctx: TurnContext,
        caller: AgentCaller,
        r: int,
        side: Side,
        ledger: Ledger,
        history: Sequence[TurnView],
        angle: str | None,
        *,
        blind: bool = False,
        note: str | None = None,
        cross_check: bool = False,
    ) -> TurnRecord:
        """``blind``: the prompt shows nothing of this round's other side (round 1).
        ``note``: the decider's note (a round added by ``collab continue``).
        ``cross_check``: the short stances-only round of ``--depth auto``. The reply as
        the agent wrote it, uncut, goes to the run dir once."""
        role = self.cfg.role(side)
        ui = ctx.events
        prompt = self.prompts.role(
            self.cfg,
            side,
            r,
            ledger,
            history,
            angle,
            blind=blind,
            note=note,
            cross_check=cross_check,
        )
        ui.emit(TurnStarted(r, side, role.name))
        res = caller.call(
            f"r{r}-{side}",
            self.cfg.agent(side),
            prompt,
            ctx.timeout(self.cfg.turn_timeout),
            on_retry=lambda why, detail: ui.emit(TurnRetry(r, side, why, detail)),
            title=f"{SIDE_ICON[side]} Role {side} ({role.name}) · round {r}/{self.cfg.rounds}",
            seat_title=f"{side} · {role.name}",
            tools=self.cfg.tools,
            on_text=lambda text, elapsed: ui.turn_output(r, side, text, elapsed),
            text_limit=self.reply_cap(),
            cancel=ctx.cancel,
        )
        raw_file = ctx.keep_reply(r, side, res.reply.text)
        if res.status != "ok":
            return TurnRecord(
                round_no=r, side=side, role_name=role.name, status=res.status,
                reply=cap(res.reply.text, self.reply_cap()), prose=PLACEHOLDER[res.status],
                contract=None,
                contract_error=None, prompt_sha256=_digest(prompt), meta=res.meta,
                warnings=(f"turn failed: {res.meta.error}",) if res.meta.error else (),
                raw_file=raw_file,
            )  # fmt: skip
        warnings: list[str] = []
        reask_meta: AgentMeta | None = None
        known = [i.id for i in ledger.issues]
        option_ids = option_ids_of(self.cfg.options)
        parsed = parse_contract(res.reply.text, known, option_ids=option_ids)
        contract, error = parsed.contract, parsed.error
        used = parsed
        caller.summarize(res, pane_summary(res, contract, error))
        if contract is None:
            # Nothing usable is left: one re-ask for exactly what was wrong.
            why = error or "invalid contract"
            reask = self._reask(ctx, caller, r, side, why, ledger, parsed.prose)
            reask_meta = reask.meta
            if reask.status == "ok":
                again = parse_contract(reask.reply.text, known, option_ids=option_ids)
                contract, error = again.contract, again.error
                if contract is not None:
                    used = again
            caller.summarize(reask, pane_summary(reask, contract, error))
            if contract is None:
                warnings.append(
                    f"Role {side}'s contract block was unusable twice ({error}); "
                    "ledger unchanged for this turn"
                )
        if contract is not None and used.warnings:
            warnings.append(f"Role {side}'s contract: " + "; ".join(used.warnings))
        status: TurnStatus = "abstain" if contract is not None and contract.abstain else "ok"
        return TurnRecord(
            round_no=r, side=side, role_name=role.name, status=status,
            # The whole reply was parsed; what is kept and shown is cut at the cap, with
            # a marker (the full text goes once to the run dir's replies/).
            reply=cap(res.reply.text, self.reply_cap()),
            prose=cap(parsed.prose, self.reply_cap()) or "(contract only)",
            contract=contract, contract_error=error if contract is None else None,
            prompt_sha256=_digest(prompt), meta=res.meta, reask=reask_meta,
            warnings=tuple(warnings), items_sent=used.sent, items_kept=used.kept,
            raw_file=raw_file,
        )  # fmt: skip

    def _reask(
        self,
        ctx: TurnContext,
        caller: AgentCaller,
        r: int,
        side: Side,
        error: str,
        ledger: Ledger,
        prose: str,
    ) -> CallResult:
        prompt = self.prompts.reask(self.cfg, side, error, ledger, previous=prose)
        return caller.call(
            f"r{r}-{side}-fix", self.cfg.agent(side), prompt,
            ctx.timeout(self.cfg.turn_timeout), attempts=1,
            title=f"{SIDE_ICON[side]} Role {side}: the json block again", cancel=ctx.cancel,
            seat_title=f"{side} · {self.cfg.role(side).name}",
        )  # fmt: skip

    def judge(
        self,
        ctx: TurnContext,
        caller: AgentCaller,
        ledger: Ledger,
        history: Sequence[TurnView],
        stop_reason: str,
        labels: Labels,
        note: str | None = None,
        absent: Sequence[tuple[int, Side]] = (),
    ) -> JudgeAnswer:
        """``absent``: (round, seat) of each seat that answered no turn of a round."""
        prompt = self.prompts.judge(self.cfg, ledger, history, stop_reason, labels, note, absent)
        ui = ctx.events
        res = self._call_judge(ctx, caller, "judge", prompt)
        if res.status != "ok":
            ui.emit(RunWarning(f"the judge failed ({res.meta.error}); summarising from the ledger"))
            return JudgeAnswer(None, None, res.meta)
        raw = cap(res.reply.text, JUDGE_TEXT_CAP)
        # Judged by its sections, wherever they are: never by its length.
        missing = answer.missing_sections(res.reply.text, ledger)
        if missing:  # a failed Judge: one retry naming what was missing
            names = answer.section_names(missing, self.cfg.lang)
            ui.emit(RunWarning(f"the judge's answer has no {names} section; asking once more"))
            again = self._call_judge(
                ctx, caller, "judge-fix", prompt + answer.retry_note(missing, self.cfg.lang)
            )
            meta = answer.merged_meta(res.meta, again.meta)
            if again.status == "ok":
                raw = cap(again.reply.text, JUDGE_TEXT_CAP)
                missing = answer.missing_sections(again.reply.text, ledger)
            if again.status != "ok" or missing:
                left = answer.section_names(missing, self.cfg.lang) if missing else None
                why = f"still no {left} section" if left else f"failed ({again.meta.error})"
                ui.emit(RunWarning(f"the judge's answer {why}; summarising from the ledger"))
                return JudgeAnswer(None, raw, meta)
            return JudgeAnswer(answer.finish(raw, labels, ledger, self.cfg.lang), raw, meta)
        return JudgeAnswer(answer.finish(raw, labels, ledger, self.cfg.lang), raw, res.meta)

    def _call_judge(
        self, ctx: TurnContext, caller: AgentCaller, sid: str, prompt: str
    ) -> CallResult:
        ui = ctx.events
        res = caller.call(
            sid, self.cfg.judge, prompt, self.cfg.judge_timeout,
            on_retry=lambda why, d: ui.emit(RunWarning(f"the judge: {why}, retrying once ({d})")),
            title="⚖ The Judge", seat_title="Judge", on_text=ui.judge_output,
            text_limit=JUDGE_TEXT_CAP,
            cancel=ctx.cancel,
        )  # fmt: skip
        caller.summarize(res, f"{res.status} · {res.meta.duration:.1f}s")
        return res

    def follow_up(
        self,
        ctx: TurnContext,
        caller: AgentCaller,
        seat: Side | None,
        question: str,
        ledger: Ledger,
        *,
        last_reply: str | None,
        summary: str | None,
        labels: Labels,
    ) -> FollowUpAnswer:
        """``collab ask``: one more turn for ``seat`` (None: the Judge); no contract, so
        the ledger is left as it is."""
        name = "judge" if seat is None else seat
        prompt = self.prompts.followup(
            self.cfg, seat, ledger, question, last_reply=last_reply, summary=summary,
            labels=labels,
        )  # fmt: skip
        choice = self.cfg.judge if seat is None else self.cfg.agent(seat)
        timeout = self.cfg.judge_timeout if seat is None else self.cfg.turn_timeout
        title = "⚖ The Judge" if seat is None else f"{SIDE_ICON[seat]} Role {seat}"
        ui = ctx.events
        ui.emit(FollowupStarted(name, question))
        res = caller.call(
            f"ask-{name}", choice, prompt, ctx.timeout(timeout),
            on_retry=lambda why, d: ui.emit(RunWarning(f"follow-up to {name}: {why} ({d})")),
            title=f"{title} · a follow-up question",
            seat_title="Judge" if seat is None else f"{seat} · {self.cfg.role(seat).name}",
            on_text=lambda text, elapsed: ui.followup_output(name, text, elapsed),
            text_limit=self.reply_cap(), cancel=ctx.cancel,
        )  # fmt: skip
        caller.summarize(res, f"{res.status} · {res.meta.duration:.1f}s")
        if res.status != "ok":
            answer = PLACEHOLDER[res.status]
        else:
            answer = cap(res.reply.text.strip(), self.reply_cap())
            if seat is None:
                answer = labels.reveal(answer)
        ui.emit(FollowupFinished(name, answer, res.status))
        return FollowUpAnswer(answer, res.status, res.meta, len(prompt))


def pane_summary(res: CallResult, contract: Contract | None, error: str | None) -> str:
    """The line under a turn in its pane: what it contributed and what it cost."""
    if contract is None:
        what = f"no usable contract block ({error})" if error else "no contract block"
    elif contract.abstain:
        what = "abstains"
    else:
        n = len(contract.new_points)
        what = f"{n} new point{'s' if n != 1 else ''}"
        if contract.stances:
            what += " · " + ", ".join(f"{x.stance} {x.id}" for x in contract.stances)
    bits = [what, f"{res.meta.duration:.1f}s"]
    usage = res.meta.usage
    if usage is not None:
        bits.append(f"{usage.input_tokens:,} in / {usage.output_tokens:,} out tokens")
    if res.meta.cost_usd is not None:
        bits.append(fmt_cost(res.meta.cost_usd, res.meta.cost_estimated))
    return " · ".join(bits)


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()
