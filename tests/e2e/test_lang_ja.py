"""A debate in Japanese end to end: the topic's language detected (or ``--lang ja``), every
prompt from templates/ja (the turns, the re-ask, the Judge), the preset's Japanese role
names, and what the run leaves (state.json, transcript, judge.md, report.html, ``collab
show``) in Japanese; the ledger fallback summary too, under the Japanese Judge's headings.

The fake agent answers only prompts with the Japanese templates' own words: an English
prompt anywhere would get the default reply, which the checks below would see.
"""

from __future__ import annotations

import json
import re
import shutil

import pytest
from libtmux import Server

from collab.paths import builtin_dir
from collab.store import RunDir
from tests.conftest import Cli, FakeAgent, contract_block
from tests.e2e.test_debate_tmux import (
    assert_each_turn_once,
    debate_args,
    read_state,
    tmux_fixture,  # noqa: F401  (fixture, used by name)
)
from tests.helpers import JUDGE_REST_JA

pytestmark = [
    pytest.mark.tmux,
    pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed"),
]

TOPIC = "JWTとサーバー側セッション、ウェブアプリではどちらを使うべきか"
N = 2
# Words of the Japanese templates (templates/ja/*.md.j2), never of the English ones.
ROLE_JA = {"A": "（ロールA）です。いまは全", "B": "（ロールB）です。いまは全"}
REASK_JA = "（ロールA）です。前回の返答が有効な json ブロックで終わっていなかった"
JUDGE_JA = "**中立な審判**"
NAMES_JA = ("推進派", "悪魔の代弁者")  # advocate-vs-devils-advocate, name_ja
UNEXPECTED = "UNEXPECTED-PROMPT: not a Japanese template"
BAD_BLOCK = '\n\n```json\n["壊れた", \n```\n'


def round_ja(r: int) -> str:
    return f"全{N}ラウンド中の第{r}ラウンド"


def turn(side: str, r: int, *replies: object) -> dict[str, object]:
    return {"match": [ROLE_JA[side], round_ja(r)], "replies": list(replies)}


def say(prose: str, **contract: object) -> str:
    return prose + contract_block(**contract)  # type: ignore[arg-type]


def judge_sections() -> list[str]:
    """The headings the Japanese Judge is asked to write, in order."""
    text = (builtin_dir("templates") / "ja" / "judge.md.j2").read_text(encoding="utf-8")
    return re.findall(r"^- `(## [^`]+)`", text, flags=re.M)


def script(fake: FakeAgent, judge: object) -> None:
    fake.script(
        [
            {"match": [JUDGE_JA], "replies": [judge]},
            {"match": [REASK_JA],
             "replies": [contract_block(new=[("トークンの失効", "漏れたJWTは期限まで有効")])]},
            # A's first reply has a broken block: the re-ask is asked (in Japanese).
            turn("A", 1, "推進派の第一声：署名付きトークンなら各ノードが単独で検証できる。"
                         + BAD_BLOCK),
            turn("B", 1, say("悪魔の代弁者：失効できないトークンは負債だ。",
                             new=[("レイテンシ", "Redis の参照は 1 ms")],
                             stances=[("I1", "contest", "短い有効期限で足りる")])),
            turn("A", 2, say("推進派：レイテンシの件は認める。",
                             stances=[("I2", "agree", "1 ms なら許容できる")])),
            turn("B", 2, say("悪魔の代弁者：失効の問題は残る。",
                             stances=[("I1", "contest", "拒否リストは状態そのもの")])),
        ],
        UNEXPECTED,
    )  # fmt: skip


def assert_every_prompt_was_japanese(fake: FakeAgent) -> None:
    calls = fake.calls()
    assert len(calls) == 2 * N + 2  # four turns, one re-ask, the Judge
    assert all(c["rule"] is not None for c in calls), [str(c["prompt"])[:80] for c in calls]


def test_japanese_topic_runs_in_japanese_end_to_end(
    tmux: Server, fake_agent: FakeAgent, cli: Cli
) -> None:
    judge = (
        "## TL;DR\n- 結論：当面はセッション。\n\n## 合意点\n- I2: 1 ms は許容範囲。" + JUDGE_REST_JA
    )
    script(fake_agent, judge)
    res = cli(*debate_args(rounds=N, topic=TOPIC))  # --lang auto (the default)
    assert res.code == 0, res.err
    doc = res.json()
    state = read_state(doc["run_id"])
    assert state.config.lang == "ja"
    assert (state.config.role_a.name, state.config.role_b.name) == NAMES_JA
    assert_every_prompt_was_japanese(fake_agent)
    assert_each_turn_once(state)
    assert state.status == "done" and state.stop_reason == "max-rounds"
    assert [(i.id, i.title, i.status) for i in state.ledger().issues] == [
        ("I1", "トークンの失効", "open"), ("I2", "レイテンシ", "resolved"),
    ]  # fmt: skip
    a1 = state.turn(1, "A")
    assert a1 is not None and a1.reask is not None and a1.warnings == ()
    # The Judge skipped the open I1: collab's line under the summary is Japanese too.
    skipped = "> 審判のまとめが触れなかった未解決の論点: I1 (トークンの失効)。"
    assert state.judge is not None and not state.judge.fallback
    assert state.judge.text == judge + "\n\n" + skipped

    run_dir = RunDir(state.run_id).path
    raw = (run_dir / "state.json").read_text(encoding="utf-8")
    assert "推進派の第一声" in raw  # stored as text, not \\u escapes
    transcript = (run_dir / "transcript.md").read_text(encoding="utf-8")
    judge_md = (run_dir / "judge.md").read_text(encoding="utf-8")
    page = (run_dir / "report.html").read_text(encoding="utf-8")
    for text in (TOPIC, "推進派の第一声", "悪魔の代弁者：失効の問題は残る。", "トークンの失効"):
        assert text in transcript and text in page, text
    assert judge_md.startswith(judge + "\n\n" + skipped)
    assert '<html lang="ja">' in page
    shown = cli("show", state.run_id)
    assert shown.code == 0 and "結論：当面はセッション。" in shown.out and TOPIC in shown.out
    shown_doc = json.loads(cli("show", state.run_id, "--json").out)
    assert shown_doc["topic"] == TOPIC


def test_lang_ja_fallback_summary_is_japanese_under_the_judges_headings(
    tmux: Server, fake_agent: FakeAgent, cli: Cli
) -> None:
    script(fake_agent, {"exit": 1, "stderr": "judge exploded"})
    topic = "Monorepo or polyrepo for the platform team?"  # English words, --lang ja
    res = cli(*debate_args(rounds=N, topic=topic, extra=["--lang", "ja"]))
    assert res.code == 0, res.err
    doc = res.json()
    assert doc["judge"]["fallback"] is True
    calls = fake_agent.calls()
    assert len(calls) == 2 * N + 3  # the Judge was asked twice
    assert all(c["rule"] is not None for c in calls)
    text = doc["judge"]["markdown"]
    state = read_state(doc["run_id"])
    assert state.config.lang == "ja" and state.judge is not None and state.judge.text == text
    assert (RunDir(state.run_id).path / "judge.md").read_text(encoding="utf-8").startswith(text)

    headings = re.findall(r"^## .+$", text, flags=re.M)
    assert headings == ["## TL;DR", "## 合意点", "## 未解決の対立点", "## トレードオフ",
                        "## 推奨アクション"]  # fmt: skip
    # The Japanese Judge's own sections, in its order (the crux and the minority report
    # need a reader of the arguments: the ledger cannot write them).
    sections = judge_sections()
    assert sections[0] == "## TL;DR" and len(sections) == 7
    assert [h for h in sections if h in headings] == headings
    lines = text.splitlines()
    assert (
        lines[0] == "> 審判が応答しなかったため、このまとめは collab が論点台帳から作成しました。"
    )
    assert "- 2ラウンドで2件の論点が提起されました: 解決済み1件、未解決1件、取り下げ0件。" in lines
    assert "- 終了理由: 予定したラウンドをすべて実施しました (max-rounds)" in lines
    assert "- 判定（台帳から算出）: 部分的な合意 (partial)" in lines
    assert "- **I2 レイテンシ**" in lines
    assert "- **I1 トークンの失効** （提起: A）" in lines
    assert "  - 推進派: 漏れたJWTは期限まで有効" in lines
    assert "  - 悪魔の代弁者: 拒否リストは状態そのもの" in lines
    assert "| id | 状態 | 論点 | 提起 | Aの根拠 | Bの根拠 |" in lines
    assert any(ln.startswith("| I1 | 🟡 未解決 | トークンの失効 | A |") for ln in lines)
    assert any(ln.startswith("| I2 | 🟢 解決済み | レイテンシ | B |") for ln in lines)
    assert "- I1（トークンの失効）は、双方が示した根拠をもとに決着をつけてください。" in lines
    # Nothing of the English summary is left.
    english = ("Summary written by", "Agreements", "Open disagreements", "Trade-offs",
               "Recommended actions", "raised by", "Verdict", "Stopped", "resolved,")  # fmt: skip
    for words in english:
        assert words not in text, words
