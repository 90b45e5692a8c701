"""The figures every bench reports: percentiles, medians, summaries, interleaved order."""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from typing import Any


def percentile(values: Sequence[float], q: float) -> float:
    """Linear interpolation between closest ranks (numpy's default); q in [0, 100]."""
    if not values:
        return math.nan
    xs = sorted(values)
    if len(xs) == 1:
        return xs[0]
    pos = (len(xs) - 1) * q / 100.0
    lo = math.floor(pos)
    hi = min(lo + 1, len(xs) - 1)
    return xs[lo] + (xs[hi] - xs[lo]) * (pos - lo)


def median(values: Sequence[float]) -> float:
    return percentile(values, 50.0)


def summary(values: Sequence[float], ndigits: int = 6) -> dict[str, Any]:
    """n, median, p95, min, max, mean (and the samples) of a list of numbers."""
    xs = [float(v) for v in values]
    if not xs:
        return {"n": 0}
    return {
        "n": len(xs),
        "median": round(median(xs), ndigits),
        "p95": round(percentile(xs, 95.0), ndigits),
        "min": round(min(xs), ndigits),
        "max": round(max(xs), ndigits),
        "mean": round(sum(xs) / len(xs), ndigits),
        "samples": [round(x, ndigits) for x in xs],
    }


def interleave(variants: Iterable[str], n: int) -> list[str]:
    """Round-robin order, so noise on a busy machine hits every variant alike."""
    names = list(variants)
    return [v for _ in range(n) for v in names]
