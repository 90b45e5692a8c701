"""Frames on the stack and collab modules loaded when ``judge.md`` is written, for a
``collab debate`` run in this process (subprocess runner, the test fake agent).

    python bench/frames.py REPO_ROOT      # the collab checkout to measure
"""

from __future__ import annotations

import contextlib
import importlib
import inspect
import json
import os
import sys
import tempfile
from pathlib import Path

REPLY = (
    "Point.\n\n```json\n"
    + json.dumps({"new_points": [{"title": "t", "evidence": "e"}], "stances": [], "abstain": None})
    + "\n```\n"
)
ARGV = ["collab", "debate", "frames", "--agent", "fake", "--judge-agent", "fake",
        "--rounds", "2", "--runner", "subprocess", "--json"]  # fmt: skip


def main(root: Path) -> dict[str, object]:
    sys.path.insert(0, str(root))
    home = Path(tempfile.mkdtemp(prefix="collab-frames-"))
    os.environ["COLLAB_HOME"] = str(home)
    script = home / "script.json"
    script.write_text(json.dumps({"rules": [], "default": REPLY}), encoding="utf-8")
    os.environ["COLLAB_FAKE_SCRIPT"] = str(script)
    fake = root / "tests" / "fakes" / "fake_agent.py"
    (home / "config.toml").write_text(
        "[agents.fake]\n"
        f'argv = [{json.dumps(sys.executable)}, {json.dumps(str(fake))}, "--format", '
        '"claude-json"]\noutput = "claude-json"\n',
        encoding="utf-8",
    )
    store = importlib.import_module("collab.store")
    seen: dict[str, object] = {}
    write_text = store.RunDir.write_text

    def spy(self: object, name: str, text: str) -> object:
        if name == "judge.md" and not seen:
            stack = inspect.stack()[1:]
            seen["frames"] = len(stack)
            seen["collab_frames"] = [
                f"{os.path.relpath(f.filename, root)}:{f.function}"
                for f in stack
                if f"{os.sep}collab{os.sep}" in f.filename
            ]
            seen["collab_modules"] = sorted(m for m in sys.modules if m.startswith("collab"))
        return write_text(self, name, text)

    store.RunDir.write_text = spy
    sys.argv = ARGV
    cli = importlib.import_module("collab.cli")
    with contextlib.suppress(SystemExit):
        cli.main()
    return seen


if __name__ == "__main__":
    found = main(Path(sys.argv[1]).resolve())
    frames, modules = found.get("collab_frames", []), found.get("collab_modules", [])
    assert isinstance(frames, list) and isinstance(modules, list)
    sys.stderr.write(
        f"frames {found.get('frames')} (collab's {len(frames)}), "
        f"collab modules loaded {len(modules)}\n" + "\n".join(frames) + "\n"
    )
