"""Prompts for the debaters, the re-ask and the judge, rendered from Jinja templates.

Security: templates come only from files (the user's template dir, then
the built-in one); the topic, role texts, context files, earlier replies and ledger
text are passed as template *variables* only, and each is run through
:func:`collab.text.for_prompt` first, so none of it can execute as Jinja, open or close a code
fence, forge one of our ``<<<COLLAB:…>>>`` / ``<<<END:…>>>`` sections, or flood the
prompt. Running text (topic, descriptions, files, replies, ledger) always sits inside
such a section; names, paths and labels are folded to one short line.
"""

from __future__ import annotations

import functools
import tomllib
from collections.abc import Callable, Sequence
from typing import cast

from jinja2 import Environment, FileSystemLoader, StrictUndefined, Template, TemplateSyntaxError
from jinja2 import TemplateError as JinjaError

from collab.config import DebateConfig
from collab.contract import DEFAULT_LIMITS
from collab.errors import CollabError
from collab.judge.labels import LABELS, Labels
from collab.lang import Lang
from collab.ledger import Ledger
from collab.options import MAX_LEANING_CHARS, MAX_OPTION_CHARS, MAX_TOPIC_CHARS
from collab.paths import builtin_dir, user_dir
from collab.prompt_views import (
    LEDGER_EVIDENCE_CHARS,
    MAX_ANGLE_CHARS,
    MAX_ERROR_CHARS,
    MAX_PATH_CHARS,
    PROMPT_REPLY_FACTOR,
    ContextView,
    JudgeIssue,
    JudgeTurn,
    TurnRow,
    TurnView,
    context_text,
    contract_view,
    failed_evidence,
    issue_row,
    live_ledger_rows,
    older_reply_cap,
    rated_title,
    recent_turns,
    speaker,
    turn_rows,
)
from collab.seats import Side
from collab.text import for_prompt, prompt_cell, prompt_line

__all__ = ["Prompts", "TemplateError", "TurnView"]

_TEMPLATES = ("role.md.j2", "reask.md.j2", "judge.md.j2", "followup.md.j2")
MAX_NOTE_CHARS = MAX_TOPIC_CHARS  # the decider's note (collab continue)
MAX_QUESTION_CHARS = MAX_TOPIC_CHARS  # a follow-up question (collab ask)
SUMMARY_CHARS = 40_000


class TemplateError(CollabError):
    """A template or angles file is missing or broken; names the file and, if known, the line."""

    kind = "template"


@functools.lru_cache(maxsize=8)
def _environment(dirs: tuple[str, ...], overrides: tuple[str, ...]) -> Environment:
    """One Jinja environment per template search path and set of the user's template
    files, shared by the runs of a process (a batch, the MCP server): a template is
    compiled once, again only when its file changed (``auto_reload`` checks its mtime)."""
    return Environment(
        loader=FileSystemLoader(list(dirs)),
        undefined=StrictUndefined,
        autoescape=False,
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
        auto_reload=True,
    )


class Prompts:
    """Renders every prompt of one run in one language; templates are compiled once."""

    def __init__(self, lang: Lang) -> None:
        self.lang: Lang = lang
        self._dirs = [user_dir("templates") / lang, builtin_dir("templates") / lang]
        user = self._dirs[0]
        overrides = tuple(sorted(p.name for p in user.iterdir())) if user.is_dir() else ()
        # Without a file of the user's, every template is the built-in one: the environment
        # (and its compiled templates) is the built-in directory's, whichever COLLAB_HOME.
        searched = self._dirs if overrides else self._dirs[1:]
        self._env = _environment(tuple(str(d) for d in searched), overrides)
        self._templates = {name: self._load(name) for name in _TEMPLATES}
        self._angles = self._load_angles()
        self._speakers: dict[Side, tuple[DebateConfig, dict[str, object]]] = {}
        # Each turn's row as the prompts after it show it (at each cap): made once, for
        # the next seats' prompts and the next round's show the same reply again.
        self._rows: dict[tuple[TurnView, int], TurnRow] = {}
        # A seat's prompt before anything was said (no turn, no issue, no angle, note or
        # cross-check), per (seat, round): the plan measures round 1's and the turn sends it.
        self._bare: dict[tuple[Side, int], tuple[DebateConfig, str]] = {}

    def role(
        self,
        cfg: DebateConfig,
        side: Side,
        round_no: int,
        ledger: Ledger,
        history: Sequence[TurnView],
        angle: str | None,
        *,
        blind: bool = False,
        note: str | None = None,
        cross_check: bool = False,
    ) -> str:
        """``blind``: this round's other side is never shown (round 1 of a blind opening,
        also when that side's turn is already saved, as after a crash). ``note``: the
        decider's note for a round added by ``collab continue``. ``cross_check``:
        ``--depth auto``'s round 2, short replies (a quarter of --max-chars) taking stances
        on the other side's points."""
        # Nothing of the debate to show (no turn, issue, angle, note or cross-check): the
        # prompt is the config's, the same each time for as long as the prompts are for one
        # config (the same frozen object); ``blind`` hides nothing then.
        bare = not (history or ledger.issues or cross_check) and angle is None and note is None
        if bare:
            kept = self._bare.get((side, round_no))
            if kept is not None and kept[0] is cfg:
                return kept[1]
        recent = recent_turns(history, side, round_no)
        if blind:
            recent = [t for t in recent if t.round_no != round_no]
        text = self._render(
            "role.md.j2",
            **self._speaker(cfg, side),
            round_no=round_no,
            rounds=cfg.rounds,
            contexts=[
                ContextView(
                    n=n,
                    path=prompt_line(c.path, MAX_PATH_CHARS),
                    text=context_text(c.text),
                )
                for n, c in enumerate(cfg.contexts, start=1)
            ],
            issues=live_ledger_rows(ledger, round_no, cfg.seats),
            history=self._turn_rows(
                [t for t in recent if t.round_no < round_no - 1], older_reply_cap(cfg)
            )
            + self._turn_rows(
                [t for t in recent if t.round_no >= round_no - 1],
                PROMPT_REPLY_FACTOR * cfg.max_chars,
            ),
            older_rounds_hidden=any(t.round_no < round_no - 2 for t in history),
            angle=prompt_line(angle, MAX_ANGLE_CHARS) if angle and angle.strip() else None,
            note=_note(note),
            contract=contract_view(ledger),
            failed_evidence=failed_evidence(ledger, lambda s: f"Role {s}"),
            max_chars=cross_check_chars(cfg.max_chars) if cross_check else cfg.max_chars,
            read_tools=cfg.tools == "read",
            cross_check=cross_check,
            **decision_view(cfg),
        )
        if bare:
            self._bare[(side, round_no)] = (cfg, text)
        return text

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
        prev = for_prompt(previous.strip(), PROMPT_REPLY_FACTOR * cfg.max_chars) if previous else ""
        return self._render(
            "reask.md.j2",
            **self._speaker(cfg, side),
            error=for_prompt(error.strip(), MAX_ERROR_CHARS) or "(no details)",
            previous=prev or None,
            issues=[issue_row(i, LEDGER_EVIDENCE_CHARS, cfg.seats) for i in ledger.issues],
            contract=contract_view(ledger),
            **decision_view(cfg),
        )

    def judge(
        self,
        cfg: DebateConfig,
        ledger: Ledger,
        history: Sequence[TurnView],
        stop_reason: str,
        labels: Labels,
        note: str | None = None,
        absent: Sequence[tuple[int, Side]] = (),
    ) -> str:
        """The seats only as "Position 1…N" (``labels``): no role names, no stance texts;
        the rounds stay in chronological order. The topic is left as it is. ``absent``:
        (round, seat) of each seat that answered no turn of a round."""
        cap = DEFAULT_LIMITS.max_evidence_chars
        order = labels.order()
        issues = []
        for i in ledger.issues:
            # Position 1's and 2's evidence are the first two of every Position's.
            evidence = tuple(prompt_cell(labels.hide(i.evidence(s)), cap) for s in order)
            issues.append(
                JudgeIssue(
                    id=prompt_cell(i.id, 16),
                    status=i.status,
                    title=rated_title(
                        i, prompt_cell(labels.hide(i.title), DEFAULT_LIMITS.max_title_chars)
                    ),
                    raised_by=labels.label(i.raised_by),
                    evidence_1=evidence[0],
                    evidence_2=evidence[1],
                    evidence=evidence,
                )
            )
        turns = [
            JudgeTurn(
                round_no=t.round_no,
                label=labels.label(t.side),
                position=order.index(t.side) + 1,
                status=prompt_line(t.status, 20),
                prose=for_prompt(labels.hide(t.prose).strip(), PROMPT_REPLY_FACTOR * cfg.max_chars)
                or "(empty)",
            )
            for t in history
        ]
        return self._render(
            "judge.md.j2",
            topic=for_prompt(cfg.topic.strip(), MAX_TOPIC_CHARS),
            labels=LABELS[: len(order)],
            absent=[f"{labels.label(seat)} in round {r}" for r, seat in absent],
            stop_reason=prompt_line(stop_reason, 40),
            rounds=cfg.rounds,
            rounds_held=max((t.round_no for t in history), default=0),
            issues=issues,
            open_ids=[i.id for i in issues if i.status == "open"],
            history=turns,
            failed_evidence=failed_evidence(ledger, labels.label),
            note=_note(None if note is None else labels.hide(note)),
            **decision_view(cfg, labels.hide),
            leaning=(
                for_prompt(labels.hide(cfg.leaning).strip(), MAX_LEANING_CHARS)
                if cfg.leaning
                else None
            ),
        )

    def followup(
        self,
        cfg: DebateConfig,
        seat: Side | None,
        ledger: Ledger,
        question: str,
        *,
        last_reply: str | None,
        summary: str | None,
        labels: Labels,
    ) -> str:
        """``collab ask``: one more turn for ``seat`` (None: the Judge, who sees the sides
        only as "Position 1/2"), with the final ledger, the seat's last reply, the Judge's
        summary and the question."""
        cap = DEFAULT_LIMITS.max_evidence_chars
        reply_cap = PROMPT_REPLY_FACTOR * cfg.max_chars
        judge_hide = labels.hide if seat is None else None
        if seat is None:
            order = labels.order()
            hide = labels.hide
            names = list(LABELS[: len(order)])
            issues: list[object] = [
                {"id": prompt_cell(i.id, 16), "status": i.status,
                 "title": prompt_cell(hide(i.title), DEFAULT_LIMITS.max_title_chars),
                 "raised_by": labels.label(i.raised_by),
                 "evidence": [prompt_cell(hide(i.evidence(s)), cap) for s in order]}
                for i in ledger.issues
            ]  # fmt: skip
            view: dict[str, object] = {"topic": for_prompt(cfg.topic.strip(), MAX_TOPIC_CHARS)}
            question = hide(question)
        else:
            view = self._speaker(cfg, seat)
            names = list(cfg.seats)
            issues = [issue_row(i, cap, cfg.seats) for i in ledger.issues]
        return self._render(
            "followup.md.j2",
            **view,
            judge_seat=seat is None,
            labels=names if seat is None else LABELS,
            columns=[f"{n}'s evidence" for n in names],
            issues=issues,
            last_reply=for_prompt(last_reply.strip(), reply_cap) if last_reply else None,
            summary=for_prompt(summary.strip(), SUMMARY_CHARS) if summary else None,
            question=for_prompt(question.strip(), MAX_QUESTION_CHARS),
            max_chars=cfg.max_chars,
            **decision_view(cfg, judge_hide),
        )

    def _speaker(self, cfg: DebateConfig, side: Side) -> dict[str, object]:
        """:func:`speaker`'s view of ``side``, made once per seat for as long as the prompts
        are for one config (the same frozen object: every prompt of a run)."""
        kept = self._speakers.get(side)
        if kept is None or kept[0] is not cfg:
            kept = (cfg, speaker(cfg, side))
            self._speakers[side] = kept
        view = dict(kept[1])
        for key in ("seat_names", "seats"):  # its lists the caller's own, as a new view's
            view[key] = list(cast("list[str]", view[key]))
        return view

    def _turn_rows(self, turns: Sequence[TurnView], reply_cap: int) -> list[TurnRow]:
        """:func:`turn_rows`, each turn's row made once per cap (a turn's view is its
        whole value: round, seat, name, prose and status)."""
        rows = []
        for t in turns:
            row = self._rows.get((t, reply_cap))
            if row is None:
                row = self._rows[(t, reply_cap)] = turn_rows([t], reply_cap)[0]
            rows.append(row)
        return rows

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
            st = path.stat()
        except OSError as exc:
            raise TemplateError(f"{path}: {exc}") from None
        return _angles(str(path), st.st_mtime_ns, st.st_size)


@functools.lru_cache(maxsize=8)
def _angles(path: str, mtime_ns: int, size: int) -> tuple[str, ...]:
    """An angles file's angles, parsed once per version of the file (its path, mtime and
    size, as the templates' ``auto_reload``): every run of a process, and the plan's
    prompts and the run's, read the same file. A broken file raises every time."""
    try:
        with open(path, encoding="utf-8") as fh:
            data = tomllib.loads(fh.read())
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


def decision_view(cfg: DebateConfig, hide: Callable[[str], str] | None = None) -> dict[str, object]:
    """``--option`` (as ``O1``… with its text) and ``--constraint``, untrusted text made
    safe for a prompt section, for every seat's prompt and the Judge's. (The leaning is
    the Judge's alone: :meth:`Prompts.judge`.) ``hide``: the Judge's, so an option that
    names a role does not tell which Position is which."""

    def line(text: str) -> str:
        return prompt_line(hide(text) if hide else text, MAX_OPTION_CHARS)

    return {
        "options": [{"id": f"O{n}", "text": line(o)} for n, o in enumerate(cfg.options, start=1)],
        "constraints": [line(c) for c in cfg.constraints],
    }


def _note(note: str | None) -> str | None:
    return for_prompt(note.strip(), MAX_NOTE_CHARS) if note and note.strip() else None


def cross_check_chars(max_chars: int) -> int:
    """The prose limit of a cross-check reply: a quarter of --max-chars."""
    return max_chars // 4


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
