"""server.json, for the Official MCP Registry: valid against the registry's own schema
(docs/reference/server-json/server.schema.json, copied from modelcontextprotocol/registry
with its $id), naming the collab-debate package at this version, with the README's
ownership marker matching its name."""

from __future__ import annotations

import json
import re
import tomllib
from pathlib import Path

from jsonschema import Draft7Validator, FormatChecker

import collab

REPO = Path(__file__).resolve().parents[2]
SCHEMA = REPO / "docs" / "reference" / "server-json" / "server.schema.json"


def server() -> dict[str, object]:
    data = json.loads((REPO / "server.json").read_text(encoding="utf-8"))
    assert isinstance(data, dict)
    return data


def test_server_json_is_valid_against_the_registry_schema() -> None:
    schema = json.loads(SCHEMA.read_text(encoding="utf-8"))
    assert (
        schema["$id"]
        == "https://static.modelcontextprotocol.io/schemas/2025-09-29/server.schema.json"
    )
    Draft7Validator.check_schema(schema)
    doc = server()
    errors = sorted(Draft7Validator(schema, format_checker=FormatChecker()).iter_errors(doc),
                    key=str)  # fmt: skip
    assert not errors, [e.message for e in errors]
    assert doc["$schema"] == schema["$id"]  # the version of the schema it was checked with


def test_the_schema_catches_what_the_registry_refuses() -> None:
    schema = json.loads(SCHEMA.read_text(encoding="utf-8"))
    bad = server() | {"description": "x" * 101}
    assert list(Draft7Validator(schema).iter_errors(bad))
    pkg = dict(server()["packages"][0])  # type: ignore[index]
    assert list(
        Draft7Validator(schema).iter_errors(server() | {"packages": [pkg | {"version": "latest"}]})
    )


def test_server_json_names_this_package_and_version() -> None:
    doc = server()
    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    (pkg,) = doc["packages"]  # type: ignore[misc]
    assert (
        (pkg["registryType"], pkg["identifier"])
        == ("pypi", project["name"])
        == ("pypi", "collab-debate")
    )
    assert doc["version"] == pkg["version"] == project["version"] == collab.__version__
    plugin = json.loads((REPO / ".claude-plugin" / "plugin.json").read_text())
    assert plugin["version"] == doc["version"]
    assert pkg["transport"] == {"type": "stdio"}
    # `uvx collab-debate mcp` needs a command named like the package.
    assert project["scripts"]["collab-debate"] == project["scripts"]["collab"]
    assert [a["value"] for a in pkg["packageArguments"]] == ["mcp"]
    names = {e["name"] for e in pkg["environmentVariables"]}
    assert {"COLLAB_HOME", "ANTHROPIC_API_KEY"} <= names


def test_the_readme_carries_the_ownership_marker() -> None:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    marks = re.findall(r"mcp-name: (\S+)", readme)
    assert marks == [server()["name"]]
    assert re.fullmatch(r"io\.github\.[A-Za-z0-9-]+/collab[A-Za-z0-9._-]*", str(marks[0]))
