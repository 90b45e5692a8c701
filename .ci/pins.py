"""The CI pins: .ci/agents.txt, .ci/constraints.txt and .ci/build-constraints.txt.

`.ci/run` calls this to read and check the pins, `.ci/freeze` to write them. Standard
library only: it runs with the system python3, before the CI venv exists.

    pins.py agents                      the agent pins, one name@version a line
    pins.py npm-stale PREFIX            the pins PREFIX does not have installed, one a line
    pins.py diff --npm P --python PY    how an install differs from the pins
    pins.py write [--npm P] [--python PY] [--pip-log LOG] [--out DIR]
                                        rewrite the pin files from an install
"""

from __future__ import annotations

import argparse
import datetime
import json
import re
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
AGENTS = HERE / "agents.txt"
CONSTRAINTS = HERE / "constraints.txt"
BUILD_CONSTRAINTS = HERE / "build-constraints.txt"

# Never pinned: the project itself, and what a venv comes seeded with.
UNPINNED = {"collab", "collab-debate", "setuptools", "wheel", "distribute"}

EXACT_NPM_VERSION = re.compile(r"\d+\.\d+\.\d+(?:[-+][0-9A-Za-z.+-]+)?")

CONSTRAINTS_HEADER = """\
# Python packages .ci/run installs, pinned: pip install -c .ci/constraints.txt '.[test,local]'
# (pip itself, ruff and mypy included). The pip freeze of the install the suite was verified
# with, without collab itself. A constraint only applies to a package something requires:
# a dependency added to pyproject.toml later still installs, at its latest release, and
# .ci/run lists it as "not pinned" until this file is regenerated.
# COLLAB_CI_LATEST=1 .ci/run ignores this file.
# Regenerate from the latest releases: .ci/freeze, then .ci/run, then commit.
"""

BUILD_CONSTRAINTS_HEADER = """\
# What pip builds sdists with (collab's hatchling, llama-cpp-python's scikit-build-core),
# pinned: pip install --build-constraint .ci/build-constraints.txt. Taken by .ci/freeze from
# pip's log of a fresh install. COLLAB_CI_LATEST=1 .ci/run ignores this file.
"""


def fail(message: str) -> None:
    sys.exit(f"pins: {message}")


def canonical(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def read_agents(path: Path = AGENTS) -> list[tuple[str, str]]:
    pins: list[tuple[str, str]] = []
    for number, raw in enumerate(path.read_text().splitlines(), 1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        name, at, version = line.rpartition("@")
        if not at or not name or not EXACT_NPM_VERSION.fullmatch(version):
            fail(f"{path}:{number}: {line!r} is not name@version with an exact version")
        pins.append((name, version))
    if not pins:
        fail(f"{path} pins no agent CLI")
    return pins


def npm_version(prefix: Path, name: str) -> str | None:
    try:
        data = json.loads((prefix / "node_modules" / name / "package.json").read_text())
    except (OSError, ValueError):
        return None
    version = data.get("version") if isinstance(data, dict) else None
    return version if isinstance(version, str) else None


def parse_requirements(text: str) -> dict[str, tuple[str, str]]:
    """name==version lines (a constraints file, or pip freeze) by canonical name."""
    found: dict[str, tuple[str, str]] = {}
    for raw in text.splitlines():
        line = raw.split("#", 1)[0].strip()
        if not line or line.startswith("-") or " @ " in line or "==" not in line:
            continue
        name, _, version = line.partition("==")
        found[canonical(name)] = (name.strip(), version.strip())
    return found


def read_constraints(path: Path = CONSTRAINTS) -> dict[str, tuple[str, str]]:
    return parse_requirements(path.read_text()) if path.exists() else {}


def pip_freeze(python: str) -> dict[str, tuple[str, str]]:
    out = subprocess.run(
        [python, "-m", "pip", "freeze", "--all", "--exclude-editable"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    return {k: v for k, v in parse_requirements(out).items() if k not in UNPINNED}


def version_key(version: str) -> tuple[int, ...]:
    return tuple(int(part) for part in re.findall(r"\d+", version))


def build_requirements(pip_log: str) -> dict[str, tuple[str, str]]:
    """What `pip install -v` installed into its build environments.

    The build environments' "Successfully installed" lines are indented, the final one
    is not. Two builds needing different versions of a package: the newer one is kept.
    """
    found: dict[str, tuple[str, str]] = {}
    for line in pip_log.splitlines():
        match = re.match(r"\s+Successfully installed (.+)", line)
        if not match:
            continue
        for item in match.group(1).split():
            name, _, version = item.rpartition("-")
            key = canonical(name)
            if key not in found or version_key(version) > version_key(found[key][1]):
                found[key] = (name, version)
    return found


def leading_comments(path: Path) -> str:
    lines: list[str] = []
    if path.exists():
        for line in path.read_text().splitlines():
            if line.strip() and not line.lstrip().startswith("#"):
                break
            lines.append(line)
    return "".join(f"{line}\n" for line in lines)


def write_atomically(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_text(text)
    tmp.replace(path)
    print(f"wrote {path}")


def requirement_lines(found: dict[str, tuple[str, str]]) -> str:
    return "".join(f"{name}=={version}\n" for _, (name, version) in sorted(found.items()))


def cmd_agents(_: argparse.Namespace) -> None:
    for name, version in read_agents():
        print(f"{name}@{version}")


def cmd_npm_stale(args: argparse.Namespace) -> None:
    for name, version in read_agents():
        have = npm_version(Path(args.prefix), name)
        if have != version:
            print(f"{name}: {have or 'not installed'}, pinned {version}")


def cmd_diff(args: argparse.Namespace) -> None:
    lines: list[str] = []
    for name, version in read_agents():
        have = npm_version(Path(args.npm), name)
        if have != version:
            lines.append(f"{name}: pinned {version}, installed {have or 'nothing'}")
    pinned = read_constraints()
    installed = pip_freeze(args.python)
    for key in sorted(set(pinned) | set(installed)):
        name, want = pinned.get(key, ("", ""))
        have_name, have = installed.get(key, ("", ""))
        if want == have:
            continue
        if not want:
            lines.append(f"{have_name}: not pinned, installed {have}")
        elif have:
            lines.append(f"{name}: pinned {want}, installed {have}")
        # pinned but not installed: no longer a dependency; the next .ci/freeze drops it.
    print("\n".join(lines) if lines else "(none)")


def cmd_write(args: argparse.Namespace) -> None:
    out = Path(args.out)
    stamp = f"# Last written: {datetime.date.today().isoformat()}\n"
    if args.npm:
        text = leading_comments(AGENTS)
        for name, _ in read_agents():
            version = npm_version(Path(args.npm), name)
            if version is None:
                fail(f"{name} is not installed in {args.npm}")
            text += f"{name}@{version}\n"
        write_atomically(out / AGENTS.name, text)
    if args.python:
        text = CONSTRAINTS_HEADER + stamp + requirement_lines(pip_freeze(args.python))
        write_atomically(out / CONSTRAINTS.name, text)
    if args.pip_log:
        found = build_requirements(Path(args.pip_log).read_text())
        if not found:
            fail(f"{args.pip_log} shows no build environment: was it `pip install -v`?")
        text = BUILD_CONSTRAINTS_HEADER + stamp + requirement_lines(found)
        write_atomically(out / BUILD_CONSTRAINTS.name, text)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(required=True)
    sub.add_parser("agents").set_defaults(run=cmd_agents)
    stale = sub.add_parser("npm-stale")
    stale.add_argument("prefix")
    stale.set_defaults(run=cmd_npm_stale)
    diff = sub.add_parser("diff")
    diff.add_argument("--npm", required=True, help="npm prefix the CLIs are installed in")
    diff.add_argument("--python", required=True, help="the venv's python")
    diff.set_defaults(run=cmd_diff)
    write = sub.add_parser("write")
    write.add_argument("--npm", help="npm prefix to take the agent CLIs' versions from")
    write.add_argument("--python", help="venv python to take the pip freeze from")
    write.add_argument("--pip-log", help="`pip install -v` log to take the build deps from")
    write.add_argument("--out", default=str(HERE), help="directory to write into (.ci)")
    write.set_defaults(run=cmd_write)
    args = parser.parse_args()
    args.run(args)


if __name__ == "__main__":
    main()
