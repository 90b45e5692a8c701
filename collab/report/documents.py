"""The JSON documents ``--json`` prints: one per command, each named and versioned by its
``schema`` value (see :mod:`collab.report.schemas`). Built here so the CLI only prints them."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from collab import __version__
from collab.decision import option_ids
from collab.favours import flips, most_favoured, preferences
from collab.ledger import counts, ledger_to_dict, open_blocking
from collab.outcome import shown_stop_reason
from collab.panel import issue_tallies, one_family_note, seat_infos
from collab.presets import Preset
from collab.report.steering import followup_error
from collab.state import RunState
from collab.stats import run_stats
from collab.store import RunDir

if TYPE_CHECKING:
    from collab.doctor import Check

# /2 (panels): a ``seats`` list (label, name, agent, model, family), each ledger item's
# ``tally``, ``family_note`` and the seats that answered each round; /1 documents (two
# seats, ``roles`` A/B) are still read by everything that reads /2.
RESULT_SCHEMA = "collab.result/2"
RESULT_SCHEMAS = ("collab.result/1", RESULT_SCHEMA)


def result_document(state: RunState, run_dir: RunDir) -> dict[str, object]:
    """The one JSON document ``--json`` prints for a run: stable, versioned by ``schema``."""
    cfg = state.config
    ledger = state.ledger()
    seats = seat_infos(state)
    paths = {"run_dir": str(run_dir.path), "state": str(run_dir.state_path)}
    for key, name in (
        ("transcript", "transcript.md"),
        ("judge", "judge.md"),
        ("html", "report.html"),
    ):
        p = run_dir.path / name
        if p.exists():
            paths[key] = str(p)
    tokens = state.tokens()
    return {
        "schema": RESULT_SCHEMA,
        "run_id": state.run_id,
        "status": state.status,
        "stop_reason": shown_stop_reason(state.status, state.stop_reason),
        "stop_detail": state.stop_detail,
        "verdict": state.verdict(),
        "open_blocking": open_blocking(ledger),
        "depth": cfg.depth,
        "plan": state.plan,
        "stats": run_stats(state).document(),
        "error": state.error,
        "topic": cfg.topic,
        "preset": cfg.preset,
        "roles": {
            **{str(s.label): {"name": s.name, "agent": s.agent, "model": s.model} for s in seats},
            "judge": {"agent": cfg.judge.agent, "model": cfg.judge.model},
        },
        "seats": [s.to_dict() for s in seats],
        "family_note": one_family_note(state),
        "rounds": {"done": state.rounds_done(), "planned": cfg.rounds},
        "seats_answered": [list(state.answered(r)) for r in range(1, state.rounds_done() + 1)],
        "ledger": [
            {**item, "tally": t.to_dict()}
            for item, t in zip(
                ledger_to_dict(ledger), issue_tallies(state, ledger.issues), strict=True
            )
        ],
        "counts": counts(ledger),
        "turns": [
            {
                "round": t.round_no,
                "side": t.side,
                "status": t.status,
                "prose": t.prose,
                "cost_usd": t.cost_usd,
                "duration_s": t.meta.duration,
                "warnings": list(t.warnings),
            }
            for t in state.turns
        ],
        "judge": None
        if state.judge is None
        else {"markdown": state.judge.text, "fallback": state.judge.fallback},
        "cost_usd": state.cost_usd(),
        "cost_estimated": state.cost_estimated(),
        "cost_usd_by_role": {
            **{str(s): state.cost_usd(s) for s in cfg.seats},
            "judge": state.judge_cost_usd(),
        },
        "tokens": {
            "input": tokens.input_tokens,
            "output": tokens.output_tokens,
            "cache_read": tokens.cache_read_tokens,
            "cache_write": tokens.cache_write_tokens,
        },
        "paths": paths,
        "resume": None if state.status == "done" else f"collab resume {state.run_id}",
        "decisions": [d.to_dict() for d in state.decisions],
        "followups": [
            {"seat": f.seat, "question": f.question, "answer": f.answer, "status": f.status,
             "error": followup_error(f), "after_round": f.after_round, "when": f.when,
             "cost_usd": None if f.meta is None else f.meta.cost_usd}
            for f in state.followups
        ],
        "continues": [
            {"after_round": c.after_round, "rounds": c.rounds, "note": c.note, "when": c.when}
            for c in state.continues
        ],
        "superseded_judges": [
            {"markdown": j.text, "fallback": j.fallback} for j in state.superseded_judges
        ],
    } | decision_input(state)  # fmt: skip


def decision_input(state: RunState) -> dict[str, object]:
    """The result document's optional decision input: the options (O1…), constraints and
    leaning, when given; with options, what each seat favoured per round and its flips."""
    cfg = state.config
    doc: dict[str, object] = {}
    if cfg.options:
        ids = option_ids(cfg.options)
        doc["options"] = [{"id": i, "text": o} for i, o in zip(ids, cfg.options, strict=True)]
        doc["favours"] = [
            {"seat": seat, "round": r, "option": option}
            for seat, by_round in preferences(state.turns).items()
            for r, option in sorted(by_round.items())
        ]
        doc["flips"] = [
            {"seat": f.seat, "round": f.round_no, "from": f.old, "to": f.new}
            for f in flips(state.turns)
        ]
        doc["most_favoured"] = most_favoured(state.turns)
    if cfg.constraints:
        doc["constraints"] = list(cfg.constraints)
    if cfg.leaning:
        doc["leaning"] = cfg.leaning
    return doc


def error_document(
    kind: str, message: str, exit_code: int, refused: str | None = None
) -> dict[str, object]:
    """``refused`` (optional): why an input was refused before anything was sent
    (``context-budget`` or ``secret``: errors.InputRefused)."""
    error: dict[str, object] = {"kind": kind, "message": message}
    if refused is not None:
        error["refused"] = refused
    return {"schema": "collab.error/1", "error": error, "exit_code": exit_code}


def presets_document(presets: Iterable[Preset]) -> dict[str, object]:
    return {
        "schema": "collab.presets/1",
        "presets": [
            {"key": p.key, "title": p.title, "summary": p.summary,
             "role_a": p.role_a.name, "role_b": p.role_b.name, "source": p.source,
             "seats": [r.name for r in p.seats]}
            for p in presets
        ],
    }  # fmt: skip


def preset_document(p: Preset) -> dict[str, object]:
    return {
        "schema": "collab.preset/1", "key": p.key, "title": p.title, "summary": p.summary,
        "role_a": {"name": p.role_a.name, "description": p.role_a.description},
        "role_b": {"name": p.role_b.name, "description": p.role_b.description},
        "source": p.source,
        "seats": [{"label": label, "name": r.name, "description": r.description}
                  for label, r in zip(p.labels, p.seats, strict=True)],
    }  # fmt: skip


def doctor_document(checks: Sequence[Check]) -> dict[str, object]:
    """``ok`` is what the exit code says: no check failed (warnings do not count)."""
    # Only here: the doctor pulls in every runner and agent check, which the documents
    # of list/status/result (polled by scripts) do not need.
    from collab.doctor import exit_code

    return {
        "schema": "collab.doctor/1",
        "ok": exit_code(list(checks)) == 0,
        "checks": [
            {"name": c.name, "level": c.level, "detail": c.detail, "fix": c.fix} for c in checks
        ],
    }


def skill_document(action: str, path: Path) -> dict[str, object]:
    return {"schema": "collab.skill/1", "action": action, "path": str(path)}


def version_document() -> dict[str, object]:
    return {"schema": "collab.version/1", "version": __version__}
