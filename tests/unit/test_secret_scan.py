"""collab.secret_scan: planted secrets of each kind are caught; prose, hashes and ids are not.

Every planted secret is assembled at test time from pieces and seeded random characters, so
this file holds no literal secret and no scanner flags the repository (one test checks it).
"""

from __future__ import annotations

import base64
import dataclasses
import json
import random
import re
import string
import uuid
from pathlib import Path
from typing import NamedTuple

import pytest

from collab import secret_scan
from collab.errors import EXIT_USAGE, InputRefused, UsageError
from collab.secret_scan import (
    Finding,
    SecretHit,
    check_inputs,
    ensure_no_secrets,
    find_secrets,
    scan_text,
    sensitive_name,
    summarize,
)

_RNG = random.Random(20240611)
ALNUM = string.ascii_letters + string.digits
LOWER = string.ascii_lowercase + string.digits
HEX = "0123456789abcdef"
B64 = ALNUM + "+/"
URLSAFE = ALNUM + "-_"


def fill(n: int, alphabet: str = ALNUM) -> str:
    """``n`` seeded random characters: never sequential, never a literal in this file."""
    return "".join(_RNG.choice(alphabet) for _ in range(n))


def doc(*lines: str) -> str:
    return "\n".join(lines) + "\n"


def b64url_json(data: dict[str, str]) -> str:
    return base64.urlsafe_b64encode(json.dumps(data).encode()).decode().rstrip("=")


def pem(label: str) -> str:
    """A PEM block: header, base64 body, footer."""
    body = [fill(64, B64) for _ in range(4)]
    return doc("-----BEGIN " + label + "-----", *body, "-----END " + label + "-----")


# Planted values: each row below embeds one of these, and no message may ever contain it.
AWS_KEY_ID = "AKIA" + "IOSFODNN7" + "EXAMPLE"
AWS_SECRET = fill(40)
AZURE_KEY = fill(86, B64) + "=="
ARTIFACTORY = "AKC" + fill(20)
BASIC_PW = fill(12)
CLOUDANT_PW = fill(64, HEX)
DISCORD = "M" + fill(23) + "." + fill(6) + "." + fill(27)
GITHUB = "ghp" + "_" + fill(36)
IBM_IAM = fill(44, URLSAFE)
IBM_COS = fill(48, HEX)
JWT = (
    b64url_json({"alg": "HS256", "typ": "JWT"})
    + "."
    + b64url_json({"sub": "4711", "name": "Ada"})
    + "."
    + fill(43, URLSAFE)
)
MAILCHIMP = fill(32, LOWER) + "-us" + "12"
NPM = "npm" + "_" + fill(36)
SENDGRID = "SG" + "." + fill(22) + "." + fill(43)
SLACK = "xox" + "b-" + fill(11, string.digits) + "-" + fill(12, string.digits) + "-" + fill(24)
SLACK_HOOK = "https://hooks.slack.com/services/" + "T" + fill(8) + "/B" + fill(8) + "/" + fill(24)
SOFTLAYER = fill(64, LOWER)
SQUARE = "sq0" + "csp-" + fill(43)
STRIPE = "sk_" + "live_" + fill(24)
STRIPE_RESTRICTED = "rk_" + "live_" + fill(24)
TWILIO = "AC" + fill(32, LOWER)
RSA_KEY = pem("RSA " + "PRIVATE KEY")
PKCS8_KEY = pem("PRIVATE" + " KEY")
OPENSSH_KEY = pem("OPENSSH " + "PRIVATE KEY")
EC_KEY = pem("EC " + "PRIVATE KEY")
JSON_KEY = "-----BEGIN " + "PRIVATE KEY-----\\n" + fill(64, B64) + "\\n-----END PRIVATE KEY-----\\n"
PUTTY = "PuTTY-User-Key-" + "File-2: ssh-rsa\nEncryption: none\n"
PASSWORD = fill(14)


class HitCase(NamedTuple):
    test_id: str
    source: str  # a path as given, or "topic"
    text: str
    secret: str  # the planted value
    expected: tuple[tuple[int, str], ...]  # (line, kind), in line order


HIT_CASES = [
    HitCase(
        "aws-access-key-id",
        "docs/deploy.md",
        doc("# Deploy", "", "aws_access_key_id = " + AWS_KEY_ID),
        AWS_KEY_ID,
        ((3, "AWS Access Key"),),
    ),
    HitCase(
        "aws-secret-access-key",
        "docs/deploy.md",
        doc("aws_secret_access_key = " + AWS_SECRET),
        AWS_SECRET,
        ((1, "AWS Access Key"), (1, "Secret Keyword")),
    ),
    HitCase(
        "azure-storage-connection-string",
        "app/settings.py",
        doc(
            "import os",
            'CONN = "DefaultEndpointsProtocol=https;AccountName=acct;AccountKey='
            + AZURE_KEY
            + ';EndpointSuffix=core.windows.net"',
        ),
        AZURE_KEY,
        ((2, "Azure Storage Account access key"),),
    ),
    HitCase(
        "artifactory-api-key",
        "notes.txt",
        doc("artifactory login uses", ARTIFACTORY),
        ARTIFACTORY,
        ((2, "Artifactory Credentials"),),
    ),
    HitCase(
        "basic-auth-in-url",
        "docs/db.md",
        doc("The replica is at", "https://deploy:" + BASIC_PW + "@db.internal.net/app"),
        BASIC_PW,
        ((2, "Basic Auth Credentials"),),
    ),
    HitCase(
        "cloudant-url",
        "docs/db.md",
        doc("https://acct:" + CLOUDANT_PW + "@acct.cloudant.com"),
        CLOUDANT_PW,
        ((1, "Basic Auth Credentials"), (1, "Cloudant Credentials")),
    ),
    HitCase(
        "discord-bot-token",
        "bot.md",
        doc("bot token is", DISCORD),
        DISCORD,
        ((2, "Discord Bot Token"),),
    ),
    HitCase(
        "github-token",
        "ci.md",
        doc("CI pushes with " + GITHUB),
        GITHUB,
        ((1, "GitHub Token"),),
    ),
    HitCase(
        "ibm-cloud-iam-key",
        "ibm.md",
        doc("ibm_cloud_iam_key = " + IBM_IAM),
        IBM_IAM,
        ((1, "IBM Cloud IAM Key"),),
    ),
    HitCase(
        "ibm-cos-hmac",
        "ibm.md",
        doc("cos_hmac_secret_access_key = " + IBM_COS),
        IBM_COS,
        ((1, "IBM COS HMAC Credentials"), (1, "Secret Keyword")),
    ),
    HitCase(
        "jwt",
        "api.md",
        doc("curl -H 'Authorization: Bearer " + JWT + "' https://api.internal.net"),
        JWT,
        ((1, "JSON Web Token"),),
    ),
    HitCase(
        "mailchimp",
        "mail.md",
        doc("mailchimp " + MAILCHIMP),
        MAILCHIMP,
        ((1, "Mailchimp Access Key"),),
    ),
    HitCase(
        "npm-token",
        "publish.md",
        doc("publish with " + NPM),
        NPM,
        ((1, "NPM tokens"),),
    ),
    HitCase(
        "npmrc-auth-token",
        ".npmrc",
        doc("//registry.npmjs.org/:_auth" + "Token=" + NPM),
        NPM,
        ((1, "NPM tokens"), (1, "Secret Keyword")),
    ),
    HitCase(
        "sendgrid",
        "mail.md",
        doc("key " + SENDGRID),
        SENDGRID,
        ((1, "SendGrid API Key"),),
    ),
    HitCase(
        "slack-token",
        "chat.md",
        doc("", "", "", SLACK),
        SLACK,
        ((4, "Slack Token"),),
    ),
    HitCase(
        "slack-webhook",
        "chat.md",
        doc("post to " + SLACK_HOOK),
        SLACK_HOOK,
        ((1, "Slack Token"),),
    ),
    HitCase(
        "softlayer",
        "infra.md",
        doc("softlayer_api_key = " + SOFTLAYER),
        SOFTLAYER,
        ((1, "Secret Keyword"), (1, "SoftLayer Credentials")),
    ),
    HitCase(
        "square-oauth",
        "pay.md",
        doc("square " + SQUARE),
        SQUARE,
        ((1, "Square OAuth Secret"),),
    ),
    HitCase(
        "stripe-secret-key",
        "pay.md",
        doc("charges use " + STRIPE),
        STRIPE,
        ((1, "Stripe Access Key"),),
    ),
    HitCase(
        "stripe-restricted-key",
        "pay.md",
        doc("reports use " + STRIPE_RESTRICTED),
        STRIPE_RESTRICTED,
        ((1, "Stripe Access Key"),),
    ),
    HitCase(
        "twilio",
        "sms.md",
        doc("twilio account " + TWILIO),
        TWILIO,
        ((1, "Twilio API Key"),),
    ),
    HitCase(
        "rsa-private-key",
        "keys.md",
        doc("Paste this:", "") + RSA_KEY,
        RSA_KEY.splitlines()[1],
        ((3, "Private Key"),),
    ),
    HitCase(
        "pkcs8-private-key",
        "keys.txt",
        PKCS8_KEY,
        PKCS8_KEY.splitlines()[1],
        ((1, "Private Key"),),
    ),
    HitCase(
        "openssh-private-key",
        "keys.txt",
        doc("x") + OPENSSH_KEY,
        OPENSSH_KEY.splitlines()[1],
        ((2, "Private Key"),),
    ),
    HitCase(
        "ec-private-key",
        "keys.txt",
        doc("a", "b") + EC_KEY,
        EC_KEY.splitlines()[1],
        ((3, "Private Key"),),
    ),
    HitCase(
        "private-key-escaped-in-json",
        "service-account.json",
        doc("{", '  "private_key": "' + JSON_KEY + '"', "}"),
        JSON_KEY,
        ((2, "Private Key"),),
    ),
    HitCase(
        "putty-private-key",
        "keys.txt",
        PUTTY,
        PUTTY.split(":")[0],
        ((1, "Private Key"),),
    ),
    HitCase(
        "dotenv-password",
        ".env",
        doc("DEBUG=1", "DB_PASSWORD=" + PASSWORD),
        PASSWORD,
        ((2, "Secret Keyword"),),
    ),
    HitCase(
        "dotenv-named-app-env",
        "docs/app.env",
        doc("PORT=8080", "LOG=debug", "API_TOKEN=" + PASSWORD),
        PASSWORD,
        ((3, "Secret Keyword"),),
    ),
    HitCase(
        "env-assignment-in-markdown",
        "README.md",
        doc("Run:", "", "    export SECRET_KEY=" + PASSWORD),
        PASSWORD,
        ((3, "Secret Keyword"),),
    ),
    HitCase(
        "env-assignment-in-shell",
        "deploy.sh",
        doc("#!/bin/sh", "PGPASSWORD=" + PASSWORD + " psql -h db"),
        PASSWORD,
        ((2, "Secret Keyword"),),
    ),
    HitCase(
        "yaml-api-key",
        "config/app.yaml",
        doc("service:", "  name: billing", "  api_key: " + PASSWORD),
        PASSWORD,
        ((3, "Secret Keyword"),),
    ),
    HitCase(
        "json-client-secret",
        "oauth.json",
        doc("{", '  "client_secret": "' + PASSWORD + '"', "}"),
        PASSWORD,
        ((2, "Secret Keyword"),),
    ),
    HitCase(
        "python-password",
        "app/db.py",
        doc("HOST = 'db'", 'password = "' + PASSWORD + '"'),
        PASSWORD,
        ((2, "Secret Keyword"),),
    ),
    HitCase(
        "ini-password",
        "setup.ini",
        doc("[db]", "user = app", "password = " + PASSWORD),
        PASSWORD,
        ((3, "Secret Keyword"),),
    ),
    HitCase(
        "toml-token",
        "conf.toml",
        doc("[publish]", 'token = "' + PASSWORD + '"'),
        PASSWORD,
        ((2, "Secret Keyword"),),
    ),
    HitCase(
        "env-example-quoted-value",
        ".env.example",
        doc('DB_PASSWORD="' + PASSWORD + '"'),
        PASSWORD,
        ((1, "Secret Keyword"),),
    ),
    HitCase(
        "crlf-line-numbers",
        "notes.txt",
        "one\r\ntwo\r\nkey " + STRIPE + "\r\n",
        STRIPE,
        ((3, "Stripe Access Key"),),
    ),
    HitCase(
        "several-lines-and-kinds",
        "notes.md",
        doc("first " + GITHUB, "nothing here", "then " + STRIPE + " and " + GITHUB),
        GITHUB,
        ((1, "GitHub Token"), (3, "GitHub Token"), (3, "Stripe Access Key")),
    ),
    HitCase(
        "topic",
        "topic",
        "Should CI keep using " + GITHUB + " or switch to OIDC?",
        GITHUB,
        ((1, "GitHub Token"),),
    ),
]


class CleanCase(NamedTuple):
    test_id: str
    source: str
    text: str


CLEAN_CASES = [
    CleanCase("prose-password-hash", "notes.md", "we store the password hash in the db"),
    CleanCase("prose-token-revocation", "notes.md", "token revocation needs state"),
    CleanCase("prose-topic", "topic", "Should the password reset token expire in 15 minutes?"),
    CleanCase("prose-colon", "notes.md", "Password: at least 12 characters, one digit"),
    CleanCase("prose-api-key", "notes.md", "the api_key is rotated every 90 days"),
    CleanCase("prose-secret-manager", "notes.txt", "Secrets live in Vault; the token TTL is 1h."),
    CleanCase("sha256-digest", "notes.md", "sha256 " + fill(64, HEX) + "  dist/app.tar.gz"),
    CleanCase("git-commit-hash", "notes.md", "fixed in commit " + fill(40, HEX)),
    CleanCase("uuid", "notes.md", "request id " + str(uuid.UUID(int=_RNG.getrandbits(128)))),
    CleanCase("base64-blob", "notes.md", "digest: " + fill(44, B64)),
    CleanCase("dollar-reference", ".env", "API_KEY=$API_KEY"),
    CleanCase("templated-braces", ".env", "PASSWORD=${DB_PASSWORD}"),
    CleanCase("templated-jinja", "app.yaml", "password: {{ vault_db_password }}"),
    CleanCase("templated-angle", "app.yaml", "token: <your token here>"),
    CleanCase("empty-value", ".env", "DB_PASSWORD="),
    CleanCase("masked-value", "notes.md", "password = *****"),
    CleanCase("indirect-environ", "notes.md", "secret = os.environ['APP_SECRET']"),
    CleanCase("indirect-call", "notes.md", "password_hash = bcrypt.hash(password)"),
    CleanCase("code-attribute", "client.ts", "const token = response.token;"),
    CleanCase("env-example-placeholder", ".env.example", "DB_PASSWORD=changeme"),
    CleanCase("pragma-allowlist", ".env", "PASSWORD=" + fill(12) + "  # pragma: allowlist secret"),
    CleanCase("url-without-password", "notes.md", "https://deploy@db.internal.net/app"),
    CleanCase("url-with-port", "notes.md", "postgres://localhost:5432/app"),
    CleanCase("ssh-public-key", "notes.md", "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI" + fill(43)),
    CleanCase("pem-public-key", "notes.md", pem("PUBLIC" + " KEY")),
    CleanCase("pem-certificate", "notes.md", pem("CERTIFICATE")),
    CleanCase(
        "pem-header-only", "notes.md", "a file starting with -----BEGIN " + "PRIVATE KEY-----"
    ),
]


class NameCase(NamedTuple):
    test_id: str
    path: str
    reason: str | None


NAME_CASES = [
    NameCase("dotenv", ".env", "a dotenv file"),
    NameCase("dotenv-in-dir", "deploy/.env", "a dotenv file"),
    NameCase("dotenv-local", ".env.local", "a dotenv file"),
    NameCase("dotenv-production", "app/.env.production", "a dotenv file"),
    NameCase("dotenv-uppercase", ".ENV", "a dotenv file"),
    NameCase("id-rsa", "~/.ssh/id_rsa", "an SSH private key"),
    NameCase("id-dsa", "id_dsa", "an SSH private key"),
    NameCase("id-ecdsa", "id_ecdsa", "an SSH private key"),
    NameCase("id-ed25519", "keys/id_ed25519", "an SSH private key"),
    NameCase("id-ed25519-sk", "id_ed25519_sk", "an SSH private key"),
    NameCase("id-rsa-suffixed", "id_rsa_work", "an SSH private key"),
    NameCase("pem", "certs/server.pem", "a PEM key or certificate"),
    NameCase("key", "tls/server.key", "a key file"),
    NameCase("ppk", "me.ppk", "a PuTTY private key"),
    NameCase("p12", "client.p12", "a PKCS#12 key store"),
    NameCase("pfx", "client.PFX", "a PKCS#12 key store"),
    NameCase("kdbx", "vault.kdbx", "a KeePass database"),
    NameCase("credentials", "~/.aws/credentials", "a credentials file"),
    NameCase("credentials-json", "credentials.json", "a credentials file"),
    NameCase("git-credentials", ".git-credentials", "a credentials file"),
    NameCase("netrc", ".netrc", "a .netrc login file"),
    NameCase("pgpass", ".pgpass", "a PostgreSQL password file"),
    NameCase("pypirc", ".pypirc", "a PyPI credentials file"),
    NameCase("env-example", ".env.example", None),
    NameCase("env-sample", "config/.env.sample", None),
    NameCase("env-template", ".env.template", None),
    NameCase("env-dist", ".env.dist", None),
    NameCase("app-env", "docs/app.env", None),
    NameCase("environment-md", "environment.md", None),
    NameCase("id-rsa-pub", "id_rsa.pub", None),
    NameCase("id-ed25519-pub", "~/.ssh/id_ed25519.pub", None),
    NameCase("identity-doc", "identity.md", None),
    NameCase("keys-doc", "docs/keys.md", None),
    NameCase("keyboard", "keyboard.txt", None),
    NameCase("readme", "README.md", None),
    NameCase("source", "collab/secret_scan.py", None),
    NameCase("pem-in-dir-name", "pem/notes.txt", None),
]


@pytest.mark.parametrize("case", HIT_CASES, ids=[c.test_id for c in HIT_CASES])
def test_planted_secret_is_found_by_line_and_kind(case: HitCase) -> None:
    hits = scan_text(case.text, case.source)
    assert [(h.line, h.kind) for h in hits] == list(case.expected)
    assert {h.source for h in hits} == {case.source}


@pytest.mark.parametrize("case", HIT_CASES, ids=[c.test_id for c in HIT_CASES])
def test_messages_never_contain_the_secret(case: HitCase) -> None:
    if case.source == "topic":
        findings = find_secrets(case.text, [])
    else:
        findings = find_secrets("a harmless topic", [(case.source, case.text)])
    assert findings
    texts = [f.message for f in findings] + [summarize(findings), summarize(findings, limit=1)]
    with pytest.raises(UsageError) as caught:
        ensure_no_secrets("a harmless topic", [(case.source, case.text)])
    texts.append(str(caught.value))
    for text in texts:
        assert case.secret not in text
        assert "\n" not in text
    for part in (case.secret[:12], case.secret[-12:]):
        assert all(part not in text for text in texts)


@pytest.mark.parametrize("case", CLEAN_CASES, ids=[c.test_id for c in CLEAN_CASES])
def test_clean_text_is_not_flagged(case: CleanCase) -> None:
    assert scan_text(case.text, case.source) == []


@pytest.mark.parametrize("case", NAME_CASES, ids=[c.test_id for c in NAME_CASES])
def test_sensitive_name(case: NameCase) -> None:
    assert sensitive_name(case.path) == case.reason


def test_hit_keeps_no_value() -> None:
    assert [f.name for f in dataclasses.fields(SecretHit)] == ["source", "line", "kind"]


def test_check_inputs_messages() -> None:
    messages = check_inputs(
        "Should we rotate " + STRIPE + "?",
        [
            ("docs/app.env", doc("PORT=1", "LOG=2", "PASSWORD=" + PASSWORD)),
            (".env", doc("# nothing secret")),
            ("notes.md", "all clear"),
        ],
        others=[("--role-b", "A skeptic.\nShe deploys with " + GITHUB)],
    )
    tail = " (not sent; pass --allow-secrets to send it anyway)"
    assert messages == [
        "topic line 1: looks like a secret: Stripe Access Key" + tail,
        "--role-b line 2: looks like a secret: GitHub Token" + tail,
        "context file docs/app.env:3: looks like a secret: Secret Keyword" + tail,
        "context file .env: named like a dotenv file" + tail,
    ]


def test_summarize_one_and_many() -> None:
    one = [Finding("context file a.md:2", "looks like a secret: GitHub Token")]
    assert summarize(one) == one[0].message
    assert summarize([]) == ""
    many = [
        Finding(f"context file f{n}.md:{n}", "looks like a secret: Slack Token") for n in range(5)
    ]
    many.insert(1, Finding("context file .env", "named like a dotenv file"))
    assert summarize(many, limit=3) == (
        "6 possible secrets in the debate inputs, nothing was sent: "
        "context file f0.md:0 (Slack Token); context file .env (named like a dotenv file); "
        "context file f1.md:1 (Slack Token); and 3 more "
        "(pass --allow-secrets to send them anyway)"
    )


def test_ensure_no_secrets_raises_one_usage_error_with_exit_2() -> None:
    contexts = [("a.md", "push with " + GITHUB), ("b.md", "pay with " + STRIPE)]
    with pytest.raises(UsageError) as caught:
        ensure_no_secrets("topic", contexts)
    assert caught.value.exit_code == EXIT_USAGE == 2
    assert caught.value.message == (
        "2 possible secrets in the debate inputs, nothing was sent: "
        "context file a.md:1 (GitHub Token); context file b.md:1 (Stripe Access Key) "
        "(pass --allow-secrets to send them anyway)"
    )
    ensure_no_secrets("topic", contexts, allow=True)
    ensure_no_secrets("a clean topic", [("notes.md", "nothing to see")])


def test_refused_name_is_reported_even_when_content_is_clean() -> None:
    with pytest.raises(UsageError, match=r"context file deploy/id_rsa: named like an SSH"):
        ensure_no_secrets("topic", [("deploy/id_rsa", "not really a key")])


def test_only_the_given_text_is_scanned_never_the_file(tmp_path: Path) -> None:
    on_disk = tmp_path / "key.txt"
    on_disk.write_text(RSA_KEY)
    assert scan_text("just some notes about keys", str(on_disk)) == []


def test_sixty_thousand_characters_of_prose_skip_the_slow_work(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """What keeps a long context file fast, counted rather than timed: the keyword
    detector runs only on lines holding one of its words, and the slow line filters only
    once a detector found something (here: never)."""
    from detect_secrets.plugins.keyword import DENYLIST, KeywordDetector

    paragraph = doc(
        "The session token is revoked on logout; the password hash uses argon2id.",
        "Config keys: timeout = 30, retries = 3, region = eu-west-1.",
        "See commit " + fill(40, HEX) + " for the api_key rotation design.",
        "def handler(event): return {'status': 200, 'body': json.dumps(event)}",
    )
    text = (paragraph * (60_000 // len(paragraph) + 1))[:60_000]
    keyword_lines: list[str] = []
    filtered: list[object] = []
    analyze, rejects = KeywordDetector.analyze_line, secret_scan._rejects

    def counted_analyze(self: KeywordDetector, **kw: object) -> object:
        keyword_lines.append(str(kw["line"]))
        return analyze(self, **kw)  # type: ignore[arg-type]

    def counted_rejects(fn: object, values: dict[str, object]) -> bool:
        filtered.append(fn)
        return rejects(fn, values)

    monkeypatch.setattr(KeywordDetector, "analyze_line", counted_analyze)
    monkeypatch.setattr(secret_scan, "_rejects", counted_rejects)
    assert scan_text(text, "notes.md") == []
    gate = re.compile("|".join(DENYLIST), re.IGNORECASE)
    lines = [x.strip() for x in text.split("\n")]
    with_words = [x for x in lines if gate.search(x)]
    assert 0 < len(keyword_lines) == len(with_words) < len(lines) * 3 // 4
    assert all(gate.search(x) for x in keyword_lines)
    assert filtered == []


@pytest.mark.parametrize(
    "path",
    [Path(__file__), Path(secret_scan.__file__)],
    ids=["this-test-file", "secret_scan-module"],
)
def test_repository_files_scan_clean(path: Path) -> None:
    assert scan_text(path.read_text(encoding="utf-8"), str(path)) == []


def test_a_scan_never_verifies_a_candidate_even_with_the_engine_built_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The engine is made once a process, and every scan runs in its own settings, in
    which the verification filter (which would send a candidate out) is never on."""
    from detect_secrets.plugins.base import BasePlugin
    from detect_secrets.settings import get_settings

    verification = "detect_secrets.filters.common.is_ignored_due_to_verification_policies"
    # Outside collab's scans, someone turned verification on (as detect-secrets' CLI does)
    monkeypatch.setitem(get_settings().filters, verification, {"min_level": 2})

    def verify(self: object, *args: object, **kwargs: object) -> object:
        raise AssertionError("a candidate secret was sent to be verified")

    monkeypatch.setattr(BasePlugin, "verify", verify)
    text = "pass" + 'word = "c0rrect-' + 'h0rse-battery"\n'
    for _ in range(2):  # the first scan builds the engine, the second reuses it
        assert [h.kind for h in scan_text(text, "app.py")] == ["Secret Keyword"]
    assert verification in get_settings().filters  # the settings outside are left alone


@pytest.mark.parametrize(
    ("remedy", "one", "many"),
    [
        ("flag", "pass --allow-secrets to send it anyway",
         "pass --allow-secrets to send them anyway"),
        ("command-line", "only collab debate's --allow-secrets, on the command line, sends it",
         "only collab debate's --allow-secrets, on the command line, sends them"),
        ("remove", "take it out and try again", "take them out and try again"),
    ],
)  # fmt: skip
def test_the_advice_is_the_surfaces_for_one_finding_and_for_many(
    remedy: secret_scan.Remedy, one: str, many: str
) -> None:
    found = [Finding("the question line 1", "looks like a secret: GitHub Token"),
             Finding("--why line 2", "looks like a secret: Slack Token")]  # fmt: skip
    assert summarize(found[:1], remedy=remedy) == (
        f"the question line 1: looks like a secret: GitHub Token (not sent; {one})"
    )
    assert summarize(found, remedy=remedy) == (
        "2 possible secrets in the debate inputs, nothing was sent: the question line 1 "
        f"(GitHub Token); --why line 2 (Slack Token) ({many})"
    )
    with pytest.raises(UsageError, match=re.escape(f"(not sent; {one})")) as err:
        ensure_no_secrets("a topic", [], others=[("--note", "push with " + GITHUB)], remedy=remedy)
    # what a program reads (error.refused under --json; the GitHub Action), not the words
    assert isinstance(err.value, InputRefused) and err.value.refused == "secret"
