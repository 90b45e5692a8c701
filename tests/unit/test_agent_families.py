"""One module per agent family: each declares its family for the catalogue, and each
decoder offers the same two methods — live text as stdout streams in (``feed``) and the
final reply (``reply``) — which tell the same text for every recorded stream."""

from __future__ import annotations

import importlib
import inspect
import pkgutil
from types import ModuleType

import pytest

import collab.agents
from collab.agents import BUILTIN, DECODERS, FAMILIES, AgentReply, Decoder, decoder_for
from tests.unit.test_streams import RECORDS, record, splits


def family_modules() -> list[ModuleType]:
    """Every module of ``collab.agents`` that declares a ``FAMILY``."""
    mods = (
        importlib.import_module(f"collab.agents.{m.name}")
        for m in pkgutil.iter_modules(collab.agents.__path__)
    )
    return [m for m in mods if hasattr(m, "FAMILY")]


def test_every_family_module_is_in_the_catalogue() -> None:
    mods = family_modules()
    assert sorted(m.__name__.rpartition(".")[2] for m in mods) == sorted(FAMILIES)
    for mod in mods:
        family = FAMILIES[mod.__name__.rpartition(".")[2]]
        assert family is mod.FAMILY
        assert family.spec is mod.SPEC is BUILTIN[family.spec.name]
        # The spec's output kind reaches the module's own decoder.
        assert DECODERS[family.spec.output] is family.decoder


@pytest.mark.parametrize("kind", sorted(DECODERS))
def test_every_decoder_has_the_same_interface(kind: str) -> None:
    cls = DECODERS[kind]
    assert issubclass(cls, Decoder) and not inspect.isabstract(cls)
    assert cls.kind == kind
    for method in ("__init__", "feed", "reply"):
        theirs = inspect.signature(getattr(cls, method))
        assert theirs == inspect.signature(getattr(Decoder, method)), (kind, method)
    decoder = decoder_for(kind)
    assert type(decoder) is cls
    assert decoder.feed("") == ""
    assert isinstance(decoder.reply(0, "", ""), AgentReply)


RECORDED = sorted(p.stem for p in RECORDS.glob("*.jsonl"))


@pytest.mark.parametrize("name", RECORDED)
def test_live_text_tells_the_final_reply(name: str) -> None:
    """What the live view shows ends with the reply the turn keeps; what comes before it
    (an earlier message, a blank line apart) is the reply the stream had at some earlier
    line. Holds however stdout is cut into chunks: a dropped chunk breaks it."""
    spec = BUILTIN[name.split("-")[0]]
    stdout = record(name)
    # The reply's text does not depend on the exit code (only ok/error do).
    final = decoder_for(spec.output).reply(0, stdout, "").text
    lines = stdout.splitlines(keepends=True)
    earlier = {
        decoder_for(spec.output).reply(0, "".join(lines[:k]), "").text for k in range(len(lines))
    }
    for how, chunks in splits(stdout.encode("utf-8")):
        decoder = decoder_for(spec.output)
        live = "".join(decoder.feed(c) for c in chunks)
        if live == final:
            continue
        before, sep, last = live.rpartition("\n\n")
        assert sep and last == final and before in earlier and before, (how, live, final)
