"""Presets: the built-in set (pairs and panels), user overrides, strict loading of both
forms (``[role_a]``/``[role_b]`` and ``[[seats]]``), custom role parsing."""

from __future__ import annotations

import re
from pathlib import Path
from typing import NamedTuple

import pytest

from collab.agents import BUILTIN as BUILTIN_AGENTS
from collab.errors import UsageError
from collab.lang import Lang
from collab.presets import (
    DEFAULT_PRESET,
    MAX_SEATS,
    MIN_SEATS,
    RoleText,
    get_preset,
    load_presets,
    parse_custom_role,
    roles_for,
    seats_for,
)
from collab.request import DebateRequest, build_config
from collab.seats import SEATS, Side
from tests.helpers import PANEL_PRESET_KEYS, PRESET_KEYS

BUILTIN = PRESET_KEYS
PAIRS = tuple(k for k in BUILTIN if k not in PANEL_PRESET_KEYS)
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


def test_builtin_set_is_exactly_the_shipped_presets_default_first() -> None:
    presets = load_presets()
    assert next(iter(presets)) == DEFAULT_PRESET
    assert sorted(presets) == sorted(BUILTIN)
    assert list(presets)[1:] == sorted(k for k in BUILTIN if k != DEFAULT_PRESET)


@pytest.mark.parametrize("key", PAIRS)
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


def _sentences(text: str) -> int:
    return len(re.findall(r"[.!?](?:\s|$)", text))


@pytest.mark.parametrize("key", BUILTIN)
def test_every_builtin_preset_has_2_to_5_seats_each_with_ja_and_an_obligation(key: str) -> None:
    preset = get_preset(key)
    en, ja = seats_for(preset, "en"), seats_for(preset, "ja")
    assert MIN_SEATS <= len(en) <= MAX_SEATS
    assert len(ja) == len(en) == len(preset.seats) == len(preset.labels)
    assert len({r.name for r in en}) == len(en)  # every seat distinct
    for role, role_ja in zip(en, ja, strict=True):
        # A real translation, not the English fallback.
        assert JAPANESE.search(role_ja.name) and JAPANESE.search(role_ja.description)
        assert not JAPANESE.search(role.name + role.description)
        # Each seat binds itself to something it must always do (DESIGN §3).
        assert "You must always" in role.description
        assert "必ず" in role_ja.description
        # Specific, not a slogan: 3-5 sentences each, in both languages.
        assert 3 <= _sentences(role.description) <= 5
        assert 3 <= role_ja.description.count("。") <= 5
    # The pair view stays the first two seats.
    assert (preset.role_a, preset.role_b) == en[:2]
    assert (preset.role_a_ja, preset.role_b_ja) == ja[:2]


@pytest.mark.parametrize("key", PANEL_PRESET_KEYS)
def test_panel_preset_has_3_or_4_seats_and_is_never_cut_to_fewer(key: str) -> None:
    preset = get_preset(key)
    assert 3 <= len(preset.seats) <= 4
    assert preset.labels == tuple("ABCD"[: len(preset.seats)])
    if len(SEATS) >= len(preset.seats):  # a collab that seats panels: every seat
        assert roles_for(preset, "en") == preset.seats
        assert roles_for(preset, "ja") == preset.seats_ja
        return
    # A collab of fewer seats refuses it in one line rather than drop seats.
    with pytest.raises(UsageError) as err:
        roles_for(preset, "en")
    assert f"preset '{key}' has {len(preset.seats)} seats" in str(err.value)
    assert "\n" not in str(err.value)


@pytest.mark.parametrize("lang", ["en", "ja"])
def test_a_debate_with_a_panel_preset_seats_every_seat_in_order(lang: Lang) -> None:
    """What ``--preset launch-readiness`` starts: its four seats, A–D, in ``lang``, or (on a
    collab of fewer seats) one usage error, never a debate of its first two."""
    preset = get_preset("launch-readiness")
    req = DebateRequest(topic="Ship on Monday?", preset=preset.key, lang=lang)
    if len(SEATS) < len(preset.seats):
        with pytest.raises(UsageError, match="has 4 seats"):
            build_config(req, BUILTIN_AGENTS.keys())
        return
    cfg = build_config(req, BUILTIN_AGENTS.keys())
    roles = [cfg.role_a, cfg.role_b, *getattr(cfg, "more_roles", ())]
    want = seats_for(preset, lang)
    assert [(r.side, r.name, r.description) for r in roles] == [
        (label, t.name, t.description) for label, t in zip("ABCD", want, strict=True)
    ]
    assert cfg.preset == "launch-readiness"


def test_pair_preset_seats_are_its_two_roles() -> None:
    preset = get_preset("security-vs-delivery")
    assert seats_for(preset, "en") == roles_for(preset, "en")
    assert seats_for(preset, "ja") == roles_for(preset, "ja")
    assert preset.labels == ("A", "B")


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


def _seats_toml(n: int, ja: bool = False) -> str:
    head = 'title = "Panel"\nsummary = "a user panel"\n'
    seat = '[[seats]]\nname = "Seat {i}"\ndescription = "Values {i}."\n'
    seat_ja = 'name_ja = "席{i}"\ndescription_ja = "{i}を重んじる。"\n'
    return head + "".join(seat.format(i=i) + (seat_ja.format(i=i) if ja else "") for i in range(n))


@pytest.mark.parametrize("n", [2, 3, 5])
def test_user_preset_with_seats_loads_in_order(n: int, home: Path) -> None:
    path = _write_user_preset(home, "my-panel", _seats_toml(n, ja=True))
    p = get_preset("my-panel")
    assert p.source == str(path)
    assert [r.name for r in seats_for(p, "en")] == [f"Seat {i}" for i in range(n)]
    assert [r.description for r in seats_for(p, "ja")] == [f"{i}を重んじる。" for i in range(n)]
    assert p.labels == tuple("ABCDE"[:n])


def test_user_seats_without_japanese_fall_back_to_english(home: Path) -> None:
    _write_user_preset(home, "my-panel", _seats_toml(3))
    p = get_preset("my-panel")
    assert seats_for(p, "ja") == seats_for(p, "en") == p.seats


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
    BadFile("one-seat", _seats_toml(1), "has 1 [[seats]]; a preset has 2 to 5 seats"),
    BadFile("six-seats", _seats_toml(6), "has 6 [[seats]]; a preset has 2 to 5 seats"),
    BadFile("no-seats", _seats_toml(0) + "seats = []\n", "has 0 [[seats]]"),
    BadFile(
        "both-forms",
        _seats_toml(2) + "[role_a]" + GOOD_PRESET.split("[role_a]")[1],
        "use either [[seats]] or [role_a]/[role_b], not both",
    ),
    BadFile(
        "seats-and-role-b",
        _seats_toml(2) + "[role_b]\n" + GOOD_PRESET.split("[role_b]\n")[1],
        "not both",
    ),
    BadFile("seats-not-tables", 'title = "t"\nsummary = "s"\nseats = ["A", "B"]\n', "[[seats]]"),
    BadFile(
        "seat-empty-name",
        _seats_toml(3).replace('name = "Seat 1"', 'name = "  "'),
        "'seats[1].name' is empty",
    ),
    BadFile(
        "seat-unknown-key",
        _seats_toml(3).replace('name = "Seat 2"', 'name = "Seat 2"\nstance = "x"'),
        "unknown key 'seats[2].stance'",
    ),
    BadFile(
        "seat-missing-description",
        _seats_toml(2).replace('description = "Values 0."\n', ""),
        "missing key 'seats[0].description'",
    ),
    BadFile(
        "seat-name-repeated",
        _seats_toml(3).replace('"Seat 2"', '"seat 0"'),
        "seats[2].name 'seat 0' repeats an earlier seat",
    ),
]


@pytest.mark.parametrize("case", BAD_FILES, ids=[c.test_id for c in BAD_FILES])
def test_malformed_user_preset_is_a_usage_error_naming_the_file(case: BadFile, home: Path) -> None:
    path = _write_user_preset(home, "broken", case.text)
    with pytest.raises(UsageError) as err:
        load_presets()
    assert str(path) in str(err.value)
    assert case.message in str(err.value)
    assert "\n" not in str(err.value)


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
