"""A package's names, each imported from its module the first time it is asked for
(PEP 562 ``__getattr__``), so that importing one submodule, or the package for one
name, does not import all the others: the quick commands (``collab --version``,
``list --json``, ``status ID --json``) load only what they use. Type checkers read the
package's ``if TYPE_CHECKING:`` imports instead."""

from __future__ import annotations

import importlib
import sys
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
