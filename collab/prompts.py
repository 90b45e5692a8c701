"""Prompts for the debaters, the re-ask and the judge, rendered from Jinja templates.

Security (DESIGN §10): templates come only from files (the user's template dir, then
the built-in one); the topic, role texts, context files, earlier replies and ledger
text are passed as template *variables* only, and each is run through
:func:`collab.text.for_prompt` first, so none of it can execute as Jinja, open or close a code
fence, forge one of our ``<<<COLLAB:…>>>`` / ``<<<END:…>>>`` sections, or flood the
prompt. Running text (topic, descriptions, files, replies, ledger) always sits inside
such a section; names, paths and labels are folded to one short line.
"""

from __future__ import annotations

import tomllib
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from jinja2 import Environment, FileSystemLoader, StrictUndefined, Template, TemplateSyntaxError
from jinja2 import TemplateError as JinjaError

from collab.config import DebateConfig, Role
from collab.contract import DEFAULT_LIMITS
from collab.errors import CollabError
from collab.lang import Lang
from collab.ledger import Issue, Ledger, Side
from collab.paths import builtin_dir, user_dir
from collab.text import for_prompt, prompt_cell, prompt_line

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


@lru_cache(maxsize=32)
def _context_text(text: str) -> str:
    """Context files are the same in every prompt of a run: neutralise each one once."""
    return for_prompt(text.rstrip(), MAX_CONTEXT_CHARS_PER_FILE)


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
        name=prompt_line(role.name, MAX_NAME_CHARS),
        description=for_prompt(role.description.strip(), MAX_DESCRIPTION_CHARS),
    )


def _speaker(cfg: DebateConfig, side: Side) -> dict[str, object]:
    """What every debater-facing prompt shows: the topic, who speaks, who answers."""
    return {
        "topic": for_prompt(cfg.topic.strip(), MAX_TOPIC_CHARS),
        "me": _role_view(cfg.role(side)),
        "opponent": _role_view(cfg.role("B" if side == "A" else "A")),
        "role_a": _role_view(cfg.role_a),
        "role_b": _role_view(cfg.role_b),
    }


STALE_TITLE_CHARS = 80


def _issue_row(issue: Issue, evidence_cap: int) -> _IssueRow:
    """``evidence_cap`` 0: a stale row, without evidence (``ELIDED``) and a shorter title."""
    return _IssueRow(
        id=prompt_cell(issue.id, 16),
        status=issue.status,
        title=prompt_cell(
            issue.title, DEFAULT_LIMITS.max_title_chars if evidence_cap else STALE_TITLE_CHARS
        ),
        raised_by=issue.raised_by,
        evidence_a=prompt_cell(issue.evidence_a, evidence_cap) if evidence_cap else ELIDED,
        evidence_b=prompt_cell(issue.evidence_b, evidence_cap) if evidence_cap else ELIDED,
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
            name=prompt_line(t.role_name, MAX_NAME_CHARS),
            status=prompt_line(t.status, 20),
            prose=for_prompt(t.prose.strip(), reply_cap) or "(empty)",
        )
        for t in turns
    ]


def _contract_view(ledger: Ledger) -> _ContractView:
    ids = tuple(prompt_line(i.id, 16) for i in ledger.issues)
    open_ids = [prompt_line(i.id, 16) for i in ledger.issues if i.status == "open"]
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
                    path=prompt_line(c.path, MAX_PATH_CHARS),
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
            angle=prompt_line(angle, MAX_ANGLE_CHARS) if angle and angle.strip() else None,
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
        prev = for_prompt(previous.strip(), REPLY_CAP_FACTOR * cfg.max_chars) if previous else ""
        return self._render(
            "reask.md.j2",
            **_speaker(cfg, side),
            error=for_prompt(error.strip(), MAX_ERROR_CHARS) or "(no details)",
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
            topic=for_prompt(cfg.topic.strip(), MAX_TOPIC_CHARS),
            role_a=_role_view(cfg.role_a),
            role_b=_role_view(cfg.role_b),
            stop_reason=prompt_line(stop_reason, 40),
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
