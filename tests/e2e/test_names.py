"""Agent and model names are checked on every surface (printable, no leading '-', bounded),
and an agent whose argv puts {model} inside a larger token is refused when it is loaded."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import anyio
import pytest

from tests.conftest import Cli, FakeAgent
from tests.e2e.mcp_client import call, mcp_session, text_of

BAD = [
    ("model", "-oProxyCommand=x", "starts with '-'"),
    ("model", "gpt\x00x", "holds a control or invisible character"),
    ("model", "m\u202eevil", "holds a control or invisible character"),
    ("model", "m" * 201, "must be 1–200 characters"),
    ("agent", "-fake", "starts with '-'"),
]


@pytest.mark.parametrize("surface", ["cli", "batch", "mcp"])
@pytest.mark.parametrize(("key", "value", "message"), BAD, ids=["dash", "nul", "bidi", "long",
                                                                  "agent-dash"])  # fmt: skip
def test_bad_names_are_refused_everywhere(
    fake_agent: FakeAgent,
    hermetic_env: Path,
    tmp_path: Path,
    cli: Cli,
    surface: str,
    key: str,
    value: str,
    message: str,
) -> None:
    if surface == "mcp":
        args = {"topic": "T", "agent": "fake", key: value}

        async def go() -> Any:
            async with mcp_session(cwd=tmp_path) as s:
                return await call(s, "debate_start", **args)

        res = anyio.run(go)
        assert res.is_error and message in text_of(res), text_of(res)
        assert f"{key} " in text_of(res), text_of(res)  # as given, not model_a
    else:
        if surface == "cli":
            if "\x00" in value:
                pytest.skip("argv cannot carry a NUL byte")
            argv = ["debate", "T", "--agent", "fake", f"--{key}", value, "--json"]
        else:
            topics = tmp_path / "t.jsonl"
            topics.write_text(json.dumps({"topic": "T", key: value}) + "\n")
            argv = ["batch", str(topics), "--agent", "fake", "--json"]
        res = cli(*argv)
        assert res.code == 2
        said = res.json()["error"]["message"]
        assert message in said
        assert (f"--{key} " if surface == "cli" else f"{key} ") in said, said  # not --model-a
    assert not (hermetic_env / "runs").exists()


@pytest.mark.parametrize(
    ("agent_toml", "shown"),
    [('argv = ["sh", "-c", "mycli --model {model}"]', "mycli --model {model}"),
     ('argv = ["mycli"]\nmodel_argv = ["--model={model}"]', "--model={model}")],
    ids=["sh-c", "flag-equals"],
)  # fmt: skip
def test_model_inside_a_larger_token_is_refused_at_load(
    fake_agent: FakeAgent, hermetic_env: Path, cli: Cli,
    agent_toml: str, shown: str,
) -> None:  # fmt: skip
    with (hermetic_env / "config.toml").open("a", encoding="utf-8") as f:
        f.write(f"[agents.shell]\n{agent_toml}\n")
    res = cli("debate", "T", "--agent", "fake", "--json")
    assert res.code == 2
    message = res.json()["error"]["message"]
    assert f"[agents.shell]: '{shown}' puts {{model}} inside a larger argument" in message
    assert 'model_argv = ["--model", "{model}"]' in message
