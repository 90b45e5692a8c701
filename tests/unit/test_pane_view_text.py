"""The pane's text shaping: the contract block hidden however the stream is split, and
prose wrapped by display width (Latin at spaces, Japanese anywhere)."""

from __future__ import annotations

import pytest

from collab.runners.pane_view_text import RECORDING, ContractHider, Wrapper, cell_width

PROSE = "Sessions are revocable; JWTs are not, until they expire.\n\nSo keep sessions.\n"
CONTRACT = '{"new_points": [{"title": "SECRET-TITLE", "evidence": "x"}], "stances": []}'

# (id, reply, what must be shown, what must never be shown)
CASES = [
    ("json-fence", f"{PROSE}```json\n{CONTRACT}\n```\n", ["keep sessions."], ["SECRET", "```"]),
    ("JSON-fence", f"{PROSE}```JSON\n{CONTRACT}\n```", ["keep sessions."], ["SECRET", "```"]),
    ("tilde-fence", f"{PROSE}~~~json\n{CONTRACT}\n~~~\n", ["Sessions are"], ["SECRET", "~~~"]),
    ("untagged-brace", f"{PROSE}```\n{CONTRACT}\n```\n", ["keep sessions."], ["SECRET", "```"]),
    ("indented-fence", f"{PROSE}  ```json\n  {CONTRACT}\n  ```\n", ["keep"], ["SECRET", "```"]),
    ("bare-object", f"{PROSE}{CONTRACT}\n", ["keep sessions."], ["SECRET", "new_points"]),
    (
        "bare-multiline",
        f'{PROSE}{{\n  "new_points": [{{"title": "SECRET-TITLE"}}]\n}}\n',
        ["keep sessions."],
        ["SECRET", "new_points"],
    ),
    (
        "sign-off-after",
        f"{PROSE}```json\n{CONTRACT}\n```\nThanks for reading.\n",
        ["keep sessions.", "Thanks for reading."],
        ["SECRET"],
    ),
    (
        "code-block-stays",
        f"Try:\n```python\nprint('hi')\n```\n{PROSE}```json\n{CONTRACT}\n```\n",
        ["```python", "print('hi')", "keep sessions."],
        ["SECRET"],
    ),
    (
        "untagged-code-stays",
        f"Run:\n```\nmake test\n```\n{PROSE}```json\n{CONTRACT}\n```\n",
        ["make test", "keep sessions."],
        ["SECRET"],
    ),
    ("inline-braces-stay", "Use {curly} braces\n{not json}\n", ["{curly}", "{not json}"], []),
    ("prose-json-stays", '{"timeout": 30} is the default\n', ['{"timeout": 30} is the'], []),
]


def shown(reply: str, cuts: list[int]) -> tuple[str, int]:
    """The text shown and how many markers, feeding ``reply`` cut at ``cuts``."""
    hider = ContractHider()
    pieces = []
    last = 0
    for c in [*cuts, len(reply)]:
        pieces += hider.feed(reply[last:c])
        last = c
    pieces += hider.finish()
    text = "".join(s for kind, s in pieces if kind == "text")
    return text, sum(1 for kind, _ in pieces if kind == "marker")


@pytest.mark.parametrize(("case", "reply", "want", "never"), CASES, ids=[c[0] for c in CASES])
def test_contract_hidden_at_every_split(
    case: str, reply: str, want: list[str], never: list[str]
) -> None:
    has_block = bool(never)
    splits: list[list[int]] = [[]]
    splits += [[i] for i in range(1, len(reply))]  # every two-piece split
    splits.append(list(range(1, len(reply))))  # one character at a time
    for cuts in splits:
        text, markers = shown(reply, cuts)
        for w in want:
            assert w in text, (cuts, text)
        for n in never:
            assert n not in text, (cuts, text)
        assert markers == (1 if has_block else 0), cuts


def test_marker_comes_where_the_block_starts_before_it_ends() -> None:
    """The marker is out as soon as the fence's info is known: no wait for the block."""
    hider = ContractHider()
    assert all(kind == "text" for kind, _ in hider.feed(PROSE))
    pieces = hider.feed('```json\n{"new_points": [{"ti')
    assert ("marker", RECORDING) in pieces
    assert all("new_points" not in s for _, s in pieces)


def test_prose_is_shown_while_it_streams() -> None:
    """A plain line is shown as it comes, not held until its newline."""
    hider = ContractHider()
    assert "".join(s for _, s in hider.feed("Sessions are rev")) == "Sessions are rev"


def cells(line: str) -> int:
    return sum(cell_width(c) for c in line)


LATIN = (
    "The session check happens on every request, and revocation is immediate when the "
    "server holds the state; stateless tokens trade that for horizontal scaling. "
) * 3
JAPANESE = "セッションは即座に失効できますが、JWTは期限まで有効なままです。" * 4


@pytest.mark.parametrize("width", [20, 38, 40, 79])
@pytest.mark.parametrize("chunk", [1, 7, 1000])
def test_wrap_latin_never_mid_word(width: int, chunk: int) -> None:
    w = Wrapper(width)
    out = "".join(w.feed(LATIN[i : i + chunk]) for i in range(0, len(LATIN), chunk)) + w.flush()
    lines = out.split("\n")
    assert len(lines) > 1
    words = set(LATIN.split())
    for line in lines:
        assert cells(line) <= width, line
        for word in line.split():
            assert word in words, (word, line)  # no word cut in two
    assert out.split() == LATIN.split()


@pytest.mark.parametrize("width", [20, 39, 40, 80])
def test_wrap_japanese_by_display_width(width: int) -> None:
    w = Wrapper(width)
    out = "".join(w.feed(ch) for ch in JAPANESE) + w.flush()
    lines = out.split("\n")
    assert len(lines) > 1
    assert all(cells(line) <= width for line in lines)
    # Full lines are full: wide characters fill the line (a short Latin word "JWT" may
    # move whole to the next one).
    assert all(cells(line) >= width - 4 for line in lines[:-1])
    assert out.replace("\n", "") == JAPANESE


@pytest.mark.parametrize("width", range(20, 82))
def test_wrap_japanese_punctuation_never_starts_a_line(width: int) -> None:
    w = Wrapper(width)
    out = "".join(w.feed(ch) for ch in JAPANESE) + w.flush()
    assert all(line[:1] not in "、。" for line in out.split("\n")), out
    assert all(cells(line) <= width for line in out.split("\n"))
    assert out.replace("\n", "") == JAPANESE


def test_wrap_long_word_is_cut_only_when_longer_than_a_line() -> None:
    w = Wrapper(10)
    out = w.feed("ab https://example.com/very/long/path cd ") + w.flush()
    assert all(cells(line) <= 10 for line in out.split("\n"))
    assert out.replace("\n", "").replace(" ", "") == "abhttps://example.com/very/long/pathcd"


def test_cell_width() -> None:
    assert [cell_width(c) for c in "aé日ア\u0301"] == [1, 1, 2, 2, 0]
