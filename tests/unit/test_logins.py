"""When is an agent certainly not logged in (a run may refuse to start), and when can
we not tell? A key or base URL in settings.json's ``env`` is a login, never "none"."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from collab.agents import claude
from collab.agents.catalogue import certainly_logged_out, stored_login
from tests.helpers import machine_login, needs_no_machine_login

CLOUD = ["CLAUDE_CODE_USE_BEDROCK", "CLAUDE_CODE_USE_VERTEX", "CLAUDE_CODE_USE_FOUNDRY",
         "CLAUDE_CODE_USE_ANTHROPIC_AWS", "CLAUDE_CODE_USE_MANTLE"]  # fmt: skip


@pytest.fixture
def home(hermetic_env: Path) -> Path:
    """The test's HOME: a new empty folder in its COLLAB_HOME (tests/unit/conftest.py: on
    tmpfs, made for each test, removed after it); not ``tmp_path``, a numbered folder on
    disk with its "current" symlink, kept after the run: ~0.2-0.35 s of CPU for this file's
    ~80 tests (1.43 -> 1.23 s, a run of this file alone)."""
    folder = hermetic_env / "home"
    folder.mkdir()
    return folder


@pytest.fixture(autouse=True)
def managed_dir(home: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The machine's managed settings (/etc/claude-code) in the test's own folder."""
    folder = home / "etc-claude-code"
    monkeypatch.setattr(claude, "MANAGED_DIR", folder)
    return folder


def env_for(home: Path, **extra: str) -> dict[str, str]:
    return {"HOME": str(home), **extra}


def write(path: Path, doc: object) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(doc), encoding="utf-8")


def test_nothing_anywhere_is_certainly_no_login(home: Path) -> None:
    assert stored_login("claude", env_for(home)) is None
    assert certainly_logged_out("claude", env_for(home), platform="linux")


@pytest.mark.parametrize(
    "var", ["ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "CLAUDE_CODE_OAUTH_TOKEN",
            "ANTHROPIC_BASE_URL", *CLOUD],
)  # fmt: skip
def test_a_key_or_gateway_in_settings_env_counts(home: Path, var: str) -> None:
    write(home / ".claude" / "settings.json", {"env": {var: "1" if var in CLOUD else "x"}})
    where = stored_login("claude", env_for(home))
    assert where is not None and var in where and "settings.json" in where
    assert not certainly_logged_out("claude", env_for(home), platform="linux")


def test_settings_env_under_claude_config_dir(home: Path) -> None:
    write(home / "cfg" / "settings.json", {"env": {"ANTHROPIC_API_KEY": "k"}})
    env = env_for(home, CLAUDE_CONFIG_DIR=str(home / "cfg"))
    assert not certainly_logged_out("claude", env, platform="linux")


@pytest.mark.parametrize(
    "doc", [{"env": {"ANTHROPIC_API_KEY": ""}}, {"env": "ANTHROPIC_API_KEY"}, {"env": None},
            ["env"], {"other": {"ANTHROPIC_API_KEY": "k"}},
            {"env": {"CLAUDE_CODE_USE_BEDROCK": "0"}}, {"env": {"CLAUDE_CODE_USE_VERTEX": 0}}],
)  # fmt: skip
def test_settings_that_hold_no_key(home: Path, doc: object) -> None:
    write(home / ".claude" / "settings.json", doc)
    assert certainly_logged_out("claude", env_for(home), platform="linux")


def test_a_gateway_in_the_environment_is_cannot_tell(home: Path) -> None:
    env = env_for(home, ANTHROPIC_BASE_URL="http://127.0.0.1:9")
    assert not certainly_logged_out("claude", env, platform="linux")


def test_a_keychain_is_cannot_tell(home: Path) -> None:
    assert not certainly_logged_out("claude", env_for(home), platform="darwin")


@pytest.mark.parametrize("agent", ["codex", "gemini", "command", "llm"])
def test_other_agents_are_never_refused_up_front(home: Path, agent: str) -> None:
    assert not certainly_logged_out(agent, env_for(home), platform="linux")


def test_stored_credentials_and_helpers(home: Path) -> None:
    write(home / ".claude" / ".credentials.json", {})
    assert not certainly_logged_out("claude", env_for(home), platform="linux")
    (home / ".claude" / ".credentials.json").unlink()
    write(home / ".claude.json", {"apiKeyHelper": "/bin/key"})
    assert not certainly_logged_out("claude", env_for(home), platform="linux")


@pytest.mark.parametrize("value", ["1", "true"])
def test_a_cloud_switch_in_the_environment_counts(home: Path, value: str) -> None:
    env = env_for(home, CLAUDE_CODE_USE_BEDROCK=value)
    assert not certainly_logged_out("claude", env, platform="linux")
    assert certainly_logged_out("claude", env_for(home, CLAUDE_CODE_USE_VERTEX="0"), "linux")


def test_the_cli_state_file_under_claude_config_dir(home: Path) -> None:
    """With CLAUDE_CONFIG_DIR set, the CLI's .claude.json (an OAuth account) lives there."""
    write(home / "cfg" / ".claude.json", {"oauthAccount": {"emailAddress": "a@b.c"}})
    env = env_for(home, CLAUDE_CONFIG_DIR=str(home / "cfg"))
    assert not certainly_logged_out("claude", env, platform="linux")


@pytest.mark.parametrize("var", CLOUD)
@pytest.mark.parametrize("value", ["1", "TRUE", " yes ", "On", True, 1, 1.0])
def test_a_cloud_switch_counts_when_the_cli_reads_it_as_on(
    home: Path, var: str, value: object
) -> None:
    """The claude CLI turns a provider on for "1", "true", "yes", "on" (any case,
    trimmed), or a JSON value that reads so as a string (true, 1): its login is then
    the cloud's."""
    write(home / ".claude" / "settings.json", {"env": {var: value}})
    assert not certainly_logged_out("claude", env_for(home), platform="linux")
    if isinstance(value, str):
        assert not certainly_logged_out("claude", env_for(home, **{var: value}), "linux")


@pytest.mark.parametrize(
    "value", ["false", "0", "no", "off", "", "x", "2", False, 0, 0.0, 2, None, ["1"]]
)
def test_a_cloud_switch_the_cli_reads_as_off_is_no_login(home: Path, value: object) -> None:
    """ "false" (or anything but the CLI's on-words) leaves the CLI on Anthropic's API,
    which needs a login of its own: such a switch is no login."""
    write(home / ".claude" / "settings.json", {"env": dict.fromkeys(CLOUD, value)})
    assert stored_login("claude", env_for(home)) is None
    if isinstance(value, str):
        env = env_for(home, **dict.fromkeys(CLOUD, value))
        assert certainly_logged_out("claude", env, platform="linux")


def test_managed_settings_hold_a_login_for_every_user(home: Path, managed_dir: Path) -> None:
    """/etc/claude-code/managed-settings.json and its drop-in folder set the CLI's
    environment machine-wide: a key or switch there is a login."""
    write(managed_dir / "managed-settings.json", {"permissions": {}})
    assert certainly_logged_out("claude", env_for(home), platform="linux")
    write(managed_dir / "managed-settings.d" / "10-cloud.json", {"env": {CLOUD[0]: "true"}})
    where = stored_login("claude", env_for(home))
    assert where is not None and "10-cloud.json" in where and CLOUD[0] in where
    (managed_dir / "managed-settings.d" / "10-cloud.json").unlink()
    write(managed_dir / "managed-settings.json", {"env": {"ANTHROPIC_API_KEY": "k"}})
    where = stored_login("claude", env_for(home))
    assert where is not None and "managed-settings.json" in where


def test_a_hidden_drop_in_is_not_read(home: Path, managed_dir: Path) -> None:
    """The CLI reads managed-settings.d's ``*.json`` but not a hidden one (a backup or an
    editor's copy): a key only there is no login."""
    write(managed_dir / "managed-settings.d" / ".10-key.json", {"env": {"ANTHROPIC_API_KEY": "k"}})
    assert stored_login("claude", env_for(home)) is None
    write(managed_dir / "managed-settings.d" / "10-key.json", {"env": {"ANTHROPIC_API_KEY": "k"}})
    where = stored_login("claude", env_for(home))
    assert where is not None and where.endswith("/10-key.json (env)")


def test_the_machines_own_login_is_told_apart_from_the_users(
    home: Path, managed_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What e2e tests of "no login at all" skip on: a login in the machine's managed
    settings, which no HOME or environment a test makes can take away; not the user's
    own key or stored credentials, which a test's HOME and environment do leave out."""
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-the-users")
    write(home / ".claude" / ".credentials.json", {})
    assert machine_login() is None
    needs_no_machine_login()  # (no skip)
    write(managed_dir / "managed-settings.json", {"env": {"ANTHROPIC_API_KEY": "k"}})
    where = machine_login()
    assert where is not None and str(managed_dir / "managed-settings.json") in where
    with pytest.raises(pytest.skip.Exception, match="gives every user a claude login"):
        needs_no_machine_login()
