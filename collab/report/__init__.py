"""What a run leaves for people and programs: Markdown, one HTML page, the ``--json``
documents and their JSON Schemas. The only place collab writes HTML.

- :mod:`.markdown` transcript.md, judge.md, the fallback summary, the ``collab show`` outline,
  and the labels every report shares (a cost, a token count)
- :mod:`.html` report.html from ``templates/`` (Jinja2, autoescaped)
- :mod:`.markup` model-written Markdown to sanitised HTML (markdown-it-py + nh3)
- :mod:`.documents` / :mod:`.schemas` the ``--json`` documents and their schemas

:func:`write_reports` writes the files a run leaves in its directory.
"""

from __future__ import annotations

from pathlib import Path

from collab.report.documents import (
    RESULT_SCHEMA,
    doctor_document,
    error_document,
    list_document,
    preset_document,
    presets_document,
    result_document,
    run_row,
    skill_document,
    version_document,
)
from collab.report.html import render_html
from collab.report.markdown import (
    fmt_cost,
    judge_md,
    render_markdown_report,
    transcript_md,
)
from collab.report.schemas import SCHEMAS
from collab.state import RunState
from collab.store import RunDir
from collab.text import clean

__all__ = [
    "RESULT_SCHEMA",
    "SCHEMAS",
    "doctor_document",
    "error_document",
    "fmt_cost",
    "judge_md",
    "list_document",
    "preset_document",
    "presets_document",
    "render_html",
    "render_markdown_report",
    "result_document",
    "run_row",
    "skill_document",
    "transcript_md",
    "version_document",
    "write_reports",
]


def write_reports(state: RunState, run_dir: RunDir) -> dict[str, Path]:
    """transcript.md, judge.md (once there is a summary) and report.html."""
    paths = {"transcript": run_dir.write_text("transcript.md", clean(transcript_md(state)))}
    if state.judge is not None:
        paths["judge"] = run_dir.write_text("judge.md", clean(judge_md(state)))
    paths["html"] = run_dir.write_text("report.html", render_html(state))
    return paths
