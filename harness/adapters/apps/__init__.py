"""The app script of a reproduction (``app.py``; ``app.mjs`` for a JavaScript library): a library's own public calls
on a scenario's first turn, as an application writes them, against ``bedrock-harness serve --paired --cassette ...``
(its URL the script's one argument).

One template per library, written without importing the library (the messages are built here, at generation
time, by the shim's own pure mapping: ``harness.adapters.shims.litellm_format.to_openai`` for LiteLLM; the model's
fields by ``harness.adapters.shims.langchain_aws``'s for langchain-aws, whose messages are LangChain's own
role/content dicts; strands' messages are Converse's own; pydantic-ai's settings by its shim's ``settings``,
LlamaIndex's fields by ``llama_index_stream.llm_fields``, Haystack's generation_kwargs by ``haystack_releases``; the
script builds those libraries' message objects from the turn's texts; the AI SDK's call options are written here,
for the npm releases the report ran, which the README installs).
The script prints what the library holds after the streamed call and after the non-streamed one, so a maintainer
sees the finding in the library's own objects. A library without a template gets none: ``repro.py`` still
reproduces through the shim. (Here, beside the shims, because it uses their mappings; ``bedrock-harness repro`` and
``site`` hand it to harness.studies.repro.)
"""

from __future__ import annotations

from typing import Callable

from harness.adapters.apps import javascript, python
from harness.adapters.apps.common import App
from harness.suite.scenario import Scenario

__all__ = ["App", "TEMPLATES", "app_for"]

TEMPLATES: dict[str, Callable[[Scenario, dict | None], App | None]] = {**python.TEMPLATES, **javascript.TEMPLATES}


def app_for(spec: str | None, scenario: Scenario, packages: dict | None = None) -> App | None:
    """The app script of ``scenario`` for the library ``spec`` names (``packages``: the npm releases a JavaScript
    shim's report ran, which its script is written for), or None without a template."""
    template = TEMPLATES.get(spec or "")
    return template(scenario, packages) if template is not None else None
