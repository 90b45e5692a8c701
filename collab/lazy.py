"""A package's names, each imported from its module the first time it is asked for
(PEP 562 ``__getattr__``), so that importing one submodule, or the package for one
name, does not import all the others: the quick commands (``collab --version``,
``list --json``, ``status ID --json``) load only what they use. Type checkers read the
package's ``if TYPE_CHECKING:`` imports instead."""

from __future__ import annotations
import __future__

import importlib
import importlib.machinery
import importlib.util
import sys
import types
from collections.abc import Callable, Mapping
from typing import Any


def exports(package: str, module_of: Mapping[str, str]) -> Callable[[str], Any]:
    """The ``__getattr__`` of ``package``: ``module_of`` maps each name to its module."""

    def get(name: str) -> Any:
        module = module_of.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(module), name)
        setattr(sys.modules[package], name, value)  # asked once
        return value

    return get


class _Deferred(types.ModuleType):
    """Stands in ``sys.modules`` for a module not loaded yet: ``import name`` finds it and
    binds it; the first attribute it lacks loads the real module in its place."""

    def __getattr__(self, attr: str) -> Any:
        name = self.__name__
        if sys.modules.get(name) is self:
            del sys.modules[name]
            try:
                real = importlib.import_module(name)
            except BaseException:
                sys.modules[name] = self
                raise
            vars(self).update(vars(real))
        return getattr(sys.modules[name], attr)


def deferred(name: str) -> None:
    """Let a later ``import name`` (a top-level module) bind a stand-in that loads the
    module when one of its attributes is first used: for a library that a dependency
    imports at its top for a path collab never takes. Nothing changes if it is imported
    already or not installed; any use of it loads it whole, as the import would have."""
    if name in sys.modules:
        return
    spec = importlib.util.find_spec(name)
    if spec is None:
        return
    stand_in = _Deferred(name)
    if spec.has_location and spec.origin is not None:
        # where the module will be loaded from, as the import would set it: what walks
        # sys.modules reading each module's file (inspect.getmodule, Hypothesis's search
        # for constants in local modules) reads it without loading the module
        stand_in.__file__ = spec.origin
    sys.modules[name] = stand_in


def postponed_annotations(module: str) -> None:
    """Import ``module`` (a source file) with its annotations left unevaluated (PEP 563, as
    ``from __future__ import annotations`` does), so that a signature naming a deferred
    module's class (``-> requests.Response``) does not load that module. Its code is
    compiled from the source each time (a few ms), never written to a bytecode cache."""
    if module in sys.modules:
        return
    spec = importlib.util.find_spec(module)
    if spec is None or not isinstance(spec.loader, importlib.machinery.SourceFileLoader):
        return
    path = spec.loader.get_filename(module)
    with open(path, "rb") as source:
        code = compile(
            source.read(),
            path,
            "exec",
            flags=__future__.annotations.compiler_flag,
            dont_inherit=True,
        )
    loaded = importlib.util.module_from_spec(spec)
    sys.modules[module] = loaded
    try:
        exec(code, vars(loaded))
    except BaseException:
        del sys.modules[module]
        raise
    parent, _, child = module.rpartition(".")
    if parent:
        setattr(sys.modules[parent], child, loaded)  # as the import system does
