"""``collab mcp``: collab's tools for any MCP host (Claude Code, Claude Desktop, Cursor,
Codex CLI, Gemini CLI), on the official MCP Python SDK.

- :mod:`.tools` the tools: schemas (collab's own document schemas as output schemas)
  and behaviour hints
- :mod:`.args` tool arguments → a debate request as the CLI would build it; the
  ``[mcp]`` limits
- :mod:`.server` the session: handlers, roots, stdio
- :mod:`.follow` the blocking ``debate``: progress notifications from events.jsonl
"""

from __future__ import annotations

from collab.mcp_server.server import build_server, serve

__all__ = ["build_server", "serve"]
