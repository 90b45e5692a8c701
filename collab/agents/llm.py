"""llm (simonw/llm): its argv; its stdout is the reply, no login to check (a plugin's key
is the plugin's business).

Already lean: no tools unless -T/--functions, no system prompt unless -s, no templates
or fragments unless asked, nothing from the project. Cannot isolate: plugins (a model
may come from one), the default model's saved options and aliases. Tools read: llm
ships no file-reading tool, so none.
"""

from __future__ import annotations

from collab.agents.decoding import TextDecoder
from collab.agents.spec import AgentSpec, Family

SPEC = AgentSpec(
    name="llm",
    argv=("llm", "prompt", "--no-log"),
    model_argv=("-m", "{model}"),
    install_hint="pip install llm (or pip install '.[local]' in collab's clone, for an "
    "offline model)",
)

FAMILY = Family(spec=SPEC, decoder=TextDecoder)
