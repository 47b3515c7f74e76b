"""The ``app.py`` of a reproduction: a library's own public calls on a scenario's first turn, as an application
writes them, against ``bedrock-harness serve --paired --cassette ...`` (its URL the script's one argument).

One template per library whose shim maps turns without importing the library (the messages are built here, at
generation time, by the shim's own pure mapping: ``harness.adapters.shims.litellm_format.to_openai`` for LiteLLM).
The script prints what the library holds after the streamed call and after the non-streamed one, so a maintainer
sees the finding in the library's own objects. A library without a template gets none: ``repro.py`` still
reproduces through the shim. (Here, beside the shims, because it uses their mappings; ``bedrock-harness repro`` and
``site`` hand it to harness.studies.repro.)
"""

from __future__ import annotations

import pprint
from typing import Callable

from harness.suite.scenario import Scenario, first_turn

__all__ = ["TEMPLATES", "app_for"]

_LITELLM = '''#!/usr/bin/env python3
"""{scenario}, turn 0, with LiteLLM as an application calls it: streamed (assembled by stream_chunk_builder), then
not streamed, on the same messages. Serve the recorded stream first:

    bedrock-harness serve --paired --cassette cassettes/{scenario}.yaml --port 0    # prints URL
    python app.py URL
"""

import json
import os
import sys

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")  # LiteLLM's bundled price map: nothing fetched
import litellm  # noqa: E402

URL = sys.argv[1]
REQUEST = {request}
AWS = {{"aws_bedrock_runtime_endpoint": URL, "aws_region_name": "us-east-1", "aws_access_key_id": "testing",
        "aws_secret_access_key": "testing"}}


def shown(message):
    return json.dumps(message.model_dump(), indent=2, default=str, ensure_ascii=False)


chunks = list(litellm.completion(**REQUEST, **AWS, stream=True, stream_options={{"include_usage": True}}))
for chunk in chunks:
    print("chunk:", json.dumps(chunk.model_dump(mode="json", exclude_none=True), ensure_ascii=False))
streamed = litellm.stream_chunk_builder(chunks, messages=REQUEST["messages"]).choices[0].message
print("streamed message:", shown(streamed))
whole = litellm.completion(**REQUEST, **AWS).choices[0].message
print("non-streamed message:", shown(whole))
'''


def _litellm(scenario: Scenario) -> str:
    from harness.adapters.shims.litellm_format import to_openai, tool_choice  # pure mapping: no litellm import

    turn = first_turn(scenario)
    options = turn.get("options") or {}
    request: dict = {"model": f"bedrock/converse/{turn['model_id']}", "messages": to_openai(turn),
                     "max_tokens": options.get("max_tokens")}
    if turn.get("tools"):
        request["tools"] = [{"type": "function", "function": {"name": t["name"], "description": t.get("description", ""),
                                                              "parameters": t["input_schema"]}} for t in turn["tools"]]
        if options.get("tool_choice") not in (None, "auto"):
            request["tool_choice"] = tool_choice(options["tool_choice"])
    if options.get("temperature") is not None:
        request["temperature"] = options["temperature"]
    if options.get("thinking_budget"):
        request["thinking"] = {"type": "enabled", "budget_tokens": options["thinking_budget"]}
    return _LITELLM.format(scenario=scenario.id, request=pprint.pformat(request, width=110, sort_dicts=False))


TEMPLATES: dict[str, Callable[[Scenario], str]] = {"litellm": _litellm, "litellm-persisted": _litellm}


def app_for(spec: str | None, scenario: Scenario) -> str | None:
    """The ``app.py`` of ``scenario`` for the library ``spec`` names, or None without a template."""
    template = TEMPLATES.get(spec or "")
    return template(scenario) if template is not None else None
