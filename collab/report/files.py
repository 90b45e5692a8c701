"""The report files a run leaves in its directory."""

from __future__ import annotations

from pathlib import Path

from collab.report.html import render_html
from collab.report.markdown import judge_md, transcript_md
from collab.state import RunState
from collab.store import RunDir


def write_reports(state: RunState, run_dir: RunDir) -> dict[str, Path]:
    """transcript.md, judge.md (once there is a summary) and report.html."""
    paths = {"transcript": run_dir.write_text("transcript.md", transcript_md(state))}
    if state.judge is not None:
        paths["judge"] = run_dir.write_text("judge.md", judge_md(state))
    paths["html"] = run_dir.write_text("report.html", render_html(state))
    return paths
