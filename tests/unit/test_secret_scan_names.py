"""collab.secret_scan.sensitive_name: every refused name says exactly why (the reason is the
whole user-facing message, "named like <reason>"), and names near a refused one are not
refused."""

from __future__ import annotations

from pathlib import Path

import pytest

from collab.secret_scan import find_secrets, sensitive_name

REASONS = [
    (".env", "a dotenv file"),
    (".env.production.local", "a dotenv file"),
    ("id_rsa-old", "an SSH private key"),
    ("id_ecdsa_sk.bak", "an SSH private key"),
    ("certs/Server.PEM", "a PEM key or certificate"),
    ("tls/server.key", "a key file"),
    ("me.ppk", "a PuTTY private key"),
    ("client.p12", "a PKCS#12 key store"),
    ("client.pfx", "a PKCS#12 key store"),
    ("vault.kdbx", "a KeePass database"),
    ("credentials", "a credentials file"),
    ("credentials.json", "a credentials file"),
    (".git-credentials", "a credentials file"),
    ("home/.kube/config", "a kube credentials file"),
    ("home/.docker/config.json", "a docker credentials file"),
    ("service-account.json", "a cloud service-account key"),
    ("service_account.json", "a cloud service-account key"),
    ("serviceaccount-prod.json", "a cloud service-account key"),
    ("terraform.tfstate", "a Terraform state file (it holds secrets in clear)"),
    ("terraform.tfstate.backup", "a Terraform state file (it holds secrets in clear)"),
    ("secrets.yaml", "a secrets file"),
    ("secret.yml", "a secrets file"),
    ("secrets.json", "a secrets file"),
    ("secrets.toml", "a secrets file"),
    ("kubeconfig", "a kube credentials file"),
    ("kubeconfig-staging.yaml", "a kube credentials file"),
    (".envrc", "a direnv file"),
    (".npmrc", "an npm credentials file"),
    (".vault-token", "a HashiCorp Vault login file"),
    (".netrc", "a .netrc login file"),
    ("_netrc", "a .netrc login file"),
    (".pgpass", "a PostgreSQL password file"),
    (".pypirc", "a PyPI credentials file"),
]


@pytest.mark.parametrize(("path", "reason"), REASONS, ids=[p for p, _ in REASONS])
def test_a_refused_name_gives_its_exact_reason(path: str, reason: str) -> None:
    assert sensitive_name(path) == reason


@pytest.mark.parametrize(
    "path",
    [".env.production.example", ".env.local.sample", "app.env.example", "id_rsa.pub",
     "my_id_rsa", "id_rsa2", "keys.txt", "kube/config", ".kube/config.yaml", "docker/config.json",
     ".docker/daemon.json", "accounts.json", "service-account.yaml", "my-secrets.yaml",
     "secrets.txt", "secrets.yaml.md", "tfstate.md", "notes-kubeconfig.md", "mycredentials",
     ".envrc.md", "npmrc", ".env-notes.md"],
)  # fmt: skip
def test_names_near_a_refused_one_are_not_refused(path: str) -> None:
    assert sensitive_name(path) is None


def test_a_template_suffix_counts_only_as_the_last_part_of_the_name() -> None:
    """``.env.example.local`` is a local copy made from the template: refused."""
    assert sensitive_name(".env.example.local") == "a dotenv file"
    assert sensitive_name("deploy/.env.dist.prod") == "a dotenv file"


def test_a_windows_path_is_judged_by_its_last_component() -> None:
    assert sensitive_name("C:\\Users\\ada\\.ssh\\id_ed25519") == "an SSH private key"
    assert sensitive_name("C:\\Users\\ada\\.kube\\config") == "a kube credentials file"
    assert sensitive_name(".env\\notes.md") is None


def test_a_refused_name_is_reported_once_with_its_reason() -> None:
    found = find_secrets("A topic", [("deploy/.npmrc", "registry=https://example.org\n")])
    assert [(f.where, f.what) for f in found] == [
        ("context file deploy/.npmrc", "named like an npm credentials file")
    ]


@pytest.mark.parametrize(
    ("folder", "name", "reason"),
    [(".kube", "config", "a kube credentials file"),
     (".docker", "config.json", "a docker credentials file")],
)  # fmt: skip
def test_a_name_given_from_inside_a_credentials_folder_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, folder: str, name: str, reason: str
) -> None:
    """``collab debate --context config`` run in ``~/.kube``: the folder is not in the name
    as given, only in the path it resolves to."""
    (tmp_path / folder).mkdir()
    (tmp_path / folder / name).write_text("users: []\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path / folder)
    found = find_secrets("A topic", [(name, "users: []\n")])
    assert [(f.where, f.what) for f in found] == [(f"context file {name}", f"named like {reason}")]
