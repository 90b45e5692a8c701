"""The report of a real run, as users reach it: ``collab show --format html``, ``collab
export`` in each format, and the page a real debate wrote, opened in headless Chromium.

The run is a real debate (the fake agent, the subprocess runner) whose replies carry
things that would fetch from a local HTTP server if they ever reached the page as
markup: the report must show them as text, colour the ledger by status, and let no
request leave the page (its Content-Security-Policy blocks even what a script would try).
"""

from __future__ import annotations

import base64
import contextlib
import http.server
import json
import os
import shutil
import struct
import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any, NamedTuple

import pytest

from collab.report.html import CSP
from collab.store import RunDir
from tests.cdp import Browser
from tests.conftest import Cli, FakeAgent
from tests.e2e.test_debate_tmux import (
    debate_args,
    judge_rule,
    read_state,
    say,
    turn_rule,
)
from tests.helpers import JUDGE_REST, Outcome, wait_until

TOPIC = "Cache sessions in Redis or sign JWTs?"


class Trap:
    """A local HTTP server that counts what reaches it: any hit is a leak."""

    def __init__(self) -> None:
        self.paths: list[str] = []
        trap = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                trap.paths.append(self.path)
                self.send_response(200)
                self.send_header("Content-Type", "image/png")
                self.send_header("Access-Control-Allow-Origin", "*")
                self.end_headers()

            def log_message(self, *args: object) -> None:
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def trap() -> Iterator[Trap]:
    t = Trap()
    yield t
    t.close()


class Run(NamedTuple):
    run_id: str
    dir: Path
    doc: dict[str, object]


def hostile(url: str, tag: str) -> str:
    """Prose that asks for the network five ways; all of it must stay text."""
    return (
        f"PROSE-{tag} holds. ![pixel]({url}/{tag}-md-image.png) "
        f'<img src="{url}/{tag}-raw-img.png"> <link rel="stylesheet" href="{url}/{tag}.css"> '
        f'<iframe src="{url}/{tag}-frame"></iframe> <video src="{url}/{tag}.mp4"></video> '
        f"[a link]({url}/{tag}-link) stays a link."
    )


def real_run(fake: FakeAgent, cli: Cli, url: str) -> Run:
    """Two rounds that leave one issue of each status: I1 open, I2 resolved, I3 dropped."""
    n = 2
    a1 = say(hostile(url, "A1"), new=[("Revocation", "ev-a1")])
    b1 = say(
        hostile(url, "B1"),
        new=[("Latency", "ev-b1"), ("Cookie size", "ev-b2")],
        stances=[("I1", "contest", "ev-b1x")],
    )
    a2 = say("PROSE-A2 fine on latency", stances=[("I2", "agree", "ev-a2"), ("I1", "contest", "x")])
    b2 = say(
        "PROSE-B2 cookie size is moot", stances=[("I3", "drop", "ev-b3"), ("I1", "contest", "y")]
    )
    judge = f"## TL;DR\n- JUDGE-TEXT sessions win. ![x]({url}/judge-image.png)" + JUDGE_REST
    fake.script(
        [
            judge_rule(judge),
            turn_rule("A", 1, n, a1),
            turn_rule("B", 1, n, b1),
            turn_rule("A", 2, n, a2),
            turn_rule("B", 2, n, b2),
        ],
        "UNEXPECTED-PROMPT",
    )
    res = cli(*debate_args(rounds=n, runner="subprocess", topic=TOPIC))
    assert res.code == 0, res.err
    doc = res.json()
    run_id = doc["run_id"]
    assert isinstance(run_id, str)
    state = read_state(run_id)
    assert [(i.id, i.status) for i in state.ledger().issues] == [
        ("I1", "open"), ("I2", "resolved"), ("I3", "dropped"),
    ]  # fmt: skip
    return Run(run_id, RunDir(run_id).path, doc)


# -- show --format html, export ------------------------------------------------------------


def test_show_format_html_is_the_page_the_run_wrote(
    fake_agent: FakeAgent, cli: Cli, trap: Trap
) -> None:
    run = real_run(fake_agent, cli, trap.url)
    page = (run.dir / "report.html").read_text(encoding="utf-8")
    res = cli("show", run.run_id, "--format", "html")
    assert res.code == 0, res.err
    assert (res.out, res.err) == (page, "")
    assert res.out.startswith("<!doctype html>")
    assert f'<meta http-equiv="Content-Security-Policy" content="{CSP}">' in res.out
    for text in ("PROSE-A1 holds.", "PROSE-B2 cookie size is moot", "JUDGE-TEXT", run.run_id):
        assert text in res.out
    assert "<img" not in res.out and "<iframe" not in res.out and "<link" not in res.out
    assert cli("show", run.run_id, "-f", "html").out == page


def test_export_writes_each_format(
    fake_agent: FakeAgent, cli: Cli, trap: Trap, tmp_path: Path
) -> None:
    run = real_run(fake_agent, cli, trap.url)
    shown = {
        "html": cli("show", run.run_id, "--format", "html").out,
        "md": cli("show", run.run_id).out,
        "json": cli("show", run.run_id, "--json").out,
    }
    out = tmp_path / "out"
    out.mkdir()
    cases = [
        ("decision.html", [], "html"),
        ("decision.HTM", [], "html"),
        ("decision.md", [], "md"),
        ("decision.json", [], "json"),
        ("notes.txt", ["--format", "md"], "md"),
        ("page.md", ["-f", "html"], "html"),  # --format wins over the suffix
    ]
    for name, extra, kind in cases:
        target = out / name
        res = cli("export", run.run_id, "-o", str(target), *extra)
        private = " (mode 0600: only you can read it; chmod it to share)"
        assert (res.code, res.out, res.err) == (0, "", f"wrote {target}{private}\n"), name
        assert target.read_text(encoding="utf-8") == shown[kind], name
    assert (out / "decision.html").read_text(encoding="utf-8") == (
        run.dir / "report.html"
    ).read_text(encoding="utf-8")
    doc = json.loads((out / "decision.json").read_text(encoding="utf-8"))
    assert doc["schema"] == "collab.result/2" and doc["run_id"] == run.run_id
    assert [i["status"] for i in doc["ledger"]] == ["open", "resolved", "dropped"]
    # Exporting again replaces the file whole (atomically): no temp file is left.
    res = cli("export", run.run_id, "--output", str(out / "decision.md"))
    assert res.code == 0
    assert sorted(p.name for p in out.iterdir()) == sorted(name for name, _, _ in cases)


@contextlib.contextmanager
def _dev_stdout_kept() -> Iterator[None]:
    """Run as root, a collab that replaced the path it was given by a renamed temp file
    (as it once did) replaces /dev/stdout itself: put the link back, and say so."""
    try:
        yield
    finally:
        stdout = Path("/dev/stdout")
        if not stdout.is_symlink() and os.geteuid() == 0 and stdout.is_file():
            stdout.unlink()
            stdout.symlink_to("/proc/self/fd/1")
            pytest.fail("export replaced /dev/stdout with a file (the link is restored)")


def test_export_to_stdout_and_through_a_symlink(
    fake_agent: FakeAgent, cli: Cli, trap: Trap, tmp_path: Path
) -> None:
    """``-o`` names what the person has: /dev/stdout (a pipe, or the file the shell opened),
    a symlink (its target written, the link and the target's mode kept)."""
    run = real_run(fake_agent, cli, trap.url)
    md = cli("show", run.run_id).out
    redirected = tmp_path / "redirected.md"
    with _dev_stdout_kept():
        piped = cli.process("export", run.run_id, "-f", "md", "-o", "/dev/stdout")
        assert (piped.code, piped.out, piped.err) == (0, md, "wrote /dev/stdout\n")
        with redirected.open("w", encoding="utf-8") as fh:
            fh.write("kept\n")
            fh.flush()
            proc = cli.popen("export", run.run_id, "-f", "md", "-o", "/dev/stdout", stdout=fh)
            _, err = proc.communicate(timeout=120)
        assert proc.returncode == 0, err
        both = tmp_path / "both.md"  # > both.md 2>&1: the report, then export's line
        with both.open("w", encoding="utf-8") as fh:
            proc = cli.popen("export", run.run_id, "-f", "md", "-o", "/dev/stdout", stdout=fh,
                             stderr=subprocess.STDOUT)  # fmt: skip
            proc.communicate(timeout=120)
        assert proc.returncode == 0
    assert redirected.read_text(encoding="utf-8") == "kept\n" + md
    assert both.read_text(encoding="utf-8") == md + "wrote /dev/stdout\n"
    target = tmp_path / "shared" / "decision.html"
    target.parent.mkdir()
    target.write_text("old\n")
    target.chmod(0o640)
    link = tmp_path / "decision.html"
    link.symlink_to(target)
    res = cli("export", run.run_id, "-o", str(link))
    assert (res.code, res.err) == (0, f"wrote {link}\n")  # its mode is the target's: no 0600
    assert link.is_symlink() and link.resolve() == target
    assert target.read_text(encoding="utf-8") == (run.dir / "report.html").read_text()
    assert (target.stat().st_mode & 0o777) == 0o640


class Refused(NamedTuple):
    test_id: str
    args: tuple[str, ...]  # {out} is a scratch dir, {id} the run
    message: str


REFUSED = [
    Refused("no-suffix", ("export", "{id}", "-o", "{out}/decision"),
            "cannot tell the format from 'decision'; pass --format"),
    Refused("unknown-suffix", ("export", "{id}", "-o", "{out}/decision.pdf"),
            "cannot tell the format from 'decision.pdf'; pass --format"),
    Refused("bad-format", ("export", "{id}", "-o", "{out}/x.md", "--format", "pdf"),
            "--format must be md, json, html or adr, got 'pdf'"),
    Refused("near-adr", ("export", "{id}", "-o", "{out}/x.md", "--format", "ard"),
            "--format must be md, json, html or adr, got 'ard'; did you mean 'adr'?"),
    Refused("upper-adr", ("export", "{id}", "-o", "{out}", "-f", "ADR"),
            "got 'ADR'; did you mean 'adr'?"),
    Refused("show-near-html", ("show", "{id}", "-f", "htlm"),
            "--format must be md, json or html, got 'htlm'; did you mean 'html'?"),
    Refused("a-directory", ("export", "{id}", "-o", "{out}/adir.html"), "adir.html is a directory"),
    Refused("no-parent", ("export", "{id}", "-o", "{out}/missing/x.html"),
            "cannot write {out}/missing/x.html: No such file or directory"),
    Refused("unknown-run", ("export", "20990101-000000-abcdef", "-o", "{out}/x.html"),
            "no run with id 20990101-000000-abcdef"),
    Refused("show-bad-format", ("show", "{id}", "--format", "pdf"),
            "--format must be md, json or html, got 'pdf'"),
]  # fmt: skip


def test_export_and_show_refuse_with_one_line(
    fake_agent: FakeAgent, cli: Cli, trap: Trap, tmp_path: Path
) -> None:
    run = real_run(fake_agent, cli, trap.url)
    out = tmp_path / "out"
    (out / "adir.html").mkdir(parents=True)
    for case in REFUSED:
        argv = [a.replace("{out}", str(out)).replace("{id}", run.run_id) for a in case.args]
        res: Outcome = cli(*argv)
        message = case.message.replace("{out}", str(out))
        assert res.code == 2, case.test_id
        assert res.out == "", case.test_id
        lines = res.err.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("collab: "), (case.test_id, res.err)
        assert message in lines[0], (case.test_id, lines[0])
    assert sorted(p.name for p in out.iterdir()) == ["adir.html"]  # nothing written


# -- a real browser ---------------------------------------------------------------------------


def _find_chromium() -> str | None:
    found = shutil.which("chromium")
    if found is None and Path("/usr/bin/chromium").exists():
        found = "/usr/bin/chromium"
    return found


CHROMIUM = _find_chromium()

# The ledger rows as the browser computes them: the status pill's colours and the bar on
# the id cell (report.css, light and dark schemes).
LEDGER_JS = """JSON.stringify([...document.querySelectorAll('table.ledger tbody tr')].map(tr => {
  const pill = getComputedStyle(tr.querySelector('.pill'));
  return [tr.querySelector('td.id').textContent, tr.className, pill.backgroundColor,
          pill.color, getComputedStyle(tr.querySelector('td.id')).boxShadow];
}))"""


def _bar(rgb: str) -> str:
    return f"{rgb} 4px 0px 0px 0px inset"


LIGHT = [
    ["I1", "open", "rgb(255, 241, 184)", "rgb(107, 78, 0)", _bar("rgb(107, 78, 0)")],
    ["I2", "resolved", "rgb(211, 245, 220)", "rgb(17, 99, 41)", _bar("rgb(17, 99, 41)")],
    ["I3", "dropped", "rgb(228, 231, 235)", "rgb(87, 96, 106)", "none"],
]
DARK = [
    ["I1", "open", "rgb(71, 56, 10)", "rgb(245, 211, 107)", _bar("rgb(245, 211, 107)")],
    ["I2", "resolved", "rgb(18, 57, 31)", "rgb(126, 226, 160)", _bar("rgb(126, 226, 160)")],
    ["I3", "dropped", "rgb(42, 48, 56)", "rgb(170, 179, 191)", "none"],
]
# What a script in the page would try (DevTools runs it despite the CSP; the requests it
# starts are still the page's, and the CSP must stop each one).
PROBE_JS = """(() => {
  new Image().src = '{url}/probe-image.png';
  fetch('{url}/probe-fetch').catch(() => {});
  const s = document.createElement('link'); s.rel = 'stylesheet'; s.href = '{url}/probe.css';
  document.head.appendChild(s);
  return 3;
})()"""


def _csp_violation(params: dict[str, Any]) -> bool:
    entry = params["entry"]
    return bool(entry["source"] == "security" and "Content Security Policy" in entry["text"])


def _blocked_url(params: dict[str, Any]) -> str:
    """The URL a CSP violation names: "Loading the image 'URL' violates ..."."""
    text = str(params["entry"]["text"])
    return text.split("'")[1]


def _screenshot(browser: Browser, path: Path) -> None:
    """A PNG of the rendered page (kept where $COLLAB_KEEP_SCREENSHOT says, if set)."""
    size = {"width": 1200, "height": 2000, "deviceScaleFactor": 1, "mobile": False}
    browser.call("Emulation.setDeviceMetricsOverride", size)
    data = base64.b64decode(browser.call("Page.captureScreenshot", {"format": "png"})["data"])
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    assert struct.unpack(">II", data[16:24]) == (1200, 2000)
    assert len(data) > 50_000  # a blank page is ~10 kB; a rendered report is far more
    path.write_bytes(data)
    keep = os.environ.get("COLLAB_KEEP_SCREENSHOT")
    if keep:
        shutil.copy(path, keep)


def _scheme(browser: Browser, scheme: str) -> None:
    browser.call(
        "Emulation.setEmulatedMedia",
        {"features": [{"name": "prefers-color-scheme", "value": scheme}]},
    )


@pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed (apt-get install chromium)")
def test_chromium_renders_a_real_report_with_ledger_colours_and_no_request_out(
    fake_agent: FakeAgent, cli: Cli, trap: Trap, tmp_path: Path
) -> None:
    """Mutants killed (the old test, a synthetic run and DOM text only, passed both):
    ``img-src *`` in collab/report/html.py's CSP (the probe image is not blocked), and
    ``.pill.open`` without its background in report.css (the open row's colour)."""
    assert CHROMIUM is not None
    run = real_run(fake_agent, cli, trap.url)
    report = run.dir / "report.html"
    with Browser(CHROMIUM, tmp_path / "profile") as browser:
        browser.call("Network.enable")
        browser.call("Log.enable")
        _scheme(browser, "light")
        browser.navigate(report.as_uri())

        # The page as a browser builds it: what the debate said, as text.
        text = browser.evaluate("document.body.innerText")
        said = ("PROSE-A1 holds.", "PROSE-B1 holds.", "PROSE-A2 fine on latency",
                "PROSE-B2 cookie size is moot", "JUDGE-TEXT sessions win", TOPIC)  # fmt: skip
        for needle in said:
            assert needle in text, needle
        assert f'<img src="{trap.url}/A1-raw-img.png">' in text  # shown, not fetched
        counts = browser.evaluate(
            "['img','iframe','video','link','script','object','embed']"
            ".map(t => document.getElementsByTagName(t).length).join(',')"
        )
        assert counts == "0,0,0,0,0,0,0"
        assert (
            browser.evaluate(
                "document.querySelector('meta[http-equiv=\"Content-Security-Policy\"]').content"
            )
            == CSP
        )

        # The ledger's colours, as computed from report.css, in both colour schemes.
        assert json.loads(browser.evaluate(LEDGER_JS)) == LIGHT
        _screenshot(browser, tmp_path / "report.png")
        _scheme(browser, "dark")
        assert json.loads(browser.evaluate(LEDGER_JS)) == DARK

        # Only the page itself was requested while it loaded.
        urls = [e["request"]["url"] for e in browser.events("Network.requestWillBeSent")]
        assert urls == [report.as_uri()]

        # A script's attempts are blocked by the CSP, each one, before the network.
        browser.clear_events()
        assert browser.evaluate(PROBE_JS.replace("{url}", trap.url)) == 3
        with contextlib.suppress(TimeoutError):
            browser.wait_for("Log.entryAdded", 3, where=_csp_violation, timeout=15)
        blocked = browser.events("Log.entryAdded", _csp_violation)
        assert sorted(_blocked_url(e) for e in blocked) == [
            f"{trap.url}/probe-fetch", f"{trap.url}/probe-image.png", f"{trap.url}/probe.css",
        ]  # fmt: skip
        assert trap.paths == [], "a request left the page"

        # The control: the same page without its CSP does reach the trap, so the checks
        # above could see a leak. (A copy, so the run's own report stays as written.)
        open_copy = tmp_path / "no-csp.html"
        page = report.read_text(encoding="utf-8")
        open_copy.write_text(page.replace(CSP, "default-src *"), encoding="utf-8")
        browser.navigate(open_copy.as_uri())
        browser.evaluate(PROBE_JS.replace("{url}", trap.url))
        assert wait_until(lambda: len(trap.paths) >= 3, 30), trap.paths
    assert sorted(trap.paths) == ["/probe-fetch", "/probe-image.png", "/probe.css"]
