#!/usr/bin/env -S python3 -S
"""A scripted stand-in for an agent CLI: prompt on stdin, reply on stdout.

Usage::

    COLLAB_FAKE_SCRIPT=script.json python3 fake_agent.py [--format claude-json|claude-stream|text]
                                                         [--model M]

``--output-format json|text`` and ``-p``/``--print`` are accepted too, so the fake can
take the real ``claude`` argv. Unknown options are ignored.

Script (JSON)::

    {"rules": [{"match": ["Role A", "JWT"], "replies": [ACTION, ...]}, ...],
     "default": ACTION}

The first rule whose every ``match`` substring occurs in the prompt answers. Its
replies are consumed in order and the last one repeats. Counters live in
``<script>.state.json`` and are updated under ``fcntl.flock``, so they persist across
processes and parallel fakes never lose a count. Every call is appended as one JSON
line to ``<script>.calls.jsonl``.

ACTION is a string (shorthand for ``{"text": ...}``) or an object with:
``text``, ``exit`` (default 0), ``stderr``, ``stdout_extra`` (printed on stdout before
the reply), ``raw`` (printed instead of the formatted reply, e.g. broken JSON),
``sleep`` (seconds before answering), ``wait_file`` (answer only once that file exists,
a gate the test opens; at most 60 s), ``hang`` (never answer), ``hang_with_child``
(with ``hang``: first spawn a grandchild ``sleep 1000``; its pid goes to the file named
by ``$COLLAB_FAKE_CHILD_PIDFILE``), ``empty`` (no output / empty ``result``),
``cost_usd``, ``input_tokens``, ``output_tokens``, ``cache_read_input_tokens``,
``cache_creation_input_tokens``, ``api_error_status``, ``stop_reason``.

Stdlib only and few imports: start-up time is part of every simulated turn.
"""

from __future__ import annotations

import fcntl
import json
import os
import re
import sys
import time

TYPE_CHECKING = False  # importing typing would cost ~3 ms of start-up
if TYPE_CHECKING:
    from typing import Any

    Action = dict[str, Any]

DEFAULT_MODEL = "claude-opus-4-8"
# USD per million tokens: (input, output). Mirrors what claude 2.1.x charges; it
# prices unknown model names like opus. Cache reads cost 0.1x input, writes 1.25x.
_PRICES: tuple[tuple[str, float, float], ...] = (
    ("claude-3-5-haiku", 0.8, 4.0),
    ("haiku", 1.0, 5.0),
    ("sonnet", 3.0, 15.0),
    ("opus", 5.0, 25.0),
)


def _parse_args(argv: list[str]) -> tuple[str, str, list[str]]:
    fmt, model, positional = "text", DEFAULT_MODEL, []
    i = 0
    while i < len(argv):
        arg = argv[i]
        value = argv[i + 1] if i + 1 < len(argv) else ""
        if arg in ("--format", "--output-format"):
            fmt = {"json": "claude-json"}.get(value, value)
            i += 2
            continue
        if arg.startswith(("--format=", "--output-format=")):
            value = arg.split("=", 1)[1]
            fmt = {"json": "claude-json"}.get(value, value)
        elif arg in ("--model", "-m"):
            model = value or model
            i += 2
            continue
        elif arg.startswith("--model="):
            model = arg.split("=", 1)[1] or model
        elif not arg.startswith("-"):
            positional.append(arg)
        i += 1
    if fmt not in ("claude-json", "claude-stream", "text"):
        sys.stderr.write(f"fake_agent: unknown format {fmt!r}\n")
        sys.exit(2)
    return fmt, model, positional


def _as_action(value: object) -> Action:
    if isinstance(value, str):
        return {"text": value}
    if isinstance(value, dict):
        return value
    return {"text": "" if value is None else str(value)}


def _matches(rule: dict[str, Any], prompt: str) -> bool:
    match = rule.get("match", [])
    needles = [match] if isinstance(match, str) else list(match)
    return all(str(n) in prompt for n in needles)


def _choose(script: dict[str, Any], prompt: str) -> tuple[int | None, str]:
    """(rule index or None for the default, state key)."""
    for index, rule in enumerate(script.get("rules", [])):
        if _matches(rule, prompt):
            return index, str(index)
    return None, "default"


def _replies(script: dict[str, Any], index: int | None) -> list[Any]:
    if index is None:
        default = script.get("default", {"text": "fake agent default reply"})
        return list(default) if isinstance(default, list) else [default]
    rule = script["rules"][index]
    replies = rule.get("replies", rule.get("reply", [""]))
    return list(replies) if isinstance(replies, list) else [replies]


def _next_action(script_path: str, prompt: str, record: dict[str, Any]) -> Action:
    """Pick the action and bump its counter; log the call. All under one flock."""
    with open(script_path, encoding="utf-8") as f:
        script = json.load(f)
    index, key = _choose(script, prompt)
    replies = _replies(script, index) or [""]
    with open(script_path + ".state.json", "a+", encoding="utf-8") as state_file:
        fcntl.flock(state_file, fcntl.LOCK_EX)
        state_file.seek(0)
        raw = state_file.read()
        state: dict[str, Any] = json.loads(raw) if raw.strip() else {}
        counts: dict[str, int] = state.setdefault("counts", {})
        used = counts.get(key, 0)
        counts[key] = used + 1
        state_file.seek(0)
        state_file.truncate()
        state_file.write(json.dumps(state))
        state_file.flush()
        record.update(rule=index, reply_index=min(used, len(replies) - 1), call_index=used)
        with open(script_path + ".calls.jsonl", "a", encoding="utf-8") as log:
            log.write(json.dumps(record) + "\n")
        # the lock is released when state_file closes
    return _as_action(replies[min(used, len(replies) - 1)])


def _price(model: str) -> tuple[float, float]:
    for needle, inp, out in _PRICES:
        if needle in model:
            return inp, out
    return 5.0, 25.0


def _uuid() -> str:
    h = os.urandom(16).hex()
    return f"{h[:8]}-{h[8:12]}-4{h[13:16]}-a{h[17:20]}-{h[20:32]}"


def _claude_json(action: Action, model: str, started: float) -> dict[str, Any]:
    failed = int(action.get("exit", 0)) != 0
    # like the real CLI, a failed call reports no usage unless the script says so
    tin = int(action.get("input_tokens", 0 if failed else 100))
    tout = int(action.get("output_tokens", 0 if failed else 50))
    tread = int(action.get("cache_read_input_tokens", 0))
    twrite = int(action.get("cache_creation_input_tokens", 0))
    if "cost_usd" in action:
        cost = float(action["cost_usd"])
    else:
        pin, pout = _price(model)
        cost = (tin * pin + tout * pout + tread * pin * 0.1 + twrite * pin * 1.25) / 1e6
    duration = int((time.monotonic() - started) * 1000)
    text = "" if action.get("empty") else str(action.get("text", ""))
    return {
        "type": "result",
        "subtype": "success",
        "is_error": failed,
        "api_error_status": action.get("api_error_status"),
        "duration_ms": duration,
        "duration_api_ms": duration,
        "num_turns": 1,
        "result": text,
        "stop_reason": action.get("stop_reason", "stop_sequence" if failed else "end_turn"),
        "session_id": _uuid(),
        "total_cost_usd": cost,
        "usage": {
            "input_tokens": tin,
            "cache_creation_input_tokens": twrite,
            "cache_read_input_tokens": tread,
            "output_tokens": tout,
            "server_tool_use": {"web_search_requests": 0, "web_fetch_requests": 0},
            "service_tier": "standard",
        },
        "modelUsage": {
            model: {
                "inputTokens": tin,
                "outputTokens": tout,
                "cacheReadInputTokens": tread,
                "cacheCreationInputTokens": twrite,
                "webSearchRequests": 0,
                "costUSD": cost,
                "contextWindow": 200000,
                "maxOutputTokens": 64000,
            }
        },
        "permission_denials": [],
        "terminal_reason": "completed",
        "uuid": _uuid(),
    }


def _hang(action: Action) -> None:
    if action.get("hang_with_child"):
        child = os.posix_spawnp("sleep", ["sleep", "1000"], dict(os.environ))
        pidfile = os.environ.get("COLLAB_FAKE_CHILD_PIDFILE")
        if pidfile:
            tmp = f"{pidfile}.{os.getpid()}.tmp"
            with open(tmp, "w", encoding="utf-8") as f:
                f.write(f"{child}\n")
            os.replace(tmp, pidfile)  # readers never see a half-written file
    while True:
        time.sleep(3600)


def _write(stream: Any, text: str) -> None:
    """UTF-8 regardless of locale, like the real CLIs."""
    stream.buffer.write(text.encode("utf-8", "surrogateescape"))
    stream.buffer.flush()


def main(argv: list[str]) -> int:
    started = time.monotonic()
    fmt, model, positional = _parse_args(argv)
    prompt = ""
    if sys.stdin is not None and not sys.stdin.isatty():
        prompt = sys.stdin.buffer.read().decode("utf-8", "replace")
    if not prompt and positional:
        prompt = " ".join(positional)
    script_path = os.environ.get("COLLAB_FAKE_SCRIPT")
    if script_path:
        record: dict[str, Any] = {
            "time": time.time(),
            "pid": os.getpid(),
            "model": model,
            "format": fmt,
            "argv": argv,
            "prompt": prompt[:200],
            "prompt_chars": len(prompt),
        }
        action = _next_action(script_path, prompt, record)
    else:
        action = {"text": "fake agent: COLLAB_FAKE_SCRIPT not set"}

    if action.get("sleep"):
        time.sleep(float(action["sleep"]))
    if action.get("wait_file"):
        deadline = time.monotonic() + 60
        while not os.path.exists(str(action["wait_file"])) and time.monotonic() < deadline:
            time.sleep(0.01)
    if action.get("stderr"):
        _write(sys.stderr, str(action["stderr"]))
    if action.get("stdout_extra"):
        _write(sys.stdout, str(action["stdout_extra"]))
    if action.get("hang"):
        _hang(action)

    if "raw" in action:
        _write(sys.stdout, str(action["raw"]))
    elif fmt == "claude-stream":
        # Claude Code's stream-json: text deltas as they are "written", then the result.
        text = str(action.get("text", "")) if not action.get("empty") else ""
        for n, piece in enumerate(re.findall(r"\S+\s*|\s+", text)):
            if n and action.get("word_delay"):
                time.sleep(float(action["word_delay"]))
            delta = {"type": "content_block_delta", "index": 0,
                     "delta": {"type": "text_delta", "text": piece}}  # fmt: skip
            event = {"type": "stream_event", "event": delta}
            _write(sys.stdout, json.dumps(event, ensure_ascii=False) + "\n")
        out = _claude_json(action, model, started)
        _write(sys.stdout, json.dumps(out, ensure_ascii=False, separators=(",", ":")) + "\n")
    elif fmt == "claude-json":
        out = _claude_json(action, model, started)
        _write(sys.stdout, json.dumps(out, ensure_ascii=False, separators=(",", ":")) + "\n")
    elif not action.get("empty"):
        text = str(action.get("text", ""))
        _write(sys.stdout, text if text.endswith("\n") else text + "\n")
    return int(action.get("exit", 0))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
