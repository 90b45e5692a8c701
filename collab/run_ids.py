"""A run id as a person types it: the whole id, a unique prefix, a unique suffix of at
least :data:`MIN_SUFFIX` characters (ids start with the date, so ``3fa9c1`` is what
people remember), ``@last`` (the newest run by start time, any status) or ``@last-batch``.

:func:`match` is the pure rule; :func:`resolve_run_id` and :func:`resolve_batch_id` apply
it to what is on disk. Every command and MCP tool that takes a run id goes through them.
An id that matches nothing, or more than one run, is a :class:`UsageError` (exit 2) that
lists the matches.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

from collab.errors import UsageError
from collab.store import runs_dir, scan_runs, storing
from collab.suggest import closest

LAST = "@last"
LAST_BATCH = "@last-batch"
MIN_SUFFIX = 4
SHOWN = 8  # matches listed in an ambiguity error
# Ids share their date: only a near miss (a swapped or mistyped character) is offered.
ID_CUTOFF = 0.8

FORMS = (
    "a run id, a unique prefix, a unique suffix of at least 4 characters, or @last (collab list)"
)


def match(ref: str, ids: Sequence[str]) -> list[str]:
    """The ids ``ref`` names, in the order of ``ids`` (newest first): the one equal to it,
    else those it begins, else those it ends (``ref`` of at least :data:`MIN_SUFFIX`)."""
    if ref in ids:
        return [ref]
    by_prefix = [i for i in ids if i.startswith(ref)]
    if by_prefix:
        return by_prefix
    if len(ref) < MIN_SUFFIX:
        return []
    return [i for i in ids if i.endswith(ref)]


def short_id(full: str, ids: Sequence[str]) -> str:
    """The shortest suffix of ``full`` (at least :data:`MIN_SUFFIX` characters) that names
    it and nothing else among ``ids``: what a view shows so that a topic gets the width
    and the id can still be typed. One that would read as an option (``-…``) is skipped;
    the whole id when no suffix will do."""
    for n in range(MIN_SUFFIX, len(full)):
        ref = full[-n:]
        if not ref.startswith("-") and match(ref, ids) == [full]:
            return ref
    return full


def short_ids(wanted: Sequence[str], ids: Sequence[str]) -> dict[str, str]:
    """:func:`short_id` of each of ``wanted`` among ``ids`` (which should hold them)."""
    known = list(dict.fromkeys([*ids, *wanted]))
    return {w: short_id(w, known) for w in wanted}


def pick(ref: str, ids: Sequence[str], what: str = "run") -> str:
    """The one id of ``ids`` (newest first) that ``ref`` names, or a UsageError."""
    ref = ref.strip()
    if not ref:
        raise UsageError(f"an empty {what} id: give {FORMS}")
    if ref in (LAST, LAST_BATCH):
        if not ids:
            many = "batches" if what == "batch" else f"{what}s"
            raise UsageError(f"no {many} yet: {ref} names the newest one")
        return ids[0]
    if ref.startswith("@") or not _plain(ref):
        raise UsageError(f"not a {what} id: {ref!r} (give {FORMS})")
    found = match(ref, ids)
    if not found:
        short = (
            f" (a suffix needs at least {MIN_SUFFIX} characters)" if len(ref) < MIN_SUFFIX else ""
        )
        near = _near(ref, ids)
        hint = f"did you mean {near}?" if near else "see collab list"
        raise UsageError(f"no {what} with id {ref}{short}; {hint}")
    if len(found) > 1:
        listed = ", ".join(found[:SHOWN]) + (" …" if len(found) > SHOWN else "")
        raise UsageError(f"{what} id {ref} is ambiguous ({len(found)} match: {listed})")
    return found[0]


def _near(ref: str, ids: Sequence[str]) -> str | None:
    """The form of an id closest to ``ref`` as it was typed (a whole id, or its start or
    end of the same length) that names one run, quoted; None when nothing is close."""
    forms: dict[str, str] = {}
    for i in ids:
        for form in (i, i[: len(ref)], i[-len(ref) :]):
            forms.setdefault(form, i)
    for form in closest(ref, forms, n=1, cutoff=ID_CUTOFF):
        return repr(form if match(form, ids) == [forms[form]] else forms[form])
    return None


def run_ids(root: Path | None = None, by_start: bool = False) -> list[str]:
    """Every stored run's id, newest first: by the id's own time stamp, or (``by_start``,
    which reads every state.json) by the start time each run recorded."""
    if by_start:
        return [r.run_id for r in scan_runs(root)]
    base = root or runs_dir()
    with storing(base, "read"):
        if not base.is_dir():
            return []
        names = [e.name for e in base.iterdir() if _plain(e.name) and e.is_dir()]
    return sorted(names, reverse=True)


def resolve_run_id(
    ref: str | None,
    root: Path | None = None,
    visible: Callable[[str], bool] | None = None,
) -> str:
    """The full id of the run ``ref`` names (None: the newest); ``visible`` narrows the runs
    to those a caller may see (an MCP server's)."""
    if ref is not None and ref.startswith("batch-"):
        raise UsageError(f"{ref} is a batch id; this takes a run id")
    if ref == LAST_BATCH:
        raise UsageError(f"{LAST_BATCH} names a batch; this takes a run id (use {LAST})")
    base = root or runs_dir()
    if ref is not None and _plain(ref) and (base / ref / "state.json").is_file():
        ids = [ref]  # the whole id: no listing of every run
    else:
        ids = run_ids(base, by_start=ref in (None, LAST))
    if visible is not None:
        ids = [i for i in ids if visible(i)]
    return pick(LAST if ref is None else ref, ids)


def resolve_batch_id(ref: str, ids: Sequence[str]) -> str:
    """The full id of the batch ``ref`` names among ``ids`` (newest first); ``@last`` and
    ``@last-batch`` both name the newest batch."""
    return pick(ref, ids, "batch")


def _plain(ref: str) -> bool:
    return bool(ref) and len(ref) <= 64 and all(c.isalnum() or c in "-_" for c in ref)
