"""collab.secret_scan's engine, built anew inside each test (it is otherwise made once a
process, so a test that only scans never sees how it is made): which detectors it runs
(the engine's own, collab's plugins, never the entropy ones or the public-IP one), which of
its filters it keeps, and which detectors run over the whole text."""

from __future__ import annotations

import pytest

from collab import secret_scan
from collab.secret_scan import find_secrets, scan_text
from tests.secret_corpus import variants
from tests.unit.test_secret_scan import CLEAN_CASES, HIT_CASES, fill
from tests.unit.test_secret_scan_templates import PLACEHOLDERS


@pytest.fixture
def fresh(monkeypatch: pytest.MonkeyPatch) -> None:
    """No engine made yet in this process: the next scan builds one."""
    monkeypatch.setattr(secret_scan, "_BUILT", [])


def _found(text: str, source: str) -> list[tuple[int, str]]:
    return [(h.line, h.kind) for h in scan_text(text, source)]


@pytest.mark.usefixtures("fresh")
def test_a_new_engine_finds_each_planted_kind_and_flags_no_clean_text() -> None:
    assert {(c.test_id, *_found(c.text, c.source)) for c in HIT_CASES} == {
        (c.test_id, *c.expected) for c in HIT_CASES
    }
    assert [c.test_id for c in CLEAN_CASES if _found(c.text, c.source)] == []


@pytest.mark.usefixtures("fresh")
def test_a_new_engine_runs_collabs_own_detectors() -> None:
    """One plain variant of every kind in the corpus (collab's plugins among them), each in a
    context file of its own."""
    plain = [v for v in variants() if "-plain-lower-" in v.test_id]
    assert len(plain) >= 20
    found = find_secrets("A topic", [(f"v{i}/{v.path}", v.text) for i, v in enumerate(plain)])
    named = {f.where.removeprefix("context file ").split(":")[0] for f in found}
    assert [v.test_id for i, v in enumerate(plain) if f"v{i}/{v.path}" not in named] == []


@pytest.mark.usefixtures("fresh")
def test_a_new_engine_runs_no_entropy_or_ip_detector() -> None:
    text = "\n".join(
        [
            "sha1 " + fill(40, "0123456789abcdef"),
            "blob " + fill(60),
            "the resolver is at 8.8.8.8 and the gateway at 203.0.113.7:443",
        ]
    )
    assert _found(text, "notes.md") == []


@pytest.mark.usefixtures("fresh")
def test_a_new_engine_keeps_the_placeholder_filter_and_the_example_rules() -> None:
    assert _found(PLACEHOLDERS, ".env.example") == []
    assert _found("DB_PASSWORD=changeme\nAPI_TOKEN=your-token-here\n", "deploy/.env") == []
    assert _found("PASS=" + fill(14) + "\n", "deploy/.env") == [(1, "Password Assignment")]


@pytest.mark.usefixtures("fresh")
def test_a_new_engine_reads_a_private_key_over_lines() -> None:
    """An encrypted PKCS#8 key, its body on the lines after the header: only a detector
    run over the whole text sees the header and the body together."""
    body = "\n".join(fill(64, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/")
                     for _ in range(3))  # fmt: skip
    label = "ENCRYPTED " + "PRIVATE KEY-----"
    key = "-----BEGIN " + label + "\n" + body + "\n-----END " + label + "\n"
    assert _found("tls:\n" + key, "notes.md") == [(2, "Private Key")]


def test_the_engine_is_built_once_and_reused(monkeypatch: pytest.MonkeyPatch) -> None:
    built: list[object] = []
    monkeypatch.setattr(secret_scan, "_BUILT", built)
    scan_text("nothing here", "a.md")
    scan_text("nothing here either", "b.md")
    assert len(built) == 1
