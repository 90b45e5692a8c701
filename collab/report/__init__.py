"""What a run leaves for people and programs: Markdown, one HTML page, the ``--json``
documents and their JSON Schemas. The only place collab writes HTML.

- :mod:`.markdown` transcript.md, judge.md, the fallback summary, the ``collab show`` outline,
  and the labels every report shares (a cost, a token count)
- :mod:`.html` report.html from ``templates/`` (Jinja2, autoescaped)
- :mod:`.markup` model-written Markdown to sanitised HTML (markdown-it-py + nh3)
- :mod:`.documents` / :mod:`.schemas` the ``--json`` documents and their schemas
  (:mod:`.listing`: ``collab list``'s)

:func:`write_reports` writes the files a run leaves in its directory.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from collab.lazy import exports
from collab.state import RunState
from collab.store import RunDir
from collab.text import clean

if TYPE_CHECKING:
    from collab.prices import fmt_cost
    from collab.report.documents import (
        RESULT_SCHEMA,
        doctor_document,
        error_document,
        preset_document,
        presets_document,
        result_document,
        skill_document,
        version_document,
    )
    from collab.report.html import render_html
    from collab.report.listing import list_document, run_row
    from collab.report.markdown import (
        judge_md,
        render_markdown_report,
        transcript_md,
    )
    from collab.report.schemas import SCHEMAS

# Each name's module, imported the first time the name is asked for (PEP 562): the
# --json documents of ``collab list``/``status`` need neither Jinja2 nor markdown-it and
# nh3 (~0.1 s of CPU, and memory a debate does not keep), only .documents (``list``:
# .listing alone).
__getattr__ = exports(
    __name__,
    {
        "RESULT_SCHEMA": "collab.report.documents",
        "doctor_document": "collab.report.documents",
        "error_document": "collab.report.documents",
        "list_document": "collab.report.listing",
        "preset_document": "collab.report.documents",
        "presets_document": "collab.report.documents",
        "result_document": "collab.report.documents",
        "run_row": "collab.report.listing",
        "skill_document": "collab.report.documents",
        "version_document": "collab.report.documents",
        "render_html": "collab.report.html",
        "fmt_cost": "collab.prices",
        "judge_md": "collab.report.markdown",
        "render_markdown_report": "collab.report.markdown",
        "transcript_md": "collab.report.markdown",
        "SCHEMAS": "collab.report.schemas",
    },
)


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
    from collab.report.html import render_html
    from collab.report.markdown import Shared, judge_md, transcript_md

    shared = Shared.of(state)  # what both show: the tallies, the cost, the steering
    paths = {"transcript": run_dir.write_text("transcript.md", clean(transcript_md(state, shared)))}
    if state.judge is not None:
        paths["judge"] = run_dir.write_text("judge.md", clean(judge_md(state)))
    paths["html"] = run_dir.write_text("report.html", render_html(state, shared))
    return paths
