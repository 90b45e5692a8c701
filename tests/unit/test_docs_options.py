"""docs/options.md lists every option `collab debate` takes, from the one declaration."""

from __future__ import annotations

import re
from pathlib import Path

from collab.options import offered

DOC = Path(__file__).resolve().parents[2] / "docs" / "options.md"


def _flags_in_table(text: str) -> set[str]:
    """Every flag the table's first column names, ``--agent-a/-b`` read as both seats."""
    flags: set[str] = set()
    for row in (line for line in text.splitlines() if line.startswith("| `--")):
        first = row.split(" | ")[0]
        for flag in re.findall(r"--[a-z][a-z-]*(?:/-[ab])?", first):
            base, _, other = flag.partition("/-")
            flags.add(base)
            if other:
                flags.add(base[: -len(other)] + other)
    for pair in re.findall(r"`(--[a-z-]+)/(--[a-z-]+)", text):
        flags.update(pair)
    return flags


def test_every_debate_option_is_in_the_table() -> None:
    listed = _flags_in_table(DOC.read_text(encoding="utf-8"))
    missing = [o.name for o in offered("cli") if f"--{o.name.replace('_', '-')}" not in listed]
    assert missing == [], f"docs/options.md does not list: {missing}"
