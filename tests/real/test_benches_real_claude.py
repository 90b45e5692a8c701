"""The real-``claude`` benches (``python -m bench --only claude`` / ``--only stream``) on
their quick path, shrunk to two rounds (the fewest a sequential debate takes) and short
word delays: the claude bench whole (every row measured), the stream bench's debates.

They broke silently once: their fake API gave the Judge a debater's reply, without the
sections collab requires of it, so every debate ended on the ledger summary and the bench
refused to time it (exit 1); and the stream bench's latency debate took A to open every
round, where turns rotate. Nothing in the suite ran them.
"""

from __future__ import annotations

import math
import random
from collections.abc import Iterator

import pytest

from bench import claude as claude_bench
from bench import stream as stream_bench
from bench.env import BenchEnv, Ctx
from bench.fakeclaude import real_claude
from bench.results import BenchResult

pytestmark = [pytest.mark.real_agent, pytest.mark.tmux, pytest.mark.slow]


@pytest.fixture
def ctx(claude_bin: str, monkeypatch: pytest.MonkeyPatch) -> Iterator[Ctx]:
    monkeypatch.setenv("COLLAB_CLAUDE_BIN", claude_bin)  # what claude_binary() finds
    env = BenchEnv()
    try:
        yield Ctx(env=env, mode="quick", rng=random.Random(0), say=lambda _text: None)
    finally:
        env.close()


def measured(res: BenchResult) -> None:
    """Every row of the bench has a number; none is a failure or a skip."""
    assert res.error is None, res.error
    assert res.rows, "no rows"
    for row in res.rows:
        assert not row.skipped, f"{row.metric}: {row.note}"
        assert row.value is not None and not math.isnan(row.value), row.metric


def test_claude_bench_quick_path_measures(ctx: Ctx, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(claude_bench, "ROUNDS", 2)
    res = claude_bench.run(ctx)
    measured(res)
    # 2 rounds: four debater turns and the Judge, each paired with a bare call
    assert res.data["turn_s"]["n"] == 4 and res.data["judge_s"]["n"] == 1


@pytest.fixture
def stream_ctx(ctx: Ctx, monkeypatch: pytest.MonkeyPatch) -> Ctx:
    """The whole stream bench takes ~40 s here: its debates, as ``run`` drives them, are
    what broke; each test below runs one."""
    monkeypatch.setattr(stream_bench, "LATENCY_ROUNDS", 2)
    monkeypatch.setattr(stream_bench, "OVERHEAD_ROUNDS", 2)
    monkeypatch.setattr(stream_bench, "WORD_DELAY", 0.02)
    ctx.env.activate()
    return ctx


def test_stream_bench_latency_debate_ends_with_the_judge(stream_ctx: Ctx) -> None:
    with real_claude(stream_ctx, "stream") as rc:
        lat = stream_bench._latency_debate(stream_ctx, rc, 0)
    # its four turns and the Judge, in the order taken (turns rotate: B opens round 2),
    # each seen in the pane and in the main view
    assert [x.step for x in lat] == ["r1-A", "r1-B", "r2-B", "r2-A", "judge"]
    assert all(x.pane is not None and x.view is not None for x in lat), lat


def test_stream_bench_overhead_debate_ends_with_the_judge(stream_ctx: Ctx) -> None:
    with real_claude(stream_ctx, "stream") as rc:
        rc.server.default(stream_bench._instant_reply())
        pairs = stream_bench._overhead_debate(rc, stream_bench._specs()["stream"])
    assert [p.kind for p in pairs] == ["turn"] * 4 + ["judge"]
