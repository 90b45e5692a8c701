"""What a run keeps from one save to the next (it is saved after every step, with every
turn and round ledger): the parts of state.json's document
:meth:`collab.state.RunState.to_dict` made (:class:`SavedForms`), and the issues of the
last ledger's evidence checks (:class:`Rechecks`).

A form made of an immutable object (the config, a turn, a ledger and its issues, a round
order, the plan) is kept while it is the same object; a value made anew on every save
(the tokens, the costs by side, the Judge, the checked rounds, the ledgers and rounds
done) is kept while what it is made of is written alike (:func:`written_alike`). Kept
forms are the same :class:`~collab.json_text.FrozenForm` / ``FrozenItems`` objects, so
the store keeps their text too (:mod:`collab.json_text`): read them, never change them.
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Iterable, Sequence
from itertools import chain
from typing import Any, TypeVar, cast

from collab.evidence import EvidenceStatus
from collab.json_text import FrozenForm, FrozenItems
from collab.ledger import Issue, Ledger, issue_to_dict, with_checks
from collab.seats import Seat

_Frozen = TypeVar("_Frozen")
_Form = TypeVar("_Form", dict[str, object], list[FrozenForm | FrozenItems], list[Seat])
_Made = TypeVar("_Made")
Frozen = FrozenForm | FrozenItems
_SCALARS = (str, int, float, bool)  # (None is one object: ``is`` finds it)
# Every empty list of the document (~6 a save): one frozen object, its text kept between saves.
NOTHING = FrozenItems()


def written_alike(a: object, b: object) -> bool:
    """Does json write ``a`` as it writes ``b``? The same object, or equal scalars of one
    type (a float's repr too: ``0.0 == -0.0``); a container only when it is the same one."""
    return a is b or (
        type(a) is type(b)
        and isinstance(a, _SCALARS)
        and a == b
        and (type(a) is not float or repr(a) == repr(b))
    )


def _alike(was: object, made_of: tuple[object, ...]) -> bool:
    return (
        isinstance(was, tuple)
        and len(was) == len(made_of)
        # the same objects (most saves, in C), else each written alike
        and (all(map(operator.is_, was, made_of)) or all(map(written_alike, was, made_of)))
    )


class SavedForms:
    """The last save's forms and this save's (:meth:`begin` starts a save): by identity
    for an immutable object's, by name for a value made anew on every save."""

    def __init__(self) -> None:
        self._last: dict[int | str, tuple[object, Any]] = {}
        self._now: dict[int | str, tuple[object, Any]] = {}

    def begin(self) -> SavedForms:
        """A new save: the forms made since are the last save's."""
        self._last, self._now = self._now, {}
        return self

    def form(self, obj: _Frozen, make: Callable[[_Frozen], _Form]) -> Frozen:
        """``make(obj)`` frozen, or the one made of the same object last save."""
        kept = self._last.get(id(obj))
        if kept is not None and kept[0] is obj:
            made: Frozen = kept[1]
        else:
            fresh = make(obj)
            made = FrozenForm(fresh) if isinstance(fresh, dict) else FrozenItems(fresh)
        self._now[id(obj)] = (obj, made)
        return made

    def ledger(self, lg: Ledger) -> Frozen:
        """A ledger's form, its issues' too: kept while each is the same issue
        (collab.ledger_cache keeps the issues no later turn changed)."""
        made = self.form(lg, lambda _: [self.form(i, issue_to_dict) for i in lg.issues])
        self._now.update((id(i), (i, f)) for i, f in zip(lg.issues, made, strict=True))
        return made

    def each(
        self, name: str, objs: Sequence[_Frozen], form_of: Callable[[_Frozen], Frozen],
        held: Callable[[_Frozen], Iterable[object]] = lambda obj: (obj,),
    ) -> FrozenItems:  # fmt: skip
        """``FrozenItems([form_of(o) for o in objs])`` (:data:`NOTHING` for none), or the
        last save's while ``objs`` are the same objects (their forms, and those of what each
        ``held``, kept with it): the store keeps its text whole, not item by item."""
        was, kept = self._last.get(name, (None, None))
        if isinstance(was, tuple) and len(was) == len(objs) and all(map(operator.is_, was, objs)):
            made, forms = kept
            self._now.update(forms)
        else:
            was, made = tuple(objs), FrozenItems([form_of(obj) for obj in objs])
            now = self._now
            forms = {id(x): now[id(x)] for obj in objs for x in held(obj)}
        self._now[name] = (was, (made, forms))
        return cast(FrozenItems, made) or NOTHING

    def ledgers(self, ledgers: Sequence[Ledger]) -> FrozenItems:
        """The round ledgers' forms (:meth:`each` of :meth:`ledger`)."""
        return self.each("round_ledgers", ledgers, self.ledger, lambda lg: (lg, *lg.issues))

    def same(self, name: str, made: dict[str, object] | list[int]) -> Frozen:
        """The last save's form of ``name`` while it holds values written alike, else
        ``made`` frozen."""
        values = tuple(chain.from_iterable(made.items())) if isinstance(made, dict) else tuple(made)
        was, frozen = self._last.get(name, (None, None))
        if not _alike(was, values):
            was, frozen = values, FrozenForm(made) if isinstance(made, dict) else FrozenItems(made)
        self._now[name] = (was, frozen)
        return cast(Frozen, frozen)

    def made(
        self, name: str, made_of: tuple[object, ...], make: Callable[[], _Made],
        along: tuple[str, ...] = (),
    ) -> _Made:  # fmt: skip
        """``make()``, or the last save's answer while ``made_of`` is written alike (the
        forms named ``along``, which ``make`` made with :meth:`same`, kept with it)."""
        was, value = self._last.get(name, (None, None))
        if _alike(was, made_of):
            self._now.update((n, self._last[n]) for n in along if n in self._last)
        else:
            was, value = made_of, make()
        self._now[name] = (was, value)
        return cast(_Made, value)


class Rechecks:
    """``with_checks`` of each replayed ledger, made only for the issues made since the
    last check, while the cites' statuses are the same: an issue that check gave is its
    answer again (with_checks keeps an issue whose checks stand); the cites of every
    evidence were parsed on each replay (~11 us an issue)."""

    def __init__(self) -> None:
        self._known: dict[tuple[str, str | None], EvidenceStatus] = {}
        self._gave: dict[int, Issue] = {}  # the last check's issues, by identity

    def __call__(
        self, ledger: Ledger, known: dict[tuple[str, str | None], EvidenceStatus]
    ) -> Ledger:
        gave = self._gave if known == self._known else {}
        made = iter(
            with_checks(
                Ledger(tuple(i for i in ledger.issues if gave.get(id(i)) is not i)), known
            ).issues
        )
        issues = tuple(i if gave.get(id(i)) is i else next(made) for i in ledger.issues)
        self._known, self._gave = known, {id(i): i for i in issues}
        return Ledger(issues)
