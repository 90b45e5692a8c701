"""What pytest rewrites for its assert messages: our tests and conftests, not the libraries of
the pytest plugins installed beside them (tests/conftest.py's NOT_REWRITTEN)."""

from __future__ import annotations

import importlib.machinery
import sys

import hypothesis
import pytest
from _pytest.assertion.rewrite import AssertionRewritingHook

from tests.conftest import NOT_REWRITTEN, ImportedAsPythonDoes


def test_hypothesis_is_imported_as_python_does_and_this_test_is_rewritten() -> None:
    assert type(hypothesis.__spec__.loader) is importlib.machinery.SourceFileLoader
    assert type(sys.modules["hypothesis.strategies"].__spec__.loader) is (
        importlib.machinery.SourceFileLoader
    )
    assert isinstance(sys.modules[__name__].__spec__.loader, AssertionRewritingHook)
    assert isinstance(sys.modules["tests.conftest"].__spec__.loader, AssertionRewritingHook)
    with pytest.raises(AssertionError, match=r"assert 1 == 2"):
        one = 1
        assert one == 2  # the message pytest's rewriting gives: "assert 1 == 2"


@pytest.mark.parametrize(
    ("name", "found"),
    [("hypothesis", True), ("hypothesis.strategies", True), ("libtmux", True),
     ("anyio", True), ("hypothesisx", False), ("tests.conftest", False), ("json", False),
     ("collab", False)],
)  # fmt: skip
def test_the_finder_takes_only_the_packages_it_is_given(name: str, found: bool) -> None:
    finder = ImportedAsPythonDoes(NOT_REWRITTEN)
    parent = sys.modules.get(name.rpartition(".")[0]) if "." in name else None
    spec = finder.find_spec(name, getattr(parent, "__path__", None))
    assert (spec is not None) is found
    if spec is not None:
        assert type(spec.loader) is importlib.machinery.SourceFileLoader
        assert spec.name == name
