"""Presets: the built-in set, user overrides, strict loading, custom role parsing."""

from __future__ import annotations

import re
from pathlib import Path
from typing import NamedTuple

import pytest

from collab.errors import UsageError
from collab.presets import (
    DEFAULT_PRESET,
    RoleText,
    get_preset,
    load_presets,
    parse_custom_role,
    roles_for,
)
from collab.seats import Side
from tests.helpers import PRESET_KEYS

BUILTIN = PRESET_KEYS
JAPANESE = re.compile("[\u3040-\u30ff\u4e00-\u9fff]")

GOOD_PRESET = """\
title = "Mine"
summary = "a user preset"
[role_a]
name = "Alpha"
description = "Values alpha."
[role_b]
name = "Beta"
description = "Values beta and always offers an alternative."
"""


@pytest.fixture(autouse=True)
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Every test gets an empty COLLAB_HOME, so a developer's own presets never leak in."""
    monkeypatch.setenv("COLLAB_HOME", str(tmp_path / "home"))
    return tmp_path / "home"


def _write_user_preset(home: Path, key: str, text: str) -> Path:
    d = home / "presets"
    d.mkdir(parents=True, exist_ok=True)
    path = d / f"{key}.toml"
    path.write_text(text, encoding="utf-8")
    return path


# -- the built-in set --------------------------------------------------------


def test_builtin_set_is_exactly_the_ten_presets_default_first() -> None:
    presets = load_presets()
    assert next(iter(presets)) == DEFAULT_PRESET
    assert sorted(presets) == sorted(BUILTIN)
    assert list(presets)[1:] == sorted(k for k in BUILTIN if k != DEFAULT_PRESET)


@pytest.mark.parametrize("key", BUILTIN)
def test_builtin_preset_has_both_roles_in_both_languages(key: str) -> None:
    preset = get_preset(key)
    assert preset.key == key
    assert preset.source == "builtin"
    assert preset.title and preset.summary
    a, b = roles_for(preset, "en")
    a_ja, b_ja = roles_for(preset, "ja")
    # Specific, not a slogan: 3-5 sentences each (DESIGN §3).
    for role in (a, b):
        assert role.name and 3 <= len(re.findall(r"[.!?](?:\s|$)", role.description)) <= 5
    for role in (a_ja, b_ja):
        assert role.name and 3 <= role.description.count("。") <= 5
    for role in (a_ja, b_ja):
        assert JAPANESE.search(role.name + role.description)
    assert not JAPANESE.search(a.description + b.description)
    assert a.name != b.name
    # Role B must always offer an alternative (DESIGN §3).
    assert "alternative" in b.description
    assert "代替" in b_ja.description


# -- lookup, overrides, malformed files --------------------------------------


def test_unknown_preset_lists_every_valid_name() -> None:
    # A name close to none (a typo gets "did you mean": tests/unit/test_suggest.py).
    with pytest.raises(UsageError) as err:
        get_preset("zebra")
    msg = str(err.value)
    assert msg.startswith("unknown preset 'zebra'; choose one of: ")
    for key in BUILTIN:
        assert key in msg


def test_user_preset_overrides_builtin_and_adds_new(home: Path) -> None:
    override = _write_user_preset(home, "security-vs-performance", GOOD_PRESET)
    added = _write_user_preset(home, "aaa-mine", GOOD_PRESET.replace("Mine", "Added"))
    presets = load_presets()
    assert next(iter(presets)) == DEFAULT_PRESET
    assert list(presets)[1] == "aaa-mine"
    p = presets["security-vs-performance"]
    assert (p.title, p.source, p.role_a.name) == ("Mine", str(override), "Alpha")
    # No Japanese given: the English text is used for ja rather than failing.
    assert roles_for(p, "ja") == (RoleText("Alpha", "Values alpha."), p.role_b)
    assert get_preset("aaa-mine").source == str(added)
    assert len(presets) == len(BUILTIN) + 1


class BadFile(NamedTuple):
    test_id: str
    text: str
    message: str


BAD_FILES = [
    BadFile("invalid-toml", 'title = "x\n', "invalid TOML"),
    BadFile("missing-role-b", GOOD_PRESET.split("[role_b]")[0], "missing table [role_b]"),
    BadFile("missing-name", GOOD_PRESET.replace('name = "Alpha"\n', ""), "'role_a.name'"),
    BadFile("missing-title", GOOD_PRESET.replace('title = "Mine"\n', ""), "'title'"),
    BadFile("wrong-type", GOOD_PRESET.replace('"Values alpha."', "42"), "must be a string"),
    BadFile("empty-text", GOOD_PRESET.replace('"Values alpha."', '"  "'), "is empty"),
    BadFile(
        "unknown-key",
        GOOD_PRESET.replace("[role_a]\n", "[role_a]\ndescripton = 'x'\n"),
        "unknown key 'role_a.descripton'",
    ),
    BadFile("role-not-table", GOOD_PRESET.split("[role_a]")[0] + 'role_a = "x"\n', "role_a"),
]


@pytest.mark.parametrize("case", BAD_FILES, ids=[c.test_id for c in BAD_FILES])
def test_malformed_user_preset_is_a_usage_error_naming_the_file(case: BadFile, home: Path) -> None:
    path = _write_user_preset(home, "broken", case.text)
    with pytest.raises(UsageError) as err:
        load_presets()
    assert str(path) in str(err.value)
    assert case.message in str(err.value)


# -- custom roles --------------------------------------------------------------


class RoleCase(NamedTuple):
    test_id: str
    text: str
    side: Side
    expected: RoleText | None
    error: str = ""


ROLE_CASES = [
    RoleCase(
        "ok",
        "Security Engineer: thinks in threat models",
        "A",
        RoleText("Security Engineer", "thinks in threat models"),
    ),
    RoleCase(
        "whitespace-trimmed", "  SRE :   owns the pager  ", "B", RoleText("SRE", "owns the pager")
    ),
    RoleCase(
        "extra-colons-kept",
        "DBA: cares about: locks, vacuum: and plans",
        "A",
        RoleText("DBA", "cares about: locks, vacuum: and plans"),
    ),
    RoleCase(
        "full-width-colon",
        "セキュリティ担当：脆弱性を最優先する",
        "A",
        RoleText("セキュリティ担当", "脆弱性を最優先する"),
    ),
    RoleCase(
        "earliest-colon-wins", "QA：tests: everything", "B", RoleText("QA", "tests: everything")
    ),
    RoleCase(
        "no-colon",
        "Security Engineer who loves threat models",
        "A",
        None,
        "--role-a must look like 'Name: description'",
    ),
    RoleCase("no-colon-side-b", "just words", "B", None, "--role-b must look like"),
    RoleCase("empty-name", "  : a description", "A", None, "--role-a has an empty name"),
    RoleCase("empty-description", "Name:   ", "B", None, "--role-b has an empty description"),
    RoleCase("name-too-long", "x" * 81 + ": d", "A", None, "keep it under 80"),
]


@pytest.mark.parametrize("case", ROLE_CASES, ids=[c.test_id for c in ROLE_CASES])
def test_parse_custom_role(case: RoleCase) -> None:
    if case.expected is not None:
        assert parse_custom_role(case.text, case.side) == case.expected
        return
    with pytest.raises(UsageError) as err:
        parse_custom_role(case.text, case.side)
    assert case.error in str(err.value)
    assert "\n" not in str(err.value)
