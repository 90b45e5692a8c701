"""collab: autonomous multi-round debates between AI agent CLIs, judged neutrally."""

from __future__ import annotations

__version__ = "0.1.0"
