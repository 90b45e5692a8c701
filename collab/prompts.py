"""Prompts for the debaters, the re-ask and the judge, rendered from Jinja templates.

Security (DESIGN §10): templates come only from files (the user's template dir, then
the built-in one); the topic, role texts, context files, earlier replies and ledger
text are passed as template *variables* only, and each is run through
:func:`neutralize` first, so none of it can execute as Jinja, open or close a code
fence, forge one of our ``<<<COLLAB:…>>>`` / ``<<<END:…>>>`` sections, or flood the
prompt. Running text (topic, descriptions, files, replies, ledger) always sits inside
such a section; names, paths and labels are folded to one short line.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from jinja2 import Environment, FileSystemLoader, StrictUndefined, Template, TemplateSyntaxError
from jinja2 import TemplateError as JinjaError

from collab.config import DebateConfig, Lang, Role
from collab.contract import DEFAULT_LIMITS
from collab.errors import CollabError, UsageError
from collab.ledger import Issue, Ledger, Side
from collab.paths import builtin_dir, user_dir

MAX_CONTEXT_CHARS_PER_FILE = 20_000
REPLY_CAP_FACTOR = 4  # a reply in a later prompt is capped at this many times cfg.max_chars


def older_reply_cap(cfg: DebateConfig) -> int:
    """The round before the previous one is context, not what to rebut: an excerpt."""
    return max(200, cfg.max_chars // 5)


MAX_TOPIC_CHARS = 4_000
MAX_NAME_CHARS = 80
MAX_DESCRIPTION_CHARS = 4_000
MAX_PATH_CHARS = 300
MAX_ERROR_CHARS = 1_000
MAX_ANGLE_CHARS = 500
# Per cell in the debaters' table, for open issues argued in the last round; the judge
# sees the full cap. Older or closed issues show only id, status and title ("·"), so the
# prompt grows with the live argument, not with the history (the rounds shown carry it).
LEDGER_EVIDENCE_CHARS = 80
ELIDED = "·"

# The headings the judge is asked for, per language: report code may check for them.
JUDGE_SECTIONS: dict[Lang, tuple[str, ...]] = {
    "en": (
        "## TL;DR",
        "## Agreements",
        "## Open disagreements",
        "## Trade-offs",
        "## Recommended actions",
    ),
    "ja": ("## TL;DR", "## 合意点", "## 未解決の対立点", "## トレードオフ", "## 推奨アクション"),
}

_TEMPLATES = ("role.md.j2", "reask.md.j2", "judge.md.j2")


class TemplateError(CollabError):
    """A template or angles file is missing or broken; names the file and, if known, the line."""

    kind = "template"


@dataclass(frozen=True)
class TurnView:
    round_no: int
    side: Side
    role_name: str
    prose: str  # the prose only (contract block removed); may be "(timeout)" / "(no response)"
    status: str  # "ok" | "abstain" | "timeout" | "no-response" | "error"


# ---------------------------------------------------------------------------
# Neutralising untrusted text

_NEWLINE = re.compile("[\r\u0085\u2028\u2029]")
_ANSI = re.compile(
    r"\x1b\[[0-?]*[ -/]*[@-~]"  # CSI: colours, cursor movement, erase
    r"|\x1b\][^\x07\x1b]{0,1024}(?:\x07|\x1b\\)"  # OSC: titles, hyperlinks
    r"|\x1b[PX^_][^\x1b]{0,1024}\x1b\\"  # DCS / SOS / PM / APC strings
    r"|\x1b[ -/]*[0-~]"  # other two-byte escapes
    r"|\x9b[0-?]*[ -/]*[@-~]"  # 8-bit CSI
)
# C0 and C1 controls except \t and \n, DEL, invisible format characters that can hide
# or reorder text (zero-width, bidi overrides, BOM), and lone surrogates (unwritable).
_CONTROL = re.compile(
    "[\x00-\x08\x0b-\x1f\x7f-\x9f\u00ad\u061c\u180e\u200b-\u200f\u202a-\u202e"
    "\u2060-\u2064\u2066-\u2069\ufeff\ud800-\udfff]"
)
# Every backtick or tilde that belongs to a run of three or more (a fence); a static
# replacement keeps even a file full of fences cheap. U+02CB / U+02DC look alike.
_BACKTICK_RUN = re.compile(r"`(?=``)|(?<=``)`|(?<=`)`(?=`)")
_TILDE_RUN = re.compile(r"~(?=~~)|(?<=~~)~|(?<=~)~(?=~)")
_DELIMITER = re.compile(r"[<＜﹤]{3,}(?=\s*(?:collab|end))", re.IGNORECASE)


def neutralize(text: str, cap: int) -> str:
    """Make untrusted text safe to place inside one of our delimited prompt sections.

    Removes control characters (and with them ANSI escape sequences), turns code
    fences into a harmless look-alike, defuses ``<<<COLLAB``/``<<<END`` so the text
    can neither close nor forge a section, and caps the result at ``cap`` characters
    plus a visible ``…[truncated N chars]`` marker.
    """
    if cap < 0:
        raise ValueError(f"cap must be >= 0, not {cap}")
    # Each pass runs only when its trigger is present: most text needs none of them,
    # and a 20 000-character context file is neutralised once per prompt.
    if "\r" in text or "\u0085" in text or "\u2028" in text or "\u2029" in text:
        text = _NEWLINE.sub("\n", text.replace("\r\n", "\n"))
    if "\x1b" in text or "\x9b" in text:
        text = _ANSI.sub("", text)
    text = _CONTROL.sub("", text)
    if "```" in text:
        text = _BACKTICK_RUN.sub("ˋ", text)
    if "~~~" in text:
        text = _TILDE_RUN.sub("˜", text)
    if "<<<" in text or "＜" in text or "﹤" in text:
        text = _DELIMITER.sub(lambda m: "‹" * len(m.group(0)), text)
    if len(text) > cap:
        text = f"{text[:cap]}…[truncated {len(text) - cap} chars]"
    return text


@lru_cache(maxsize=32)
def _context_text(text: str) -> str:
    """Context files are the same in every prompt of a run: neutralise each one once."""
    return neutralize(text.rstrip(), MAX_CONTEXT_CHARS_PER_FILE)


def _inline(text: str, cap: int) -> str:
    """For names, paths and labels that must stay on one line."""
    return neutralize(" ".join(text.split()), cap)


def _cell(text: str, cap: int) -> str:
    """For a Markdown table cell: one line, pipes escaped, never empty."""
    return _inline(text, cap).replace("|", "\\|") or "—"


_JA_CHAR = re.compile(
    "[\u3005-\u3007\u3040-\u30ff\u31f0-\u31ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff66-\uff9f]"
)
_LATIN_WORD = re.compile("[A-Za-z\u00c0-\u024f]+")


def detect_lang(topic: str) -> Lang:
    """``"ja"`` when most of the topic's letters are Japanese (kana or kanji).

    A Latin word counts as two letters, whatever its length: a Japanese word is about
    two characters, so "Reactのstate管理" reads as Japanese, as its author meant.
    """
    ja = len(_JA_CHAR.findall(topic))
    if ja == 0:
        return "en"
    latin_words = _LATIN_WORD.findall(topic)
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
    raise UsageError(f"unknown language '{choice}'; choose one of: auto, en, ja")


# ---------------------------------------------------------------------------
# What the templates see: small typed views, every string already neutralised.


@dataclass(frozen=True)
class _RoleView:
    side: Side
    name: str
    description: str


@dataclass(frozen=True)
class _ContextView:
    n: int
    path: str
    text: str


@dataclass(frozen=True)
class _IssueRow:
    id: str
    status: str
    title: str
    raised_by: str
    evidence_a: str
    evidence_b: str


@dataclass(frozen=True)
class _TurnRow:
    round_no: int
    side: Side
    name: str
    status: str
    prose: str


@dataclass(frozen=True)
class _ContractView:
    max_new_points: int
    max_title_chars: int
    max_evidence_chars: int
    max_abstain_chars: int
    ids: tuple[str, ...]
    example_id: str


def _role_view(role: Role) -> _RoleView:
    return _RoleView(
        side=role.side,
        name=_inline(role.name, MAX_NAME_CHARS),
        description=neutralize(role.description.strip(), MAX_DESCRIPTION_CHARS),
    )


def _speaker(cfg: DebateConfig, side: Side) -> dict[str, object]:
    """What every debater-facing prompt shows: the topic, who speaks, who answers."""
    return {
        "topic": neutralize(cfg.topic.strip(), MAX_TOPIC_CHARS),
        "me": _role_view(cfg.role(side)),
        "opponent": _role_view(cfg.role("B" if side == "A" else "A")),
        "role_a": _role_view(cfg.role_a),
        "role_b": _role_view(cfg.role_b),
    }


STALE_TITLE_CHARS = 80


def _issue_row(issue: Issue, evidence_cap: int) -> _IssueRow:
    """``evidence_cap`` 0: a stale row, without evidence (``ELIDED``) and a shorter title."""
    return _IssueRow(
        id=_cell(issue.id, 16),
        status=issue.status,
        title=_cell(
            issue.title, DEFAULT_LIMITS.max_title_chars if evidence_cap else STALE_TITLE_CHARS
        ),
        raised_by=issue.raised_by,
        evidence_a=_cell(issue.evidence_a, evidence_cap) if evidence_cap else ELIDED,
        evidence_b=_cell(issue.evidence_b, evidence_cap) if evidence_cap else ELIDED,
    )


def _live_ledger_rows(ledger: Ledger, round_no: int) -> list[_IssueRow]:
    """Evidence only for open issues changed in the previous round or this one."""
    return [
        _issue_row(
            i,
            LEDGER_EVIDENCE_CHARS if i.status == "open" and i.round_updated >= round_no - 1 else 0,
        )
        for i in ledger.issues
    ]


def _turn_rows(turns: Sequence[TurnView], reply_cap: int) -> list[_TurnRow]:
    return [
        _TurnRow(
            round_no=t.round_no,
            side=t.side,
            name=_inline(t.role_name, MAX_NAME_CHARS),
            status=_inline(t.status, 20),
            prose=neutralize(t.prose.strip(), reply_cap) or "(empty)",
        )
        for t in turns
    ]


def _contract_view(ledger: Ledger) -> _ContractView:
    ids = tuple(_inline(i.id, 16) for i in ledger.issues)
    open_ids = [_inline(i.id, 16) for i in ledger.issues if i.status == "open"]
    example = open_ids[0] if open_ids else (ids[0] if ids else "I1")
    return _ContractView(
        max_new_points=DEFAULT_LIMITS.max_new_points,
        max_title_chars=DEFAULT_LIMITS.max_title_chars,
        max_evidence_chars=DEFAULT_LIMITS.max_evidence_chars,
        max_abstain_chars=DEFAULT_LIMITS.max_abstain_chars,
        ids=ids,
        example_id=example,
    )


def _recent_turns(history: Sequence[TurnView], side: Side, round_no: int) -> list[TurnView]:
    """The two rounds before this one, plus A's reply of this round when B speaks."""
    first = round_no - 2
    return [
        t
        for t in history
        if first <= t.round_no < round_no
        or (side == "B" and t.round_no == round_no and t.side == "A")
    ]


class Prompts:
    """Renders every prompt of one run in one language; templates are compiled once."""

    def __init__(self, lang: Lang) -> None:
        self.lang: Lang = lang
        self._dirs = [user_dir("templates") / lang, builtin_dir("templates") / lang]
        self._env = Environment(
            loader=FileSystemLoader([str(d) for d in self._dirs]),
            undefined=StrictUndefined,
            autoescape=False,
            keep_trailing_newline=True,
            trim_blocks=True,
            lstrip_blocks=True,
            auto_reload=False,
        )
        self._templates = {name: self._load(name) for name in _TEMPLATES}
        self._angles = self._load_angles()

    def role(
        self,
        cfg: DebateConfig,
        side: Side,
        round_no: int,
        ledger: Ledger,
        history: Sequence[TurnView],
        angle: str | None,
    ) -> str:
        recent = _recent_turns(history, side, round_no)
        return self._render(
            "role.md.j2",
            **_speaker(cfg, side),
            round_no=round_no,
            rounds=cfg.rounds,
            contexts=[
                _ContextView(
                    n=n,
                    path=_inline(c.path, MAX_PATH_CHARS),
                    text=_context_text(c.text),
                )
                for n, c in enumerate(cfg.contexts, start=1)
            ],
            issues=_live_ledger_rows(ledger, round_no),
            history=_turn_rows(
                [t for t in recent if t.round_no < round_no - 1], older_reply_cap(cfg)
            )
            + _turn_rows(
                [t for t in recent if t.round_no >= round_no - 1], REPLY_CAP_FACTOR * cfg.max_chars
            ),
            older_rounds_hidden=any(t.round_no < round_no - 2 for t in history),
            angle=_inline(angle, MAX_ANGLE_CHARS) if angle and angle.strip() else None,
            contract=_contract_view(ledger),
            max_chars=cfg.max_chars,
        )

    def reask(
        self,
        cfg: DebateConfig,
        side: Side,
        error: str,
        ledger: Ledger,
        *,
        previous: str | None = None,
    ) -> str:
        """The json block alone. ``previous`` (the invalid reply's prose) lets an agent
        without session memory restate what it argued instead of guessing."""
        prev = neutralize(previous.strip(), REPLY_CAP_FACTOR * cfg.max_chars) if previous else ""
        return self._render(
            "reask.md.j2",
            **_speaker(cfg, side),
            error=neutralize(error.strip(), MAX_ERROR_CHARS) or "(no details)",
            previous=prev or None,
            issues=[_issue_row(i, LEDGER_EVIDENCE_CHARS) for i in ledger.issues],
            contract=_contract_view(ledger),
        )

    def judge(
        self,
        cfg: DebateConfig,
        ledger: Ledger,
        history: Sequence[TurnView],
        stop_reason: str,
    ) -> str:
        return self._render(
            "judge.md.j2",
            topic=neutralize(cfg.topic.strip(), MAX_TOPIC_CHARS),
            role_a=_role_view(cfg.role_a),
            role_b=_role_view(cfg.role_b),
            stop_reason=_inline(stop_reason, 40),
            rounds=cfg.rounds,
            rounds_held=max((t.round_no for t in history), default=0),
            issues=[_issue_row(i, DEFAULT_LIMITS.max_evidence_chars) for i in ledger.issues],
            history=_turn_rows(history, REPLY_CAP_FACTOR * cfg.max_chars),
        )

    def angle(self, index: int) -> str:
        """The ``index``-th "new angle" text, cycling through angles.toml."""
        return self._angles[index % len(self._angles)]

    def _load(self, name: str) -> Template:
        try:
            return self._env.get_template(name)
        except TemplateSyntaxError as exc:
            where = f"{exc.filename or name}:{exc.lineno}"
            raise TemplateError(f"template {where}: {exc.message}") from exc
        except JinjaError as exc:
            searched = ", ".join(str(d) for d in self._dirs)
            raise TemplateError(f"template {name}: {exc} (searched {searched})") from exc

    def _render(self, name: str, **variables: object) -> str:
        try:
            text = self._templates[name].render(**variables)
        except JinjaError as exc:
            raise TemplateError(f"template {_where(exc, name)}: {exc}") from exc
        return text if text.endswith("\n") else text + "\n"

    def _load_angles(self) -> tuple[str, ...]:
        path = next((p for d in self._dirs if (p := d / "angles.toml").is_file()), None)
        if path is None:
            raise TemplateError(f"angles.toml not found in {self._dirs[-1]}")
        try:
            data = tomllib.loads(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
            raise TemplateError(f"{path}: {exc}") from None
        raw = data.get("angles")
        if not isinstance(raw, list) or not raw:
            raise TemplateError(f"{path}: 'angles' must be a non-empty list of strings")
        angles: list[str] = []
        for n, item in enumerate(raw, start=1):
            if not isinstance(item, str) or not item.strip():
                raise TemplateError(f"{path}: angle {n} must be a non-empty string")
            angles.append(item.strip())
        return tuple(angles)


def _where(exc: BaseException, name: str) -> str:
    """``file:line`` of the innermost template frame, from Jinja's rewritten traceback."""
    where = name
    tb = exc.__traceback__
    while tb is not None:
        filename = tb.tb_frame.f_code.co_filename
        if filename.endswith(".j2"):
            where = f"{filename}:{tb.tb_lineno}"
        tb = tb.tb_next
    return where
