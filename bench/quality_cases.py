"""The decision-quality cases: one directory each, ``case.toml`` and the files it shows.

::

    question = "Review this change to the upload handler: is it safe to merge?"
    kind = "code"                      # or "design"
    files = ["upload.py"]              # shown to the debaters as context files
    [[flaws]]                          # none: a clean case
    id = "path-traversal"
    summary = "the file name is joined to the upload dir unchecked (../ escapes it)"
    patterns = ['path[ -]?traversal', '\\.\\./', 'directory traversal']
    where = "upload.py:9-11"

A case directory is untrusted input (``--cases DIR``): every file it names must resolve
inside it (no absolute paths, no ``..``, no symlink out), be a regular UTF-8 file of at
most ``MAX_FILE_BYTES``; ``problems`` says everything that is wrong, ``load`` refuses a
case with any problem. The answer key (``flaws``) never reaches a prompt.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass
from pathlib import Path

from collab.evidence import cites, escapes

CASE_FILE = "case.toml"
KINDS = ("code", "design")
MAX_FILE_BYTES = 100_000
MAX_FILES = 10
MAX_QUESTION_CHARS = 2_000
MAX_PATTERNS = 10
_TOP_KEYS = {"question", "kind", "files", "flaws"}
_FLAW_KEYS = {"id", "summary", "patterns", "where"}


@dataclass(frozen=True)
class Flaw:
    id: str
    summary: str
    patterns: tuple[str, ...]
    path: str
    start: int
    end: int

    @property
    def where(self) -> str:
        return f"{self.path}:{self.start}-{self.end}"


@dataclass(frozen=True)
class Case:
    name: str
    question: str
    kind: str
    files: tuple[str, ...]
    flaws: tuple[Flaw, ...]

    @property
    def clean(self) -> bool:
        return not self.flaws

    def key(self) -> dict[str, object]:
        """The answer key as saved with the results (what ``--rescore`` scores against)."""
        return {
            "name": self.name,
            "kind": self.kind,
            "flaws": [
                {"id": f.id, "summary": f.summary, "patterns": list(f.patterns),
                 "where": f.where}
                for f in self.flaws
            ],
        }  # fmt: skip


class CaseError(Exception):
    pass


def case_dirs(root: Path) -> list[Path]:
    return sorted(p for p in root.iterdir() if p.is_dir() and (p / CASE_FILE).is_file())


def read_file(case_dir: Path, name: str) -> str:
    """A case's file, only if it resolves inside ``case_dir`` (raises CaseError if not)."""
    if not isinstance(name, str) or not name.strip():
        raise CaseError("a file name must be a non-empty string")
    if escapes(name) or "\\" in name or "\0" in name:
        raise CaseError(f"{name!r} must be a relative path inside the case directory")
    base = case_dir.resolve()
    target = (base / name).resolve()
    if not target.is_relative_to(base):
        raise CaseError(f"{name!r} resolves outside the case directory")
    if not target.is_file():
        raise CaseError(f"{name!r} is not a file in the case directory")
    if target.stat().st_size > MAX_FILE_BYTES:
        raise CaseError(f"{name!r} is over {MAX_FILE_BYTES} bytes")
    try:
        return target.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise CaseError(f"{name!r} is not UTF-8 text") from None


def problems(case_dir: Path) -> list[str]:
    """Everything wrong with one case directory (empty: a valid case)."""
    out: list[str] = []
    path = case_dir / CASE_FILE
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        return [f"{CASE_FILE}: {exc}"]
    out += [f"unknown key {k!r}" for k in sorted(set(data) - _TOP_KEYS)]
    question = data.get("question")
    if not isinstance(question, str) or not question.strip():
        out.append("question must be a non-empty string")
    elif len(question) > MAX_QUESTION_CHARS:
        out.append(f"question is over {MAX_QUESTION_CHARS} characters")
    if data.get("kind") not in KINDS:
        out.append(f"kind must be one of {', '.join(KINDS)}")
    files = data.get("files")
    texts: dict[str, str] = {}
    if not isinstance(files, list) or not files or len(files) > MAX_FILES:
        out.append(f"files must be a list of 1 to {MAX_FILES} file names")
        files = []
    for name in files:
        try:
            texts[name] = read_file(case_dir, name)
        except CaseError as exc:
            out.append(f"files: {exc}")
    flaws = data.get("flaws", [])
    if not isinstance(flaws, list):
        out.append("flaws must be a list of tables")
        flaws = []
    for n, flaw in enumerate(flaws):
        out += [f"flaws[{n}]: {p}" for p in _flaw_problems(flaw, texts)]
    ids = [f.get("id") for f in flaws if isinstance(f, dict)]
    if len(ids) != len(set(map(str, ids))):
        out.append("flaw ids must be unique")
    return out


def _flaw_problems(flaw: object, texts: dict[str, str]) -> list[str]:
    if not isinstance(flaw, dict):
        return ["must be a table"]
    out = [f"unknown key {k!r}" for k in sorted(set(flaw) - _FLAW_KEYS)]
    for key in ("id", "summary", "where"):
        if not isinstance(flaw.get(key), str) or not flaw[key].strip():
            out.append(f"{key} must be a non-empty string")
    patterns = flaw.get("patterns")
    if not isinstance(patterns, list) or not patterns or len(patterns) > MAX_PATTERNS:
        out.append(f"patterns must be a list of 1 to {MAX_PATTERNS} regular expressions")
        patterns = []
    for p in patterns:
        try:
            if not isinstance(p, str) or not p:
                raise re.error("empty")
            re.compile(p)
        except re.error:
            out.append(f"pattern {p!r} is not a regular expression")
    where = flaw.get("where")
    found = cites(where) if isinstance(where, str) else []
    if isinstance(where, str) and (len(found) != 1 or found[0].where.split(":")[0] not in texts):
        out.append(f"where {where!r} must be one path:start-end in one of the case's files")
    elif found:
        c = found[0]
        if c.end < c.start or c.start < 1 or c.end > len(texts[c.path].splitlines()):
            out.append(f"where {where!r}: those lines are not in {c.path}")
    return out


def load(case_dir: Path) -> Case:
    wrong = problems(case_dir)
    if wrong:
        raise CaseError(f"{case_dir.name}: " + "; ".join(wrong))
    data = tomllib.loads((case_dir / CASE_FILE).read_text(encoding="utf-8"))
    flaws = []
    for f in data.get("flaws", []):
        (c,) = cites(f["where"])
        flaws.append(
            Flaw(f["id"], f["summary"].strip(), tuple(f["patterns"]), c.path, c.start, c.end)
        )
    return Case(
        name=case_dir.name,
        question=data["question"].strip(),
        kind=data["kind"],
        files=tuple(data["files"]),
        flaws=tuple(flaws),
    )


def load_all(root: Path) -> list[Case]:
    dirs = case_dirs(root)
    if not dirs:
        raise CaseError(f"{root}: no case directories (each holds a {CASE_FILE})")
    return [load(d) for d in dirs]
