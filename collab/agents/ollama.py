"""ollama: a local model runner; its stdout is the reply, no login to check."""

from __future__ import annotations

from collab.agents.decoding import TextDecoder
from collab.agents.spec import AgentSpec, Family

SPEC = AgentSpec(
    name="ollama",
    argv=("ollama", "run", "{model}"),
    needs_model=True,
    install_hint="install ollama and pull a model (ollama pull llama3.2)",
)

FAMILY = Family(spec=SPEC, decoder=TextDecoder)
