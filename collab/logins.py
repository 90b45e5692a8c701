"""Is an agent CLI logged in? A best guess without spending a token: API keys in the
environment, cloud-provider switches, or the CLI's stored login file. ``collab doctor``
reports it; ``--judge-agent auto`` only picks a Judge that is logged in."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path


def stored_login(agent: str, env: Mapping[str, str]) -> str | None:
    """Where the agent's login was found (e.g. "ANTHROPIC_API_KEY is set"), or None."""
    home = Path(env.get("HOME") or Path.home())
    if agent == "claude":
        return _claude(env, home)
    if agent == "codex":
        for var in ("OPENAI_API_KEY", "CODEX_API_KEY"):
            if env.get(var):
                return f"{var} is set"
        auth = Path(env.get("CODEX_HOME") or home / ".codex") / "auth.json"
        return f"login in {auth}" if auth.is_file() else None
    if agent == "gemini":
        for var in ("GEMINI_API_KEY", "GOOGLE_API_KEY", "GOOGLE_GENAI_USE_VERTEXAI"):
            if env.get(var):
                return f"{var} is set"
        creds = home / ".gemini" / "oauth_creds.json"
        return f"login in {creds}" if creds.is_file() else None
    return None


def _claude(env: Mapping[str, str], home: Path) -> str | None:
    for var in ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "CLAUDE_CODE_OAUTH_TOKEN"):
        if env.get(var):
            return f"{var} is set"
    for var in ("CLAUDE_CODE_USE_BEDROCK", "CLAUDE_CODE_USE_VERTEX"):
        if env.get(var) and env.get(var) != "0":
            return f"{var} is set"
    config_dir = Path(env.get("CLAUDE_CONFIG_DIR") or home / ".claude")
    if (config_dir / ".credentials.json").is_file():
        return f"credentials in {config_dir}"
    for settings in (home / ".claude.json", config_dir / "settings.json"):
        try:
            data = json.loads(settings.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        if isinstance(data, dict) and (data.get("oauthAccount") or data.get("apiKeyHelper")):
            return f"login recorded in {settings}"
    return None
