"""``collab mcp``: collab's tools for any MCP host (Claude Code, Claude Desktop, Cursor,
Codex CLI, Gemini CLI), on the official MCP Python SDK.

- :mod:`.tools` the tools: schemas (collab's own document schemas as output schemas)
  and behaviour hints
- :mod:`.inputs` what a debate takes: the input schema's properties from the option
  declarations (plain JSON Schema)
- :mod:`.args` tool arguments → a debate request as the CLI would build it; the
  ``[mcp]`` limits
- :mod:`.server` the session: handlers, roots, stdio
- :mod:`.follow` the blocking ``debate``: progress notifications from events.jsonl

The package itself imports nothing: :mod:`.server` brings in the MCP SDK (~0.9 s) and
:mod:`.tools` its types (~0.3 s), which ``inputs``, ``args``, ``follow`` and ``slots`` do
not need; ``collab mcp`` imports ``.server``.
"""
