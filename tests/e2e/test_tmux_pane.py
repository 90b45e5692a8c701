"""What a person sees in collab's tmux panes, captured from a real tmux while a streaming
debate runs inside the user's own window (80 and 200 columns): only our view (no shell,
no script path, at any captured frame), prose wrapped by display width, the contract
block replaced by one line, a title naming the seat and its agent; and where the panes
go (the split rule of collab.runners.tmux_layout, or a window of their own).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest
from libtmux import Server

from collab.runners.pane_view_text import cell_width
from collab.runners.tmux_layout import plan_panes
from tests.conftest import FakeAgent, contract_block
from tests.e2e.test_debate_tmux import (
    WAIT,
    Spawned,
    collab_tmpdirs,
    judge_rule,
    private_tmp_fixture,  # noqa: F401  (fixture, used by name)
    spawn_collab,
    spawned_fixture,  # noqa: F401  (fixture, used by name)
    tmux_lines,
)
from tests.helpers import JUDGE_REST, wait_until

pytestmark = [
    pytest.mark.tmux,
    pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed"),
]

WORDS = [f"w{n:02d}-authentication" for n in range(24)]
JAPANESE = "セッションは即座に失効できますが、JWTは期限まで有効なままです。" * 3
PROSE = "Sessions are revocable. " + " ".join(WORDS) + "\n\n" + JAPANESE + "\n"
REPLY = PROSE + contract_block(new=[("Revocation needs server state", "logout must work now")])
AGENT = "fake-stream"


@dataclass(frozen=True)
class Frame:
    pane: str
    window: str
    x: int
    y: int
    width: int
    height: int
    title: str
    text: str  # capture-pane -J: lines tmux wrapped itself come back joined


def capture(server: Server, host_pane: str, host_widths: list[int]) -> list[Frame]:
    fmt = "#{pane_id}\t#{window_id}\t#{pane_left} #{pane_top} #{pane_width} #{pane_height}\t"
    frames = []
    for line in tmux_lines(server, "list-panes", "-a", "-F", fmt + "#{pane_title}"):
        pane, window, geo, title = line.split("\t", 3)
        x, y, w, h = (int(v) for v in geo.split())
        if pane == host_pane:
            host_widths.append(w)
            continue
        text = "\n".join(tmux_lines(server, "capture-pane", "-p", "-J", "-t", pane))
        frames.append(Frame(pane, window, x, y, w, h, title, text))
    return frames


def fragments(text: str) -> list[str]:
    """Latin tokens that are a piece of a reply word but not the word: a word cut mid-way
    (Japanese may break anywhere)."""
    words = {w for w in PROSE.split() if w.isascii()}
    return [
        t
        for t in text.split()
        if t.isascii() and len(t) >= 5 and t not in words and any(t in w for w in words)
    ]


@pytest.mark.parametrize(("width", "height", "seats"), [(80, 24, 2), (200, 50, 2), (200, 50, 3)])
def test_the_pane_shows_only_our_view(
    server: Server,
    fake_agent: FakeAgent,
    private_tmp: Path,
    tmp_path: Path,
    spawned: list[Spawned],
    width: int,
    height: int,
    seats: int,
) -> None:
    host = server.new_session(session_name="host", x=width, y=height)
    host_pane = host.active_window.active_pane
    assert host_pane is not None and host_pane.pane_id is not None
    host_window = host.active_window.window_id
    (socket_path,) = tmux_lines(server, "display-message", "-p", "#{socket_path}")
    fake_agent.script(
        [judge_rule("## TL;DR\n- fine" + JUDGE_REST)], {"text": REPLY, "word_delay": 0.02}
    )
    args = ["debate", "Sessions or JWTs?", "--agent", AGENT, "--rounds", "1",
            "--opening", "blind", "--timeout", "60", "--judge-timeout", "60"]  # fmt: skip
    if seats > 2:  # a panel: one --role per seat
        args += [a for n in range(seats) for a in ("--role", f"Seat{n}: argues case {n}")]
    proc = spawn_collab(
        args,
        tmp_path,
        env={"TMUX": f"{socket_path},{os.getpid()},0", "TMUX_PANE": host_pane.pane_id},
        unset=["COLLAB_TMUX_SOCKET"],
    )
    spawned.append(proc)
    frames: list[Frame] = []
    host_widths: list[int] = []

    def poll() -> bool:
        done = proc.proc.poll() is not None
        frames.extend(capture(server, host_pane.pane_id, host_widths))
        return done

    assert wait_until(poll, 2 * WAIT, every=0.005), "the debate did not end"
    assert proc.proc.returncode == 0, proc.err
    texts = [f.text for f in frames]

    # Only our view, at every frame: no shell, no script path, no contract JSON.
    tmp = str(private_tmp)
    for f in frames:
        assert not re.search(r"bash|\.sh\b|new_points|```|\$ *$|# *$", f.text, re.M), f
        assert tmp not in f.text, f
        # Wrapped by us to the pane's display width (tmux never had to), never mid-word.
        for line in f.text.split("\n"):
            assert sum(cell_width(c) for c in line) <= f.width, (f.width, line)
        assert fragments(f.text) == [], f
    assert any("w05-authentication" in t and "recording" not in t for t in texts)
    assert any("recording its points…" in t for t in texts)
    assert any("セッション" in t for t in texts)

    # Titled by seat and agent while the seats speak; never the old fixed title.
    titles = {f.title for f in frames}
    assert any(re.fullmatch(rf"A · .+ · {AGENT}", t) for t in titles), titles
    for label in "ABCDE"[:seats]:
        assert any(re.fullmatch(rf"{label} · .+ · {AGENT}", t) for t in titles), titles
    assert f"Judge · {AGENT}" in titles
    assert "Claude-Debate" not in titles

    # Where the blind round's panes went: the split rule.
    plan = plan_panes(width, height, seats, user_pane=True)
    seat_geos = {(f.window, f.width, f.height) for f in frames}
    cells = {(c.width, c.height) for c in plan.tiling.cells}
    assert cells <= {(w, h) for _, w, h in seat_geos}, (cells, seat_geos)
    hint = [line for line in proc.err.splitlines() if "select-window" in line]
    if plan.where == "split":
        assert {w for w, *_ in seat_geos} == {host_window}
        # Measured: the user's pane kept 80 columns, each seat pane had 40 × 8.
        assert min(host_widths) >= 80
        assert all(w >= 40 and h >= 8 for _, w, h in seat_geos), seat_geos
        assert hint == []
    else:
        # A window of its own, said once, with the command that shows it.
        assert host_window not in {w for w, *_ in seat_geos}
        assert len(hint) == 1, proc.err
        cmd = hint[0][hint[0].index("tmux") :].split()
        assert cmd[:2] == ["tmux", "select-window"]
    host_width = tmux_lines(server, "display-message", "-p", "-t", host_pane.pane_id,
                            "#{pane_width}")  # fmt: skip
    assert host_width == [str(width)]  # the user's pane is whole again afterwards
    assert collab_tmpdirs(private_tmp) == []


def test_the_window_hint_shows_the_turns(
    server: Server,
    fake_agent: FakeAgent,
    private_tmp: Path,
    tmp_path: Path,
    spawned: list[Spawned],
) -> None:
    """The printed command, run as the user would inside tmux, selects collab's window."""
    host = server.new_session(session_name="host", x=80, y=24)
    host_pane = host.active_window.active_pane
    assert host_pane is not None and host_pane.pane_id is not None
    (socket_path,) = tmux_lines(server, "display-message", "-p", "#{socket_path}")
    fake_agent.script([judge_rule("## TL;DR\n- fine" + JUDGE_REST)], {"text": REPLY, "sleep": 3})
    tmux_env = {"TMUX": f"{socket_path},{os.getpid()},0", "TMUX_PANE": host_pane.pane_id}
    proc = spawn_collab(
        ["debate", "Sessions or JWTs?", "--agent", AGENT, "--rounds", "1", "--timeout", "60"],
        tmp_path,
        env=tmux_env,
        unset=["COLLAB_TMUX_SOCKET"],
    )
    spawned.append(proc)
    assert wait_until(lambda: "select-window" in proc.err, WAIT), proc.err
    (line,) = [ln for ln in proc.err.splitlines() if "select-window" in ln]
    cmd = line[line.index("tmux") :]
    env = {**os.environ, **tmux_env}
    env.pop("COLLAB_TMUX_SOCKET", None)
    res = subprocess.run(["sh", "-c", cmd], env=env, capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    (active,) = tmux_lines(server, "display-message", "-p", "-t", "host", "#{window_name}")
    assert active.startswith("collab-")
    assert proc.wait() == 0, proc.err


@pytest.mark.parametrize(
    ("seats", "width", "height"),
    [("AB", 120, 24), ("AB", 200, 50), ("ABC", 200, 24), ("ABCD", 300, 50), ("ABCDE", 300, 24)],
)
def test_blind_round_panes_are_tiled_by_the_rule(
    server: Server, tmp_path: Path, seats: str, width: int, height: int
) -> None:
    """The runner's panes, measured in a real tmux window of a set size (list-panes), are
    the cells the pure rule gives: split off the user's pane or in a window of their own,
    one per seat in seat order; the user's pane is whole again when they are closed."""
    from collab.runners.tmux import TmuxRunner
    from collab.runners.turnfiles import TurnDir

    host = server.new_session(session_name="host", x=width, y=height)
    user = host.active_window.active_pane
    assert user is not None and user.pane_id is not None
    plan = plan_panes(width, height, len(seats), user_pane=True)
    tdir = TurnDir()
    main = TmuxRunner(tdir, "tiles", server=server, split_from=user.pane_id, seats=tuple(seats))
    try:
        others = [main.companion() for _ in seats[1:]]
        fmt = "#{pane_id} #{window_id} #{pane_left} #{pane_top} #{pane_width} #{pane_height}"
        geo = {}
        for line in tmux_lines(server, "list-panes", "-a", "-F", fmt):
            pane, window, *nums = line.split()
            geo[pane] = (window, *(int(n) for n in nums))
        mine = [main.pane_id, *(o.pane_id for o in others)]
        x0, y0 = geo[main.pane_id][1], geo[main.pane_id][2]
        got = [(x - x0, y - y0, w, h) for _, x, y, w, h in (geo[p] for p in mine)]
        want = [(c.x, c.y, c.width, c.height) for c in plan.tiling.cells]
        assert got == want
        windows = {geo[p][0] for p in mine}
        if plan.where == "split":
            assert windows == {geo[user.pane_id][0]}
            assert geo[user.pane_id][3] == plan.user_width >= 80
            assert main.attach_hint() is None
        else:
            assert geo[user.pane_id][0] not in windows and len(windows) == 1
            assert geo[user.pane_id][3] == width  # the user's pane is left as it was
            assert "select-window" in (main.attach_hint() or "")
        for o in others:
            o.close()
        size = "#{pane_width} #{pane_height}"
        whole = tmux_lines(server, "display-message", "-p", "-t", main.pane_id, size)
        assert whole == [f"{plan.area_width} {plan.area_height}"]
    finally:
        main.close()
        tdir.cleanup()
    assert tmux_lines(server, "list-panes", "-a", "-F", "#{pane_id}") == [user.pane_id]


def test_a_round_of_fewer_turns_than_seats_tiles_only_their_panes(server: Server) -> None:
    """A resumed blind round of a three-seat panel re-runs two seats: two panes share the
    seat area, each running our view; no third, empty one waits beside them."""
    from collab.runners.tmux import TmuxRunner
    from collab.runners.tmux_layout import best_tiling
    from collab.runners.turnfiles import TurnDir

    host = server.new_session(session_name="host", x=200, y=50)
    user = host.active_window.active_pane
    assert user is not None and user.pane_id is not None
    plan = plan_panes(200, 50, 3, user_pane=True)
    tdir = TurnDir()
    main = TmuxRunner(tdir, "fewer", server=server, split_from=user.pane_id, seats=("A", "B", "C"))
    fmt = "#{pane_id} #{pane_dead} #{pane_width} #{pane_height}"

    def ours() -> dict[str, list[str]]:
        panes = (line.split() for line in tmux_lines(server, "list-panes", "-a", "-F", fmt))
        return {p: rest for p, *rest in panes if p != user.pane_id}

    try:
        other = main.companion(2)
        assert sorted(ours()) == sorted([main.pane_id, other.pane_id])
        assert wait_until(lambda: all(dead == "0" for dead, *_ in ours().values()), WAIT)
        cells = best_tiling(plan.area_width, plan.area_height, 2).cells
        got = ours()
        assert [got[p][1:] for p in (main.pane_id, other.pane_id)] == [
            [str(c.width), str(c.height)] for c in cells
        ]
        other.close()
        assert list(ours()) == [main.pane_id]
    finally:
        main.close()
        tdir.cleanup()
    assert list(ours()) == []
