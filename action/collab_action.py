"""The GitHub Action's logic (action.yml runs it after installing collab and the agent CLI).

Reads the Action's inputs from ``INPUT_*`` variables (action.yml passes each through
``env``, never through the script's text) and the workflow's ``GITHUB_*`` variables; runs
``collab debate --json --gate``; comments on the pull request with ``collab comment``; and
writes the step outputs (``run-id``, ``verdict``, ``blocking``, ``gate``, ``exit-code``,
``report-dir``) and a line to the job summary. It always exits 0 itself: action.yml's last
step exits with ``exit-code`` (the gate's 0/4/5, or the run's own 1/2/3/130), after the
report was uploaded.

A pull request from a fork (no secrets) is skipped with a notice, and so is a run
Dependabot started when the key is missing (it gets Dependabot secrets only). A diff
over the context budget, or one the secret scan refuses (collab's ``error.refused``),
gives one comment line instead of a failed job. A topic over collab's topic limit goes
whole as a context file, under a short topic naming it.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

# error.refused in collab's --json error document: an input refused before anything was
# sent (errors.InputRefused). The message's words are for people; this field is the contract.
_NOT_SENT = ("context-budget", "secret")
_LOGIN_VARS = ("ANTHROPIC_API_KEY", "CLAUDE_CODE_OAUTH_TOKEN")
DEPENDABOT = "dependabot[bot]"
_DIFF_NAME = "pull-request.diff"  # in RUNNER_TEMP
# collab's advice for a secret refusal is --allow-secrets, which the Action does not offer.
_ALLOW_ADVICE = re.compile(r"pass --allow-secrets to send (it|them) anyway")
_ANY_ALLOW = re.compile(r"\s*\([^()]*--allow-secrets[^()]*\)")


def main(env: Mapping[str, str] = os.environ) -> int:
    inp = _Inputs(env)
    out = _Outputs(env.get("GITHUB_OUTPUT"))
    event = _event(env)
    pr = event.get("pull_request") if isinstance(event.get("pull_request"), dict) else None
    if pr is not None and _from_fork(pr):
        _say("notice", "collab: skipped — this pull request comes from a fork, and GitHub gives "
             "a fork's workflow no secrets (the agent's key) and a read-only token")  # fmt: skip
        out.set("skipped", "true")
        return 0
    if inp.get("agent", "claude") == "claude" and not any(env.get(v) for v in _LOGIN_VARS):
        if _by_dependabot(env):
            _say("notice", "collab: skipped — Dependabot's pull requests get only "
                 "Dependabot secrets: add ANTHROPIC_API_KEY as a Dependabot secret to "
                 "debate them")  # fmt: skip
            out.set("skipped", "true")
            return 0
        _say("error", "collab: the secret is missing: pass anthropic-api-key "
             "(e.g. ${{ secrets.ANTHROPIC_API_KEY }})")  # fmt: skip
        out.set("exit-code", "3")
        return 0
    work = Path(env.get("GITHUB_WORKSPACE") or Path.cwd())
    temp = Path(env.get("RUNNER_TEMP") or "/tmp")
    try:
        topic_file = _topic_file(inp, work, temp)
        short = _short_topic(topic_file, inp.get("topic-file") or str(topic_file), temp)
        contexts = _contexts(inp, pr, work, temp)
    except _Usage as exc:
        _say("error", str(exc))
        out.set("exit-code", "2")
        return 0
    if short is not None:  # the whole topic goes as a context file; the topic names it
        contexts.insert(0, inp.get("topic-file") or str(topic_file))
    argv = [*_collab(), "debate", "--topic-file", str(short or topic_file), "--json", "--gate",
            "--fail-on", inp.get("fail-on", "blocking"), "--max-cost", inp.get("max-cost", "2"),
            "--runner", inp.get("runner", "subprocess")]  # fmt: skip
    for ctx in contexts:
        argv += ["--context", ctx]
    for name in ("preset", "role-a", "role-b", "agent", "model", "agent-a", "agent-b",
                 "model-a", "model-b", "judge-agent", "judge-model", "rounds", "depth",
                 "context-budget"):  # fmt: skip
        if inp.get(name):
            argv += [f"--{name}", inp.get(name)]
    res = subprocess.run(argv, cwd=work, capture_output=True, encoding="utf-8", errors="replace")
    sys.stderr.write(res.stderr)
    try:
        doc: dict[str, Any] = json.loads(res.stdout)
    except ValueError:
        _say("error", f"collab: no result (exit {res.returncode})")
        out.set("exit-code", str(res.returncode or 1))
        return 0
    comment = pr is not None and inp.get("comment", "true") == "true"
    if doc.get("schema") == "collab.error/1":
        error = doc.get("error") or {}
        message = str(error.get("message"))
        if res.returncode == 2 and error.get("refused") in _NOT_SENT:
            if error.get("refused") == "secret":
                message = _secret_advice(message, temp / _DIFF_NAME)
            _say("notice", f"collab did not run: {message}")
            if comment and pr is not None:
                _comment(env, inp, pr, topic_file, work, notice=message)
            out.set("verdict", "not-run")
            out.set("exit-code", "0")
            return 0
        _say("error", f"collab: {message}")
        out.set("exit-code", str(res.returncode))
        return 0
    gate = doc.get("gate") or {}
    run_id = str(doc["run_id"])
    out.set("run-id", run_id)
    out.set("verdict", str(doc.get("verdict")))
    out.set("blocking", str((gate.get("open") or {}).get("blocking", 0)))
    out.set("gate", str(gate.get("outcome", "")))
    out.set("report-dir", str(doc["paths"]["run_dir"]))
    out.set("exit-code", str(res.returncode))
    _summary(env, f"collab: **{doc.get('verdict')}** — {gate.get('reason', 'no gate')}\n")
    if comment and pr is not None:
        _comment(env, inp, pr, topic_file, work, run_id=run_id)
    return 0


class _Usage(Exception):
    """An input the Action cannot use (no topic; a diff it cannot make): exit 2."""


class _Inputs:
    def __init__(self, env: Mapping[str, str]) -> None:
        self.env = env

    def get(self, name: str, default: str = "") -> str:
        value = self.env.get("INPUT_" + name.upper().replace("-", "_"), "").strip()
        return value or default


class _Outputs:
    def __init__(self, path: str | None) -> None:
        self.path = path

    def set(self, name: str, value: str) -> None:
        if "\n" in value:
            raise ValueError(f"output {name} has a newline")
        if self.path:
            with open(self.path, "a", encoding="utf-8") as f:
                f.write(f"{name}={value}\n")


def _say(level: str, message: str) -> None:
    """A workflow command (one line; GitHub's escapes for % and newlines)."""
    text = message.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
    print(f"::{level}::{text}", flush=True)


def _summary(env: Mapping[str, str], line: str) -> None:
    path = env.get("GITHUB_STEP_SUMMARY")
    if path:
        with open(path, "a", encoding="utf-8") as f:
            f.write(line)


def _event(env: Mapping[str, str]) -> dict[str, Any]:
    path = env.get("GITHUB_EVENT_PATH")
    if not path or not Path(path).is_file():
        return {}
    data = json.loads(Path(path).read_text(encoding="utf-8"))
    return data if isinstance(data, dict) else {}


def _from_fork(pr: dict[str, Any]) -> bool:
    head = (pr.get("head") or {}).get("repo") or {}
    base = (pr.get("base") or {}).get("repo") or {}
    return head.get("full_name") != base.get("full_name")


def _by_dependabot(env: Mapping[str, str]) -> bool:
    """A run Dependabot started: GitHub gives it the repository's Dependabot secrets
    only, and a read-only token, as it does a fork. The run's actor decides, not the pull
    request's author: a person's push to Dependabot's pull request gets the secrets."""
    return env.get("GITHUB_ACTOR") == DEPENDABOT


def _collab() -> list[str]:
    return [sys.executable, "-m", "collab"]


def _topic_file(inp: _Inputs, work: Path, temp: Path) -> Path:
    if inp.get("topic-file"):
        return work / inp.get("topic-file")
    topic = inp.get("topic")
    if not topic:
        raise _Usage("collab: give the topic (topic) or a file with it (topic-file)")
    path = temp / "collab-topic.txt"
    path.write_text(topic, encoding="utf-8")
    return path


def _short_topic(topic_file: Path, name: str, temp: Path) -> Path | None:
    """A topic over collab's limit (an RFC, say) goes whole as a context file, and the
    topic becomes a short one naming it: a file with it, or None when the topic fits."""
    from collab.options import MAX_TOPIC_CHARS

    try:
        # measured as collab reads it: bytes decoded, no newline translation (a CRLF is
        # two characters there, one in read_text)
        text = topic_file.read_bytes().decode("utf-8-sig", errors="replace").strip()
    except OSError:
        return None  # collab debate says what is wrong with the file
    if len(text) <= MAX_TOPIC_CHARS:
        return None
    title = text.splitlines()[0].lstrip("#").strip()[:200]
    path = temp / "collab-short-topic.txt"
    path.write_text(f"{title}\n\nDebate {name} as it stands: its full text is too long for a "
                    f"topic, so it is given whole as the context file {name}.\n",
                    encoding="utf-8")  # fmt: skip
    return path


def _contexts(inp: _Inputs, pr: dict[str, Any] | None, work: Path, temp: Path) -> list[str]:
    """``context: diff`` (the default): the pull request's diff against its base;
    otherwise the files named, one a line."""
    given = inp.get("context", "diff")
    if given != "diff":
        return [line.strip() for line in given.splitlines() if line.strip()]
    if pr is None:
        return []
    base, head = pr["base"]["sha"], pr["head"]["sha"]
    # A diff holds whatever bytes the files hold: bytes that are not UTF-8 (a Latin-1
    # file) become U+FFFD rather than failing the job.
    res = subprocess.run(["git", "diff", "--no-color", f"{base}...{head}"], cwd=work,
                         capture_output=True, encoding="utf-8", errors="replace")  # fmt: skip
    if res.returncode:
        raise _Usage(f"collab: cannot diff {base[:12]}...{head[:12]} (check out with "
                      "fetch-depth: 0, so both commits are there)")  # fmt: skip
    diff = res.stdout
    path = temp / _DIFF_NAME
    path.write_text(diff, encoding="utf-8")
    return [str(path)]


def _secret_advice(message: str, diff: Path) -> str:
    """collab's secret refusal, for an Action user: it names the diff as the pull
    request's, and instead of ``--allow-secrets`` (which the Action does not take, on
    purpose) says to take the secret out; any other advice naming the flag is dropped."""
    message = message.replace(f"context file {diff}", "the pull request's diff")
    message = _ALLOW_ADVICE.sub(lambda m: f"take {m[1]} out of the pull request: the Action "
                                "never sends a possible secret", message)  # fmt: skip
    return _ANY_ALLOW.sub("", message)


def _comment(
    env: Mapping[str, str],
    inp: _Inputs,
    pr: dict[str, Any],
    topic_file: Path,
    work: Path,
    *,
    run_id: str | None = None,
    notice: str | None = None,
) -> None:
    """Post (or edit) the pull request's comment; a failure is a warning, not a failed job.
    The key is collab's own rule, computed here so that a notice (no run) and a run's
    result for the same topic file land in the same comment."""
    from collab.report.pr_comment import comment_key

    try:
        key = comment_key(inp.get("comment-key") or None, inp.get("topic-file") or None,
                          topic_file.read_text(encoding="utf-8"))  # fmt: skip
    except ValueError as exc:
        _say("warning", f"collab: no pull-request comment: {exc}")
        return
    if notice is not None:
        argv = [*_collab(), "comment", "--notice", notice]
    else:
        assert run_id is not None
        server = env.get("GITHUB_SERVER_URL", "https://github.com")
        url = f"{server}/{env.get('GITHUB_REPOSITORY')}/actions/runs/{env.get('GITHUB_RUN_ID')}"
        argv = [*_collab(), "comment", run_id, "--report-url", url,
                "--fail-on", inp.get("fail-on", "blocking")]  # fmt: skip
    argv += ["--github-pr", str(pr["number"]), "--comment-key", key]
    res = subprocess.run(argv, cwd=work, capture_output=True, encoding="utf-8", errors="replace")
    sys.stdout.write(res.stdout)
    if res.returncode:
        _say("warning", f"collab: the pull-request comment failed: {res.stderr.strip()}")


if __name__ == "__main__":
    sys.exit(main())
