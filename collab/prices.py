"""What a turn costs when its agent does not say: an estimate from a dated price table.

Only claude reports a turn's cost. For every other agent ``max_cost`` would bind nothing,
so collab estimates the cost from the tokens the agent reported or, failing that, from
the prompt's and the reply's sizes (four characters a token), at the list prices below
(USD per million tokens, input and output, as published on ``PRICES_AS_OF``). The
figure is marked as an estimate wherever it is shown, and the cap stops on it.

Keys are ``AGENT:MODEL`` glob patterns (``fnmatch``, lower case); the model is
``default`` when none was given. ``[prices]`` in config.toml overrides or adds, e.g.
``"llm:gpt-4.1*" = [2.0, 8.0]`` or ``"llm:smollm2*" = [0, 0]`` for a local model.
The first matching pattern wins, the user's before ours.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fnmatch import fnmatchcase
from pathlib import Path

from collab.errors import UsageError
from collab.paths import config_table

PRICES_AS_OF = "2026-12-01"
CHARS_PER_TOKEN = 4


def fmt_cost(cost: float | None, estimated: bool = False) -> str:
    """A cost as every view and message shows it: ``$0.0123``; an estimate (the agent
    reported none) says so; ``n/a`` when none is known. The one place a cost is formatted."""
    if cost is None:
        return "n/a"
    return f"~${cost:.4f} (estimate)" if estimated else f"${cost:.4f}"


@dataclass(frozen=True)
class Price:
    pattern: str
    input_per_mtok: float
    output_per_mtok: float


# List prices (USD per million tokens) as of PRICES_AS_OF; an estimate, not a bill.
DEFAULT_PRICES: tuple[Price, ...] = (
    Price("codex:default", 1.25, 10.0),  # the CLI's default model (gpt-5 class)
    Price("*:gpt-5*mini*", 0.25, 2.0),
    Price("*:gpt-5*", 1.25, 10.0),
    Price("*:gpt-4.1-mini*", 0.4, 1.6),
    Price("*:gpt-4.1*", 2.0, 8.0),
    Price("*:gpt-4o-mini*", 0.15, 0.6),
    Price("*:gpt-4o*", 2.5, 10.0),
    Price("*:o4-mini*", 1.1, 4.4),
    Price("*:o3*", 2.0, 8.0),
    Price("gemini:default", 1.25, 10.0),  # gemini-2.5-pro
    Price("*:gemini-*flash-lite*", 0.1, 0.4),
    Price("*:gemini-*flash*", 0.3, 2.5),
    Price("*:gemini-*pro*", 1.25, 10.0),
    Price("*:claude-*opus*", 15.0, 75.0),
    Price("*:claude-*sonnet*", 3.0, 15.0),
    Price("*:claude-*haiku*", 0.8, 4.0),
    Price("ollama:*", 0.0, 0.0),  # a model on this machine
)


def price_for(agent: str, model: str | None, table: Sequence[Price]) -> Price | None:
    key = f"{agent}:{model or 'default'}".lower()
    for price in table:
        if fnmatchcase(key, price.pattern.lower()):
            return price
    return None


def estimate(
    price: Price,
    prompt_chars: int,
    reply_chars: int,
    input_tokens: int | None = None,
    output_tokens: int | None = None,
) -> float:
    """USD for one call: the reported token counts where there are any, else sizes."""
    tin = input_tokens if input_tokens else -(-prompt_chars // CHARS_PER_TOKEN)
    tout = output_tokens if output_tokens else -(-reply_chars // CHARS_PER_TOKEN)
    return round((tin * price.input_per_mtok + tout * price.output_per_mtok) / 1e6, 6)


def load_prices(path: Path | None = None) -> tuple[Price, ...]:
    """``[prices]`` of config.toml before the defaults."""
    path, table = config_table("prices", path)
    return (*_user_prices(path, table), *DEFAULT_PRICES)


def _user_prices(path: Path, table: Mapping[str, object]) -> list[Price]:
    out = []
    for pattern, value in table.items():
        ok = (
            isinstance(value, list)
            and len(value) == 2
            and all(isinstance(v, int | float) and not isinstance(v, bool) and v >= 0
                    for v in value)
        )  # fmt: skip
        if not ok or ":" not in pattern:
            raise UsageError(
                f'{path}: [prices] {pattern!r} must be "AGENT:MODEL" = [input, output] in '
                'USD per million tokens, e.g. "llm:gpt-4.1*" = [2.0, 8.0]'
            )
        assert isinstance(value, list)
        out.append(Price(pattern, float(value[0]), float(value[1])))
    return out
