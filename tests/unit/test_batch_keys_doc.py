"""docs/batch.md lists exactly the keys a batch entry may set, and exactly the restricted ones."""

from __future__ import annotations

import re
from pathlib import Path

from collab.options import offered

README = Path(__file__).parents[2] / "docs" / "batch.md"


def test_readme_lists_the_batch_keys_exactly() -> None:
    text = README.read_text(encoding="utf-8")
    start = text.index("may set exactly these keys:")
    allowed_part, rest = text[start:].split("A topics file may", 1)
    restricted_part = rest.split("are refused", 1)[0]
    allowed = set(re.findall(r"`([a-z_]+)`", allowed_part))
    restricted = set(re.findall(r"`([a-z_]+)`", restricted_part))
    batch = {o.name for o in offered("batch")}
    assert restricted == {o.name for o in offered("batch") if o.batch_restricted}
    assert allowed == batch - restricted - {"topic"} | {"context"}
