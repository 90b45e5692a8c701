"""Shared dotenv templates (.env.example/.sample/.template/.dist/.defaults) are read with
the engine's example-file rules: their placeholders are not secrets (a hit there pushes
people to --allow-secrets, which turns every scan off), a real key in them still is."""

from __future__ import annotations

import pytest

from collab.secret_scan import scan_text, sensitive_name

TEMPLATES = [".env.example", ".env.sample", ".env.template", ".env.dist", ".env.defaults",
             "config/.env.sample", ".ENV.DIST"]  # fmt: skip
PLACEHOLDERS = "\n".join(
    [
        "DB_PASSWORD=changeme",
        "API_KEY=your-api-key-here",
        "SECRET_KEY=replace-with-a-long-random-string",
        "AUTH_TOKEN=xxxxxxxxxxxxxxxx",
        "SMTP_PASSWORD=<password>",
        "REDIS_PASSWORD=",
    ]
)


@pytest.mark.parametrize("name", TEMPLATES)
def test_placeholders_in_a_dotenv_template_are_not_secrets(name: str) -> None:
    assert sensitive_name(name) is None
    assert scan_text(PLACEHOLDERS, name) == []


@pytest.mark.parametrize("name", [".env.local", ".env.production"])
def test_the_same_placeholders_elsewhere_are_judged_by_other_rules(name: str) -> None:
    """The example rules are for templates only: a .env.local is refused by its name.
    (In other files an obvious placeholder is not a secret either: collab.secret_plugins'
    placeholder filter, tested with the secret corpus.)"""
    assert sensitive_name(name) is not None


@pytest.mark.parametrize("name", TEMPLATES)
def test_a_real_key_in_a_template_is_still_a_secret(name: str) -> None:
    key = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
    hits = scan_text(f"DB_PASSWORD=changeme\nGITHUB_TOKEN={key}", name)
    assert [(h.line, h.kind) for h in hits] == [(2, "GitHub Token")]
