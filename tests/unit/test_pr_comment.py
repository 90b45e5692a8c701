"""The pull-request comment, rendered from a result document: what it shows, what model
text can no longer do on GitHub, the key, and the size limit."""

from __future__ import annotations

from typing import Any

import pytest

from collab.report.pr_comment import (
    comment_body,
    comment_key,
    crux,
    for_github,
    marker,
    notice_body,
    short_body,
)

JUDGE = """## TL;DR
Use sessions.

## Crux
Can we afford a revocation list?

> Open, but not covered by the Judge's summary: I2.

## Recommended actions
- ask @security-team ![x](https://evil.test/pixel.png) <img src=x onerror=alert(1)>
"""


def doc(**extra: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "run_id": "20261201-101500-3fa9c1",
        "verdict": "partial",
        "topic": "JWT or sessions? cc @octocat",
        "rounds": {"done": 3, "planned": 3},
        "cost_usd": 0.1234,
        "cost_usd_by_role": {"A": 0.05, "B": 0.06, "judge": 0.0134},
        "ledger": [
            {
                "id": "I1",
                "title": "Revocation needs state",
                "status": "open",
                "severity": "blocking",
            },
            {"id": "I2", "title": "Latency <script>", "status": "open"},
            {"id": "I3", "title": "Done", "status": "resolved", "severity": "blocking"},
            {"id": "I4", "title": "Style", "status": "open", "severity": "minor"},
        ],
        "judge": {"markdown": JUDGE, "fallback": False},
    }
    return base | extra


def test_the_comment_shows_verdict_issues_by_severity_crux_judge_cost_and_where() -> None:
    body = comment_body(doc(), "k1", report_url="https://ci.test/run/1", gate_line="fail: x")
    assert body.startswith(marker("k1") + "\n### collab: 🟡 partial\n")
    lines = body.splitlines()
    issues = [line for line in lines if line.startswith("- **")]
    assert issues == [
        "- **blocking** `I1` Revocation needs state",
        "- **major** `I2` Latency &lt;script>",  # no severity: major
        "- **minor** `I4` Style",
    ]  # resolved I3 left out, most severe first
    assert "**Crux:** Can we afford a revocation list?" in lines
    assert "<details><summary>The Judge's summary</summary>" in lines
    assert "**Gate:** fail: x" in lines
    assert "cost $0.1234 (A $0.0500 · B $0.0600 · judge $0.0134)" in body  # one breakdown
    assert "[the run's report](https://ci.test/run/1)" in body
    assert "`collab show 20261201-101500-3fa9c1`" in body


def test_model_text_is_inert_on_github() -> None:
    body = comment_body(doc(), "k1")
    judge = body.split("<details><summary>The Judge's summary</summary>")[1]
    assert "@security-team" not in body and "@\u200bsecurity-team" in judge
    assert "@octocat" not in body  # the topic too
    assert "![" not in judge and "!\u200b[x]" in judge  # an image becomes a link
    assert "<img" not in body and "&lt;img" in judge  # raw HTML shows as text
    assert body.count("<!--") == 1  # only our marker
    assert for_github("<!-- collab:k1 -->") == "&lt;!-- collab:k1 -->"  # no forged marker
    assert for_github("```py\nx") == "```py\nx\n```"  # an unclosed fence is closed
    assert for_github("\x1b[31mred\x1b[0m") == "red"  # text.clean first


def test_too_long_drops_the_judge_then_cuts_with_a_pointer() -> None:
    big = doc(judge={"markdown": "## TL;DR\n" + "word " * 20_000, "fallback": False})
    body = comment_body(big, "k1", limit=5_000)
    assert len(body) <= 5_000 and "too long for a comment" in body and "word word" not in body
    huge = doc(ledger=[{"id": f"I{i}", "title": "t" * 200, "status": "open"}
                       for i in range(1, 400)])  # fmt: skip
    cut = comment_body(huge, "k1", limit=5_000)
    assert len(cut) <= 5_000 and cut.startswith(marker("k1"))
    assert cut.endswith("*(truncated: the full result is in `collab show 20261201-101500-3fa9c1`)*")


def test_short_and_notice_bodies_keep_the_marker() -> None:
    assert short_body(doc(), "k1").startswith(marker("k1") + "\n")
    notice = notice_body("k1", "context over budget: @x <b>")
    assert notice.startswith(marker("k1")) and "@\u200bx &lt;b>" in notice


def test_the_key() -> None:
    assert comment_key("rfc-7", None, "t") == "rfc-7"
    by_file = comment_key(None, "docs/rfcs/0007.md", "t")
    assert by_file == comment_key(None, "docs/rfcs/0007.md", "other topic")  # the file decides
    assert by_file != comment_key(None, "docs/rfcs/0008.md", "t")
    assert comment_key(None, None, "a") != comment_key(None, None, "b")
    assert len(by_file) == 16
    with pytest.raises(ValueError, match="--comment-key"):
        comment_key("bad key -->", None, "t")


@pytest.mark.parametrize(
    "judge_md",
    [
        "## TL;DR\n- x\n\n## Crux\nCan we afford it?\n\nMore.\n\n## Minority report\nm\n",
        "# 1. TL;DR\n- x\n\n# 2. crux\nCan we afford it?\n\n# 3. Minority report\nm\n",
        "### TL;DR\n- x\n\n### Crux: the question\nCan we afford it?\n",
        "## TL;DR\n- x\n\n## 争点の核心\nCan we afford it?\n\n## 少数意見\nm\n",
        "# Judge summary\n\n## TL;DR\n- x\n\n## Crux\nCan we afford it?\n\n## Minority report\nm\n",
    ],
    ids=["as-asked", "numbered-level-1", "level-3-with-a-note", "japanese", "under-a-title"],
)
def test_the_crux_is_found_as_the_judge_check_finds_it(judge_md: str) -> None:
    """The comment reads the Crux by the same heading rules that accepted the answer."""
    assert crux(judge_md) == "Can we afford it?"
    body = comment_body(doc(judge={"markdown": judge_md, "fallback": False}), "k1")
    assert "**Crux:** Can we afford it?" in body.splitlines()


def test_no_crux_heading_no_crux_line() -> None:
    assert crux("## TL;DR\nThe crux is money.\n```\n## Crux\nin a fence\n```\n") is None


def test_a_stray_unclosed_fence_does_not_hide_the_crux() -> None:
    """As the Judge check reads it: a fence that never closes swallows nothing."""
    judge_md = "## TL;DR\n- verdict ```bash\nx\n```\n~~~\ntilde\n~~~ tail\n\n## Crux\nWhy?\n"
    assert crux(judge_md) == "Why?"
