"""The Judge reads the sides as "Position 1" and "Position 2", never by their roles.

Which side is Position 1 is drawn per run from a seed derived from the run id, so the
order is random across runs (no side always speaks last) and reproducible for an audit
(the order is also recorded in state.json). Whole-word occurrences of the role names
(and of "Role A"/"Role B") in the debaters' prose become the labels before the Judge
reads it; the labels in the Judge's answer become the role names again before collab
shows or saves it. The topic is left as it is. Pure: no I/O.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass

from collab.seats import Side

LABELS = ("Position 1", "Position 2")


def first_side(run_id: str) -> Side:
    """The side the Judge reads as Position 1, drawn from the run id."""
    return "A" if hashlib.sha256(run_id.encode("utf-8")).digest()[0] % 2 == 0 else "B"


@dataclass(frozen=True)
class Labels:
    first: Side  # the side shown as "Position 1"
    name_a: str
    name_b: str

    def label(self, side: Side) -> str:
        return LABELS[0] if side == self.first else LABELS[1]

    def side_of(self, label: str) -> Side:
        return self.first if label == LABELS[0] else ("B" if self.first == "A" else "A")

    def order(self) -> tuple[Side, Side]:
        """The sides in label order: Position 1's first."""
        return (self.first, "B" if self.first == "A" else "A")

    def hide(self, text: str) -> str:
        """Role names (whole words, longest first) and "Role A/B" → the labels."""
        names = {
            "Role A": self.label("A"),
            "Role B": self.label("B"),
            self.name_a: self.label("A"),
            self.name_b: self.label("B"),
        }
        return _replace_words(text, {k: v for k, v in names.items() if k.strip()})

    def names(self) -> dict[str, str]:
        """Each label → its role's name (what :meth:`reveal` replaces)."""
        return {self.label("A"): self.name_a, self.label("B"): self.name_b}

    def reveal(self, text: str) -> str:
        """The labels in the Judge's text → the role names."""
        return _replace_words(text, self.names())


def _replace_words(text: str, mapping: dict[str, str]) -> str:
    if not mapping:
        return text
    keys = sorted(mapping, key=len, reverse=True)
    # ASCII word boundaries: Japanese has no spaces, so a name there matches where it is.
    alternatives = (rf"(?<![A-Za-z0-9_]){re.escape(k)}(?![A-Za-z0-9_])" for k in keys)
    pattern = re.compile("|".join(alternatives))
    return pattern.sub(lambda m: mapping[m.group(0)], text)
