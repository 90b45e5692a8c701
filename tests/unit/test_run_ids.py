"""Run ids as people type them (collab.run_ids): the whole id, a unique prefix, a unique
suffix of 4+ characters, @last, @last-batch; anything else, or an ambiguous id, is one
UsageError (exit 2) that names the matches."""

from __future__ import annotations

from pathlib import Path

import pytest

from collab.errors import EXIT_USAGE, UsageError
from collab.run_ids import match, pick, resolve_batch_id, resolve_run_id
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
