"""An MCP client from the official SDK (``mcp.client.stdio``) driving ``collab mcp`` as a
host would: the server is a subprocess; ``env`` is passed in full (the SDK passes only a
handful of variables otherwise)."""

from __future__ import annotations

import os
import sys
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, TypeVar

import anyio
import mcp_types as types
from mcp import ClientSession, StdioServerParameters, stdio_client

T = TypeVar("T")


@asynccontextmanager
async def mcp_session(
    cwd: Path | None = None,
    roots: list[Path] | None = None,
    env: dict[str, str] | None = None,
    command: list[str] | None = None,
) -> AsyncIterator[ClientSession]:
    argv = command or [sys.executable, "-m", "collab", "mcp"]
    params = StdioServerParameters(
        command=argv[0],
        args=argv[1:],
        env=dict(os.environ) if env is None else env,
        cwd=cwd,
    )

    async def list_roots(context: Any) -> types.ListRootsResult:
        return types.ListRootsResult(
            roots=[types.Root(uri=p.resolve().as_uri(), name=p.name) for p in roots or []]
        )

    async with (
        stdio_client(params) as (read, write),
        ClientSession(read, write, list_roots_callback=list_roots if roots else None) as s,
    ):
        await s.initialize()
        yield s


async def call(session: ClientSession, tool: str, **args: object) -> types.CallToolResult:
    res = await session.call_tool(tool, dict(args))
    assert isinstance(res, types.CallToolResult)
    return res


async def doc_of(session: ClientSession, tool: str, **args: object) -> dict[str, Any]:
    res = await call(session, tool, **args)
    assert not res.is_error, text_of(res)
    assert isinstance(res.structured_content, dict)
    return res.structured_content


def text_of(res: types.CallToolResult) -> str:
    return "".join(c.text for c in res.content if isinstance(c, types.TextContent))


async def poll(
    fetch: Callable[[], Awaitable[T]], pred: Callable[[T], bool], timeout: float = 60.0
) -> T:
    """``fetch`` until ``pred`` holds, with a deadline (the async twin of wait_until)."""
    end = time.monotonic() + timeout
    while True:
        value = await fetch()
        if pred(value):
            return value
        if time.monotonic() > end:
            raise AssertionError(f"still not there after {timeout}s: {value!r}")
        await anyio.sleep(0.05)
