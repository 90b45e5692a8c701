"""A run as one self-contained HTML page: templates/report.html.j2 with report.css inlined.

Every string in a RunState came from a user or a model. The Jinja environment escapes by
default (``autoescape``) and its ``finalize`` hook passes every interpolated string through
:func:`collab.text.clean` first, so no template line has to remember either. The only
unescaped values are :class:`~markupsafe.Markup`: our CSS, our macros, and what
:mod:`collab.report.markup` returns (sanitised by nh3; see there). The page carries a
Content-Security-Policy that allows no script and no network, as a second wall.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from importlib.resources import files

from jinja2 import Environment, PackageLoader, StrictUndefined, Template
from markupsafe import Markup

from collab import __version__
from collab.config import AgentChoice
from collab.ledger import Issue, Ledger, Status, counts
from collab.outcome import outcome_of
from collab.panel import IssueTally, answered_line
from collab.prices import fmt_cost
from collab.report.markdown import Shared, judge_title, tokens_line
from collab.report.markup import answer_first, markdown_html, prose_html
from collab.seats import Side
from collab.state import Angle, RunState
from collab.text import clean
from collab.turns import TurnRecord

CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:; form-action 'none'"


@dataclass(frozen=True)
class Cell:
    """One issue in one round's ledger: absent (``status`` None), or its status and a mark."""

    status: Status | None
    mark: str = ""


@dataclass(frozen=True)
class MatrixRow:
    issue: Issue
    cells: tuple[Cell, ...]


@dataclass(frozen=True)
class Matrix:
    columns: tuple[str, ...]
    rows: tuple[MatrixRow, ...]
    totals: tuple[dict[Status, int], ...]


@dataclass(frozen=True)
class CiteMark:
    """One cited ``path:line`` and what the evidence check found (✓ only when verified)."""

    cite: str
    status: str

    @property
    def ok(self) -> bool:
        return self.status == "verified"


@dataclass(frozen=True)
class LedgerRow:
    """A ledger row: the issue, its severity when the ledger rates one (a default ``major``
    is left unmarked) and the evidence checks of each side's evidence, where made."""

    issue: Issue
    severity: str | None
    checks_a: tuple[CiteMark, ...]
    checks_b: tuple[CiteMark, ...]
    tally: str = ""  # where the seats stand (collab.panel.IssueTally.line)
    checks_more: tuple[tuple[CiteMark, ...], ...] = ()  # seats C–E's, in seat order


@dataclass(frozen=True)
class SeatView:
    """A place at the table: a debater (with its role) or the Judge."""

    label: str
    name: str
    description: str
    agent: AgentChoice
    css: str


@dataclass(frozen=True)
class PageTurn:
    turn: TurnRecord
    meta: tuple[str, ...]


@dataclass(frozen=True)
class Round:
    number: int
    turns: tuple[PageTurn, ...]
    angle: Angle | None
    angle_ids: str


def _finalize(value: object) -> object:
    if isinstance(value, str) and not isinstance(value, Markup):
        # Printable ASCII (most of a page's values: ids, statuses, labels, numbers) is what
        # clean() leaves as it is: no control, escape, bidi or invisible character, no \r.
        # A plain str only: clean() gives one, and a subclass may print as something else.
        plain = type(value) is str and value.isascii() and value.isprintable()
        return value if plain else clean(value)
    return value


@cache
def _env() -> Environment:
    env = Environment(
        loader=PackageLoader("collab.report", "templates"),
        autoescape=True,
        undefined=StrictUndefined,
        finalize=_finalize,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        auto_reload=False,  # the package's own template: no stat of its file per page
    )
    env.filters["cost"] = fmt_cost
    env.filters["clean"] = clean
    env.filters["prose"] = prose_html
    return env


@cache
def _template() -> Template:
    return _env().get_template("report.html.j2")


@cache
def _css() -> Markup:
    """Our own stylesheet, shipped beside the template and inlined: one file, no fetch."""
    path = files("collab.report") / "templates" / "report.css"
    return Markup(path.read_text(encoding="utf-8").strip())


def _matrix(state: RunState, final: Ledger, done: int) -> Matrix | None:
    """Issue × round: when each issue appeared and how its status moved (``final``: the
    state's ledger; ``done``: its rounds done)."""
    columns: list[tuple[str, Ledger]] = [
        (f"R{n}", lg) for n, lg in enumerate(state.round_ledgers(), 1)
    ]
    if any(t.round_no > done for t in state.turns):
        columns.append(("now", final))
    if not final.issues or not columns:
        return None
    # Each column's issues by id (the first of an id, as ledger.get finds it), and each
    # kind of cell made once: a page has issues × columns of them.
    by_id = [{i.id: i for i in reversed(lg.issues)} for _, lg in columns]
    made: dict[tuple[Status | None, str], Cell] = {}
    rows = []
    for issue in final.issues:
        cells: list[Cell] = []
        prev: Status | None = None
        for issues in by_id:
            now = issues.get(issue.id)
            if now is None:
                key: tuple[Status | None, str] = (None, "")
            else:
                mark = "new" if prev is None else ("changed" if now.status != prev else "")
                key = (now.status, mark)
                prev = now.status
            cell = made.get(key)
            if cell is None:
                cell = made[key] = Cell(*key)
            cells.append(cell)
        rows.append(MatrixRow(issue, tuple(cells)))
    return Matrix(
        columns=tuple(name for name, _ in columns),
        rows=tuple(rows),
        totals=tuple(counts(lg) for _, lg in columns),
    )


def _checks(issue: Issue, side: Side) -> tuple[CiteMark, ...]:
    return tuple(CiteMark(c.cite, c.status) for c in issue.checks(side))


def _issue_row(issue: Issue, tally: IssueTally, state: RunState) -> LedgerRow:
    return LedgerRow(
        issue=issue,
        severity=None if issue.severity == "major" else issue.severity,
        checks_a=_checks(issue, "A"),
        checks_b=_checks(issue, "B"),
        tally=tally.line(),
        checks_more=tuple(_checks(issue, s) for s in state.config.seats[2:]),
    )


def _seats(state: RunState) -> tuple[SeatView, ...]:
    cfg = state.config
    debaters = tuple(
        SeatView(f"Role {r.side}", r.name, r.description, a, r.side.lower())
        for r, a in zip(cfg.roles, cfg.agents, strict=True)
    )
    judge = SeatView("Judge", "", "Reads the debate and the ledger; writes the summary.",
                     cfg.judge, "judge")  # fmt: skip
    return (*debaters, judge)


def _turn_view(t: TurnRecord) -> PageTurn:
    meta = [f"{t.meta.duration:.1f}s", fmt_cost(t.cost_usd, t.meta.cost_estimated)]
    if t.meta.attempts > 1:
        meta.append(f"{t.meta.attempts} attempts")
    if t.reask is not None:
        meta.append("re-asked for the json block")
    return PageTurn(t, tuple(meta))


def _rounds(state: RunState) -> list[Round]:
    out = []
    for r in sorted({t.round_no for t in state.turns}):
        angle = state.angle if state.angle is not None and state.angle.round_no == r else None
        out.append(
            Round(
                number=r,
                turns=tuple(_turn_view(t) for t in state.turns if t.round_no == r),
                angle=angle,
                angle_ids="" if angle is None else ", ".join(angle.issue_ids),
            )
        )
    return out


def render_html(state: RunState, shared: Shared | None = None) -> str:
    """The page (``shared``: :meth:`Shared.of` the state, when the transcript is written
    with it)."""
    cfg = state.config
    shared = Shared.of(state) if shared is None else shared
    judge = state.judge
    rounds = _rounds(state)
    nav = [("summary", "Summary"), ("ledger", "Ledger"), ("seats", "Seats"),
           ("evolution", "Evolution")]  # fmt: skip
    nav += [(f"round-{r.number}", f"Round {r.number}") for r in rounds]
    # A fallback summary is ours, written from the ledger: no raw HTML is needed in it.
    summary = (
        None
        if judge is None
        else markdown_html(answer_first(judge.text), heading_shift=1, raw_html=not judge.fallback)
    )
    steering = shared.steering
    if steering:
        nav.insert(1, ("steering", "Decision"))
    ledger = state.ledger()
    done = state.rounds_done()
    return _template().render(
        css=_css(),
        csp=Markup(CSP),  # ours, and a quote-free constant
        version=__version__,
        state=state,
        cfg=cfg,
        lang="ja" if cfg.lang == "ja" else "en",
        nav=nav,
        judge_title=judge_title(state),
        stop_phrase=outcome_of(state).stop_phrase(),
        cost=shared.cost,
        seats=_seats(state),
        summary=summary,
        steering=markdown_html(steering) if steering else None,
        tokens=tokens_line(state),
        ledger=ledger,
        issue_rows=tuple(
            _issue_row(i, t, state) for i, t in zip(ledger.issues, shared.tallies, strict=True)
        ),
        family_note=shared.family_note,
        more_seats=cfg.seats[2:],
        answered=[answered_line(state, r.number) for r in rounds],
        ledger_counts=counts(ledger),
        matrix=_matrix(state, ledger, done),
        verdict=state.verdict(ledger),
        rounds_done=done,
        rounds=rounds,
    )
