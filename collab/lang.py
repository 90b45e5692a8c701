"""Which language a debate runs in: English or Japanese, chosen or detected from the topic."""

from __future__ import annotations

import functools
import re
from typing import Literal

from collab.errors import UsageError
from collab.suggest import did_you_mean

Lang = Literal["en", "ja"]


@functools.cache
def _patterns() -> tuple[re.Pattern[str], re.Pattern[str]]:
    """Japanese characters and Latin words. Compiled when first needed, not at import: the
    large character class costs ~2 ms that commands which never detect a language (every
    command imports this module through the options) would pay."""
    ja = re.compile(
        "[\u3005-\u3007\u3040-\u30ff\u31f0-\u31ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
        "\uff66-\uff9f]"
    )
    return ja, re.compile("[A-Za-z\u00c0-\u024f]+")


def detect_lang(topic: str) -> Lang:
    """``"ja"`` when most of the topic's letters are Japanese (kana or kanji).

    A Latin word counts as two letters, whatever its length: a Japanese word is about
    two characters, so "Reactのstate管理" reads as Japanese, as its author meant.
    """
    ja_char, latin_word = _patterns()
    ja = len(ja_char.findall(topic))
    if ja == 0:
        return "en"
    latin_words = latin_word.findall(topic)
    latin_letters = sum(len(w) for w in latin_words)
    other = sum(1 for ch in topic if ch.isalpha()) - ja - latin_letters
    return "ja" if ja > 2 * len(latin_words) + max(other, 0) else "en"


def resolve_lang(choice: str, topic: str) -> Lang:
    if choice == "auto":
        return detect_lang(topic)
    if choice == "en":
        return "en"
    if choice == "ja":
        return "ja"
    hint = did_you_mean(choice, ("auto", "en", "ja"), "choose one of: auto, en, ja")
    raise UsageError(f"unknown language '{choice}'; {hint}")
