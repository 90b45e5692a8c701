"""Detectors detect-secrets lacks, added through its plugin mechanism (``plugins_used`` entries
with a ``path``: the engine imports this file and runs these classes like its own, with its
own false-positive filters on every candidate).

Key formats (as their issuers document them): OpenAI, Anthropic, Google API keys, GitLab and
Hugging Face tokens, fine-grained GitHub tokens; ``Authorization: Bearer`` headers; PEM
private keys in every spelling (``ENCRYPTED``, PKCS#8, PGP, CRLF line ends, indented in YAML,
escaped newlines in JSON); kubeconfig ``token:`` and ``client-key-data:``; docker's
``"auth"``; ``PASS=``/``passphrase=`` assignments the keyword detector does not know.

Self-contained on purpose: the engine imports it as a file, outside the ``collab`` package.
Each pattern's one capture group is the candidate value the engine's filters judge.
"""

from __future__ import annotations

import re
from typing import Any

from detect_secrets.plugins.base import RegexBasedDetector

# Values that stand for a secret rather than being one (docs, samples, templates), and
# Terraform references (``var.db_password``).
_PLACEHOLDER = re.compile(
    r"(?i)^(?:change_?me\w*|x{3,}|\*{3,}|\.{3,}|(?:your|my|the)[_-][\w-]*|example\w*|"
    r"dummy\w*|placeholder\w*|redacted|hidden|none|null|empty|secret|password|passphrase|"
    r"pass|todo|tbd|fixme|test|sample\w*|default|required|optional|string|value|"
    r"(?:var|local|data|module)\.[\w.]+)$"
)


def is_placeholder(secret: str) -> bool:
    """A filter for the engine (``filters_used``: ``file://<this file>::is_placeholder``):
    a candidate that is plainly a placeholder or a reference is not a secret."""
    return _PLACEHOLDER.match(secret.strip("\"'")) is not None


class _Detector(RegexBasedDetector):
    """A regex detector whose matches that are plainly placeholders do not count."""

    def analyze_string(self, string: str) -> Any:
        for value in super().analyze_string(string):
            if not is_placeholder(value):
                yield value


class OpenAIKeyDetector(_Detector):
    secret_type = "OpenAI API Key"
    denylist = (
        re.compile(r"\b(sk-(?:proj|svcacct|admin|None)-[A-Za-z0-9_-]{20,})"),
        re.compile(r"\b(sk-[A-Za-z0-9]{20}T3BlbkFJ[A-Za-z0-9]{20})"),
        re.compile(r"\b(sk-[A-Za-z0-9]{48})\b"),
    )


class AnthropicKeyDetector(_Detector):
    secret_type = "Anthropic API Key"
    denylist = (re.compile(r"\b(sk-ant-[a-z]{2,6}\d{2}-[A-Za-z0-9_-]{20,})"),)


class GoogleApiKeyDetector(_Detector):
    secret_type = "Google API Key"
    denylist = (re.compile(r"\b(AIza[0-9A-Za-z_-]{35})"),)


class GitLabTokenDetector(_Detector):
    secret_type = "GitLab Token"
    denylist = (
        re.compile(r"\b(gl(?:pat|dt|rt|ptt|cbt|oas|soat|ft|imt|agent|wt)-[0-9A-Za-z_-]{20,})"),
    )


class HuggingFaceTokenDetector(_Detector):
    secret_type = "Hugging Face Token"
    denylist = (re.compile(r"\b((?:hf|api_org)_[A-Za-z0-9]{34,})\b"),)


class GitHubFineGrainedTokenDetector(_Detector):
    secret_type = "GitHub Fine-grained Token"  # a type of its own: the engine keys by it
    reported_as = "GitHub Token"
    denylist = (re.compile(r"\b(github_pat_[0-9A-Za-z_]{40,})"),)


class AuthorizationHeaderDetector(_Detector):
    secret_type = "Authorization Header"
    denylist = (
        re.compile(
            r"(?i)\bauthorization[\"']?\s*[:=]\s*[\"']?(?:bearer|basic|token|bot)\s+[\"']?"
            r"([A-Za-z0-9._~+/-]{12,}=*)"
        ),
        re.compile(r"(?i)\bbearer\s+[\"']?([A-Za-z0-9._~+/-]{20,}=*)"),
    )


class PemPrivateKeyDetector(_Detector):
    """A private key's header followed by its base64 body, over the whole text: the engine's
    own PEM detector misses ``ENCRYPTED PRIVATE KEY``, CRLF line ends and indented bodies."""

    secret_type = "Private Key (PEM)"  # a type of its own: the engine keys plugins by it
    reported_as = "Private Key"  # what collab's findings call it, like the engine's own
    whole_text = True  # collab's scanner runs this one over the text, not line by line
    denylist = (
        re.compile(
            r"(?i)-----BEGIN[ A-Z0-9]*PRIVATE KEY(?: BLOCK)?-----"
            r"(?:\\[rn]|[\s\"'|>:]|[A-Za-z-]+:[^\n]*\n)*"
            r"([A-Za-z0-9+/]{20,}={0,2})"
        ),
    )


class KubeconfigCredentialDetector(_Detector):
    secret_type = "Kubernetes Credential"
    denylist = (
        re.compile(
            r"(?i)(?:^|[\s\"'{,])(?:client-key-data|token|id-token|refresh-token)[\"']?\s*:\s*"
            r"[\"']?(?=[^\s\"']*\d)(?=[^\s\"']*[A-Za-z])([A-Za-z0-9+/=._-]{20,})"
        ),
    )


class DockerAuthDetector(_Detector):
    secret_type = "Docker Registry Auth"
    denylist = (
        re.compile(
            r"(?i)\"(?:auth|identitytoken)\"\s*:\s*\"(?:\\\")?([A-Za-z0-9+/._-]{8,}={0,2})(?:\\\")?\""
        ),
    )


class PassAssignmentDetector(_Detector):
    """``PASS=``, ``DB_PASS:``, ``passphrase =`` with a value; not in sample files, whose
    values are placeholders by design (collab's scanner names them ``*.example``)."""

    secret_type = "Password Assignment"
    denylist = (
        re.compile(
            r"(?i)(?:^|[\s\"'{,;])(?:export\s+)?[A-Z0-9_.-]*(?:pass|passphrase|passwd|pwd)"
            r"[\"']?\s*[:=]\s*[\"']?([^\s\"'$<{%(\[][^\s\"';,(){}\[\]]{5,})"
        ),
    )

    def analyze_line(self, filename: str, line: str, *args: Any, **kwargs: Any) -> Any:
        if filename.endswith(".example"):
            return set()
        return super().analyze_line(filename, line, *args, **kwargs)
