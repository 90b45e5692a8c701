"""Run ids as people type them (collab.run_ids): the whole id, a unique prefix, a unique
suffix of 4+ characters, @last, @last-batch; anything else, or an ambiguous id, is one
UsageError (exit 2) that names the matches."""

from __future__ import annotations

from pathlib import Path

import pytest

from collab.errors import EXIT_USAGE, UsageError
from collab.run_ids import match, pick, resolve_batch_id, resolve_run_id, short_id, short_ids
from collab.store import RunDir

IDS = ["20261201-120500-3fa9c1", "20261201-120400-77ab12", "20261130-090000-3fa9c2"]


@pytest.mark.parametrize(
    ("ref", "expected"),
    [
        ("20261201-120500-3fa9c1", ["20261201-120500-3fa9c1"]),  # whole id
        ("20261201-1204", ["20261201-120400-77ab12"]),  # unique prefix
        ("2026120", IDS[:2]),  # prefix of two: both, newest first
        ("77ab12", ["20261201-120400-77ab12"]),  # unique suffix
        ("ab12", ["20261201-120400-77ab12"]),  # 4 characters is enough
        ("b12", []),  # 3 is not a suffix
        ("3fa9c", []),  # a middle is not a suffix
        ("3fa9c1", ["20261201-120500-3fa9c1"]),
        ("2026", IDS),  # a prefix wins over a suffix
        ("zzzz", []),
    ],
)
def test_match(ref: str, expected: list[str]) -> None:
    assert match(ref, IDS) == expected


def test_pick_ambiguous_is_exit_2_listing_the_matches() -> None:
    with pytest.raises(UsageError) as err:
        pick("2026120", IDS)
    assert err.value.exit_code == EXIT_USAGE
    assert "ambiguous" in str(err.value)
    assert IDS[0] in str(err.value) and IDS[1] in str(err.value)
    assert IDS[2] not in str(err.value)


@pytest.mark.parametrize("ref", ["", "@first", "b12", "nope-nope"])
def test_pick_rejects(ref: str) -> None:
    with pytest.raises(UsageError):
        pick(ref, IDS)


def _runs(home: Path) -> Path:
    root = home / "runs"
    # The id's time and the start time disagree for the middle one: @last goes by start.
    for rid, ts in ((IDS[0], 100.0), (IDS[1], 300.0), (IDS[2], 50.0)):
        RunDir(rid, root).create({"run_id": rid, "created_ts": ts})
    return root


def test_resolve_on_disk(hermetic_env: Path) -> None:
    root = _runs(hermetic_env)
    assert resolve_run_id("3fa9c2", root) == IDS[2]
    assert resolve_run_id("20261130", root) == IDS[2]
    assert resolve_run_id(IDS[0], root) == IDS[0]
    assert resolve_run_id("@last", root) == IDS[1]  # newest by start time, not by id
    assert resolve_run_id(None, root) == IDS[1]
    with pytest.raises(UsageError, match=f"ambiguous .*{IDS[0]}, {IDS[1]}"):
        resolve_run_id("2026120", root)
    with pytest.raises(UsageError, match="no run with id 3fa9c"):
        resolve_run_id("3fa9c", root)
    with pytest.raises(UsageError, match="batch"):
        resolve_run_id("@last-batch", root)
    with pytest.raises(UsageError, match="batch"):
        resolve_run_id("batch-20261201", root)


def test_resolve_with_no_runs(hermetic_env: Path) -> None:
    with pytest.raises(UsageError, match="no runs yet"):
        resolve_run_id(None, hermetic_env / "runs")


def test_visible_narrows_the_runs(hermetic_env: Path) -> None:
    root = _runs(hermetic_env)
    seen = {IDS[0], IDS[2]}
    assert resolve_run_id("@last", root, visible=seen.__contains__) == IDS[0]
    assert resolve_run_id("2026120", root, visible=seen.__contains__) == IDS[0]
    with pytest.raises(UsageError, match="no run"):
        resolve_run_id("77ab12", root, visible=seen.__contains__)
    with pytest.raises(UsageError, match="no run"):
        resolve_run_id(IDS[1], root, visible=seen.__contains__)


def test_batch_ids() -> None:
    ids = ["batch-20261201-120000-aaaaaa", "batch-20261130-120000-bbbbbb"]
    assert resolve_batch_id("@last-batch", ids) == ids[0]
    assert resolve_batch_id("@last", ids) == ids[0]
    assert resolve_batch_id("bbbbbb", ids) == ids[1]
    with pytest.raises(UsageError, match="ambiguous"):
        resolve_batch_id("batch-2026", ids)


# -- each message word for word (mutation testing: CONTRIBUTING.md) ---------------------------


def _error(ref: str, ids: list[str], what: str = "run") -> str:
    with pytest.raises(UsageError) as err:
        pick(ref, ids, what)
    return str(err.value)


def test_each_refusal_word_for_word() -> None:
    forms = (
        "a run id, a unique prefix, a unique suffix of at least 4 characters, or @last "
        "(collab list)"
    )
    many = [f"20261201-1200{n:02d}-aaaaaa" for n in range(10)]
    assert {
        "empty": _error("  ", IDS),
        "no-runs": _error("@last", []),
        "no-batches": _error("@last-batch", [], "batch"),
        "at": _error("@first", IDS),
        "space": _error("3fa9 c1", IDS),
        "short": _error("b12", IDS),
        "none": _error("zzzz", IDS),
        "nine-of-ten": _error("20261201-1200", many),
    } == {
        "empty": f"an empty run id: give {forms}",
        "no-runs": "no runs yet: @last names the newest one",
        "no-batches": "no batches yet: @last-batch names the newest one",
        "at": f"not a run id: '@first' (give {forms})",
        "space": f"not a run id: '3fa9 c1' (give {forms})",
        "short": "no run with id b12 (a suffix needs at least 4 characters); did you mean "
        "'20261201-120400-77ab12'?",
        "none": "no run with id zzzz; see collab list",
        "nine-of-ten": "run id 20261201-1200 is ambiguous (10 match: "
        + ", ".join(many[:8]) + " …)",
    }  # fmt: skip
    two = _error("2026120", IDS)
    assert two == f"run id 2026120 is ambiguous (2 match: {IDS[0]}, {IDS[1]})"  # no "…"


def test_a_plain_id_is_up_to_64_letters_digits_dashes_and_underscores() -> None:
    assert pick(" 77ab12\n", IDS) == IDS[1]  # spaces around are not part of it
    assert pick("@last", IDS) == IDS[0] and pick("@last-batch", IDS) == IDS[0]
    ok = "a_b-" + "c" * 60
    assert pick(ok, [ok]) == ok
    assert _error(ok + "c", [ok + "c"]).startswith("not a run id")  # 65 characters
    assert _error("a.b", ["a.b"]).startswith("not a run id")


def test_resolve_refuses_batches_word_for_word(hermetic_env: Path) -> None:
    root = _runs(hermetic_env)
    with pytest.raises(UsageError) as err:
        resolve_run_id("batch-20261201", root)
    assert str(err.value) == "batch-20261201 is a batch id; this takes a run id"
    with pytest.raises(UsageError) as err:
        resolve_run_id("@last-batch", root)
    assert str(err.value) == "@last-batch names a batch; this takes a run id (use @last)"


def test_run_ids_newest_first_plain_directories_only(hermetic_env: Path) -> None:
    from collab.run_ids import run_ids

    root = _runs(hermetic_env)
    (root / "notes.txt").write_text("x")
    (root / ".partial").mkdir()
    assert run_ids(root) == sorted(IDS, reverse=True)
    assert run_ids(root, by_start=True) == [IDS[1], IDS[0], IDS[2]]
    assert run_ids(hermetic_env / "nowhere") == []


def test_exactly_eight_matches_are_listed_without_an_ellipsis() -> None:
    eight = [f"20261201-1200{n:02d}-aaaaaa" for n in range(8)]
    assert _error("20261201-1200", eight).endswith(f"(8 match: {', '.join(eight)})")


def test_batch_ids_are_named_as_batches() -> None:
    ids = ["batch-20261201-120000-aaaaaa"]
    with pytest.raises(UsageError) as err:
        resolve_batch_id("zzzz", ids)
    assert str(err.value) == "no batch with id zzzz; see collab list"
    with pytest.raises(UsageError) as err:
        resolve_batch_id("@last-batch", [])
    assert str(err.value) == "no batches yet: @last-batch names the newest one"


def test_a_root_other_than_collab_home_is_the_one_read(hermetic_env: Path) -> None:
    from collab.run_ids import run_ids

    other = _runs(hermetic_env / "elsewhere")  # COLLAB_HOME/runs stays empty
    assert run_ids(other) == sorted(IDS, reverse=True)
    assert run_ids(other, by_start=True) == [IDS[1], IDS[0], IDS[2]]
    assert resolve_run_id("77ab12", other) == IDS[1] and resolve_run_id(None, other) == IDS[1]


def test_an_unreadable_runs_dir_is_a_storage_error_saying_read(
    hermetic_env: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from collab.errors import StorageError
    from collab.run_ids import run_ids

    root = _runs(hermetic_env)

    def refuse(self: Path) -> None:
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(Path, "iterdir", refuse)
    with pytest.raises(StorageError) as err:
        run_ids(root)
    assert str(err.value).startswith(f"cannot read {root}: ")


@pytest.mark.parametrize(
    ("full", "ids", "shown"),
    [
        (IDS[0], IDS, "a9c1"),  # the shortest unique suffix: 4 characters
        (
            "20261201-120000-abcdef",
            ["20261201-120000-abcdef", "20261201-120001-abcdef"],
            "0-abcdef",
        ),
        ("ab-cdef", ["ab-cdef", "cdef"], "b-cdef"),  # "-cdef" would read as an option
        ("abcd", ["abcd"], "abcd"),  # no suffix shorter than the id: the whole id
        ("xx-2026", ["xx-2026", "20261201-120000-abcdef"], "x-2026"),  # "2026" begins the other
    ],
)
def test_a_view_shows_the_shortest_suffix_that_names_the_run_alone(
    full: str, ids: list[str], shown: str
) -> None:
    assert short_id(full, ids) == shown
    assert match(shown, ids) == [full]


def test_short_ids_tell_apart_the_wanted_ids_even_when_not_listed() -> None:
    wanted = ["20261201-120000-abcdef", "20261201-120001-abcdef"]
    assert short_ids(wanted, ["20261202-090000-999999"]) == {
        wanted[0]: "0-abcdef",
        wanted[1]: "1-abcdef",
    }


@pytest.mark.parametrize(
    ("ref", "ids", "offered"),
    [
        ("20261201-120500-3fa9c7", IDS, "'20261201-120500-3fa9c1'"),  # a whole id mistyped
        ("77ab1z", IDS, "'77ab12'"),  # a suffix mistyped: the suffix, as it was typed
        ("20261201-1205oo", IDS, "'20261201-120500'"),  # a prefix mistyped
        # the close form names two runs: the newest run's whole id is offered
        (
            "abcdeg",
            ["20261201-120001-abcdef", "20261201-120000-abcdef"],
            "'20261201-120001-abcdef'",
        ),
    ],
)
def test_an_unknown_id_offers_the_closest_form_that_names_one_run(
    ref: str, ids: list[str], offered: str
) -> None:
    assert _error(ref, ids).endswith(f"; did you mean {offered}?")


def test_only_a_near_miss_is_offered_for_an_unknown_id() -> None:
    # 4 of 6 characters in place is a ratio of 0.67: close for a name, not for an id.
    assert _error("3fa0c0", IDS) == "no run with id 3fa0c0; see collab list"
