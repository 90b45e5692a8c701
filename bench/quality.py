"""``python -m bench --only quality``: decision quality, the protocols side by side.

    python -m bench --only quality                         # the fake agent (the machinery)
    python -m bench --only quality --agent claude --model claude-sonnet-4-5
    python -m bench --only quality --cases DIR             # your own cases
    python -m bench --only quality --check-cases DIR       # validate a case directory
    python -m bench --only quality --rescore bench/results/quality-….json

Every case (``bench/cases/*/case.toml``, see docs/quality-cases.md) runs under each
protocol, in the case's directory, its files given as context files:

- ``single``: the baseline, one call of the same agent and model: the prompt of a debate's
  opening turn (Role A, the reviewer, blind, "round 1 of 1"), the same json block, the
  same parse and re-ask; its points form a one-seat ledger, scored like the others;
- ``quick``: a two-seat debate with ``--rounds 2`` and the Judge (collab has no
  ``--depth`` yet: this is ``standard`` with two rounds);
- ``standard``: a two-seat debate with collab's default 3 rounds and the Judge.

Scores come from each sample's final ledger (``bench.quality_score``), never from the
Judge's prose. Every sample (its ledger, calls, tokens, cost, wall time) and the answer
keys go to ``bench/results/quality-<time>.json``, so ``--rescore`` gives the same table
from the files alone.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from typing import Any

from bench.env import REPO, RESULTS_DIR, BenchEnv
from bench.quality_cases import Case, CaseError, case_dirs, load_all, problems
from bench.quality_score import Total, score

CASES_DIR = Path(__file__).resolve().parent / "cases"
FAKE_AGENT = REPO / "tests" / "fakes" / "fake_agent.py"
FAKE_BANNER = "fake agent: measures the machinery, not decision quality"
PROTOCOLS: dict[str, int] = {"single": 1, "quick": 2, "standard": 3}
PROTOCOL_NOTES = {
    "single": "one call, the debate's opening prompt (the baseline)",
    "quick": "standard with --rounds 2 (no --depth in collab yet) + Judge",
    "standard": "2 seats, 3 rounds + Judge",
}
REVIEWER = (
    "Reviewer: You review the material for the question asked. You look for the flaws that "
    "would make the decision wrong: bugs, security holes, broken guarantees, missing checks. "
    "You raise each real flaw once, with the exact place (path:line) and why it matters, and "
    "rate it honestly; when the material is correct you say so and raise nothing blocking."
)
AUTHOR = (
    "Author: You wrote the material and want it accepted. You defend what is correct with "
    "evidence from the files, concede a flaw only when the evidence shows it is real, and "
    "challenge any claim whose cited line does not say what the claim says."
)


def wanted(argv: Sequence[str]) -> bool:
    """Was ``--only quality`` asked for (it has its own options)?"""
    for i, arg in enumerate(argv):
        value = arg.split("=", 1)[1] if arg.startswith("--only=") else None
        if arg == "--only" and i + 1 < len(argv):
            value = argv[i + 1]
        if value is not None and "quality" in value.split(","):
            return True
    return False


def parse_args(argv: Sequence[str]) -> argparse.Namespace:
    p = argparse.ArgumentParser(
        prog="python -m bench --only quality", description=__doc__.split("\n\n")[0]
    )
    p.add_argument("--only", help=argparse.SUPPRESS)
    p.add_argument("--cases", type=Path, default=CASES_DIR, metavar="DIR")
    p.add_argument("--case", action="append", metavar="NAME", help="only these cases")
    p.add_argument("--check-cases", type=Path, metavar="DIR", help="validate DIR and exit")
    p.add_argument("--rescore", nargs="+", type=Path, metavar="RUN", help="re-score results")
    p.add_argument("--agent", default="fake", help="collab agent name (default: fake)")
    p.add_argument("--model", default=None)
    p.add_argument(
        "--protocols", default=",".join(PROTOCOLS), help=f"comma-separated: {', '.join(PROTOCOLS)}"
    )
    p.add_argument("--repeat", type=int, default=1, metavar="K", help="samples per case")
    p.add_argument("--fake-script", type=Path, help="the fake agent's script (default: generic)")
    p.add_argument("--label", default=None, help="a line printed above the table")
    p.add_argument(
        "--grader", metavar="AGENT", help="also ask AGENT which issues name each flaw (a column)"
    )
    p.add_argument("--grader-model", metavar="MODEL", default=None)
    p.add_argument("--turn-timeout", type=float, default=None, metavar="S")
    p.add_argument("--out", type=Path, default=None, help="the results file")
    p.add_argument("-q", "--quiet", action="store_true")
    return p.parse_args(list(argv))


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(sys.argv[1:] if argv is None else argv)
    if args.check_cases is not None:
        return check_cases(args.check_cases)
    if args.rescore:
        docs = [json.loads(p.read_text(encoding="utf-8")) for p in args.rescore]
        samples = [s for d in docs for s in d["samples"]]
        keys = {k: v for d in docs for k, v in d["keys"].items()}
        if args.grader:
            _grade(samples, keys, args.grader, args.grader_model)
        print_table(score(samples, keys), docs[0].get("label"), args.rescore[0].name)
        return 0
    protocols = [x.strip() for x in args.protocols.split(",") if x.strip()]
    bad = [x for x in protocols if x not in PROTOCOLS]
    if bad or not protocols:
        print(f"unknown protocol {bad[0] if bad else ''!r}; choose from {', '.join(PROTOCOLS)}")
        return 2
    if args.repeat < 1 or args.repeat > 20:
        print("--repeat must be 1–20")
        return 2
    try:
        cases = load_all(args.cases)
    except (CaseError, OSError) as exc:
        print(f"cases: {exc}")
        return 2
    if args.case:
        unknown = sorted(set(args.case) - {c.name for c in cases})
        if unknown:
            print(f"no case {unknown[0]!r} in {args.cases}")
            return 2
        cases = [c for c in cases if c.name in args.case]
    label = args.label or (FAKE_BANNER if args.agent == "fake" else None)
    say = (lambda _t: None) if args.quiet else _say
    out = args.out or RESULTS_DIR / f"quality-{time.strftime('%Y%m%d-%H%M%S')}.json"
    out.parent.mkdir(parents=True, exist_ok=True)

    def save(doc: dict[str, Any]) -> None:
        doc["label"] = label
        tmp = out.with_name(out.name + ".tmp")
        tmp.write_text(json.dumps(doc, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
        tmp.replace(out)

    doc = run(
        cases, args.cases, protocols, args.agent, args.model, args.repeat,
        fake_script=args.fake_script, say=say, turn_timeout=args.turn_timeout, on_sample=save,
    )  # fmt: skip
    doc["label"] = label
    if args.grader:
        _grade(doc["samples"], doc["keys"], args.grader, args.grader_model)
        doc["grader"] = {"agent": args.grader, "model": args.grader_model}
    save(doc)
    print_table(score(doc["samples"], doc["keys"]), label, out.name)
    print(f"results: {out}")
    return 0


def _say(text: str) -> None:
    print(f"[quality {time.strftime('%H:%M:%S')}] {text}", file=sys.stderr, flush=True)


def check_cases(root: Path) -> int:
    if not root.is_dir():
        print(f"{root}: not a directory")
        return 2
    dirs = case_dirs(root)
    if not dirs:
        print(f"{root}: no case directories (each holds a case.toml)")
        return 2
    bad = 0
    for d in dirs:
        wrong = problems(d)
        bad += 1 if wrong else 0
        print(f"{d.name}: " + ("ok" if not wrong else "; ".join(wrong)))
    print(f"{len(dirs) - bad} of {len(dirs)} cases valid")
    return 1 if bad else 0


# -- running -----------------------------------------------------------------------------


def run(
    cases: Sequence[Case],
    root: Path,
    protocols: Sequence[str],
    agent: str,
    model: str | None,
    repeat: int,
    *,
    fake_script: Path | None = None,
    say: Callable[[str], None] = _say,
    turn_timeout: float | None = None,
    on_sample: Callable[[dict[str, Any]], None] | None = None,
) -> dict[str, Any]:
    """Every case × protocol × repeat, interleaved; the results document (also handed to
    ``on_sample`` after each sample, so an interrupted run keeps what it measured)."""
    env = BenchEnv()
    samples: list[dict[str, Any]] = []
    started = time.time()
    saved = os.environ.get("COLLAB_FAKE_SCRIPT")
    try:
        _register_fake(env, fake_script)
        env.activate()
        for k in range(repeat):
            for case in cases:
                for protocol in protocols:
                    say(f"{case.name} · {protocol} · {k + 1}/{repeat}")
                    with _inside(root / case.name):
                        sample = _sample(case, protocol, agent, model, turn_timeout)
                    samples.append({"case": case.name, "protocol": protocol, "repeat": k,
                                    **sample})  # fmt: skip
                    if on_sample is not None:
                        on_sample(_doc(agent, model, protocols, repeat, started, cases, samples))
    finally:
        env.close()
        if saved is None:
            os.environ.pop("COLLAB_FAKE_SCRIPT", None)
        else:
            os.environ["COLLAB_FAKE_SCRIPT"] = saved
    return _doc(agent, model, protocols, repeat, started, cases, samples)


def _doc(
    agent: str,
    model: str | None,
    protocols: Sequence[str],
    repeat: int,
    started: float,
    cases: Sequence[Case],
    samples: list[dict[str, Any]],
) -> dict[str, Any]:
    return {
        "schema": "collab.bench.quality/1",
        "agent": agent,
        "model": model,
        "protocols": {p: PROTOCOL_NOTES[p] for p in protocols},
        "repeat": repeat,
        "started": time.strftime("%Y-%m-%dT%H:%M:%S%z", time.localtime(started)),
        "seconds": round(time.time() - started, 1),
        "keys": {c.name: c.key() for c in cases},
        "samples": samples,
    }


def _register_fake(env: BenchEnv, script: Path | None) -> None:
    with (env.home / "config.toml").open("a", encoding="utf-8") as f:
        f.write(
            "[agents.fake]\n"
            f"argv = [{json.dumps(sys.executable)}, {json.dumps(str(FAKE_AGENT))},"
            ' "--format", "claude-json"]\n'
            'model_argv = ["--model", "{model}"]\n'
            'output = "claude-json"\n'
        )
    if script is None:
        script = env.root / "fake-script.json"
        script.write_text(json.dumps(GENERIC_SCRIPT), encoding="utf-8")
    for suffix in (".state.json", ".calls.jsonl"):  # the fake's reply counters start afresh
        Path(str(script) + suffix).unlink(missing_ok=True)
    os.environ["COLLAB_FAKE_SCRIPT"] = str(script)


@contextmanager
def _inside(path: Path) -> Iterator[None]:
    """Context paths as the debaters see them, and the evidence check's root: the case."""
    old = Path.cwd()
    os.chdir(path)
    try:
        yield
    finally:
        os.chdir(old)


def _sample(
    case: Case, protocol: str, agent: str, model: str | None, turn_timeout: float | None
) -> dict[str, Any]:
    from collab.errors import CollabError, Interrupted

    t0 = time.perf_counter()
    try:
        state = _run_protocol(case, protocol, agent, model, turn_timeout)
    except Interrupted:
        raise  # Ctrl-C or SIGTERM stops the bench, not just this sample
    except CollabError as exc:
        return {"error": str(exc), "issues": [], "wall_s": time.perf_counter() - t0}
    from collab.ledger import ledger_to_dict

    metas = [m for t in state.turns for m in (t.meta, t.reask) if m is not None]
    if state.judge is not None and state.judge.meta is not None:
        metas.append(state.judge.meta)
    tokens = state.tokens()
    return {
        "run_id": state.run_id,
        "issues": ledger_to_dict(state.ledger()),
        "calls": sum(m.attempts for m in metas),
        "tokens": tokens.input_tokens + tokens.output_tokens,
        "cost_usd": state.cost_usd(),
        "wall_s": round(time.perf_counter() - t0, 3),
        "stop_reason": state.stop_reason,
        "judge_fallback": None if state.judge is None else state.judge.fallback,
        "error": state.error,
    }


def _config(case: Case, agent: str, model: str | None, rounds: int, timeout: float | None) -> Any:
    from collab.agents import load_agents
    from collab.request import build_config, request_from
    from collab.settings import user_defaults

    agents = load_agents()
    given: dict[str, object] = {
        "role_a": REVIEWER,
        "role_b": AUTHOR,
        "rounds": max(rounds, 2),
        "context": list(case.files),
        "agent": agent,
        "model": model,
        "runner": "subprocess",
        "lang": "en",
        "timeout": timeout,
    }
    req = request_from({k: v for k, v in given.items() if v is not None}, "cli", user_defaults())
    req = replace(req, topic=case.question)
    return agents, build_config(req, agents.keys())


def _run_protocol(
    case: Case, protocol: str, agent: str, model: str | None, timeout: float | None
) -> Any:
    from bench.inproc import new_run
    from collab.orchestrator import Orchestrator
    from collab.runners import runner_factory

    agents, cfg = _config(case, agent, model, PROTOCOLS[protocol], timeout)
    if protocol == "single":
        return _single(replace(cfg, rounds=1), agents)
    state, run_dir = new_run(cfg)
    orch = Orchestrator(
        state, run_dir, agents=agents, runner_factory=runner_factory("subprocess"),
    )  # fmt: skip
    return orch.run().state


def _single(cfg: Any, agents: Mapping[str, Any]) -> Any:
    """One call: the opening prompt of the reviewer seat, one-seat ledger."""
    from collab.caller import AgentCaller
    from collab.eventlog import EventStream
    from collab.evidence_files import check_turn
    from collab.ledger import Ledger
    from collab.prompts import Prompts
    from collab.runners import runner_factory
    from collab.runners.turnfiles import TurnDir, stop_agents
    from collab.state import RunState
    from collab.store import new_run_id
    from collab.turn_taking import TurnContext, Turns

    run_id = new_run_id()
    tdir = TurnDir(keep=False)
    runner = runner_factory("subprocess")(tdir, run_id)
    try:
        caller = AgentCaller(runner, tdir, agents, setup=cfg.agent_setup)
        ctx = TurnContext(
            events=EventStream(), deadline=time.monotonic() + cfg.budget, clock=time.monotonic,
            cancel=threading.Event(),
        )  # fmt: skip
        turns = Turns(cfg, Prompts(cfg.lang))
        rec = turns.take(ctx, caller, 1, "A", Ledger(), [], None, blind=True)
    finally:
        stop_agents(tdir.path)
        runner.close()
        tdir.cleanup()
    rec = check_turn(rec, cfg, Path.cwd())
    return RunState(run_id=run_id, config=cfg, status="done", turns=[rec])


def _grade(
    samples: list[dict[str, Any]], keys: Mapping[str, Any], agent: str, model: str | None
) -> None:
    from bench.quality_grader import grade
    from collab.agents import load_agents
    from collab.caller import AgentCaller
    from collab.config import AgentChoice
    from collab.runners import runner_factory
    from collab.runners.turnfiles import TurnDir, stop_agents
    from collab.store import new_run_id

    env = BenchEnv()
    tdir = TurnDir(keep=False)
    try:
        _register_fake(env, None)
        env.activate()
        runner = runner_factory("subprocess")(tdir, new_run_id())
        caller = AgentCaller(runner, tdir, load_agents())
        n = [0]

        def call(prompt: str) -> str | None:
            n[0] += 1
            res = caller.call(f"grade-{n[0]}", AgentChoice(agent, model), prompt, 180.0)
            return res.reply.text if res.status == "ok" else None

        try:
            grade(samples, keys, call)
        finally:
            stop_agents(tdir.path)
            runner.close()
    finally:
        tdir.cleanup()
        env.close()


# -- the table ---------------------------------------------------------------------------


def rows(totals: Mapping[str, Total]) -> list[list[str]]:
    def pct(v: float | None) -> str:
        return "n/a" if v is None else f"{v:.0%}"

    out = []
    for name, t in totals.items():
        per = max(t.samples, 1)
        out.append([
            name,
            f"{pct(t.recall)} ({t.found}/{t.planted})",
            f"{t.false_alarms}",
            f"{t.clean_with_alarm}/{t.clean_samples}",
            f"{pct(t.verified_share)} ({t.verified}/{t.cites})",
            f"{t.calls / per:.1f}",
            f"{t.tokens / per:,.0f}",
            "n/a" if t.cost_usd is None else f"${t.cost_usd / per:.4f}",
            f"{t.wall_s / per:.1f}",
            f"{t.samples}" + (f" ({t.errors} failed)" if t.errors else ""),
        ])  # fmt: skip
        if any(x.grader_found is not None for x in totals.values()):
            out[-1].insert(2, f"{t.grader_found or 0}/{t.planted}")
    return out


HEADER = [
    "protocol", "recall", "false alarms", "clean cases alarmed", "evidence verified",
    "calls/case", "tokens/case", "cost/case", "wall s/case", "samples",
]  # fmt: skip


def print_table(totals: Mapping[str, Total], label: str | None, source: str) -> None:
    if label:
        print(label)
    body = rows(totals)
    header = list(HEADER)
    if body and len(body[0]) > len(HEADER):
        header.insert(2, "recall (grader)")
    table = [header, *body]
    widths = [max(len(r[i]) for r in table) for i in range(len(header))]
    for n, r in enumerate(table):
        print("  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip())
        if n == 0:
            print("  ".join("-" * w for w in widths))
    if "single" not in totals:
        print("(no single-call baseline in these results)")
    print()
    print_per_case(totals)
    print(f"(scored from {source}: the final ledgers, never the Judge's prose)")


def print_per_case(totals: Mapping[str, Total]) -> None:
    """Per case: flaws found / planted and false alarms, summed over the repeats."""
    names = sorted({c for t in totals.values() for c in t.per_case})
    head = ["case", *totals]
    table = [head]
    for name in names:
        row = [name]
        for t in totals.values():
            scores = t.per_case.get(name, [])
            found = sum(len(s.found) for s in scores)
            planted = sum(s.planted for s in scores)
            alarms = sum(s.false_alarms for s in scores)
            row.append(f"found {found}/{planted} · alarms {alarms}" if scores else "—")
        table.append(row)
    widths = [max(len(r[i]) for r in table) for i in range(len(head))]
    for n, r in enumerate(table):
        print("  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip())
        if n == 0:
            print("  ".join("-" * w for w in widths))


# The fake agent's default: each seat raises one generic point; the Judge writes a line.
GENERIC_SCRIPT = {
    "rules": [
        {"match": ["neutral judge"], "replies": ["## TL;DR\n- fake judge\n"]},
        {
            "match": ["(Role A)"],
            "replies": [
                "The change needs a closer look.\n```json\n"
                + json.dumps({
                    "new_points": [{"title": "Input is not validated",
                                    "evidence": "no check before use", "severity": "major"}],
                    "stances": [], "abstain": None,
                })
                + "\n```"
            ],
        },
    ],
    "default": "Nothing more.\n```json\n"
    + json.dumps({"new_points": [], "stances": [], "abstain": "nothing to add"})
    + "\n```",
}  # fmt: skip
