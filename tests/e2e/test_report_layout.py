"""report.html laid out by a real browser at a phone's width (390 px) and a laptop's (1280 px).

Nothing here reads the CSS: Chromium lays the page out and the test measures it — every
table cell holds its content (scrollWidth ≤ clientWidth), no word in a cell is broken over
two lines, the page never scrolls sideways, and the TL;DR is on the first screen at 1280 px
and within the first 1.5 screens at 390 px. ``COLLAB_LAYOUT_SHOTS=DIR`` keeps screenshots.
"""

from __future__ import annotations

import base64
import json
import os
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from collab.agents.decoding import Usage
from collab.config import AgentChoice, ContextFile, DebateConfig, Role
from collab.contract import Contract, NewPoint, StanceUpdate
from collab.evidence import EvidenceCheck
from collab.ledger import Ledger
from collab.report import render_html
from collab.seats import Side
from collab.state import Judge, RunState
from collab.turns import AgentMeta, TurnRecord
from tests.cdp import Browser
from tests.e2e.test_reports import CHROMIUM

pytestmark = pytest.mark.skipif(
    CHROMIUM is None, reason="chromium is not installed (apt-get install chromium)"
)

# Role descriptions as long as the presets' (~90 words), so the header is as tall as a real one.
DESC_A = (
    "You argue for the proposal. Build the strongest honest case: name the concrete benefits, "
    "the evidence behind each, the conditions under which it holds, and what it would cost to "
    "be wrong. Concede a point when the other side shows evidence you cannot answer, and say "
    "which of your claims depend on it. Prefer measurements, code references and documented "
    "behaviour over opinion, and keep every claim small enough to check. When the debate "
    "circles, propose the experiment that would settle the question rather than repeating."
)
DESC_B = DESC_A.replace("for the proposal", "against the proposal")

JUDGE = """## TL;DR
- Keep server-side sessions: instant revocation outweighs the store lookup at this scale.
- Revisit JWT with short expiry when the public API ships.

## Crux
Does logout have to take effect within one second for every client?

## Agreements
- I1: Revocation needs server state in either design.

## Open disagreements
1. **I2** — Session store availability: Advocate says HA redis is enough; Critic wants a fallback.

## Minority report
Stateless tokens remove a network hop from every request and a whole failure mode.

## Trade-offs
| Option | Gains | Costs | Favoured by |
|---|---|---|---|
| Server-side sessions | instant revocation, small cookies | a lookup per request | Critic |
| JWT with a denylist | no lookup for most requests | revocation needs state anyway | Advocate |

## Recommended actions
1. Measure the session store's p99 lookup latency under production load.
2. Write down the logout requirement (seconds) with the security team.
"""

POINTS = {
    1: [
        ("Revocation needs server state", "collab/orchestrator.py:263 keeps `cost = self.state`"),
        ("Session store is a single point of failure", "incident-2026-03 postmortem, §4"),
    ],
    2: [("Cookie size grows with claims", "RFC 6265 §6.1: 4096 bytes per cookie")],
}


def _meta(agent: str, model: str | None, cost: float) -> AgentMeta:
    return AgentMeta(
        agent=agent, model=model, exit_code=0, duration=41.3, attempts=1,
        usage=Usage(input_tokens=12_400, output_tokens=1_830), cost_usd=cost,
    )  # fmt: skip


def _turn(r: int, side: Side, contract: Contract) -> TurnRecord:
    prose = (
        f"Round {r}, {'Advocate' if side == 'A' else 'Critic'}: the revocation argument "
        "stands; see collab/report/templates/report.html.j2 for where the ledger is drawn. "
        "Internationalisation-sensitive-identifiers-without-spaces are rare but do occur."
    )
    return TurnRecord(
        round_no=r, side=side, role_name="Advocate" if side == "A" else "Critic", status="ok",
        reply=prose, prose=prose, contract=contract, contract_error=None,
        prompt_sha256="0" * 64, meta=_meta("claude" if side == "A" else "codex", None, 0.0213),
    )  # fmt: skip


def _rated(ledger: Ledger) -> Ledger:
    """The first issue blocking with one verified and one wrong cite, the second minor."""
    ok = EvidenceCheck("collab/orchestrator.py:263", None, "verified")
    bad = EvidenceCheck("collab/report/html.py:9999", None, "wrong-line")
    first, second, *rest = ledger.issues
    return Ledger((
        replace(first, severity="blocking", checks_a=(ok, bad)),
        replace(second, severity="minor"),
        *rest,
    ))  # fmt: skip


def wide_state() -> RunState:
    cfg = DebateConfig(
        topic="Should the public API authenticate with JWTs or with server-side sessions "
        "stored in redis, given instant revocation requirements?",
        role_a=Role("A", "Advocate", DESC_A),
        role_b=Role("B", "Devil's advocate", DESC_B),
        rounds=3,
        contexts=(ContextFile(path="docs/architecture/auth-decision-record.md", text="x"),),
        agent_a=AgentChoice("claude", "claude-sonnet-4-5"),
        agent_b=AgentChoice("codex", "gpt-5-codex"),
        judge=AgentChoice("claude", "claude-opus-4-1"),
    )  # fmt: skip
    st = RunState(run_id="20261130-101502-3fa9c1", config=cfg, created="2026-11-30T10:15:02+0000")
    a1 = Contract(new_points=tuple(NewPoint(t, e) for t, e in POINTS[1]))
    b1 = Contract(
        new_points=tuple(NewPoint(t, e) for t, e in POINTS[2]),
        stances=(StanceUpdate("I1", "agree", "a denylist is server state too"),),
    )
    a2 = Contract(stances=(StanceUpdate("I3", "contest", "claims fit easily in 4096 bytes"),))
    b2 = Contract(stances=(StanceUpdate("I3", "drop", "fair: 4096 bytes is enough"),))
    st.turns = [_turn(1, "A", a1), _turn(1, "B", b1), _turn(2, "A", a2), _turn(2, "B", b2)]
    st.status, st.stop_reason = "done", "converged-early"
    st.stop_detail = "no new points for two rounds"
    st.judge = Judge(text=JUDGE, fallback=False, meta=_meta("claude", "claude-opus-4-1", 0.0851))
    plain = st.ledger
    st.ledger = lambda upto_round=None: _rated(plain(upto_round))  # type: ignore[method-assign]
    return st


# What the browser laid out: cells whose content overflows them, words a cell broke over
# two lines (each word's range measured), the page's width and where the TL;DR ends.
MEASURE_JS = r"""(() => {
  const overflow = [], broken = [];
  for (const cell of document.querySelectorAll('td, th')) {
    if (cell.scrollWidth > cell.clientWidth + 1)
      overflow.push([cell.textContent.trim().slice(0, 40), cell.scrollWidth, cell.clientWidth]);
    const walk = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
    for (let node; (node = walk.nextNode()); ) {
      const re = /[^\s-]{2,}/g;  // a break at a hyphen is not a broken word
      for (let m; (m = re.exec(node.data)); ) {
        const range = document.createRange();
        range.setStart(node, m.index); range.setEnd(node, m.index + m[0].length);
        const tops = new Set([...range.getClientRects()].filter(r => r.width > 0)
                                                        .map(r => Math.round(r.top)));
        if (tops.size > 1) broken.push(m[0]);
      }
    }
  }
  const heads = [...document.querySelectorAll('h2, h3')];
  const tldr = heads.find(h => h.textContent.trim() === 'TL;DR');
  const crux = heads.find(h => h.textContent.trim() === 'Crux');
  const bottom = h => h ? h.nextElementSibling.getBoundingClientRect().bottom + scrollY : null;
  const box = document.querySelector('#ledger .scroll');
  return JSON.stringify({
    ledgerScrolls: box.scrollWidth > box.clientWidth, overflow, broken,
    tldr: bottom(tldr), crux: bottom(crux),
    pageWidth: document.documentElement.scrollWidth, bodyWidth: document.body.scrollWidth,
    width: innerWidth, height: innerHeight, text: document.body.innerText,
  });
})()"""

WIDTHS = [(390, 844, True), (1280, 800, False)]


@pytest.fixture(scope="module")
def page(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Browser, Path]]:
    assert CHROMIUM is not None
    tmp = tmp_path_factory.mktemp("layout")
    report = tmp / "report.html"
    report.write_text(render_html(wide_state()), encoding="utf-8")
    with Browser(CHROMIUM, tmp / "profile") as browser:
        yield browser, report


def _lay_out(browser: Browser, report: Path, width: int, height: int, mobile: bool) -> Any:
    size = {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": mobile}
    browser.call("Emulation.setDeviceMetricsOverride", size)
    browser.navigate(report.as_uri())
    keep = os.environ.get("COLLAB_LAYOUT_SHOTS")
    if keep:
        top = browser.evaluate("document.getElementById('ledger').offsetTop")
        for name, params in (
            ("first", {}),
            ("ledger", {"captureBeyondViewport": True, "clip": {
                "x": 0, "y": top, "width": width, "height": 900, "scale": 1}}),
            ("full", {"captureBeyondViewport": True, "clip": {
                "x": 0, "y": 0, "width": width, "scale": 1,
                "height": browser.evaluate("document.documentElement.scrollHeight")}}),
        ):  # fmt: skip
            shot = browser.call("Page.captureScreenshot", {"format": "png", **params})
            Path(keep, f"report-{width}-{name}.png").write_bytes(base64.b64decode(shot["data"]))
    return json.loads(browser.evaluate(MEASURE_JS))


@pytest.mark.parametrize(("width", "height", "mobile"), WIDTHS, ids=["390px", "1280px"])
def test_report_fits_the_screen(
    page: tuple[Browser, Path], width: int, height: int, mobile: bool
) -> None:
    """Mutants killed: ``overflow-wrap:anywhere`` back on ``th,td`` (words broken letter by
    letter at 390 px); a wide table without its scroll box (the page scrolls sideways); the
    ledger without its cards at 390 px (it scrolls sideways in its box); the seats and facts
    before the summary, as they were (the TL;DR below the first screen at 1280 px)."""
    m = _lay_out(*page, width, height, mobile)
    assert m["width"] == width
    assert m["overflow"] == [], m["overflow"]
    assert m["broken"] == [], m["broken"]
    assert not m["ledgerScrolls"]  # the ledger reads without scrolling: a table, or cards
    assert m["pageWidth"] <= width and m["bodyWidth"] <= width, (m["pageWidth"], m["bodyWidth"])
    screens = 1.5 if mobile else 1.0
    assert m["tldr"] is not None and m["tldr"] <= screens * height, (m["tldr"], height)
    assert m["crux"] is not None and m["crux"] <= screens * height, (m["crux"], height)


def test_report_names_the_judge_and_one_cost_breakdown(page: tuple[Browser, Path]) -> None:
    m = _lay_out(*page, 1280, 800, False)
    text = m["text"]
    assert "claude · claude-opus-4-1" in text  # the Judge's agent and its model
    # One breakdown, the Judge's share in it, and the shares add up to the total.
    assert "$0.1703 (A $0.0426 · B $0.0426 · judge $0.0851)" in text
    # Severity (a default major left unmarked) and each cite's check, where the ledger has them.
    ledger = text.split("Final ledger")[1].split("Seats and facts")[0]
    assert "BLOCKING REVOCATION NEEDS SERVER STATE" in ledger.upper()
    assert "MINOR SESSION STORE" in ledger.upper()
    assert "collab/orchestrator.py:263 ✓" in ledger
    assert "collab/report/html.py:9999 ✗ wrong-line" in ledger
