"""7. Lean turns: input tokens per call beyond our own prompt, and what a debate costs.

The real ``claude`` against FakeAnthropic with ``Reply(count_input=True)``: the fake
reports input tokens as the request body's bytes / 4 (as REAL_AGENTS.md measured), and
the CLI computes ``total_cost_usd`` from them at its model's price (the default model).

- BEFORE: the first release's argv, ``claude -p --output-format json
  --no-session-persistence`` (Claude Code's system prompt, every tool, the user's setup);
- AFTER: collab's built-in claude argv, default path
  (``build_argv(BUILTIN["claude"], …, setup="lean", tools="none")``).

The prompts are the seven of a 3-round debate + judge, rendered by
``collab.prompts.Prompts`` with a ledger that grows as in ``bench/prompts.py``; each
variant sends the same seven, interleaved, and gets the same scripted reply (output
tokens = reply chars / 4). "Beyond our own prompt" = reported input tokens −
UTF-8 bytes of our prompt / 4 (what the CLI adds: system prompt, tool schemas, its
date reminder, and the JSON escaping of our prompt, noted apart).

Then, end to end, ``python -m collab debate … --rounds 3 --opening sequential --runner
subprocess --json`` twice against the same scripted fake: ``--agent claude`` (built-in)
and ``--agent claude-old`` (``[agents.claude-old]`` in a temporary COLLAB_HOME with the
first release's argv); the cost is the run's ``cost_usd``.
"""

from __future__ import annotations

import contextlib
import json
import random
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from bench.agent import prose
from bench.env import Ctx, python_exe
from bench.fakeclaude import FIRST_RELEASE_TAIL, RealClaude, real_claude, unavailable
from bench.procs import run_cmd
from bench.results import BenchResult, le
from bench.stats import median, summary

if TYPE_CHECKING:
    from collab.config import DebateConfig

NAME = "tokens"
ROUNDS = 3
TOPIC = "Should our public API replace server-side sessions with stateless JWTs?"
TARGET_BEYOND = 500
VARIANTS = ("before", "after")
ROLE_A = "(Role A) in a structured debate"
ROLE_B = "(Role B) in a structured debate"
JUDGE = "neutral judge"


@dataclass(frozen=True)
class Step:
    label: str  # r1-A … judge
    prompt: str
    reply: str


def _config() -> DebateConfig:
    from collab.agents import BUILTIN
    from collab.options import DebateRequest
    from collab.request import build_config

    req = DebateRequest(topic=TOPIC, rounds=ROUNDS, lang="en", opening="sequential")
    return build_config(req, BUILTIN.keys())


def judge_reply(seed: int = 5) -> str:
    return (
        "## TL;DR\n- " + prose(120, seed) + "\n- " + prose(120, seed + 1) + "\n\n## Crux\n"
        + prose(200, seed + 2) + "\n\n## Agreements\n- " + prose(250, seed + 3)
        + "\n\n## Open issues\n- I1: " + prose(300, seed + 4) + "\n"
    )  # fmt: skip


def debate_steps(seed: int = 11) -> list[Step]:
    """The seven prompts of a 3-round sequential debate + judge, as collab renders them,
    and a reply for each (prose + a contract that raises and answers points)."""
    from bench.prompts import _reply
    from collab.contract_parse import parse
    from collab.judge.answer import labels_for
    from collab.ledger import Ledger, apply
    from collab.prompts import Prompts, TurnView

    cfg = _config()
    p = Prompts(cfg.lang)
    rng = random.Random(seed)
    ledger = Ledger()
    history: list[TurnView] = []
    steps: list[Step] = []
    n = 0
    for r in range(1, ROUNDS + 1):
        for side in ("A", "B"):
            n += 1
            prompt = p.role(cfg, side, r, ledger, history, None)
            reply = _reply(rng, ledger, side, r, n * 101)
            parsed = parse(reply, [i.id for i in ledger.issues])
            if parsed.contract is None:
                raise RuntimeError(f"bench reply rejected: {parsed.error}")
            ledger = apply(ledger, side, r, parsed.contract)
            history.append(TurnView(r, side, cfg.role(side).name, parsed.prose, "ok"))
            steps.append(Step(f"r{r}-{side}", prompt, reply))
    labels = labels_for("bench-tokens", None, cfg.role_a.name, cfg.role_b.name)
    steps.append(Step("judge", p.judge(cfg, ledger, history, "max-rounds", labels), judge_reply()))
    return steps


def _json_escaped_bytes(text: str) -> int:
    """Our prompt's bytes as they sit in the request body (JSON string escaping)."""
    return len(json.dumps(text, ensure_ascii=False).encode("utf-8")) - 2


def run(ctx: Ctx) -> BenchResult:
    res = BenchResult(NAME)
    ctx.env.activate()
    why = unavailable()
    if why is not None:
        res.skip("tokens: input tokens per call beyond our prompt", "tokens", None, why)
        return res
    steps = debate_steps()
    passes = ctx.n(1, 2)
    samples: list[dict[str, Any]] = []
    e2e: dict[str, dict[str, Any]] = {}
    with real_claude(ctx, "tokens") as rc:
        from tests.fakes import Reply

        prompt_file = rc.work / "prompt.txt"
        for k in range(passes):
            for i, step in enumerate(steps):
                order = VARIANTS if (k + i) % 2 == 0 else VARIANTS[::-1]
                for variant in order:
                    prompt_file.write_text(step.prompt, encoding="utf-8")
                    rc.server.default(
                        Reply(text=step.reply, output_tokens=len(step.reply) // 4, count_input=True)
                    )
                    argv = (
                        rc.first_release_argv()
                        if variant == "before"
                        else rc.current_argv(prompt_file)
                    )
                    call = rc.call(argv, prompt_file)
                    samples.append(_sample(variant, step, call, k))
            ctx.say(f"  tokens: pass {k + 1}/{passes} ({len(samples)} calls)")
        for variant in VARIANTS:
            e2e[variant] = _e2e_debate(ctx, rc, variant)
            ctx.say(f"  tokens: end-to-end debate, {variant}: ${e2e[variant]['cost_usd']}")

    def of(variant: str, key: str) -> list[float]:
        return [float(s[key]) for s in samples if s["variant"] == variant]

    beyond = {v: median(of(v, "beyond")) for v in VARIANTS}
    reported = {v: median(of(v, "input_tokens")) for v in VARIANTS}
    res.row(
        "tokens: input tokens per call beyond our prompt, BEFORE (first release argv)",
        beyond["before"],
        "tokens",
        None,
        f"median of {len(of('before', 'beyond'))} calls · reported {reported['before']:,.0f}"
        " · `claude -p --output-format json --no-session-persistence`",
    )
    res.row(
        "tokens: input tokens per call beyond our prompt, AFTER (built-in argv)",
        beyond["after"],
        "tokens",
        le(TARGET_BEYOND),
        f"median of {len(of('after', 'beyond'))} · {beyond['before'] / beyond['after']:.0f}× "
        f"fewer · of which JSON escaping of our prompt "
        f"{median(of('after', 'escaping')):.0f}",
    )
    # Cost of the seven calls (one debate), per pass; the pass medians.
    cost: dict[str, list[float]] = {v: [] for v in VARIANTS}
    for v in VARIANTS:
        for k in range(passes):
            cost[v].append(sum(s["cost"] for s in samples if s["variant"] == v and s["pass"] == k))
    c_before, c_after = median(cost["before"]), median(cost["after"])
    res.row(
        "tokens: cost of a 3-round debate + judge (7 calls), BEFORE",
        c_before,
        "$",
        None,
        "the CLI's total_cost_usd at the default model's price, fake API token counts",
    )
    res.row(
        "tokens: cost of a 3-round debate + judge (7 calls), AFTER",
        c_after,
        "$",
        None,
        f"{c_after / c_before:.2f}× of BEFORE ({(1 - c_after / c_before) * 100:.0f} % less)",
    )
    eb, ea = e2e["before"], e2e["after"]
    if eb.get("cost_usd") and ea.get("cost_usd"):
        res.row(
            "tokens: `collab debate --rounds 3` end to end, cost AFTER",
            ea["cost_usd"],
            "$",
            None,
            f"BEFORE (`[agents.claude-old]`) ${eb['cost_usd']:.4f} → "
            f"{ea['cost_usd'] / eb['cost_usd']:.2f}× · input tokens "
            f"{eb['input_tokens']:,} → {ea['input_tokens']:,} · {ea['calls']} calls each",
        )
    res.data = {
        "model_price_source": "the claude CLI's own price table (default model)",
        "binary": rc.binary,
        "version": rc.version,
        "first_release_argv_tail": list(FIRST_RELEASE_TAIL),
        "current_argv_example": _redacted(rc, prompt_file),
        "beyond_tokens": {v: summary(of(v, "beyond")) for v in VARIANTS},
        "input_tokens": {v: summary(of(v, "input_tokens")) for v in VARIANTS},
        "cost_usd_per_debate": {v: summary(cost[v]) for v in VARIANTS},
        "calls": samples,
        "e2e": e2e,
        "prompt_chars": {s.label: len(s.prompt) for s in steps},
    }
    return res


def _redacted(rc: RealClaude, prompt_file: Any) -> list[str]:
    return [a.replace(str(rc.binary), "claude") for a in rc.current_argv(prompt_file)]


def _sample(variant: str, step: Step, call: Any, k: int) -> dict[str, Any]:
    prompt_bytes = len(step.prompt.encode("utf-8"))
    escaped = _json_escaped_bytes(step.prompt)
    sent = [r for r in call.requests if getattr(r, "body", None)]
    if len(sent) != 1:
        raise RuntimeError(f"{variant} {step.label}: {len(sent)} model requests, expected 1")
    if not _carries_prompt(sent[0].body, step.prompt):
        raise RuntimeError(f"{variant} {step.label}: our prompt is not a text block of the request")
    return {
        "variant": variant,
        "pass": k,
        "step": step.label,
        "prompt_chars": len(step.prompt),
        "prompt_bytes": prompt_bytes,
        "input_tokens": call.input_tokens,
        "beyond": call.input_tokens - prompt_bytes / 4,
        "escaping": (escaped - prompt_bytes) / 4,
        "beyond_escaped_prompt": call.input_tokens - escaped / 4,
        "tools_offered": len(sent[0].body.get("tools") or []),
        "output_tokens": int((call.doc.get("usage") or {}).get("output_tokens") or 0),
        "cost": call.cost,
        "wall_s": round(call.wall, 3),
    }


def _carries_prompt(body: dict[str, Any], prompt: str) -> bool:
    """Our prompt reached the API whole, as one text block (or message) of its own."""
    want = prompt.strip()
    for msg in body.get("messages") or []:
        content = msg.get("content")
        blocks = content if isinstance(content, list) else [{"text": content}]
        if any(isinstance(b, dict) and str(b.get("text", "")).strip() == want for b in blocks):
            return True
    return False


def _e2e_debate(ctx: Ctx, rc: RealClaude, variant: str) -> dict[str, Any]:
    """One ``collab debate`` run against the scripted fake; its cost and tokens."""
    from tests.fakes import Reply

    home = ctx.env.root / f"tokens-home-{variant}"
    home.mkdir(exist_ok=True)
    old = [rc.binary, *FIRST_RELEASE_TAIL]
    (home / "config.toml").write_text(
        "[agents.claude-old]\n"
        f"argv = {json.dumps(old)}\n"
        'output = "claude-json"\n'
        'env_unset = ["CLAUDECODE", "CLAUDE_CODE_ENTRYPOINT"]\n',
        encoding="utf-8",
    )
    srv = rc.server
    srv.reset()
    replies = {side: [s for s in debate_steps() if s.label.endswith(side)] for side in "AB"}

    def rep(text: str) -> Any:
        return Reply(text=text, output_tokens=len(text) // 4, count_input=True)

    srv.add_rule(JUDGE, [rep(judge_reply())])
    srv.add_rule(ROLE_A, [rep(s.reply) for s in replies["A"]])
    srv.add_rule(ROLE_B, [rep(s.reply) for s in replies["B"]])
    srv.default(Reply(status=400, error_message="unexpected prompt"))
    agent = "claude" if variant == "after" else "claude-old"
    argv = [
        python_exe(), "-m", "collab", "debate", TOPIC, "--agent", agent,
        "--rounds", str(ROUNDS), "--runner", "subprocess", "--opening", "sequential",
        "--json",
    ]  # fmt: skip
    env = dict(rc.env)  # claude pointed at the fake; children cache bytecode (env.py)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env["PYTHONPYCACHEPREFIX"] = str(ctx.env.pycache)
    env.update(COLLAB_HOME=str(home), COLLAB_CLAUDE_BIN=rc.binary)
    wall, proc = run_cmd(argv, env, rc.work, timeout=600)
    doc: dict[str, Any] = {}
    with contextlib.suppress(ValueError):
        doc = json.loads(proc.stdout)
    if proc.returncode != 0 or doc.get("status") != "done" or srv.default_count:
        raise RuntimeError(
            f"e2e {variant} debate: exit {proc.returncode}, status {doc.get('status')}, "
            f"{srv.default_count} unexpected prompts; {proc.stderr[-300:]!r}"
        )
    tokens = doc.get("tokens") or {}
    return {
        "agent": agent,
        "cost_usd": doc.get("cost_usd"),
        "input_tokens": tokens.get("input"),
        "output_tokens": tokens.get("output"),
        "calls": len(srv.requests),
        "wall_s": round(wall, 2),
        "stop_reason": doc.get("stop_reason"),
    }
