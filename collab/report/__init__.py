"""What a run leaves for people and programs: Markdown, one HTML page, the ``--json``
documents and their JSON Schemas. The only place collab writes HTML.

- :mod:`.markdown` transcript.md, judge.md, the fallback summary, the ``collab show`` outline
- :mod:`.html` report.html from ``templates/`` (Jinja2, autoescaped)
- :mod:`.markup` model-written Markdown to sanitised HTML (markdown-it-py + nh3)
- :mod:`.documents` / :mod:`.schemas` the ``--json`` documents and their schemas
- :mod:`.files` the files a run writes; :mod:`.format` the labels they share
"""

from __future__ import annotations

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
from collab.report.files import write_reports
from collab.report.format import fmt_cost
from collab.report.html import render_html
from collab.report.markdown import (
    fallback_summary,
    judge_md,
    ledger_table,
    render_markdown_report,
    transcript_md,
)
from collab.report.schemas import SCHEMAS

__all__ = [
    "RESULT_SCHEMA",
    "SCHEMAS",
    "doctor_document",
    "error_document",
    "fallback_summary",
    "fmt_cost",
    "judge_md",
    "ledger_table",
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
