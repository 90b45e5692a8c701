"""Batch debates: many runs from one topics file, each driven by its own child process.

- :mod:`.entries` reads and validates the topics file
- :mod:`.record` the ``Batch`` the CLI holds: batch.json, where each run stands, the index
- :mod:`.pool` the child processes (one ``python -m collab.batch.child`` per run)
- :mod:`.child` the lean per-debate process

Nothing is imported here: ``python -m collab.batch.child`` imports this package before the
child, and the child must not pay for the topics-file parser or the index.
"""
