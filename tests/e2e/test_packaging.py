# Not the cli fixture: these run the built artefact (a venv's collab, uvx, the launcher).
"""The distribution ``collab-debate``: its wheel and sdist build, each installs into a clean
venv and works from any directory (presets, templates and the skill are package data);
``uvx`` runs it from ``dist/``; the plugin's launcher starts the MCP server from PATH, through
``uvx`` once the release has marked it published, and otherwise says how to install.

Measured (printed with ``-s``): the wheel's size and each clean install's time.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
import zipfile
from collections.abc import Iterator
from pathlib import Path

import anyio
import pytest

from tests.e2e.mcp_client import mcp_session

pytestmark = [pytest.mark.slow]

REPO = Path(__file__).resolve().parents[2]
CONSTRAINTS = REPO / ".ci" / "constraints.txt"
UVX = shutil.which("uvx") or str(Path(sys.executable).parent / "uvx")
HAVE_UVX = Path(UVX).exists()
NO_UVX = "uv is not installed (pip install uv; it is in the test extra): uvx not checked"


@pytest.fixture(scope="module")
def dist(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    out = tmp_path_factory.mktemp("dist")
    res = subprocess.run(
        [sys.executable, "-m", "build", "--sdist", "--wheel", "--outdir", str(out), str(REPO)],
        capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert res.returncode == 0, res.stdout[-3000:] + res.stderr[-3000:]
    yield out


def _one(dist: Path, pattern: str) -> Path:
    (found,) = dist.glob(pattern)
    return found


def test_names(dist: Path) -> None:
    wheel = _one(dist, "collab_debate-*.whl")
    _one(dist, "collab_debate-*.tar.gz")
    with zipfile.ZipFile(wheel) as z:
        names = z.namelist()
        meta = next(n for n in names if n.endswith(".dist-info/METADATA"))
        text = z.read(meta).decode()
        entry = z.read(next(n for n in names if n.endswith("entry_points.txt"))).decode()
    assert "\nName: collab-debate\n" in text
    assert "collab = collab.cli:main" in entry  # the command stays collab
    assert "collab/__init__.py" in names  # and the import package
    for data in ("collab/_data/presets/", "collab/_data/templates/en/", "collab/_data/skills/"):
        assert any(n.startswith(data) for n in names), data
    print(f"\nwheel {wheel.name}: {wheel.stat().st_size / 1024:.0f} KiB")


@pytest.mark.parametrize("kind", ["whl", "tar.gz"])
def test_installs_into_a_clean_venv_and_runs_anywhere(
    dist: Path, tmp_path: Path, kind: str
) -> None:
    artefact = _one(dist, f"collab_debate-*.{kind}")
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=120)
    started = time.monotonic()
    res = subprocess.run(
        [str(venv / "bin" / "pip"), "install", "-q", "-c", str(CONSTRAINTS), str(artefact)],
        capture_output=True, text=True, timeout=900,
    )  # fmt: skip
    took = time.monotonic() - started
    assert res.returncode == 0, res.stdout[-3000:] + res.stderr[-3000:]
    print(f"\n{artefact.name}: clean venv install {took:.1f} s")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["COLLAB_HOME"] = str(tmp_path / "home")

    def collab(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([str(venv / "bin" / "collab"), *args], cwd=elsewhere, env=env,
                              capture_output=True, text=True, timeout=120)  # fmt: skip

    version = collab("--version")
    assert version.returncode == 0 and version.stdout.strip().endswith("0.1.0"), version
    presets = collab("presets", "--json")
    assert presets.returncode == 0, presets.stderr
    assert len(json.loads(presets.stdout)["presets"]) >= 5  # packaged data, found from here
    judge = collab("presets", "show", "security-vs-performance")
    assert judge.returncode == 0, judge.stderr
    skill = collab("skill", "show")
    assert skill.returncode == 0 and "collab" in skill.stdout, skill.stderr
    schema = collab("schema", "collab.gate/1")
    assert schema.returncode == 0 and '"collab.gate/1"' in schema.stdout, schema.stderr
    # The installed copy, not this checkout.
    code = "import collab, importlib.metadata as m\n"
    code += "print(collab.__file__, m.version('collab-debate'))"
    where = subprocess.run(
        [str(venv / "bin" / "python"), "-c", code],
        cwd=elsewhere, env=env, capture_output=True, text=True, check=True,
    ).stdout  # fmt: skip
    assert str(venv) in where and where.strip().endswith("0.1.0")


@pytest.mark.skipif(not HAVE_UVX, reason=NO_UVX)
def test_uvx_runs_collab_from_the_wheel(dist: Path, tmp_path: Path) -> None:
    wheel = _one(dist, "collab_debate-*.whl")
    # `collab`, and `collab-debate` (how an MCP host runs server.json's package: `uvx
    # collab-debate mcp`)
    for command in ("collab", "collab-debate"):
        res = subprocess.run([UVX, "--from", str(wheel), command, "--version"], cwd=tmp_path,
                             capture_output=True, text=True, timeout=600)  # fmt: skip
        assert res.returncode == 0, res.stderr[-3000:]
        assert res.stdout.strip().endswith("0.1.0")


# -- the plugin's launcher -----------------------------------------------------------------


def _launcher_copy(tmp_path: Path, published: str | None) -> Path:
    root = tmp_path / "plugin"
    (root / ".claude-plugin").mkdir(parents=True)
    shutil.copy2(REPO / ".claude-plugin" / "launch", root / ".claude-plugin" / "launch")
    shutil.copy2(REPO / "README.md", root / "README.md")
    if published:
        subprocess.run([sys.executable, str(REPO / ".github" / "scripts" / "mark_published.py"),
                        published, str(root)], check=True)  # fmt: skip
    return root / ".claude-plugin" / "launch"


def _path_with(tmp_path: Path, tools: dict[str, str]) -> str:
    """A PATH with ``tools`` (name → real path) and the system's directories, which hold
    no collab."""
    d = tmp_path / "bin"
    d.mkdir(exist_ok=True)
    (d / "python3").symlink_to(Path(sys.executable).resolve())  # for uv, not collab
    for name, real in tools.items():
        (d / name).symlink_to(real)
    path = os.pathsep.join([str(d), "/usr/bin", "/bin"])
    assert ("collab" in tools) == (shutil.which("collab", path=path) is not None)
    return path


def test_launcher_without_collab_says_how_to_install(tmp_path: Path) -> None:
    launch = _launcher_copy(tmp_path, None)
    env = {"PATH": _path_with(tmp_path, {"uvx": UVX} if HAVE_UVX else {}), "HOME": str(tmp_path)}
    res = subprocess.run([str(launch)], env=env, capture_output=True, text=True, timeout=30)
    assert res.returncode == 3
    root = launch.parent.parent
    assert res.stderr.strip().splitlines() == [
        f'collab is not installed: pipx install "{root}" (or pip install "{root}"), then '
        "restart Claude Code"
    ]  # before the first upload: never uvx, even where uvx exists


def _tools(env: dict[str, str], command: list[str]) -> set[str]:
    async def go() -> set[str]:
        async with mcp_session(env=env, command=command) as s:
            return {t.name for t in (await s.list_tools()).tools}

    return anyio.run(go)


def test_launcher_runs_collab_from_path(tmp_path: Path) -> None:
    launch = _launcher_copy(tmp_path, None)
    collab = shutil.which("collab") or str(Path(sys.executable).parent / "collab")
    if not Path(collab).exists():
        pytest.skip(f"collab is not installed for {sys.executable} (pip install .)")
    env = dict(os.environ, PATH=_path_with(tmp_path, {"collab": collab}))
    assert "debate_start" in _tools(env, [str(launch)])


@pytest.mark.skipif(not HAVE_UVX, reason=NO_UVX)
def test_launcher_once_published_runs_uvx(dist: Path, tmp_path: Path) -> None:
    launch = _launcher_copy(tmp_path, "0.1.0")
    assert 'PUBLISHED_VERSION="0.1.0"' in launch.read_text()
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    # No collab on PATH: uvx installs collab-debate==0.1.0 — from dist/ here.
    env.update(PATH=_path_with(tmp_path, {"uvx": UVX}), UV_FIND_LINKS=str(dist),
               COLLAB_HOME=str(tmp_path / "home"))  # fmt: skip
    assert "debate_start" in _tools(env, [str(launch)])
