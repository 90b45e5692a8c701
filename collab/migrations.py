"""state.json's schema versions: an append-only list of named migrations, each taking a
document one version forward (after simonw/llm's ``migrations.py``).

A document at version ``n`` goes through ``MIGRATIONS[n - 1:]``; the newest version is
``len(MIGRATIONS) + 1``. A migration never removes or rewrites what a run recorded: it
writes down, explicitly, what the older collab did without saying so, so that a
half-finished old run goes on exactly as it began. It leaves anything it does not
recognise alone (the loader reports damage by field). Pure: no I/O.
"""

from __future__ import annotations

from collections.abc import Callable

Doc = dict[str, object]
Migration = Callable[[Doc], None]

MIGRATIONS: list[Migration] = []
migration = MIGRATIONS.append


@migration
def m001_protocol_v2_fields(doc: Doc) -> None:
    """v1 → v2. v1 runs had no ``opening`` and always ran round 1 sequentially (the new
    default, ``blind``, would change a half-finished one); the other fields protocol v2
    added get the values v1 behaved with."""
    cfg = doc.get("config")
    if isinstance(cfg, dict):
        cfg.setdefault("opening", "sequential")
        cfg.setdefault("agent_setup", "lean")  # v1 agents ran lean, with no option
        cfg.setdefault("tools", "none")
    turns = doc.get("turns")
    for turn in turns if isinstance(turns, list) else []:
        if isinstance(turn, dict):
            # v1 kept a contract whole or not at all: every item it held was kept.
            n = _items(turn.get("contract"))
            turn.setdefault("items_sent", n)
            turn.setdefault("items_kept", n)
    doc.setdefault("judge_first", None)  # v1's Judge saw the role names, no positions
    judge = doc.get("judge")
    if isinstance(judge, dict):
        judge.setdefault("raw", None)


@migration
def m002_stance_table_v1(doc: Doc) -> None:
    """v2 → v3. Runs saved before the stance table v2 replay their ledger with v1: a
    raiser's reasoned ``agree`` on its own issue changed nothing, a stance needed no
    reason, and ``abstain`` beside items threw the turn away (collab.ledger)."""
    doc.setdefault("stance_table", "v1")


@migration
def m003_severity_and_evidence_checks(doc: Doc) -> None:
    """v3 → v4. Every new point of an older run was, by the new default, ``major``; no cite of an
    older run was checked (its turns get an empty ``evidence_checks``)."""
    turns = doc.get("turns")
    for turn in turns if isinstance(turns, list) else []:
        if not isinstance(turn, dict):
            continue
        turn.setdefault("evidence_checks", [])
        contract = turn.get("contract")
        points = contract.get("new_points") if isinstance(contract, dict) else None
        for point in points if isinstance(points, list) else []:
            if isinstance(point, dict):
                point.setdefault("severity", "major")


@migration
def m004_steering(doc: Doc) -> None:
    """v4 → v5. Runs saved before a debate could be steered after it ended (collab decide, ask,
    continue) had no decisions, follow-ups, continues or superseded summaries."""
    for key in ("decisions", "followups", "continues", "superseded_judges"):
        doc.setdefault(key, [])


@migration
def m005_depth(doc: Doc) -> None:
    """v5 → v6. Runs before ``--depth`` ran by today's rules: ``standard``. (They made
    no plan: a missing ``plan`` reads as None.)"""
    cfg = doc.get("config")
    if isinstance(cfg, dict):
        cfg.setdefault("depth", "standard")


@migration
def m006_decision_options(doc: Doc) -> None:
    """v6 → v7. Runs before ``--option``/``--constraint``/``--leaning`` weighed no options
    and had no leaning (so no reply named a favoured option: a contract without
    ``favours`` reads as none)."""
    cfg = doc.get("config")
    if isinstance(cfg, dict):
        cfg.setdefault("options", [])
        cfg.setdefault("constraints", [])
        cfg.setdefault("leaning", None)


@migration
def m007_panels(doc: Doc) -> None:
    """v7 → v8. Runs before panels had two seats that spoke in a fixed order, A then
    B, in every round (the last speaker did not rotate): the config says so
    (``turn_order = "fixed"``, so a resumed run goes on in that order) and each round the
    run held gets that order recorded, as a new run records its own."""
    cfg = doc.get("config")
    if not isinstance(cfg, dict):
        return
    cfg.setdefault("turn_order", "fixed")
    turns = doc.get("turns")
    held = sorted(
        {t["round_no"] for t in turns if isinstance(t, dict) and isinstance(t.get("round_no"), int)}
        if isinstance(turns, list) else set()
    )  # fmt: skip
    if held and "round_orders" not in doc:
        blind = cfg.get("opening") == "blind"
        auto = cfg.get("depth") == "auto"
        doc["round_orders"] = [
            {"round_no": r, "order": ["A", "B"], "at_once": (r == 1 and blind) or (r == 2 and auto)}
            for r in held
        ]


@migration
def m008_ledger_stamp(doc: Doc) -> None:
    """v8 → v9. Runs before the stamp kept a copy of their ledger that no reader took for
    the replay of their turns: the copy is marked as made by no known rules (``None``), so
    ``collab list`` replays such a run's turns as collab always did (state.stored_ledger)."""
    doc.setdefault("ledger_stamp", None)


LATEST = len(MIGRATIONS) + 1


def migrate(doc: Doc, version: int) -> Doc:
    """``doc`` (read at ``version``) brought to :data:`LATEST`, in place."""
    for step in MIGRATIONS[max(version, 1) - 1 :]:
        step(doc)
    doc["schema_version"] = LATEST
    return doc


def _items(contract: object) -> int:
    if not isinstance(contract, dict):
        return 0
    n = 0
    for key in ("new_points", "stances"):
        value = contract.get(key)
        n += len(value) if isinstance(value, list) else 0
    return n
