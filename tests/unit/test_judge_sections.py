"""The Judge's required sections: one list, any heading level, numbering or case, in
English or Japanese; what is missing is named for the one retry."""

from __future__ import annotations

from typing import NamedTuple

import pytest

from collab.agents.decoding import Usage
from collab.config import DebateConfig, Role
from collab.contract import Contract, NewPoint, StanceUpdate
from collab.judge.answer import (
    REQUIRED_SECTIONS,
    headings,
    merged_meta,
    missing_sections,
    retry_note,
    section_names,
)
from collab.judge.labels import Labels
from collab.ledger import Ledger, replay
from collab.prompts import Prompts, TurnView
from collab.turns import AgentMeta

OPEN = replay([("A", 1, Contract(new_points=(NewPoint("JWT", "e"),)))])
CLOSED = replay(
    [
        ("A", 1, Contract(new_points=(NewPoint("JWT", "e"),))),
        ("B", 1, Contract(stances=(StanceUpdate("I1", "agree", "ok"),))),
    ]
)
FULL_EN = "## TL;DR\n- x\n\n## Crux\nq?\n\n## Open disagreements\nI1\n\n## Minority report\nm\n"
FULL_JA = "## TL;DR\n- x\n\n## 争点の核心\n問い\n\n## 未解決の対立点\nI1\n\n## 少数意見\nm\n"


class Row(NamedTuple):
    test_id: str
    text: str
    ledger: Ledger
    missing: tuple[str, ...]


ROWS = [
    Row("full-en", FULL_EN, OPEN, ()),
    Row("full-ja", FULL_JA, OPEN, ()),
    Row("refusal", "I'm sorry, but I can't provide a judgement on this debate.", OPEN,
        ("tldr", "crux", "minority", "open")),
    Row("one-line", "## TL;DR\n- Position 1 wins.", OPEN, ("crux", "minority", "open")),
    Row("open-not-needed-when-all-closed", "# TL;DR\n## Crux\n### Minority report\n", CLOSED, ()),
    Row("open-needed-while-open", "# TL;DR\n## Crux\n### Minority report\n", OPEN, ("open",)),
    Row("levels-numbers-case",
        "# 1. tl;dr\n###### 2) CRUX\n#### III. Minority Report ##\n## 4 Open Disagreements:\n",
        OPEN, ()),
    Row("ja-other-levels", "### TL;DR\n# 争点の核心\n#### 少数意見\n##### 未解決の対立点\n",
        OPEN, ()),
    Row("ja-fullwidth-number", "## １．TL;DR\n## ２．争点の核心\n## ３．少数意見\n", CLOSED, ()),
    Row("bold-heading-words", "## **TL;DR**\n## __Crux__\n## `Minority report`\n", CLOSED, ()),
    Row("heading-with-a-note", "## TL;DR\n## Crux: the question\n## Minority report (Position 2)\n",
        CLOSED, ()),
    Row("words-in-prose-are-not-headings",
        "TL;DR: fine.\nThe crux is X.\nA minority report: none.\n- ## Crux\n", CLOSED,
        ("tldr", "crux", "minority")),
    Row("longer-word-is-not-the-section", "## TL;DR\n## Cruxes\n## Minority reports\n", CLOSED,
        ("crux", "minority")),
    Row("indented-four-is-code", "## TL;DR\n    ## Crux\n## Minority report\n", CLOSED, ("crux",)),
    Row("mixed-languages", "## TL;DR\n## Crux\n## 少数意見\n", CLOSED, ()),
    Row("a-fenced-answer-is-code", "```markdown\n## TL;DR\n## Crux\n## Minority report\n```\n",
        CLOSED, ("tldr", "crux", "minority")),
    Row("an-unclosed-fence-hides-nothing",
        "## TL;DR\n- verdict ```bash\nx\n```\n~~~\ntilde\n~~~ tail\n## Crux\n## Minority report\n",
        CLOSED, ()),
    Row("a-fence-closes-only-with-its-own-character-and-length",
        "````\n## TL;DR\n```\n~~~~\n````\n## Crux\n## Minority report\n", CLOSED, ("tldr",)),
    Row("headings-after-a-fence", "~~~\n# x\n~~~\n## TL;DR\n## Crux\n## Minority report\n",
        CLOSED, ()),
    # CommonMark: a backtick fence's info string holds no backtick (then it is no fence);
    # a tilde fence's may
    Row("a-backtick-in-a-backtick-info-string-is-not-a-fence",
        "```py`x\n## TL;DR\n## Crux\n```\n## Minority report\n", CLOSED, ()),
    Row("a-backtick-in-a-tilde-info-string-is-a-fence",
        "~~~ a`b\n## TL;DR\n~~~\n## Crux\n## Minority report\n", CLOSED, ("tldr",)),
    Row("an-empty-block-closes-on-the-next-line",
        "```\n```\n## TL;DR\n```\n## Crux\n## Minority report\n", CLOSED, ()),
    Row("a-block-right-after-a-heading-is-code",
        "## TL;DR\n```\n## Crux\n```\n## Minority report\n", CLOSED, ("crux",)),
    Row("no-space-after-hashes", "##TL;DR\n##Crux\n##Minority report\n", CLOSED,
        ("tldr", "crux", "minority")),
]  # fmt: skip


@pytest.mark.parametrize("row", ROWS, ids=[r.test_id for r in ROWS])
def test_missing_sections(row: Row) -> None:
    assert tuple(s.key for s in missing_sections(row.text, row.ledger)) == row.missing


def test_an_echo_of_the_prompt_is_a_failed_judge() -> None:
    """An echoing Judge repeats its prompt: the section names are there, as a list, not
    as headings — so nothing required is found."""
    cfg = DebateConfig("T", Role("A", "Advocate", "a"), Role("B", "Critic", "b"))
    for lang in ("en", "ja"):
        prompt = Prompts(lang).judge(
            cfg, OPEN, [TurnView(1, "A", "Advocate", "prose", "ok")], "max-rounds",
            Labels("A", "Advocate", "Critic"),
        )  # fmt: skip
        missing = {s.key for s in missing_sections(prompt, OPEN)}
        assert missing == {"tldr", "crux", "minority", "open"}, lang
        for section in REQUIRED_SECTIONS:
            assert f"## {section.headings[lang]}" in prompt  # the prompt asks for each


def test_the_list_and_its_names() -> None:
    assert [s.key for s in REQUIRED_SECTIONS] == ["tldr", "crux", "minority", "open"]
    assert [s.only_if_open for s in REQUIRED_SECTIONS] == [False, False, False, True]
    assert section_names(REQUIRED_SECTIONS[1:3], "en") == "Crux, Minority report"
    assert section_names(REQUIRED_SECTIONS[1:3], "ja") == "争点の核心, 少数意見"
    assert headings("# A\ntext\n  ### b c ###\n") == ["a", "b c"]


@pytest.mark.parametrize("lang", ["en", "ja"])
def test_the_retry_names_what_was_missing(lang: str) -> None:
    missing = missing_sections("## TL;DR\n", OPEN)
    note = retry_note(missing, lang)  # type: ignore[arg-type]
    for section in missing:
        assert section.headings[lang] in note  # type: ignore[index]
    assert "TL;DR" not in note


def test_the_two_judge_calls_count_as_one() -> None:
    a = AgentMeta("claude", "m", 0, 1.5, 1, Usage(10, 2, 0, 0), 0.25, "s1")
    b = AgentMeta("claude", "m", 0, 2.0, 2, Usage(5, 1, 1, 0), None, "s2")
    m = merged_meta(a, b)
    assert (m.duration, m.attempts, m.cost_usd, m.session_id) == (3.5, 3, 0.25, "s2")
    assert m.usage == Usage(15, 3, 1, 0)
    none = AgentMeta("claude", "m", 1, 0.5, 1)
    assert merged_meta(none, none).cost_usd is None and merged_meta(none, none).usage is None


@pytest.mark.parametrize(
    ("text", "first"),
    [
        ("## Agreements\n- a\n\n## Crux\nWhy?\n\n## TL;DR\n- yes\n", ["## TL;DR", "## Crux"]),
        (
            "## 合意点\n- a\n\n## 争点の核心\n問い\n\n## TL;DR\n- はい\n",
            ["## TL;DR", "## 争点の核心"],
        ),
        (
            "# Agreements\n- a\n\n# 2. crux\nWhy?\n\n# 1. TL;DR\n- yes\n",
            ["# 1. TL;DR", "# 2. crux"],
        ),
        (
            "# Summary\n\n### Agreements\n- a\n\n### CRUX\nWhy?\n\n### TL;DR\n- yes\n",
            ["### TL;DR", "### CRUX"],
        ),
    ],
    ids=["as-asked", "japanese", "level-1-numbered", "under-a-title-level-3-upper-case"],
)
def test_the_report_puts_the_answer_first_by_the_same_rules(text: str, first: list[str]) -> None:
    """The HTML report's order (TL;DR, then the Crux) finds the sections the check found."""
    from collab.report.markup import answer_first

    out = answer_first(text)
    heads = [line for line in out.splitlines() if line.lstrip().startswith("#")]
    assert [h for h in heads if h in first] == first
    assert heads.index(first[0]) < heads.index(first[1]) < len(heads) - 1
    assert sorted(out.splitlines()) == sorted(text.splitlines())  # nothing lost
