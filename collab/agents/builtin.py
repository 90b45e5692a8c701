"""The built-in agents (claude, codex, gemini, ollama, llm) and what each can isolate.

Measured against local fakes of their APIs (REAL_AGENTS.md, "Lean turns"); the comment
above each spec says which flags do what and what the CLI cannot keep out of a turn.
"""

from __future__ import annotations

import json
from pathlib import Path

from collab.agents.spec import AgentSpec

# Variables that make a nested `claude -p` think it runs inside another Claude Code.
CLAUDE_NESTING_VARS = ("CLAUDECODE", "CLAUDE_CODE_ENTRYPOINT")
CLAUDE_LOGIN_HINT = "run `claude` once and log in (/login), or set ANTHROPIC_API_KEY"

# collab's own short system prompt for every claude turn (fixed text, never user text):
# it replaces Claude Code's coding-agent prompt; the debate prompt comes on stdin.
CLAUDE_SYSTEM_PROMPT = (
    "You are one voice in a structured debate run by collab, or its neutral judge. "
    "Answer the user's message directly, in the format it asks for."
)
# Retries the CLI may make by itself inside one turn: an API error *response* is then
# reported within the turn instead of after ~3 minutes of the CLI's default 10 retries.
CLAUDE_MAX_RETRIES = 2

# Files handed to agent CLIs by path (system prompt, tool policies): they ship in the package.
AGENT_DATA = Path(__file__).resolve().with_name("agent_data")

# Expands to one `-c mcp_servers.NAME={enabled=false,…}` per server the user's codex
# config files name (see ``codex_mcp_overrides``).
CODEX_MCP_OFF = "{codex_mcp_off}"
# Tools codex offers besides the shell, off for every tool set: web search, goals,
# sub-agents, questions to the user, the plan tool.
CODEX_NO_EXTRA_TOOLS = (
    "-c",
    'web_search="disabled"',
    "--disable",
    "goals",
    "--disable",
    "multi_agent",
    "-c",
    "tools.experimental_request_user_input.enabled=false",
    "-c",
    "tools.update_plan.enabled=false",
)
# What codex 0.171 says when its login is gone: a 401 from the API ("unexpected status
# 401 Unauthorized: …"), a ChatGPT token it cannot refresh, a provider key not set.
CODEX_LOGIN_FAILURES = (
    "401 Unauthorized",
    "Incorrect API key",
    "refresh token",
    "sign in again",
    "codex login",
    "Not logged in",
    "Missing environment variable",
)
CODEX_LOGIN_HINT = (
    "run `codex login` (or `codex login --with-api-key`), or set the API-key variable "
    "your model provider names (env_key in ~/.codex/config.toml)"
)
# What gemini 0.61 says: a 401 ("UNAUTHENTICATED"), the API's answer to a bad key
# ("API key not valid", reason API_KEY_INVALID), no cached Google login in a headless
# run, no key or auth method, a refresh token Google refused.
GEMINI_LOGIN_FAILURES = (
    "UNAUTHENTICATED",
    "API key not valid",
    "API_KEY_INVALID",
    "Manual authorization is required",
    "must specify the GEMINI_API_KEY",
    "Invalid auth method selected",
    "Please set an Auth method",
    "Error authenticating",
    "invalid_grant",
)
GEMINI_LOGIN_HINT = "run `gemini` once and log in, or set GEMINI_API_KEY"

BUILTIN: dict[str, AgentSpec] = {
    # Measured with claude 2.1.197 (REAL_AGENTS.md, "Lean turns"): stream-json for the
    # live view (the last line is the same result object as --output-format json);
    # --tools "" and our system prompt: ~300 input tokens instead of ~19,100;
    # --setting-sources user keeps ~/.claude/settings.json (a gateway's env, apiKeyHelper)
    # but drops project settings and CLAUDE.md; --settings (highest precedence) turns off
    # hooks, output styles, CLAUDE.md/auto memory and bounds the CLI's retries;
    # --strict-mcp-config: no MCP servers; --disable-slash-commands: no skills.
    "claude": AgentSpec(
        name="claude",
        argv=(
            "claude",
            "-p",
            "--output-format",
            "stream-json",
            "--verbose",
            "--include-partial-messages",
            "--no-session-persistence",
            "--system-prompt",
            CLAUDE_SYSTEM_PROMPT,
        ),
        model_argv=("--model", "{model}"),
        output="claude-json",
        env_unset=CLAUDE_NESTING_VARS,
        install_hint="npm install -g @anthropic-ai/claude-code, then run `claude` once to log in",
        login_failures=(
            "Not logged in",
            "Failed to authenticate",
            "authentication_error",
            "OAuth token has expired",
            "Invalid API key",
        ),
        login_hint=CLAUDE_LOGIN_HINT,
        lean_argv=(
            "--setting-sources",
            "user",
            "--strict-mcp-config",
            "--disable-slash-commands",
            "--settings",
            "{settings}",
        ),
        inherit_argv=("--settings", "{settings}"),
        no_tools_argv=("--tools", ""),
        read_tools_argv=("--tools", "Read,Grep,Glob"),
    ),
    # codex — measured with codex-cli 0.171.0 against tests/fakes FakeOpenAI, with an MCP
    # server, hooks, a skill and AGENTS.md files planted in $CODEX_HOME and the project:
    # - `exec --json`: JSONL events on stdout (replies.py, streams.py); an agent message
    #   arrives whole (`item.completed`), codex prints no deltas, so the live view shows
    #   each message when it is complete. `-`: the prompt comes on stdin.
    # - Always: `-c instructions=…` replaces codex's coding-agent prompt with collab's;
    #   --sandbox read-only; --ephemeral (no session files); no colour.
    # - Lean isolates: MCP servers (`-c mcp_servers={}` does NOT clear them: codex merges
    #   -c tables into config.toml's, so collab disables each server named in
    #   $CODEX_HOME/config.toml or a .codex/config.toml from the working directory up,
    #   `-c mcp_servers.NAME={enabled=false,…}`); hooks, even trusted ones (`--disable
    #   hooks`); plugins, apps (connectors) and memories (`--disable …`); the project's
    #   AGENTS.md (`-c project_doc_max_bytes=0`); the skills list
    #   (`skills.include_instructions=false`, `skills.bundled.enabled=false`); exec-policy
    #   rules (`--ignore-rules`). config.toml's provider, model and login still apply
    #   (`--ignore-user-config` would drop the provider, so it is not used).
    # - Lean cannot isolate: the global $CODEX_HOME/AGENTS.md (or AGENTS.override.md) —
    #   codex loads it even with --ignore-user-config; settings an admin manages
    #   (managed config, requirements.toml); MCP servers that come from neither file.
    # - Tools none: no shell, no view_image, goals, sub-agents, user-input or plan tools,
    #   no web search, no permissions/environment context: the request carries no tools,
    #   ~2 KB instead of ~41 KB. Tools read: codex has no file tool but its shell, so
    #   `exec_command` in the read-only sandbox (it can read the working directory;
    #   writes and network are blocked) and view_image; still no web search or sub-agents.
    "codex": AgentSpec(
        name="codex",
        argv=(
            "codex",
            "exec",
            "--json",
            "--skip-git-repo-check",
            "--ephemeral",
            "--sandbox",
            "read-only",
            "--color",
            "never",
            "-c",
            "instructions=" + json.dumps(CLAUDE_SYSTEM_PROMPT),
            "-",
        ),
        model_argv=("-m", "{model}"),
        output="codex-json",
        install_hint="npm install -g @openai/codex",
        login_failures=CODEX_LOGIN_FAILURES,
        login_hint=CODEX_LOGIN_HINT,
        lean_argv=(
            CODEX_MCP_OFF,
            "--disable",
            "hooks",
            "--disable",
            "plugins",
            "--disable",
            "apps",
            "--disable",
            "memories",
            "-c",
            "project_doc_max_bytes=0",
            "-c",
            "skills.include_instructions=false",
            "-c",
            "skills.bundled.enabled=false",
            "--ignore-rules",
        ),
        no_tools_argv=(
            *CODEX_NO_EXTRA_TOOLS,
            "--disable",
            "shell_tool",
            "--disable",
            "unified_exec",
            "--disable",
            "view_image",
            "-c",
            "include_permissions_instructions=false",
            "-c",
            "include_environment_context=false",
        ),
        read_tools_argv=CODEX_NO_EXTRA_TOOLS,
    ),
    # gemini — measured with gemini 0.61.0 against tests/fakes FakeGemini, with MCP
    # servers (user, project and extension), an extension, hooks, a skill and GEMINI.md
    # files planted in ~/.gemini and the project:
    # - `-p ""`: headless, the whole prompt from stdin (stdin first, then the empty -p
    #   text). `-o stream-json`: JSONL events; assistant text arrives as `message` deltas
    #   while the model writes, the last line is the `result` (status, token stats).
    #   No relaunch: one node process instead of two (~0.4 s less a turn, and SIGTERM
    #   reaches the process that does the work; the relauncher ignores it).
    # - Always: GEMINI_SYSTEM_MD replaces gemini's ~22 KB coding-agent system prompt (and
    #   its skills list) with collab's; a tool policy (--policy) decides the tools;
    #   `--approval-mode default`, whatever default settings.json names (yolo, plan).
    # - Lean isolates: extensions, with their MCP servers and context files (`-e none`);
    #   MCP servers from any settings file (`--allowed-mcp-server-names` naming none).
    # - Lean cannot isolate (gemini has no flag for them, and its only settings override,
    #   a system settings file, must be root-owned): hooks from settings.json (user and
    #   project) still run; GEMINI.md context (~/.gemini/GEMINI.md, and the project's up to
    #   its git root) still reaches the prompt, with the working directory's file tree;
    #   the project's .gemini/settings.json applies (headless gemini runs only in a trusted
    #   folder) and .env files are read.
    # - Tools none: a deny-all policy, the request carries no tools (~2 KB instead of
    #   ~33 KB with the system prompt). Tools read: read_file, list_directory, glob and
    #   grep_search (read_many_files where the CLI has it) — no shell, edits, web access,
    #   sub-agents, skills or MCP tools.
    "gemini": AgentSpec(
        name="gemini",
        argv=("gemini", "-p", "", "-o", "stream-json", "--approval-mode", "default"),
        model_argv=("-m", "{model}"),
        output="gemini-json",
        env_set=(
            ("GEMINI_CLI_NO_RELAUNCH", "true"),
            ("GEMINI_SYSTEM_MD", str(AGENT_DATA / "gemini-system.md")),
        ),
        install_hint="npm install -g @google/gemini-cli",
        # A broken stream still exits 0 (its error is in the stream; in text mode on stderr).
        stderr_failures=("Model stream ended without a finish reason",),
        login_failures=GEMINI_LOGIN_FAILURES,
        login_hint=GEMINI_LOGIN_HINT,
        lean_argv=("-e", "none", "--allowed-mcp-server-names", "collab-lean-no-mcp-servers"),
        no_tools_argv=("--policy", str(AGENT_DATA / "gemini-no-tools.toml")),
        read_tools_argv=("--policy", str(AGENT_DATA / "gemini-read-tools.toml")),
    ),
    "ollama": AgentSpec(
        name="ollama",
        argv=("ollama", "run", "{model}"),
        needs_model=True,
        install_hint="install ollama and pull a model (ollama pull llama3.2)",
    ),
    # llm (simonw/llm) — already lean: no tools unless -T/--functions, no system prompt
    # unless -s, no templates or fragments unless asked, nothing from the project.
    # Cannot isolate: plugins (a model may come from one), the default model's saved
    # options and aliases. Tools read: llm ships no file-reading tool, so none.
    "llm": AgentSpec(
        name="llm",
        argv=("llm", "prompt", "--no-log"),
        model_argv=("-m", "{model}"),
        install_hint="pip install llm (or pip install 'collab[local]' for an offline model)",
    ),
}
