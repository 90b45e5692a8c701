"""The summary collab writes from the ledger when the Judge cannot (``collab.ledger_summary``):
every line of it, in English and Japanese, for a run with each kind of issue."""

from __future__ import annotations

import html
from dataclasses import replace

from collab.config import DebateConfig, Role
from collab.contract import Contract, NewPoint, StanceUpdate
from collab.evidence import EvidenceCheck
from collab.ledger_summary import fallback_summary, ledger_markdown, rated
from collab.seats import Side
from collab.state import RunState
from collab.text import md_inline
from collab.turns import AgentMeta, TurnRecord


def turn(
    r: int, side: Side, contract: Contract, checks: tuple[EvidenceCheck, ...] = ()
) -> TurnRecord:
    meta = AgentMeta("fake", None, 0, 0.1, 1)
    return TurnRecord(r, side, "x", "ok", "p", "p", contract, None, "0" * 64, meta,
                      evidence_checks=checks)  # fmt: skip


def state(lang: str = "en") -> RunState:
    cfg = DebateConfig(
        topic="t", role_a=Role("A", "Advocate", "a"), role_b=Role("B", "Critic", "b"),
        rounds=3, lang=lang,  # type: ignore[arg-type]
    )  # fmt: skip
    st = RunState(run_id="20261201-000000-abcdef", config=cfg)
    st.turns = [
        turn(1, "A", Contract(new_points=(
            NewPoint("Revocation", "logout is instant: src/a.py:3", "blocking"),
            NewPoint("Latency | p99", "a hop", "minor"),
        )), (EvidenceCheck("src/a.py:3", None, "wrong-line"),)),
        turn(1, "B", Contract(new_points=(NewPoint("Cost", "redis is cheap"),),
                              stances=(StanceUpdate("I1", "contest", "a denylist", "major"),))),
        turn(2, "A", Contract(stances=(StanceUpdate("I2", "drop", "moot"),
                                       StanceUpdate("I3", "agree", "cheap enough")))),
        turn(2, "B", Contract(stances=(StanceUpdate("I1", "contest", "still"),))),
    ]  # fmt: skip
    st.stop_reason, st.stop_detail = "max-rounds", "reached 2 rounds"
    return st


TABLE_EN = """\
| id | status | issue | raised by | evidence A | evidence B |
|---|---|---|---|---|---|
| I1 | 🟡 open | Revocation (re-rated blocking→major by B, round 1) | A | logout is instant: src/a.py:3 (src/a.py:3 ✗ wrong-line) | still |
| I2 | ⚪ dropped | [minor] Latency \\| p99 | A | moot |  |
| I3 | 🟢 resolved | Cost | B | cheap enough | redis is cheap |
"""  # noqa: E501


def test_the_english_summary_line_by_line() -> None:
    assert fallback_summary(state()) == (
        "> Summary written by collab from the issue ledger: the Judge did not answer.\n"
        "\n"
        "## TL;DR\n"
        "- 3 issues raised over 2 rounds: 1 resolved, 1 still open, 1 dropped.\n"
        "- Stopped: max-rounds — reached 2 rounds\n"
        "- Verdict (from the ledger): partial\n"
        "\n"
        "## Agreements\n"
        "- **I3 Cost**\n"
        "\n"
        "## Open disagreements\n"
        "- **I1 Revocation** (raised by A)\n"
        "  - Advocate: logout is instant: src/a.py:3\n"
        "  - Critic: still\n"
        "\n"
        "## Trade-offs\n"
        "\n" + TABLE_EN + "\n"
        "## Recommended actions\n"
        "- Settle I1 (Revocation) with the evidence both sides named.\n"
        "\n"
        "Dropped: I2 Latency | p99\n"
    )


def test_the_japanese_summary_line_by_line() -> None:
    table = (
        TABLE_EN.replace("| id | status | issue | raised by | evidence A | evidence B |",
                         "| id | 状態 | 論点 | 提起 | Aの根拠 | Bの根拠 |")
        .replace("🟡 open", "🟡 未解決").replace("⚪ dropped", "⚪ 取り下げ")
        .replace("🟢 resolved", "🟢 解決済み")
    )  # fmt: skip
    assert fallback_summary(state("ja"), "no-sections") == (
        "> 審判の回答に必要な見出しがなかったため、このまとめは collab が"
        "論点台帳から作成しました。\n"
        "\n"
        "## TL;DR\n"
        "- 2ラウンドで3件の論点が提起されました: 解決済み1件、未解決1件、取り下げ1件。\n"
        "- 終了理由: 予定したラウンドをすべて実施しました (max-rounds)\n"
        "- 判定（台帳から算出）: 部分的な合意 (partial)\n"
        "\n"
        "## 合意点\n"
        "- **I3 Cost**\n"
        "\n"
        "## 未解決の対立点\n"
        "- **I1 Revocation** （提起: A）\n"
        "  - Advocate: logout is instant: src/a.py:3\n"
        "  - Critic: still\n"
        "\n"
        "## トレードオフ\n"
        "\n" + table + "\n"
        "## 推奨アクション\n"
        "- I1（Revocation）は、双方が示した根拠をもとに決着をつけてください。\n"
        "\n"
        "取り下げ: I2 Latency | p99\n"
    )


def test_the_first_line_says_why_per_cause_and_language() -> None:
    first = {
        (lang, cause): fallback_summary(state(lang), cause).splitlines()[0]  # type: ignore[arg-type]
        for lang in ("en", "ja")
        for cause in ("no-answer", "no-sections", "cost-cap")
    }
    assert first == {
        ("en", "no-answer"): "> Summary written by collab from the issue ledger: the Judge did "
        "not answer.",
        ("en", "no-sections"): "> Summary written by collab from the issue ledger: the Judge "
        "answered without the required sections.",
        ("en", "cost-cap"): "> Summary written by collab from the issue ledger: the cost cap was "
        "reached before the Judge was asked.",
        ("ja", "no-answer"): "> 審判が応答しなかったため、このまとめは collab が"
        "論点台帳から作成しました。",
        ("ja", "no-sections"): "> 審判の回答に必要な見出しがなかったため、このまとめは collab が"
        "論点台帳から作成しました。",
        ("ja", "cost-cap"): "> 費用の上限に達したため審判には依頼せず、このまとめは collab が"
        "論点台帳から作成しました。",
    }  # fmt: skip


def test_nothing_open_no_stop_reason_and_nothing_dropped() -> None:
    st = state()
    agree_a = Contract(stances=(StanceUpdate("I3", "agree", "ok"),))
    agree_b = Contract(
        stances=(StanceUpdate("I1", "agree", "ok"), StanceUpdate("I2", "agree", "ok"))
    )
    st.turns = [*st.turns[:2], turn(2, "A", agree_a), turn(2, "B", agree_b)]
    st.stop_reason, st.stop_detail = None, ""
    lines = fallback_summary(st).splitlines()
    assert "- Stopped: unknown" in lines  # no dangling " — " without a detail
    assert lines[lines.index("## Open disagreements") + 1] == "- none"
    assert lines[-1] == "- Act on the agreements above."
    assert "- Verdict (from the ledger): consensus" in lines
    ja = fallback_summary(replace(st, config=replace(st.config, lang="ja"))).splitlines()
    assert "- 終了理由: 不明" in ja and ja[-1] == "- 上記の合意点に沿って進めてください。"
    assert ja[ja.index("## 未解決の対立点") + 1] == "- なし"


def test_every_stop_reason_is_said_in_japanese() -> None:
    from collab.convergence import STOP_REASONS

    st = state("ja")
    for reason in STOP_REASONS:
        st.stop_reason, st.stop_detail = reason, "an English detail"
        said = fallback_summary(st)
        assert f"({reason})" in said and "an English detail" not in said, reason


def test_an_untranslated_stop_reason_keeps_its_detail_in_japanese() -> None:
    st = state("ja")
    st.stop_reason, st.stop_detail = "some-future-reason", "no usable contract in round 1"
    assert "- 終了理由: some-future-reason — no usable contract in round 1" in fallback_summary(st)


def test_no_agreements_and_an_empty_ledger() -> None:
    st = state()
    st.turns = [*st.turns[:1], turn(1, "B", Contract())]
    lines = fallback_summary(st).splitlines()
    assert lines[lines.index("## Agreements") + 1] == "- none recorded"
    assert ledger_markdown(()) == "_No issues were raised._\n"
    assert ledger_markdown((), "ja") == "_提起された論点はありません。_\n"


def test_a_blocking_title_is_marked_and_major_is_not() -> None:
    from collab.ledger import Issue

    base = Issue("I1", "Revocation", "A", "open", "", "", 1, 1)
    assert [rated(replace(base, severity=s)) for s in ("blocking", "major", "minor")] == [
        "[⛔ blocking] Revocation",
        "Revocation",
        "[minor] Revocation",
    ]


JA_STOPS = {
    "converged-early": "双方が収束しました",
    "max-rounds": "予定したラウンドをすべて実施しました",
    "circular-break": "議論が同じ論点を回り続けたため打ち切りました",
    "timeout": "時間の上限に達しました",
    "budget": "費用の上限に達しました",
    "interrupted": "ユーザーが中断しました",
    "settled": "直前のラウンドで何も変わらなかったため終了しました",
}


def test_every_stop_reason_and_verdict_in_japanese() -> None:
    st = state("ja")
    for reason, words in JA_STOPS.items():
        st.stop_reason, st.stop_detail = reason, "an English detail"
        assert f"- 終了理由: {words} ({reason})" in fallback_summary(st).splitlines()
    verdicts = {"consensus": "合意", "partial": "部分的な合意", "split": "対立",
                "inconclusive": "判定不能"}  # fmt: skip
    for code, words in verdicts.items():
        line = next(x for x in fallback_summary(_with_verdict(code)).splitlines() if "判定" in x)
        assert line == f"- 判定（台帳から算出）: {words} ({code})"


def _with_verdict(code: str) -> RunState:
    """A Japanese run whose ledger gives the verdict ``code``."""
    st = state("ja")
    closing = {
        "consensus": [StanceUpdate("I1", "agree", "ok")],
        "partial": [],
        "split": [StanceUpdate("I3", "contest", "no")],
    }
    if code == "inconclusive":
        st.turns = [turn(1, "A", Contract()), turn(1, "B", Contract())]
        return st
    stances = tuple(closing[code])
    st.turns = [*st.turns[:3], turn(2, "B", Contract(stances=stances))]
    if code == "split":  # A contests in round 2 instead of closing: every issue stays open
        st.turns[2] = turn(2, "A", Contract(stances=(StanceUpdate("I2", "contest", "x"),)))
    return st


def test_long_open_issues_are_cut_and_missing_evidence_is_a_dash() -> None:
    st = state()
    title, evidence = "T" * 100, "e" * 450
    st.turns = [turn(1, "A", Contract(new_points=(NewPoint(title, evidence),))),
                turn(1, "B", Contract())]  # fmt: skip
    lines = fallback_summary(st).splitlines()
    assert f"  - Advocate: {'e' * 399}…" in lines  # at most 400 characters
    assert "  - Critic: —" in lines  # B said nothing on it
    assert f"- Settle I1 ({'T' * 79}…) with the evidence both sides named." in lines
    st.turns = [turn(1, "B", Contract(new_points=(NewPoint(title, evidence),))),
                turn(1, "A", Contract())]  # fmt: skip
    lines = fallback_summary(st).splitlines()
    assert "  - Advocate: —" in lines and f"  - Critic: {'e' * 399}…" in lines


def test_table_cells_are_cut_and_dropped_issues_joined() -> None:
    from collab.ledger import Issue

    checks = tuple(EvidenceCheck(f"src/module_{n}.py:{n}", None, "wrong-line") for n in range(9))
    issue = Issue("I1", "t", "A", "open", "a" * 200, "", 1, 1, checks_a=checks)
    row = ledger_markdown((issue,)).splitlines()[2]
    marks = ", ".join(f"src/module_{n}.py:{n} ✗ wrong-line" for n in range(9))
    assert row == f"| I1 | 🟡 open | t | A | {'a' * 159}… ({marks[:199]}…) |  |"
    st = state()
    st.turns[2] = turn(2, "A", Contract(stances=(StanceUpdate("I2", "drop", "moot"),
                                                 StanceUpdate("I1", "drop", "fine"))))  # fmt: skip
    st.turns[3] = turn(2, "B", Contract())
    assert fallback_summary(st).splitlines()[-1] == "Dropped: I1 Revocation, I2 Latency | p99"


def test_each_re_rating_is_shown_and_long_titles_and_b_evidence_are_cut() -> None:
    from collab.ledger import Issue, SeverityChange

    changes = (
        SeverityChange("B", "blocking", "major", 1),
        SeverityChange("A", "major", "minor", 2),
    )
    issue = Issue("I1", "Cache", "A", "open", "", "", 1, 2, severity="minor",
                  severity_changes=changes)  # fmt: skip
    assert rated(issue) == (
        "[minor] Cache (re-rated blocking→major by B, round 1) (re-rated major→minor by A, round 2)"
    )
    long = replace(issue, title="T" * 150, evidence_b="b" * 200)
    row = ledger_markdown((long,)).splitlines()[2]
    assert row == f"| I1 | 🟡 open | [minor] {'T' * 150}… | A |  | {'b' * 159}… |"


HOSTILE = "`rm` *b* __s__ _i_ # <b>x</b> [l](https://e.x) ~~d~~ &amp; a\\b \\*x\\* | c"


def test_a_title_with_markdown_renders_as_text_in_the_report() -> None:
    """Titles are a model's text: in the summary (each place it names one) and its table,
    as the report renders it (Markdown, raw HTML off), none of it becomes markup."""
    from collab.report.markup import markdown_html

    st = state()
    st.turns[0] = turn(
        1,
        "A",
        Contract(new_points=(NewPoint(HOSTILE, "e", "blocking"), NewPoint(HOSTILE, "f", "minor"))),
    )
    st.turns[1] = turn(1, "B", Contract(new_points=(NewPoint(HOSTILE, "g"),),
                                        stances=(StanceUpdate("I1", "contest", "h"),)))  # fmt: skip
    summary = fallback_summary(st)
    page = markdown_html(summary, raw_html=False)
    for tag in ("<em>", "<a ", "<code>", "<del>", "<s>", "<b>", "<h1>"):
        assert tag not in page, tag
    assert page.count("<strong>") == 2  # ours: I3 agreed, I1 open
    text = html.escape(HOSTILE, quote=False)
    # I3 agreed, I1 open, I1 settle, I2 dropped; the table's three rows
    assert page.count(text) == 7, page
    assert "<td>[⛔ blocking] " + text + "</td>" in page


def test_a_panels_table_adds_a_named_column_per_seat_with_evidence() -> None:
    """Seats C–E get an "evidence C"… column (ja: "Cの根拠") once one of them has evidence."""
    from collab.ledger import Issue

    issue = Issue("I1", "t", "C", "open", "", "eb", 1, 1, evidence_c="ec", evidence_e="ee")
    assert ledger_markdown((issue,)).splitlines()[:3] == [
        "| id | status | issue | raised by | evidence A | evidence B | evidence C | evidence E |",
        "|---|---|---|---|---|---|---|---|",
        "| I1 | 🟡 open | t | C |  | eb | ec | ee |",
    ]
    assert ledger_markdown((issue,), "ja").splitlines()[0] == (
        "| id | 状態 | 論点 | 提起 | Aの根拠 | Bの根拠 | Cの根拠 | Eの根拠 |"
    )


def test_a_pipe_in_an_open_title_is_escaped_in_its_settle_line_too() -> None:
    """Every place the summary names a title escapes it the same way, the action included."""
    st = state()
    st.turns[0] = turn(1, "A", Contract(new_points=(NewPoint("Latency | p99", "a hop"),)))
    st.turns[1:] = [turn(1, "B", Contract())]
    lines = fallback_summary(st).splitlines()
    assert "- Settle I1 (Latency \\| p99) with the evidence both sides named." in lines


def test_a_title_with_markdown_renders_as_text_in_the_shown_report_too() -> None:
    """``collab show``'s Markdown names each title again (the ledger's evolution, each
    turn's new points): there too none of it becomes markup."""
    from collab.report.markdown import render_markdown_report
    from collab.report.markup import markdown_html

    st = state()
    st.turns[0] = turn(1, "A", Contract(new_points=(NewPoint(HOSTILE, "e"),)))
    st.turns[1] = turn(1, "B", Contract())
    show = render_markdown_report(st)
    page = markdown_html(show, raw_html=False)
    # the ledger's table, its evolution, round 1's new point: each the title as written
    assert page.count(html.escape(HOSTILE, quote=False)) == 3, page
    assert "**" + md_inline(HOSTILE) + "** — e" in show
