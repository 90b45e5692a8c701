"""Result rows: a metric, its value and target, the verdict; what the table and the JSON show."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from bench.stats import percentile


@dataclass(frozen=True)
class Target:
    op: Literal["<=", ">="]
    limit: float

    def check(self, value: float) -> bool:
        return value <= self.limit if self.op == "<=" else value >= self.limit


def le(limit: float) -> Target:
    return Target("<=", limit)


def ge(limit: float) -> Target:
    return Target(">=", limit)


Unit = Literal["µs", "ms", "s", "MB", "x", "chars", "%", "tokens", "$", ""]

_FORMATS: dict[str, str] = {
    "µs": "{:.0f} µs",
    "ms": "{:.1f} ms",
    "s": "{:.2f} s",
    "MB": "{:.1f} MB",
    "x": "{:.2f}×",
    "chars": "{:,.0f} chars",
    "%": "{:.1f} %",
    "tokens": "{:,.0f} tokens",
    "$": "${:.4f}",
}


def fmt_value(value: float | None, unit: Unit) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "n/a"
    return _FORMATS.get(unit, "{:g}").format(value)


@dataclass
class Row:
    """One line of the table. ``ok`` None: information only (no target)."""

    bench: str
    metric: str
    value: float | None
    unit: Unit
    target: Target | None = None
    note: str = ""
    skipped: bool = False

    @property
    def ok(self) -> bool | None:
        if self.target is None or self.value is None or self.skipped:
            return None
        if isinstance(self.value, float) and math.isnan(self.value):
            return None
        return self.target.check(self.value)

    def target_text(self) -> str:
        if self.target is None:
            return "—"
        sym = "≤" if self.target.op == "<=" else "≥"
        return f"{sym} {fmt_value(self.target.limit, self.unit)}"

    def result_text(self) -> str:
        if self.skipped:
            return "skip"
        ok = self.ok
        return "info" if ok is None else ("pass" if ok else "MISS")

    def to_dict(self) -> dict[str, Any]:
        return {
            "bench": self.bench,
            "metric": self.metric,
            "value": self.value,
            "unit": self.unit,
            "value_text": "skipped" if self.skipped else fmt_value(self.value, self.unit),
            "target": None
            if self.target is None
            else {"op": self.target.op, "limit": self.target.limit, "text": self.target_text()},
            "result": self.result_text(),
            "note": self.note,
        }


@dataclass
class BenchResult:
    name: str
    rows: list[Row] = field(default_factory=list)
    data: dict[str, Any] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    seconds: float = 0.0
    error: str | None = None

    def row(
        self,
        metric: str,
        value: float | None,
        unit: Unit,
        target: Target | None = None,
        note: str = "",
    ) -> Row:
        r = Row(self.name, metric, value, unit, target, note)
        self.rows.append(r)
        return r

    def skip(self, metric: str, unit: Unit, target: Target | None, note: str) -> Row:
        r = Row(self.name, metric, None, unit, target, note, skipped=True)
        self.rows.append(r)
        return r


def spread(values: Sequence[float], unit: Unit, scale: float = 1.0) -> str:
    """``n=30 · p95 12.3 ms`` for the notes column."""
    if not values:
        return "n=0"
    return f"n={len(values)} · p95 {fmt_value(percentile(values, 95) * scale, unit)}"
