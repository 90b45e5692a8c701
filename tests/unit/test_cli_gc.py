"""The command line loads its modules without cyclic GC and freezes them out of its sight
(collab.cli), and leaves the collector as it found it: on for a process that had it on
(every command, every test), off for one that had turned it off."""

from __future__ import annotations

import gc
import importlib

import collab.cli


def test_loading_the_command_line_leaves_the_collector_as_it_found_it() -> None:
    frozen = gc.get_freeze_count() > 0  # what the session froze (tests/conftest.py)
    try:
        for was_on in (True, False):
            gc.unfreeze()
            (gc.enable if was_on else gc.disable)()
            importlib.reload(collab.cli)
            assert gc.isenabled() is was_on
            # what the load made is frozen only where the collector runs at all
            assert (gc.get_freeze_count() > 0) is was_on
    finally:
        gc.enable()
        if frozen:
            gc.freeze()


def test_the_check_leaves_what_the_session_froze_frozen() -> None:
    """The test above unfreezes to see what the load freezes; every test after it would
    otherwise run with the session's imports and collected items back in the collector's
    sight (tests/conftest.py freezes them after collection)."""
    gc.freeze()
    test_loading_the_command_line_leaves_the_collector_as_it_found_it()
    assert gc.isenabled() and gc.get_freeze_count() > 0
