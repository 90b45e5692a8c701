"""``collab comment ID --github-pr N`` against a local fake of GitHub's REST endpoints:
one comment, created then edited (never a second), found across pages, GitHub's 403, 422
and rate limits handled, and the token in no output."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from collab.report.pr_comment import comment_key, marker
from tests.conftest import Cli, FakeAgent, contract_block
from tests.fakes.github_server import FakeGitHub
from tests.helpers import Outcome

TOKEN = "ghs_FAKEtoken0123456789abcdefABCDEF"
REPO = "acme/widgets"


@pytest.fixture
def github(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeGitHub]:
    with FakeGitHub(TOKEN) as fake:
        monkeypatch.setenv("GITHUB_TOKEN", TOKEN)
        monkeypatch.setenv("GITHUB_API_URL", fake.url)
        monkeypatch.setenv("GITHUB_REPOSITORY", REPO)
        yield fake


@pytest.fixture
def run_id(fake_agent: FakeAgent, cli: Cli) -> str:
    fake_agent.script(
        [{"match": ["(Role A) in a structured debate"],
          "replies": ["A @everyone." + contract_block(new=[("cache", "hit rate")])]},
         {"match": ["(Role B) in a structured debate"],
          "replies": ["B." + contract_block(stances=[("I1", "contest", "cold start")])]}],
        "## TL;DR\n- ping @octocat\n\n## Crux\nIs a cold start acceptable?\n"
        "\n## Open disagreements\n- I1 stays open.\n\n## Minority report\n- B would purge.\n",
    )  # fmt: skip
    code, out, _ = run(cli, "debate", "Cache or not?", "--agent", "fake", "--runner", "subprocess",
                        "--rounds", "2", "--json")  # fmt: skip
    assert code == 0
    return str(json.loads(out)["run_id"])


def run(cli: Cli, *args: str) -> Outcome:
    """``collab ARGS``, and the token never shown."""
    res = cli(*args)
    assert TOKEN not in res.out + res.err
    return res


def test_created_then_edited_never_duplicated(
    github: FakeGitHub, run_id: str, cli: Cli, tmp_path: Path
) -> None:
    args = ["comment", run_id, "--github-pr", "7", "--report-url", "https://ci.test/runs/1"]
    code, out, _ = run(cli, *args)
    assert code == 0 and out.startswith("comment created: https://github.test/")
    code, out, _ = run(cli, *args)
    assert code == 0 and out.startswith("comment updated: ")
    (body,) = github.bodies(REPO, 7)  # one comment
    key = comment_key(None, None, "Cache or not?")
    assert body.startswith(marker(key))
    assert "**Crux:** Is a cold start acceptable?" in body and "@octocat" not in body
    assert github.auth and set(github.auth) == {f"Bearer {TOKEN}"}
    assert github.log == [
        "GET /repos/acme/widgets/issues/7/comments?per_page=100 -> 200",
        "POST /repos/acme/widgets/issues/7/comments -> 201",
        "GET /repos/acme/widgets/issues/7/comments?per_page=100 -> 200",
        "GET /user -> 403",  # who are we? a workflow's token: github-actions[bot]
        f"PATCH /repos/acme/widgets/issues/comments/{github.comments[(REPO, 7)][0]['id']} -> 200",
    ]
    print("\n" + "\n".join(github.log) + "\n\n" + body)
    # Another topic file on the same PR: its own comment.
    (tmp_path / "rfc.md").write_text("x")
    code, _, _ = run(cli, *args, "--topic-file", str(tmp_path / "rfc.md"))
    assert code == 0 and len(github.bodies(REPO, 7)) == 2


def test_finds_its_comment_on_a_later_page_and_skips_forged_ones(
    github: FakeGitHub, run_id: str, cli: Cli
) -> None:
    github.page_size_cap = 30
    key = "rfc-7"
    for i in range(40):
        github.seed(REPO, 7, f"comment {i}")
    forged = github.seed(REPO, 7, marker(key) + "\nsomeone typed our marker", "User")
    mine = github.seed(REPO, 7, marker(key) + "\nold", "Bot")
    code, out, _ = run(cli, "comment", run_id, "--github-pr", "7", "--comment-key", key)
    assert code == 0 and out.startswith("comment updated")
    assert f"PATCH /repos/acme/widgets/issues/comments/{mine} -> 200" in github.log
    assert not any(str(forged) in line for line in github.log)
    assert len(github.bodies(REPO, 7)) == 42


def test_403_is_one_line_and_keeps_the_token_out(github: FakeGitHub, run_id: str, cli: Cli) -> None:
    github.fail_next("POST", 403, message="Resource not accessible by integration")
    code, out, err = run(cli, "comment", run_id, "--github-pr", "7")
    assert code == 1 and out == "" and err.count("\n") == 1
    assert "GitHub refused (403: Resource not accessible by integration)" in err
    assert "pull-requests: write" in err
    code, _, err = run(cli, "comment", run_id, "--github-pr", "7")
    assert code == 0  # the fault was once: now created
    assert github.bodies(REPO, 7) and len(github.bodies(REPO, 7)) == 1


def test_422_retries_once_with_the_short_body(github: FakeGitHub, run_id: str, cli: Cli) -> None:
    github.fail_next("POST", 422, message="Validation Failed")
    code, out, _ = run(cli, "comment", run_id, "--github-pr", "7")
    assert code == 0 and out.startswith("comment created")
    (body,) = github.bodies(REPO, 7)
    assert "The full result is in `collab show " in body  # the short form
    github.fail_next("PATCH", 422, message="Validation Failed")
    github.fail_next("PATCH", 422, message="Validation Failed")
    code, _, err = run(cli, "comment", run_id, "--github-pr", "7")
    assert code == 1 and "GitHub refused the comment (422): Validation Failed" in err


def test_rate_limits_are_waited_out_or_reported(github: FakeGitHub, run_id: str, cli: Cli) -> None:
    github.fail_next("GET", 429, headers={"Retry-After": "0"})
    github.fail_next(
        "GET", 403, headers={"x-ratelimit-remaining": "0", "x-ratelimit-reset": "1"}
    )  # fmt: skip  (in the past)
    code, _, _ = run(cli, "comment", run_id, "--github-pr", "7")
    assert code == 0 and len(github.bodies(REPO, 7)) == 1
    assert [line.split(" -> ")[1] for line in github.log[:3]] == ["429", "403", "200"]
    github.fail_next("GET", 403, headers={"x-ratelimit-remaining": "0",
                                          "x-ratelimit-reset": "9999999999"})  # fmt: skip
    code, _, err = run(cli, "comment", run_id, "--github-pr", "7")
    assert code == 1 and "GitHub rate limit: retry in" in err


@pytest.mark.parametrize(
    ("env", "args", "message"),
    [({"GITHUB_TOKEN": ""}, [], "GITHUB_TOKEN is not set"),
     ({"GITHUB_REPOSITORY": ""}, [], "--repo must be OWNER/NAME"),
     ({}, ["--repo", "no-slash"], "--repo must be OWNER/NAME"),
     ({}, ["--comment-key", "a b"], "--comment-key must be"),
     ({}, ["--report-url", "javascript:alert(1)"], "--report-url must be an http(s) URL"),
     ({"GITHUB_API_URL": "http://github.example.test/api/v3"}, [], "must be an https URL")],
)  # fmt: skip
def test_bad_setup_is_a_usage_error_and_posts_nothing(
    github: FakeGitHub, run_id: str, cli: Cli,
    monkeypatch: pytest.MonkeyPatch, env: dict[str, str], args: list[str], message: str,
) -> None:  # fmt: skip
    for k, v in env.items():
        monkeypatch.setenv(k, v)
    code, _, err = run(cli, "comment", run_id, "--github-pr", "7", *args)
    assert code == 2 and message in err and err.count("\n") == 1
    assert github.log == []


def test_a_forged_marker_alone_is_never_edited(github: FakeGitHub, run_id: str, cli: Cli) -> None:
    """With the workflow's token (a Bot), someone's comment carrying the marker is left as
    it is: a new comment is created, and the next run edits that one."""
    key = "rfc-7"
    forged = github.seed(REPO, 7, marker(key) + "\nsomeone typed our marker", "User")
    other_app = github.seed(REPO, 7, marker(key) + "\nanother app", "Bot", login="other[bot]")
    args = ["comment", run_id, "--github-pr", "7", "--comment-key", key]
    code, out, _ = run(cli, *args)
    assert code == 0 and out.startswith("comment created")
    code, out, _ = run(cli, *args)
    assert code == 0 and out.startswith("comment updated")
    assert not any(f"comments/{c}" in line for line in github.log for c in (forged, other_app))
    forged_body, app_body, ours = github.bodies(REPO, 7)
    assert forged_body.endswith("someone typed our marker") and "**Crux:**" in ours
    assert app_body.endswith("another app")


def test_a_personal_token_edits_its_own_login_s_comment_only(
    github: FakeGitHub, run_id: str, cli: Cli
) -> None:
    github.login = "octo-dev"
    key = "rfc-7"
    mine = github.seed(REPO, 7, marker(key) + "\nold", "User", login="octo-dev")
    forged = github.seed(REPO, 7, marker(key) + "\nforged", "User", login="mallory")
    bot = github.seed(REPO, 7, marker(key) + "\na bot's", "Bot")  # newer, and not the token's
    code, out, _ = run(cli, "comment", run_id, "--github-pr", "7", "--comment-key", key)
    assert code == 0 and out.startswith("comment updated")
    assert f"PATCH /repos/acme/widgets/issues/comments/{mine} -> 200" in github.log
    assert "GET /user -> 200" in github.log
    assert not any(f"comments/{c}" in line for line in github.log for c in (forged, bot))
    assert github.bodies(REPO, 7)[1:] == [marker(key) + "\nforged", marker(key) + "\na bot's"]


@pytest.mark.parametrize(
    ("status", "headers", "message"),
    [(403, {}, "You have exceeded a secondary rate limit. Please wait a few minutes before "
      "you try again."),
     (429, {}, "too many requests"),
     (403, {"Retry-After": "60"}, "You have exceeded a secondary rate limit.")],
)  # fmt: skip
def test_a_secondary_rate_limit_is_waited_out_then_retried(
    github: FakeGitHub, status: int, headers: dict[str, str], message: str
) -> None:
    """GitHub's secondary rate limit (a 403 or 429, with retry-after or only its message)
    is waited out for SECONDARY_WAIT seconds, then the request goes again; the test's
    sleep records the wait instead of waiting."""
    from collab.github import SECONDARY_WAIT, Target, upsert_comment

    assert SECONDARY_WAIT == 60
    slept: list[float] = []
    github.fail_next("GET", status, headers=headers, message=message)
    target = Target.from_env(7, REPO)
    posted = upsert_comment(target, marker("k"), marker("k") + "\nbody", sleep=slept.append)
    assert posted.action == "created" and slept == [SECONDARY_WAIT]
    assert [line.split(" -> ")[1] for line in github.log] == [str(status), "200", "201"]
