"""GitHub's REST API, the part ``collab comment`` needs: one comment per pull request and
key, created once and edited after (found by its hidden marker, and only when collab's own
identity wrote it: a Bot, or a personal token's login), over httpx.

It reads ``GITHUB_TOKEN``, ``GITHUB_REPOSITORY`` (OWNER/NAME) and ``GITHUB_API_URL``
(GitHub Enterprise; default ``https://api.github.com``). The token goes in one request
header and nowhere else: no message this module makes contains it. A rate limit (a 403
or 429 with ``retry-after`` or ``x-ratelimit-remaining: 0``) is waited out when it resets
within ``MAX_WAIT`` seconds, else reported; GitHub's secondary rate limit, which may say
so only in its message, is waited out for ``SECONDARY_WAIT`` seconds, then retried; a
403 says which permission is missing; a 422 (GitHub refused the body) is retried once
with the short body.
"""

from __future__ import annotations

import os
import re
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass

import httpx

from collab.errors import CollabError, UsageError

DEFAULT_API = "https://api.github.com"
MAX_WAIT = 60.0
# GitHub's advice for a secondary rate limit that gives no retry-after: wait a minute.
SECONDARY_WAIT = 60.0
RETRIES = 3
TIMEOUT = 30.0
_LOCAL_HTTP = ("http://127.0.0.1:", "http://localhost:", "http://[::1]:")  # never a token in clear
_REPO = re.compile(r"[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+")


class GitHubError(CollabError):
    """GitHub refused or failed a request (nothing secret in the message)."""

    kind = "github"


@dataclass(frozen=True)
class Target:
    api: str
    repo: str
    pr: int
    token: str

    @classmethod
    def from_env(cls, pr: int, repo: str | None, env: Mapping[str, str] = os.environ) -> Target:
        token = env.get("GITHUB_TOKEN", "")
        if not token:
            raise UsageError("GITHUB_TOKEN is not set (in a workflow: env: GITHUB_TOKEN: "
                             "${{ github.token }})")  # fmt: skip
        repo = repo or env.get("GITHUB_REPOSITORY", "")
        if not _REPO.fullmatch(repo):
            raise UsageError(f"--repo must be OWNER/NAME (or set GITHUB_REPOSITORY), got {repo!r}")
        if pr < 1:
            raise UsageError(f"--github-pr must be a pull request number, got {pr}")
        api = (env.get("GITHUB_API_URL") or DEFAULT_API).rstrip("/")
        if not api.startswith(("https://", *_LOCAL_HTTP)):
            raise UsageError(f"GITHUB_API_URL must be an https URL (http only on this "
                             f"machine), got {api!r}")  # fmt: skip
        return cls(api, repo, pr, token)


@dataclass(frozen=True)
class Posted:
    action: str  # "created" | "updated"
    url: str
    comment_id: int


def upsert_comment(
    target: Target,
    marker: str,
    body: str,
    short_body: str | None = None,
    *,
    transport: httpx.BaseTransport | None = None,
    sleep: Callable[[float], None] = time.sleep,
) -> Posted:
    """Edit the pull request's comment that starts with ``marker``, or create it."""
    headers = {
        "Authorization": f"Bearer {target.token}",
        "Accept": "application/vnd.github+json",
        "X-GitHub-Api-Version": "2022-11-28",
        "User-Agent": "collab",
    }
    with httpx.Client(base_url=target.api, headers=headers, timeout=TIMEOUT,
                      transport=transport) as client:  # fmt: skip
        api = _Api(client, sleep)
        mine = api.find(target, marker)
        try:
            return api.write(target, mine, body)
        except _Refused:
            if short_body is None:
                raise GitHubError("GitHub refused the comment (422)") from None
            try:
                return api.write(target, mine, short_body)
            except _Refused as exc:
                raise GitHubError(f"GitHub refused the comment (422): {exc}") from None


class _Refused(Exception):
    """A 422: GitHub would not take this body."""


# Who a workflow's GITHUB_TOKEN posts as.
WORKFLOW_BOT = "github-actions[bot]"


class _Api:
    def __init__(self, client: httpx.Client, sleep: Callable[[float], None]) -> None:
        self.client = client
        self.sleep = sleep

    def find(self, t: Target, marker: str) -> int | None:
        """The id of the newest comment whose body starts with ``marker`` and that collab
        wrote: with a personal token, the token's own login's; with the workflow's token
        (GitHub answers it no ``GET /user``), github-actions[bot]'s. Anyone can type the
        marker into a comment of theirs, another app's bot too: such a comment is never
        edited (with a token of another app, each run posts a new comment)."""
        url: str | None = f"/repos/{t.repo}/issues/{t.pr}/comments?per_page=100"
        found: list[tuple[str, int]] = []
        pages = 0
        while url and pages < 50:
            resp = self.call("GET", url)
            for c in resp.json():
                if str(c.get("body") or "").startswith(marker):
                    user = c.get("user") or {}
                    found.append((str(user.get("login") or ""), int(c["id"])))
            url = resp.links.get("next", {}).get("url")
            pages += 1
        if not found:
            return None
        author = self.login() or WORKFLOW_BOT
        mine = [cid for who, cid in found if who == author]
        return mine[-1] if mine else None

    def login(self) -> str | None:
        """The token's own login (a personal token); None for a workflow's token, which
        GitHub does not answer ``GET /user`` for."""
        try:
            data = self.call("GET", "/user").json()
        except GitHubError:
            return None
        login = data.get("login") if isinstance(data, dict) else None
        return str(login) if login else None

    def write(self, t: Target, comment_id: int | None, body: str) -> Posted:
        if comment_id is not None:
            resp = self.call("PATCH", f"/repos/{t.repo}/issues/comments/{comment_id}",
                             json={"body": body})  # fmt: skip
            action = "updated"
        else:
            resp = self.call("POST", f"/repos/{t.repo}/issues/{t.pr}/comments",
                             json={"body": body})  # fmt: skip
            action = "created"
        data = resp.json()
        return Posted(action, str(data.get("html_url") or ""), int(data["id"]))

    def call(self, method: str, url: str, json: object = None) -> httpx.Response:
        for attempt in range(RETRIES + 1):
            try:
                resp = self.client.request(method, url, json=json)
            except httpx.HTTPError as exc:
                raise GitHubError(
                    f"cannot reach GitHub ({type(exc).__name__}) at {self.client.base_url}"
                ) from None
            wait = _rate_limit_wait(resp)
            if wait is None:
                return _checked(resp)
            if wait > MAX_WAIT or attempt == RETRIES:
                raise GitHubError(f"GitHub rate limit: retry in {wait:.0f} s ({_message(resp)})")
            self.sleep(wait)
        raise AssertionError("unreachable")  # pragma: no cover


def _rate_limit_wait(resp: httpx.Response) -> float | None:
    """Seconds to wait when ``resp`` is a rate limit, else None."""
    if resp.status_code not in (403, 429):
        return None
    retry_after = resp.headers.get("retry-after")
    if retry_after is not None and retry_after.strip().isdigit():
        return float(retry_after)
    if resp.headers.get("x-ratelimit-remaining") == "0":
        reset = resp.headers.get("x-ratelimit-reset", "")
        return max(0.0, float(reset) - time.time()) if reset.isdigit() else MAX_WAIT + 1
    if resp.status_code == 429 or "secondary rate limit" in _message(resp).lower():
        return SECONDARY_WAIT
    return None


def _checked(resp: httpx.Response) -> httpx.Response:
    code = resp.status_code
    if code < 300:
        return resp
    if code == 422:
        raise _Refused(_message(resp))
    if code == 403:
        raise GitHubError(f"GitHub refused (403: {_message(resp)}): the token needs "
                          "'pull-requests: write' (a pull request from a fork gets a read-only "
                          "token)")  # fmt: skip
    if code in (401, 404):
        raise GitHubError(f"GitHub answered {code} ({_message(resp)}): check the token, "
                          "--repo and the pull request number")  # fmt: skip
    raise GitHubError(f"GitHub answered {code} ({_message(resp)})")


def _message(resp: httpx.Response) -> str:
    try:
        data = resp.json()
    except ValueError:
        return resp.reason_phrase or "no message"
    msg = data.get("message") if isinstance(data, dict) else None
    return str(msg)[:200] if msg else resp.reason_phrase or "no message"
