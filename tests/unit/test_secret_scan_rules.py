"""collab.secret_scan: which assignment rules a text is read with (chosen by its file name),
in what order hits come back, and what a scan leaves unloaded."""

from __future__ import annotations

import sys
from typing import Any

import pytest

from collab import lazy, secret_scan
from collab.secret_scan import find_secrets, scan_text
from tests.unit.test_secret_scan import (
    AZURE_KEY,
    CLEAN_CASES,
    GITHUB,
    PASSWORD,
    RSA_KEY,
    STRIPE,
    doc,
)


def _found(text: str, source: str) -> list[tuple[int, str]]:
    return [(h.line, h.kind) for h in scan_text(text, source)]


@pytest.mark.parametrize("source", ["src/main.rs", "web/client.ts", "lib/App.KT"])
def test_an_unquoted_assignment_in_source_code_is_not_a_secret(source: str) -> None:
    """Source languages the engine does not know are read with quotes required: an
    unquoted right-hand side there is a name, not a value."""
    assert _found("password = " + PASSWORD + "\n", source) == []
    assert _found('password = "' + PASSWORD + '"\n', source) == [(1, "Secret Keyword")]


@pytest.mark.parametrize("source", ["NOTES.MD", "deploy/.env.local", ".env.production"])
def test_an_unquoted_assignment_in_prose_or_a_local_dotenv_is_a_secret(source: str) -> None:
    assert _found("DB_PASSWORD=" + PASSWORD + "\n", source) == [(1, "Secret Keyword")]


@pytest.mark.parametrize("source", [".env.example", "config/.env.SAMPLE"])
def test_a_pass_placeholder_in_a_dotenv_template_is_not_a_secret(source: str) -> None:
    """``PASS=`` values in templates are placeholders by design (collab's own PASS detector
    skips example files); elsewhere the same line is a hit."""
    line = "SMTP_PASS=replace-me-please\n"
    assert _found(line, source) == []
    assert _found(line, "deploy/.env.local") == [(1, "Secret Keyword")]
    assert _found(line, "src/main.rs") == [(1, "Password Assignment")]


def test_hits_in_one_text_are_reported_in_line_order() -> None:
    text = doc("pay " + STRIPE, "", "push " + GITHUB, "x", "again " + STRIPE, "DB_PASS=" + PASSWORD)
    found = find_secrets("then " + GITHUB + "\nand " + STRIPE, [("notes.md", text)])
    assert [f.where for f in found] == [
        "topic line 1",
        "topic line 2",
        "context file notes.md:1",
        "context file notes.md:3",
        "context file notes.md:5",
        "context file notes.md:6",
    ]


def test_a_private_key_after_a_blank_first_line_is_on_line_two() -> None:
    assert _found("\n" + RSA_KEY, "keys.txt") == [(2, "Private Key")]
    assert _found("\n\n" + RSA_KEY, "keys.txt") == [(3, "Private Key")]


def test_a_scan_leaves_requests_unloaded(monkeypatch: pytest.MonkeyPatch) -> None:
    """detect-secrets imports ``requests`` for the verification collab never runs: the scan
    puts a stand-in there, and imports the one plugin module whose signature names
    ``requests.Response`` with its annotations postponed, so the real module stays unloaded."""
    plugin = "detect_secrets.plugins.ibm_cos_hmac"
    monkeypatch.delitem(sys.modules, "requests", raising=False)
    monkeypatch.delitem(sys.modules, plugin, raising=False)
    secret_scan._without_requests()
    assert plugin in sys.modules
    assert type(sys.modules["requests"]) is lazy._Deferred


@pytest.mark.parametrize("line", ['secret_id = "' + PASSWORD + '"', "PASSWORD_ID=" + PASSWORD])
def test_a_value_named_as_an_id_is_not_a_secret(line: str) -> None:
    """The engine's id filter (it needs the detector that found the value) still runs."""
    assert _found(line + "\n", "notes.md") == []


def test_clean_texts_stay_clean_as_they_would_be_sent() -> None:
    """find_secrets also scans the text as the prompt would get it: that copy is never cut
    short (a cut ``${DB_PASSWORD}`` would no longer read as a template)."""
    contexts = [
        (f"clean{i}/x{c.source.rsplit('/', 1)[-1]}", c.text)
        for i, c in enumerate(CLEAN_CASES)
        if c.source != "topic"
    ]
    topics = [(f"topic{i}", c.text) for i, c in enumerate(CLEAN_CASES) if c.source == "topic"]
    assert find_secrets("A topic", contexts, others=topics) == []


def test_an_azure_key_named_on_a_line_nearby_is_found() -> None:
    """The Azure storage detector reads the lines around the key (its context): the word
    "azure" up to two lines away makes a bare key a hit, and without it the key is not one."""
    text = doc("# Azure storage, uploads account", "", "key: " + AZURE_KEY)
    assert _found(text, "notes.md") == [(3, "Azure Storage Account access key")]
    assert _found(doc("# uploads", "", "key: " + AZURE_KEY), "notes.md") == []


def test_the_indirect_reference_filter_needs_an_opening_bracket() -> None:
    """The scan runs the engine's indirect-reference filter (``x = os.environ[...]``,
    ``x = get(...)``: not a secret) only on lines holding ``(`` or ``[``: its pattern cannot
    match without one and costs quadratic time over a long line. Should detect-secrets
    change the pattern, this fails and the shortcut must be checked again."""
    from detect_secrets.filters.heuristic import _get_indirect_reference_regex

    pattern = r"([^\v=!:]*)\s*(:=?|[!=]{1,3})\s*([\w.-]+[\[\(][^\v]*[\]\)])"
    assert _get_indirect_reference_regex().pattern == pattern
    assert _found("token = lookup(" + PASSWORD + ")\n", "notes.md") == []
    assert _found("token = vault[" + PASSWORD + "]\n", "notes.md") == []
    assert _found("token = " + PASSWORD + "\n", "notes.md") == [(1, "Secret Keyword")]


def test_the_indirect_reference_filter_runs_only_on_a_line_with_a_bracket(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Counted rather than timed: on a candidate's line without ``(`` or ``[`` the
    allowlist filter runs and the indirect-reference filter does not; with one, both run."""
    ran: list[str] = []
    rejects = secret_scan._rejects

    def counted(fn: Any, values: dict[str, Any]) -> bool:
        ran.append(fn.__name__)
        return rejects(fn, values)

    monkeypatch.setattr(secret_scan, "_rejects", counted)
    assert _found("token = " + PASSWORD + "\n", "notes.md") == [(1, "Secret Keyword")]
    assert "is_line_allowlisted" in ran and "is_indirect_reference" not in ran
    ran.clear()
    assert _found("token = lookup(" + PASSWORD + ")\n", "notes.md") == []
    assert "is_indirect_reference" in ran
    ran.clear()
    assert _found("token = vault[" + PASSWORD + "]\n", "notes.md") == []
    assert "is_indirect_reference" in ran


def test_an_azure_key_under_a_bare_account_key_line_is_found() -> None:
    """A bare "AccountKey" at the end of a line, the key on the next: the detector's
    account-key pattern reads across the line end, and so does the scan's check of the
    lines around the key before it runs the detector."""
    kind = "Azure Storage Account access key"
    assert _found(doc("AccountKey", AZURE_KEY), "notes.md") == [(2, kind)]
    assert _found(doc("account_key", "", AZURE_KEY), "notes.md") == [(3, kind)]
