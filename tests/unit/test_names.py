"""A name means one thing across the package: no public top-level class, function or type
alias is defined in two modules of ``collab/`` (read from the AST, so nothing is imported).

``SHARED`` lists the few names that may stay in more than one module, each with its reason.
An entry marked ``TODO(owner)`` is a collision that owner's branch removes; prune it then
(``test_shared_names_still_collide`` says which entries no longer collide).
"""

from __future__ import annotations

import ast
import functools
import keyword
import re
import unicodedata
from collections import defaultdict
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "collab"

SHARED: dict[str, str] = {
    # Every module run with ``python -m`` (and the console script) names its entry
    # point ``main``, the convention tools and readers look for.
    "main": "the entry point of a module run as a program",
}


def _alias_name(node: ast.stmt) -> str | None:
    """The name a type alias statement defines: ``X: TypeAlias = …``, ``type X = …``, or a
    capitalised ``X = Literal[…]`` / ``Annotated[…]`` / ``A | B`` (not a CONSTANT)."""
    type_alias = getattr(ast, "TypeAlias", None)  # Python 3.12's ``type X = …``
    if type_alias is not None and isinstance(node, type_alias):
        return str(node.name.id)  # type: ignore[attr-defined]
    if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
        ann = node.annotation
        named = ann.id if isinstance(ann, ast.Name) else getattr(ann, "attr", None)
        return node.target.id if named == "TypeAlias" else None
    if isinstance(node, ast.Assign) and len(node.targets) == 1:
        target = node.targets[0]
        if not isinstance(target, ast.Name) or target.id.isupper() or not target.id[0].isupper():
            return None
        value = node.value
        if isinstance(value, ast.Subscript) or (
            isinstance(value, ast.BinOp) and isinstance(value.op, ast.BitOr)
        ):
            return target.id
    return None


def defined_names(source: str) -> set[str]:
    """The public top-level classes, functions and type aliases a module defines."""
    names: set[str] = set()
    for node in ast.parse(source).body:
        if isinstance(node, ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            name: str | None = node.name
        else:
            name = _alias_name(node)
        if name is not None and not name.startswith("_"):
            names.add(name)
    return names


@functools.cache
def _defined_in(source: str) -> frozenset[str]:
    """:func:`defined_names`, parsed once a test session (two tests read every module)."""
    return frozenset(defined_names(source))


# Where a top-level statement can define a name: it starts a line at column 0 (the top
# level is never indented), or, for an alias (a simple statement), follows a ``;``.
_TARGET = r"(?:\([( \t]*)?(\w+)[ \t)]*(?:(:)|=)"  # ``X =``, ``X:``, ``(X) =``
_LINE_HEADS = re.compile(
    rf"^(?:(?:async[ \t]+)?(?:def|class)[ \t]+(\w+)|type[ \t]+(\w+)|{_TARGET})", re.M
)
_AFTER_SEMICOLON = re.compile(rf";[ \t]*()(){_TARGET}")  # the same four groups
# A parenthesis a statement opens and its line leaves open could hold a target that ends
# on the next lines: ``(\n Cell\n) =``, ``(Cell\n) =``, ``(Cell  # c\n) =``.
_OPEN_TARGET = re.compile(r"(?:^|;[ \t]*)\([^)\n]*$", re.M)


def may_define(source: str) -> set[str] | None:
    """A superset of :func:`defined_names`, read from the text without parsing it (the
    AST of all of ``collab/`` is ~0.3 s of CPU); None where the text could hide a
    definition from this reading (a backslash continuation, a form feed, a BOM, a
    parenthesis that a statement opens with and a line ends after)."""
    if "\\\n" in source or "\f" in source or source.startswith("\ufeff"):
        return None
    if _OPEN_TARGET.search(source):
        return None
    aliased = "TypeAlias" in source  # ``x: TypeAlias = …`` names that alias in any case
    names: set[str] = set()
    for match in (*_LINE_HEADS.finditer(source), *_AFTER_SEMICOLON.finditer(source)):
        made, typed, target, annotated = match.groups()
        name = unicodedata.normalize("NFKC", made or typed or target)  # as Python reads it
        if target is not None and not (  # an assignment can only be a Capitalised alias
            (annotated and aliased) or (name[0].isupper() and not name.isupper())
        ):
            continue
        if not name.startswith("_") and not keyword.iskeyword(name):
            names.add(name)
    return names


def collisions(package: Path) -> dict[str, list[str]]:
    """Every public name defined in more than one module, with those modules. Only the
    modules that may define a name some other module may define are parsed (the names a
    module defines are among those it may define)."""
    sources = {
        str(path.relative_to(package.parent)): path.read_text(encoding="utf-8")
        for path in sorted(package.rglob("*.py"))
    }
    where: dict[str, list[str]] = defaultdict(list)
    for module, source in sources.items():
        names = may_define(source)
        for name in _defined_in(source) if names is None else names:
            where[name].append(module)
    defined = {
        name: [mod for mod in mods if name in _defined_in(sources[mod])]
        for name, mods in where.items()
        if len(mods) > 1
    }
    return {name: mods for name, mods in defined.items() if len(mods) > 1}


def test_no_public_name_is_defined_in_two_modules() -> None:
    found = {name: mods for name, mods in collisions(PACKAGE).items() if name not in SHARED}
    assert found == {}, "rename one side, or add it to SHARED with the reason it must stay"


def test_shared_names_still_collide() -> None:
    stale = sorted(set(SHARED) - set(collisions(PACKAGE)))
    assert stale == [], "no longer defined twice: remove these from SHARED"


@pytest.mark.parametrize(
    ("test_id", "source", "names"),
    [
        ("class and functions", "class A: ...\ndef f(): ...\nasync def g(): ...", {"A", "f", "g"}),
        ("private left out", "class _A: ...\ndef _f(): ...", set()),
        ("literal alias", "Side = Literal['A', 'B']", {"Side"}),
        ("union alias", "Cell = str | Text", {"Cell"}),
        ("annotated alias", "RunId = Annotated[str, typer.Argument()]", {"RunId"}),
        ("TypeAlias", "X: TypeAlias = 'dict[str, int]'", {"X"}),
        ("typing.TypeAlias", "X: typing.TypeAlias = int", {"X"}),
        ("constants left out", "SIDES = get_args(Side)\nLIMITS = dict[str, int]", set()),
        (
            "nested left out",
            "def f():\n    def g(): ...\nclass A:\n    def m(self): ...",
            {"f", "A"},
        ),
        ("plain values left out", "Name = 'x'\nFlag = True", set()),
        ("parenthesised alias", "(Side) = Literal['A', 'B']", {"Side"}),
        ("alias after a semicolon", "x = 1; Cell = str | Text", {"Cell"}),
        ("target on the next line", "(\n    Cell\n) = str | Text", {"Cell"}),
        ("parenthesis closed on the next line", "(Cell\n) = str | Text", {"Cell"}),
        ("a comment before it closes", "(Cell  # c\n) = str | Text", {"Cell"}),
        ("after a semicolon", "x = 1; (Cell\n) = str | Text", {"Cell"}),
    ],
)
def test_defined_names(test_id: str, source: str, names: set[str]) -> None:
    assert defined_names(source) == names
    found = may_define(source)  # what collisions() parses to confirm (None: all of it)
    assert found is None or names <= found


def test_collisions_finds_a_name_in_two_modules(tmp_path: Path) -> None:
    pkg = tmp_path / "pkg"
    (pkg / "sub").mkdir(parents=True)
    (pkg / "a.py").write_text("class Progress: ...\ndef only_here(): ...\n")
    (pkg / "sub" / "b.py").write_text("def Progress(): ...\n")
    assert collisions(pkg) == {"Progress": ["pkg/a.py", "pkg/sub/b.py"]}
