"""The HTML report: hostile text stays text, every section and turn is there (a browser's
view of a real run's page: tests/e2e/test_reports.py)."""

from __future__ import annotations

import html
import re
from html.parser import HTMLParser
from typing import NamedTuple

import pytest
from markupsafe import escape

from collab.agents.decoding import Usage
from collab.config import AgentChoice, ContextFile, DebateConfig, Role
from collab.contract import Contract, NewPoint, StanceUpdate
from collab.ledger_summary import fallback_summary
from collab.report import render_html, render_markdown_report, transcript_md
from collab.report.markup import markdown_html, prose_html
from collab.seats import Side
from collab.state import Judge, RunState
from collab.text import md_inline
from collab.turns import AgentMeta, TurnRecord, TurnStatus

SCRIPT = "<script>alert(1)</script>"
IMG = '"><img src=x onerror=alert(1)>'
TEMPLATE = "{{ 7*7 }}"
HOSTILE = f"{SCRIPT} {IMG} {TEMPLATE}"

JUDGE = f"""## TL;DR
- Keep **sessions** for now; revisit `JWT` when the API goes public.
- Nothing here is {SCRIPT} executable.

## Agreements
- I1: revocation needs a server-side check.

## Open disagreements
1. **I2** — {IMG}
   - Advocate: cost is small
   - Critic: *latency* matters

## Trade-offs
| Option | Gains | Costs | Favoured by |
|---|:---:|---:|---|
| Sessions | instant revocation | a store lookup | Critic |
| JWT \\| stateless | no lookup | {SCRIPT} | Advocate |

## Recommended actions
1. Measure the store lookup p99 ([dashboard](https://example.com/p99?a=1&b=2)).
2. Do not click [this](javascript:alert(1)).
"""


def meta(duration: float, cost: float | None, tokens: int = 100) -> AgentMeta:
    return AgentMeta(
        agent="claude",
        model="sonnet",
        exit_code=0,
        duration=duration,
        attempts=1,
        usage=Usage(input_tokens=tokens, output_tokens=tokens // 2),
        cost_usd=cost,
    )


def turn(
    r: int,
    side: Side,
    prose: str,
    contract: Contract | None,
    *,
    cost: float | None = 0.01,
    status: TurnStatus = "ok",
    warnings: tuple[str, ...] = (),
) -> TurnRecord:
    return TurnRecord(
        round_no=r,
        side=side,
        role_name="Advocate" if side == "A" else "Critic",
        status=status,
        reply=prose,
        prose=prose,
        contract=contract,
        contract_error=None,
        prompt_sha256="0" * 64,
        meta=meta(3.5 * r, cost),
        warnings=warnings,
    )


PROSE = {
    (1, "A"): f"Round one, Advocate.\nA second line.\n\nA new paragraph with {SCRIPT}.",
    (1, "B"): f"Round one, Critic: {IMG} and {TEMPLATE}.",
    (2, "A"): "Round two, Advocate: I still contest I3 & <b>mean</b> it.",
    (2, "B"): "Round two, Critic: agreed on I1; dropping I3.",
}


def make_state(*, cost: float | None = 0.01, judge: str | None = JUDGE) -> RunState:
    cfg = DebateConfig(
        topic=f"JWT or sessions? {HOSTILE}",
        role_a=Role("A", f"Advocate {SCRIPT}", f"Builds the case. {IMG}"),
        role_b=Role("B", "Critic", f"Attacks it. {TEMPLATE}"),
        preset="advocate-vs-devils-advocate",
        rounds=3,
        contexts=(ContextFile(path=f"notes-{IMG}.md", text="x"),),
        agent_a=AgentChoice("claude", "sonnet"),
        agent_b=AgentChoice("codex", None),
        judge=AgentChoice("claude", "opus"),
    )
    st = RunState(run_id="20261130-101502-3fa9c1", config=cfg, created="2026-11-30T10:15:02+0000")
    st.turns = [
        turn(1, "A", PROSE[1, "A"], Contract(new_points=(
            NewPoint("Revocation needs a denylist", "logout must be instant"),
            NewPoint(f"Title {SCRIPT}", IMG),
        )), cost=cost),
        turn(1, "B", PROSE[1, "B"], Contract(
            new_points=(NewPoint(f"Session store is a SPOF {TEMPLATE}", "redis outage"),),
            stances=(StanceUpdate("I1", "contest", "a denylist is a session store"),),
        ), cost=cost),
        turn(2, "A", PROSE[2, "A"], Contract(stances=(StanceUpdate("I3", "contest", "HA redis"),)),
             cost=cost, warnings=(f"slow turn {SCRIPT}",)),
        turn(2, "B", PROSE[2, "B"], Contract(stances=(
            StanceUpdate("I1", "agree", "fair"), StanceUpdate("I3", "drop", "HA is enough"),
        )), cost=cost),
    ]  # fmt: skip
    st.status = "done"
    st.stop_reason = "converged-early"
    st.stop_detail = f"no new points for two rounds {IMG}"
    st.warnings = [f"run warning {SCRIPT}"]
    if judge is not None:
        st.judge = Judge(
            text=judge, fallback=False, meta=meta(20.0, None if cost is None else 0.05)
        )
    return st


# -- structure and escaping --------------------------------------------------------------------

ALLOWED_TAGS = {
    "html", "head", "meta", "title", "style", "body", "main", "header", "nav", "section",
    "footer", "article", "div", "span", "h1", "h2", "h3", "h4", "h5", "h6", "p", "br", "hr",
    "ul", "ol", "li", "dl", "dt", "dd", "table", "thead", "tbody", "tfoot", "tr", "th", "td",
    "strong", "em", "s", "del", "code", "pre", "blockquote", "details", "summary", "a",
}  # fmt: skip


class TagAudit(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, list[tuple[str, str | None]]]] = []
        self.text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, attrs))

    def handle_data(self, data: str) -> None:
        self.text.append(data)


def audit(page: str) -> TagAudit:
    parser = TagAudit()
    parser.feed(page)
    parser.close()
    return parser


def visible(page: str) -> str:
    return "".join(audit(page).text)


def tight(fragment: str) -> str:
    """Markup with the newlines markdown-it puts between block tags taken out."""
    return re.sub(r">\s+<", "><", fragment)


def test_only_our_tags_and_attributes() -> None:
    page = render_html(make_state())
    parsed = audit(page)
    for tag, attrs in parsed.tags:
        assert tag in ALLOWED_TAGS, tag
        for name, value in attrs:
            assert not name.startswith("on"), (tag, name)
            assert name in {"class", "id", "href", "rel", "lang", "charset", "name", "content",
                            "http-equiv", "start"}, (tag, name)  # fmt: skip
            if name == "href":
                assert value is not None
                assert value.startswith(("#", "https://", "http://")), value
    assert "script" not in {t for t, _ in parsed.tags}
    assert "img" not in {t for t, _ in parsed.tags}


def test_hostile_text_is_escaped_not_dropped() -> None:
    page = render_html(make_state())
    assert "<script" not in page.lower()
    assert "<img" not in page.lower()
    assert html.escape(SCRIPT) in page
    assert html.escape(IMG[1:]) in page  # how a quote is written is the serialiser's choice
    assert str(escape(IMG)) in page  # header fields: Jinja's autoescape
    assert TEMPLATE in page  # the template engine rendered it as data, not as a template
    text = visible(page)
    assert SCRIPT in text and IMG in text  # what a reader sees is exactly what was said
    assert "javascript:" not in page.replace("[this](javascript:alert(1))", "")
    assert "Content-Security-Policy" in page and "default-src 'none'" in page


def test_sections_and_header() -> None:
    page = render_html(make_state())
    for anchor in ("summary", "ledger", "evolution", "round-1", "round-2", "warnings"):
        assert f'id="{anchor}"' in page
    for fact in ("2 of 3 planned", "converged-early", "$0.0900", "$0.0200", "sonnet", "codex",
                 "opus", "2026-11-30 10:15:02", "500 in", "250 out"):  # fmt: skip
        assert fact in page, fact
    assert str(escape(f"notes-{IMG}.md")) in page
    assert "Judge summary" in page


def test_every_turn_is_shown_with_its_moves() -> None:
    st = make_state()
    page = render_html(st)
    text = visible(page)
    for t in st.turns:
        for line in t.prose.splitlines():
            assert line in text
        assert f"{t.meta.duration:.1f}s" in page
    assert page.count('class="turn a"') == 2 and page.count('class="turn b"') == 2
    assert "Revocation needs a denylist" in page
    assert '<span class="tag contest">contest</span>' in page
    assert '<span class="tag drop">drop</span>' in page
    assert html.escape(f"slow turn {SCRIPT}") in page
    assert "<p>Round one, Advocate.<br>\nA second line.</p>" in page  # line breaks kept
    assert page.count("<p>Round one, Advocate.") == 1


def test_final_ledger_and_evolution() -> None:
    page = render_html(make_state())
    ledger = page.split('id="ledger"')[1].split('id="evolution"')[0]
    assert '<tr class="resolved"><td class="id">I1</td>' in ledger
    assert '<tr class="open"><td class="id">I2</td>' in ledger
    assert '<tr class="dropped"><td class="id">I3</td>' in ledger
    assert '<td class="by">A</td>' in ledger and '<td class="by">B</td>' in ledger
    evolution = page.split('id="evolution"')[1].split('id="round-1"')[0]
    assert "<th>R1</th><th>R2</th>" in evolution
    row_i3 = evolution.split('<span class="id">I3</span>')[1].split("</tr>")[0]
    assert row_i3.index("pill open") < row_i3.index("pill dropped")
    assert 'class="mark">changed' in row_i3


def test_judge_markdown_is_rendered() -> None:
    page = render_html(make_state())
    judge = tight(page.split('id="summary"')[1].split('id="ledger"')[0])
    assert "<h3>TL;DR</h3>" in judge
    assert "<strong>sessions</strong>" in judge and "<code>JWT</code>" in judge
    assert "<th>Option</th>" in judge and '<td class="c">instant revocation</td>' in judge
    assert '<th class="r">Costs</th>' in judge and '<div class="scroll"><table>' in judge
    assert "<td>JWT | stateless</td>" in judge
    assert '<a href="https://example.com/p99?a=1&amp;b=2"' in judge
    assert "<em>latency</em>" in judge
    assert "<ol><li><strong>I2</strong>" in judge and "<ul><li>Advocate: cost is small" in judge


def test_unknown_cost_and_missing_judge() -> None:
    page = render_html(make_state(cost=None, judge=None))
    assert "<strong>n/a</strong>" in page and "judge n/a" in page
    assert "No judge summary yet" in page


def test_fallback_judge_is_labelled() -> None:
    st = make_state()
    st.judge = Judge(text=fallback_summary(st), fallback=True, meta=None)
    page = render_html(st)
    assert "<h2>Summary (from the ledger)</h2>" in page and "Judge did not answer" in page
    # Our summary is rendered without raw HTML: a model's title in it stays visible text.
    assert "<td>I2</td><td>🟡 open</td><td>Title &lt;script&gt;" in tight(page)
    assert "Summary (from the ledger)" in render_markdown_report(st)


def test_partial_round_gets_a_now_column() -> None:
    st = make_state()
    st.turns.append(turn(3, "A", "half a round", Contract(new_points=(NewPoint("late", "x"),))))
    page = render_html(st)
    assert "<th>now</th>" in page and 'id="round-3"' in page and "half a round" in page


class MdCase(NamedTuple):
    test_id: str
    markdown: str
    present: tuple[str, ...]
    absent: tuple[str, ...] = ()
    raw_html: bool = True  # as the Judge's summary is rendered


MD_CASES = [
    MdCase("heading-shift", "## Hi", ("<h3>Hi</h3>",)),
    MdCase("heading-cap", "###### Hi", ("<h6>Hi</h6>",)),
    MdCase("paragraphs", "one\ntwo\n\nthree", ("<p>one\ntwo</p>", "<p>three</p>")),
    MdCase("bullets", "- a\n- b", ("<ul><li>a</li><li>b</li></ul>",)),
    MdCase("nested", "- a\n  - b\n- c", ("<ul><li>a\n<ul><li>b</li></ul></li><li>c</li></ul>",)),
    MdCase("ordered-start", "3. x\n4. y", ('<ol start="3"><li>x</li><li>y</li></ol>',)),
    MdCase("code-protects-markup", "`**x** <b>`", ("<code>**x** &lt;b&gt;</code>",), ("<strong>",)),
    MdCase("snake-case", "use_the_force", ("use_the_force",), ("<em>",)),
    MdCase("strikethrough", "~~gone~~", ("<s>gone</s>",)),
    MdCase("fence", "```\n<script>x</script>\n```", ("<pre><code>&lt;script&gt;",), ("<script",)),
    MdCase("quote", "> quoted **x**", ("<blockquote><p>quoted <strong>x</strong></p>",)),
    MdCase("hr", "a\n\n---\n\nb", ("<hr>",)),
    MdCase("js-link", "[x](javascript:alert(1))", ("[x](javascript:alert(1))",), ("<a",)),
    MdCase(
        "quote-in-url",
        '[x](https://a"onmouseover="alert(1))',
        ('href="https://a%22onmouseover=%22alert(1)"',),
        ('"onmouseover', " onmouseover"),
    ),
    MdCase("mailto", "[me](mailto:a@b.example)", ('href="mailto:a@b.example"',)),
    MdCase("relative-link", "[x](../../secrets) [y](#ledger)", (">x</a>",), ("href",)),
    MdCase("image", "![pixel](https://t.example/p.png)", ("!<a",), ("<img",)),
    MdCase(
        "details",
        "<details>\n<summary>Rounds 1</summary>\n\n- r1\n</details>",
        ("<details><summary>Rounds 1</summary><ul><li>r1</li></ul></details>",),
    ),
    MdCase(
        "details-one-line",
        "<details><summary>The rounds</summary>\n\n#### Round 1\n\ntext\n\n</details>",
        ("<details><summary>The rounds</summary><h5>Round 1</h5><p>text</p></details>",),
    ),
    MdCase("unbalanced-details-closed", "<details>\nopen forever", ("open forever</details>",)),
    MdCase(
        "attr-details",
        '<details open onclick="x">\n</details>',
        ("<details></details>",),
        ("onclick", "open"),
    ),
    MdCase("raw-html", '<img src=x onerror="alert(1)">', (), ("<img", "onerror")),
    MdCase(
        "raw-html-off",
        '<img src=x onerror="alert(1)"> <details>',
        ("&lt;img src=x onerror=", "&lt;details&gt;"),
        ("<img", "<details"),
        raw_html=False,
    ),
    MdCase(
        "cannot-close-the-page",
        "a</section></main>\n\n</body>b",
        ("a",),
        ("</section", "</main", "</body"),
    ),
    MdCase("comment", "<!-- hidden -->shown", (), ("<!--", "hidden")),
    MdCase("bidi-control", "a\u202eb\x1b[31mc", ("abc",)),
    MdCase("table-ragged", "|a|b|\n|-|-|\n|1|", ("<td>1</td><td></td>",)),
    MdCase(
        "table-align",
        "|a|b|c|\n|:-|:-:|-:|\n|1|2|3|",
        ('<td>1</td><td class="c">2</td><td class="r">3</td>',),
        ("style",),
    ),
]


@pytest.mark.parametrize("case", MD_CASES, ids=[c.test_id for c in MD_CASES])
def test_markdown_subset(case: MdCase) -> None:
    out = tight(markdown_html(case.markdown, heading_shift=1, raw_html=case.raw_html))
    for want in case.present:
        assert want in out
    for bad in case.absent:
        assert bad not in out
    assert out.count("<details") == out.count("</details>")  # a fold never swallows the page


def test_prose_keeps_breaks_and_escapes() -> None:
    assert prose_html("a <b>\nb\n\n\nc") == "<p>a &lt;b&gt;<br>\nb</p>\n<p>c</p>"
    assert prose_html("# Plan\n\n**yes**") == "<h3>Plan</h3>\n<p><strong>yes</strong></p>"


HOSTILE_JUDGE = """## TL;DR
- <script>alert(1)</script> fine
- <img src=x onerror=alert(1)> and <svg onload=alert(1)></svg>
- [x](javascript:alert(1)) and [y](JaVaScRiPt:alert(1)) and [z](vbscript:x)
- <a href="javascript:alert(1)">raw link</a> <a href="data:text/html,<script>x</script>">d</a>
- <iframe src="https://evil.example"></iframe><form action="https://evil.example"><input></form>
- <p style="position:fixed" id="ledger" class="pill">styled</p><style>body{display:none}</style>

<details open onclick="alert(1)" ontoggle="alert(1)"><summary onmouseover="x">Rounds</summary>

Inside the fold.

</details>
"""


def test_hostile_judge_summary_renders_inert() -> None:
    st = make_state(judge=HOSTILE_JUDGE)
    page = render_html(st)
    summary = page.split('id="summary"')[1].split('id="ledger"')[0]
    parsed = audit(f"<section>{summary}")
    tags = [t for t, _ in parsed.tags]
    for bad in ("script", "img", "svg", "iframe", "form", "input", "style"):
        assert bad not in tags, bad
    for tag, attrs in parsed.tags:
        for name, value in attrs:
            assert not name.startswith("on"), (tag, name)
            assert name not in ("style", "id", "open", "src", "action"), (tag, name)
            if name == "href":
                assert value is not None and value.startswith(("https://", "http://")), value
            if name == "class":
                assert value in ("scroll", "c", "r"), (tag, value)
    assert "javascript:" not in " ".join(str(v) for _, attrs in parsed.tags for _, v in attrs)
    assert "<script" not in page.lower() and "<style>body" not in page
    # The fold survives as real elements, balanced, the summary inside the details.
    assert tags.index("details") < tags.index("summary")
    assert summary.count("<details") == summary.count("</details>") == 1
    assert page.count("<details") == page.count("</details>")  # the seats fold theirs too
    text = visible(summary)
    assert "Inside the fold." in text and "styled" in text and "raw link" in text
    assert audit(page).tags.count(("section", [("id", "ledger")])) == 1  # no forged anchor


# -- Markdown report --------------------------------------------------------------------------


def test_markdown_report_outline() -> None:
    st = make_state()
    md = render_markdown_report(st)
    order = ["# Debate:", "## Judge summary", "### TL;DR", "## Final ledger",
             "## Ledger evolution", "## Round 1", "## Round 2", "## Warnings"]  # fmt: skip
    positions = [md.index(h) for h in order]
    assert positions == sorted(positions)
    for t in st.turns:
        assert t.prose in md
    # the title as a model wrote it, its Markdown escaped (it renders as written)
    assert f"| I3 Session store is a SPOF {md_inline(TEMPLATE)} | open | dropped |" in md
    assert "<td>I3 Session store is a SPOF {{ 7*7 }}</td>" in markdown_html(md)
    # One cost breakdown, the Judge's share in it, the same in every report (issue 26).
    breakdown = "$0.0900 (A $0.0200 · B $0.0200 · judge $0.0500)"
    assert f"- Cost: {breakdown}" in md
    assert f"- Cost: {breakdown}" in transcript_md(st)
    assert breakdown in visible(render_html(st))


# The page in a real browser (Chromium: colours, CSP, no request out) is rendered from a
# real debate's report: tests/e2e/test_reports.py.


def test_the_answer_comes_first() -> None:
    """The TL;DR and the Crux lead the summary whatever order the Judge wrote them in; a
    note before the first section stays first, a heading inside a fence is not a section.
    Mutant killed: ``answer_first`` returning its input (the Crux stays last)."""
    text = (
        "> a note\n\n## Agreements\n- I1\n\n```\n## not a section\n```\n\n"
        "## Crux\nWhy?\n\n## TL;DR\n- yes\n\n## Trade-offs\n| a |\n|---|\n| b |\n"
    )
    st = make_state(judge=text)
    heads = re.findall(r"<h3>(.*?)</h3>", render_html(st).split('id="summary"')[1])
    assert heads[:4] == ["TL;DR", "Crux", "Agreements", "Trade-offs"]
    page = tight(render_html(st))
    assert page.index("a note") < page.index("<h3>TL;DR")
    assert page.index("<h3>Agreements") < page.index("## not a section")
