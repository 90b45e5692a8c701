"""The GitHub Action end to end, here: ``action/collab_action.py`` (what action.yml runs)
on a real git repository with a pull request's event, the fake agent, and a local fake of
GitHub's REST API. One comment, created then edited; outputs; a fork skipped; a diff over
budget or with a secret gives one comment line; a 403 on the comment is a warning. The
Action's metadata and the example workflow are validated with check-jsonschema."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.conftest import Cli, FakeAgent, contract_block
from tests.fakes.github_server import FakeGitHub

REPO = Path(__file__).resolve().parents[2]
SCRIPT = REPO / "action" / "collab_action.py"
TOKEN = "ghs_ACTIONtoken0123456789abcdefABCD"
SLUG = "acme/widgets"


def git(cwd: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True,
                          check=True).stdout.strip()  # fmt: skip


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    w = tmp_path / "ws"
    (w / "docs" / "rfcs").mkdir(parents=True)
    git(w, "init", "-q", "-b", "main")
    git(w, "config", "user.email", "t@example.test")
    git(w, "config", "user.name", "t")
    (w / "README.md").write_text("widgets\n")
    git(w, "add", "-A")
    git(w, "commit", "-qm", "base")
    git(w, "checkout", "-qb", "rfc")
    (w / "docs" / "rfcs" / "0007-cache.md").write_text(
        "# RFC 7: cache the catalogue\n\nShould we put a read-through cache in front of it?\n"
    )
    git(w, "add", "-A")
    git(w, "commit", "-qm", "rfc 7")
    return w


@pytest.fixture
def github() -> Iterator[FakeGitHub]:
    with FakeGitHub(TOKEN) as fake:
        yield fake


def script_agent(fake_agent: FakeAgent) -> None:
    fake_agent.script(
        [{"match": ["(Role A) in a structured debate"],
          "replies": ["A." + contract_block(new=[("stale reads", "ttl 5 min")])]},
         {"match": ["(Role B) in a structured debate"],
          "replies": ["B." + contract_block(stances=[("I1", "contest", "we can purge")])]}],
        "## TL;DR\n- cache it\n\n## Crux\nCan the catalogue tolerate 5 minutes of staleness?\n"
        "\n## Open disagreements\n- I1 stays open.\n\n## Minority report\n- B would purge.\n",
    )  # fmt: skip


def action(
    w: Path, github: FakeGitHub, tmp_path: Path, *, fork: bool = False, base: str = "",
    actor: str = "octocat", **inputs: str,
) -> tuple[subprocess.CompletedProcess[str], dict[str, str]]:  # fmt: skip
    base, head = base or git(w, "rev-parse", "main"), git(w, "rev-parse", "HEAD")
    event: dict[str, Any] = {"pull_request": {
        "number": 7,
        "user": {"login": actor},
        "base": {"sha": base, "repo": {"full_name": SLUG}},
        "head": {"sha": head, "repo": {"full_name": "mallory/widgets" if fork else SLUG}},
    }}  # fmt: skip
    event_path, out = tmp_path / "event.json", tmp_path / "output.txt"
    event_path.write_text(json.dumps(event))
    out.write_text("")
    temp = tmp_path / "runner-temp"
    temp.mkdir(exist_ok=True)
    env = dict(os.environ)
    env.update(
        PYTHONPATH=str(REPO), GITHUB_EVENT_PATH=str(event_path), GITHUB_OUTPUT=str(out),
        GITHUB_STEP_SUMMARY=str(tmp_path / "summary.md"), GITHUB_WORKSPACE=str(w),
        GITHUB_REPOSITORY=SLUG, GITHUB_API_URL=github.url, GITHUB_TOKEN=TOKEN,
        GITHUB_SERVER_URL="https://github.test", GITHUB_RUN_ID="99", RUNNER_TEMP=str(temp),
        GITHUB_ACTOR=actor,
        INPUT_AGENT="fake", INPUT_ROUNDS="2", INPUT_RUNNER="subprocess",
        INPUT_TOPIC_FILE="docs/rfcs/0007-cache.md",
    )  # fmt: skip
    env.update({"INPUT_" + k.upper(): v for k, v in inputs.items()})
    res = subprocess.run([sys.executable, str(SCRIPT)], cwd=w, env=env, capture_output=True,
                         text=True, timeout=300)  # fmt: skip
    assert TOKEN not in res.stdout + res.stderr
    outputs = dict(line.split("=", 1) for line in out.read_text().splitlines())
    return res, outputs


def test_the_action_comments_once_and_gates(
    fake_agent: FakeAgent, workspace: Path, github: FakeGitHub, tmp_path: Path
) -> None:
    script_agent(fake_agent)
    res, outputs = action(workspace, github, tmp_path, FAIL_ON="major", MODEL_B="model-b-x")
    assert res.returncode == 0, res.stdout + res.stderr
    assert outputs["verdict"] == "split" and outputs["gate"] == "fail"
    assert outputs["exit-code"] == "4" and outputs["blocking"] == "0"  # I1 is major
    assert Path(outputs["report-dir"], "judge.md").is_file()  # what the artefact uploads
    assert {c["model"] for c in fake_agent.calls()} >= {"model-b-x"}  # a per-seat input
    # The debaters were given the pull request's diff (kept with the run).
    state = Path(outputs["report-dir"], "state.json").read_text()
    assert "+++ b/docs/rfcs/0007-cache.md" in state and "read-through cache" in state
    (body,) = github.bodies(SLUG, 7)
    assert "**Crux:** Can the catalogue tolerate 5 minutes of staleness?" in body
    assert "[the run's report](https://github.test/acme/widgets/actions/runs/99)" in body
    # A second push: the same comment, edited.
    (workspace / "docs" / "rfcs" / "0007-cache.md").write_text("# RFC 7, v2\n")
    git(workspace, "commit", "-qam", "v2")
    res, outputs = action(workspace, github, tmp_path)  # default policy: blocking
    assert res.returncode == 0 and outputs["exit-code"] == "0" and outputs["gate"] == "pass"
    assert len(github.bodies(SLUG, 7)) == 1
    # list, post; list, who are we (GET /user: 403 for a workflow token), edit
    assert [line.split(" ", 1)[0] for line in github.log] == ["GET", "POST", "GET", "GET", "PATCH"]
    print("\nrequest log:\n" + "\n".join(github.log) + "\n\ncomment:\n" + github.bodies(SLUG, 7)[0])


def test_a_fork_is_skipped_with_a_notice(
    fake_agent: FakeAgent, workspace: Path, github: FakeGitHub, tmp_path: Path
) -> None:
    res, outputs = action(workspace, github, tmp_path, fork=True)
    assert res.returncode == 0 and outputs == {"skipped": "true"}
    assert res.stdout.startswith("::notice::collab: skipped — this pull request comes from a fork")
    assert github.log == [] and fake_agent.calls() == []


def test_dependabot_without_the_key_is_skipped_like_a_fork(
    fake_agent: FakeAgent, workspace: Path, github: FakeGitHub, tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:  # fmt: skip
    """No key on Dependabot's run: a notice, skipped, nothing asked of GitHub. Anyone
    else without it still gets the missing-secret error (exit-code 3)."""
    for name in ("ANTHROPIC_API_KEY", "CLAUDE_CODE_OAUTH_TOKEN"):
        monkeypatch.delenv(name, raising=False)
    res, outputs = action(workspace, github, tmp_path, actor="dependabot[bot]", AGENT="claude")
    assert res.returncode == 0 and outputs == {"skipped": "true"}, res.stdout
    assert res.stdout.startswith("::notice::collab: skipped — Dependabot's pull requests")
    assert github.log == [] and fake_agent.calls() == []
    res, outputs = action(workspace, github, tmp_path, AGENT="claude")  # another author
    assert outputs == {"exit-code": "3"} and "the secret is missing" in res.stdout


@pytest.mark.parametrize(
    ("change", "inputs", "said"),
    [("x" * 5000, {"CONTEXT_BUDGET": "1000"}, "over the context budget"),
     ("aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY\n", {}, "secret")],
)  # fmt: skip
def test_a_refused_diff_gives_one_comment_line(
    fake_agent: FakeAgent, workspace: Path, github: FakeGitHub, tmp_path: Path,
    change: str, inputs: dict[str, str], said: str,
) -> None:  # fmt: skip
    (workspace / "catalogue.cfg").write_text(change)  # not the topic: the diff only
    git(workspace, "add", "-A")
    git(workspace, "commit", "-qm", "change")
    res, outputs = action(workspace, github, tmp_path, **inputs)
    assert res.returncode == 0, res.stdout + res.stderr
    assert outputs == {"verdict": "not-run", "exit-code": "0"}
    (body,) = github.bodies(SLUG, 7)
    lines = body.strip().splitlines()
    assert lines[1] == "### collab did not run" and said in lines[3] and len(lines) == 4
    assert fake_agent.calls() == []
    # An Action user cannot pass --allow-secrets: the advice says what they can do.
    assert "--allow-secrets" not in res.stdout + body
    if said == "secret":
        assert lines[3].startswith("the pull request's diff:")
        assert "take it out of the pull request" in lines[3]


def test_the_secret_advice_names_what_an_action_user_can_do(tmp_path: Path) -> None:
    advice = _load_action()._secret_advice
    diff = tmp_path / "pull-request.diff"
    many = (f"2 possible secrets in the debate inputs, nothing was sent: context file {diff}:3 "
            "(AWS Access Key); context file app.env (named like a dotenv file) (pass "
            "--allow-secrets to send them anyway)")  # fmt: skip
    said = advice(many, diff)
    assert "--allow-secrets" not in said and "take them out of the pull request" in said
    assert said.startswith("2 possible secrets") and "the pull request's diff:3" in said
    other = "topic line 1: looks like a secret: X (not sent; --allow-secrets, some day)"
    assert advice(other, diff) == "topic line 1: looks like a secret: X"


def test_a_comment_refused_is_a_warning_not_a_failed_job(
    fake_agent: FakeAgent, workspace: Path, github: FakeGitHub, tmp_path: Path
) -> None:
    script_agent(fake_agent)
    github.fail_next("POST", 403, message="Resource not accessible by integration")
    res, outputs = action(workspace, github, tmp_path)
    assert outputs["exit-code"] == "0" and outputs["gate"] == "pass"
    assert (
        "::warning::collab: the pull-request comment failed: collab: GitHub refused (403"
        in res.stdout
    )


def test_action_yml_and_the_workflows_validate() -> None:
    tool = shutil.which("check-jsonschema") or str(Path(sys.executable).parent / "check-jsonschema")
    workflows = sorted((REPO / ".github" / "workflows").glob("*.yml"))
    for schema, files in (("vendor.github-actions", [REPO / "action.yml"]),
                          ("vendor.github-workflows", workflows)):  # fmt: skip
        res = subprocess.run([tool, "--builtin-schema", schema, *map(str, files)],
                             capture_output=True, text=True)  # fmt: skip
        assert res.returncode == 0, res.stdout + res.stderr
    meta = yaml.safe_load((REPO / "action.yml").read_text())
    assert meta["runs"]["using"] == "composite"
    assert meta["inputs"]["max-cost"]["default"] == "2"
    steps = {s.get("name"): s for s in meta["runs"]["steps"]}
    assert "pip install" in steps["Install collab (from this action's checkout)"]["run"]
    assert "$GITHUB_ACTION_PATH" in steps["Install collab (from this action's checkout)"]["run"]
    npm = steps["Install the agent CLI (pinned)"]
    pinned = (REPO / ".ci" / "agents.txt").read_text()
    assert f"@anthropic-ai/claude-code@{meta['inputs']['claude-code-version']['default']}" in pinned
    assert "claude-code@" in npm["run"]
    run = steps["Debate, gate, comment"]
    assert run["env"]["INPUT_RUNNER"] == "subprocess"
    assert run["env"]["ANTHROPIC_API_KEY"] == "${{ inputs.anthropic-api-key }}"
    # No input reaches a shell line: every ${{ }} in a run: is in env instead.
    for step in meta["runs"]["steps"]:
        assert "${{" not in step.get("run", ""), step["name"]
    example = yaml.safe_load((REPO / ".github" / "workflows" / "collab-rfc.yml").read_text())
    assert example["permissions"]["pull-requests"] == "write"
    assert example["concurrency"]["group"].startswith("collab-")


def test_a_shallow_checkout_says_how_to_fix_it(
    fake_agent: FakeAgent, workspace: Path, github: FakeGitHub, tmp_path: Path
) -> None:
    res, outputs = action(workspace, github, tmp_path, base="0" * 40)  # base not fetched
    assert outputs == {"exit-code": "2"}
    (line,) = [x for x in res.stdout.splitlines() if x.startswith("::error::")]
    assert "fetch-depth: 0" in line
    assert github.log == [] and fake_agent.calls() == []


@pytest.mark.parametrize(("lines", "eol"), [(80, "\n"), (35, "\r\n")], ids=["lf", "crlf"])
def test_a_long_topic_file_goes_whole_as_context(
    fake_agent: FakeAgent, workspace: Path, github: FakeGitHub, tmp_path: Path,
    lines: int, eol: str,
) -> None:  # fmt: skip
    """Over collab's 2,000 characters as collab counts them: a CRLF is two (35 lines of
    CRLF are 2,015 characters there, 1,979 read as text with newlines translated)."""
    rfc = workspace / "docs" / "rfcs" / "0008-long.md"
    body = f"# RFC 8: shard the catalogue{eol}{eol}" + "".join(
        f"Paragraph {i}: the shards, the keys and the rebalancing.{eol}" for i in range(lines)
    )
    assert len(body.strip()) > 2000
    rfc.write_bytes(body.encode("utf-8"))
    git(workspace, "add", "-A")
    git(workspace, "commit", "-qm", "rfc 8")
    script_agent(fake_agent)
    res, outputs = action(workspace, github, tmp_path, TOPIC_FILE="docs/rfcs/0008-long.md")
    assert res.returncode == 0 and outputs["exit-code"] == "0", res.stdout + res.stderr
    state = json.loads(Path(outputs["report-dir"], "state.json").read_text())
    text = json.dumps(state)
    assert f"Paragraph {lines - 1}: the shards" in text  # the whole file went, as context
    topic = state["config"]["topic"]
    assert len(topic) < 500 and "docs/rfcs/0008-long.md" in topic
    assert "RFC 8: shard the catalogue" in topic


def test_no_topic_is_a_usage_error_with_outputs(
    fake_agent: FakeAgent, workspace: Path, github: FakeGitHub, tmp_path: Path
) -> None:
    res, outputs = action(workspace, github, tmp_path, TOPIC_FILE="", TOPIC="  ")
    assert res.returncode == 0 and res.stderr == ""  # action.yml's last step exits 2
    assert outputs == {"exit-code": "2"}
    (line,) = res.stdout.splitlines()
    assert line == "::error::collab: give the topic (topic) or a file with it (topic-file)"
    assert github.log == [] and fake_agent.calls() == []


def test_a_diff_with_invalid_utf8_is_decoded_with_replacement(
    fake_agent: FakeAgent, workspace: Path, github: FakeGitHub, tmp_path: Path
) -> None:
    (workspace / "legacy.txt").write_bytes(b"caf\xe9 au lait\n")  # Latin-1, not UTF-8
    git(workspace, "add", "-A")
    git(workspace, "commit", "-qm", "latin-1")
    script_agent(fake_agent)
    res, outputs = action(workspace, github, tmp_path)
    assert res.returncode == 0 and outputs["exit-code"] == "0", res.stdout + res.stderr
    state = Path(outputs["report-dir"], "state.json").read_text(encoding="utf-8")
    assert "caf\\ufffd au lait" in state or "caf\ufffd au lait" in state


def _load_action() -> Any:
    import importlib.util

    spec = importlib.util.spec_from_file_location("collab_action_under_test", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize(
    ("error", "refused"),
    [({"kind": "usage", "message": "1 possible secret, looks like a secret: over the context "
       "budget"}, False),  # collab's words, but no refused field: a plain usage error
     ({"kind": "usage", "message": "nothing a phrase would match", "refused": "secret"}, True),
     ({"kind": "usage", "message": "x", "refused": "context-budget"}, True),
     ({"kind": "usage", "message": "x", "refused": "something-else"}, False)],
)  # fmt: skip
def test_the_action_reads_error_refused_not_the_message_s_words(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, error: dict[str, str], refused: bool
) -> None:
    doc = tmp_path / "doc.json"
    doc.write_text(json.dumps({"schema": "collab.error/1", "error": error, "exit_code": 2}))
    fake = tmp_path / "fake_collab.py"
    fake.write_text(f"import sys\nsys.stdout.write(open({str(doc)!r}).read())\nsys.exit(2)\n")
    mod = _load_action()
    monkeypatch.setattr(mod, "_collab", lambda: [sys.executable, str(fake)])
    out = tmp_path / "output.txt"
    (tmp_path / "topic.md").write_text("Cache or not?")
    env = {"GITHUB_OUTPUT": str(out), "GITHUB_WORKSPACE": str(tmp_path),
           "RUNNER_TEMP": str(tmp_path), "INPUT_TOPIC_FILE": "topic.md", "INPUT_AGENT": "fake",
           "INPUT_CONTEXT": "topic.md"}  # fmt: skip
    assert mod.main(env) == 0
    outputs = dict(line.split("=", 1) for line in out.read_text().splitlines())
    assert outputs == ({"verdict": "not-run", "exit-code": "0"} if refused else {"exit-code": "2"})


@pytest.mark.parametrize(
    ("content", "budget", "refused"),
    [("x" * 500, "100", "context-budget"),
     ("aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY\n", None, "secret"),
     ("fine", None, None)],
)  # fmt: skip
def test_debate_json_errors_say_what_was_refused(
    fake_agent: FakeAgent,
    cli: Cli,
    tmp_path: Path,
    content: str,
    budget: str | None,
    refused: str | None,
) -> None:
    """The field the Action reads: ``error.refused`` in collab.error/1, valid per its schema."""
    import jsonschema

    from collab.report.schemas import ERROR

    ctx = tmp_path / "ctx.txt"
    ctx.write_text(content)
    args = ["debate", "Cache or not?", "--context", str(ctx), "--agent", "fake", "--json"]
    if budget:
        args += ["--context-budget", budget]
    if refused is None:
        args += ["--preset", "no-such-preset"]  # a usage error that is not a refusal
    code, out, _ = cli(*args)
    doc = json.loads(out)
    assert code == 2 and doc["schema"] == "collab.error/1"
    assert doc["error"].get("refused") == refused
    jsonschema.validate(doc, ERROR)


def test_action_yml_rounds_and_depth_say_what_collab_accepts() -> None:
    from collab.options import DEPTHS, MAX_ROUNDS, MIN_ROUNDS

    inputs = yaml.safe_load((REPO / "action.yml").read_text())["inputs"]
    rounds, depth = inputs["rounds"]["description"], inputs["depth"]["description"]
    assert f"{MIN_ROUNDS}–{MAX_ROUNDS}" in rounds
    assert all(d in depth for d in DEPTHS)
    docs = (REPO / "docs" / "github-action.md").read_text()
    assert f"{MIN_ROUNDS}–{MAX_ROUNDS}" in docs and all(f"`{d}`" in docs for d in DEPTHS)
