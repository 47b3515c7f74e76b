"""Prompt-cache placement, structured output and tool choice: where a request puts what Bedrock takes only in one place.

Cache points (``cachePoint: {type: default, ttl?: 5m | 1h}``) go in ``system``, in a message's ``content`` and as their
own ``toolConfig.tools`` element; which of those a model family takes, and in which TTL order, is per family
(bedrock-wire.md §13, rules 31-34). Texts are Bedrock's verbatim where the source quotes them; the others say "not
verbatim", and their evidence (evidence.yaml) makes them warnings.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from harness.endpoint.rules.shape import Problem, blocks, kind, messages

__all__ = ["CACHING_RULES", "TOOL_MEMBERS_TEXT", "cache_points"]

WRAP = "The model returned the following errors: "
TOOL_MEMBERS_TEXT = "toolSpec, systemTool, modelTool, or cachePoint"  # as Bedrock lists them (rule 33a)
_TOOL_KEYS = ("toolSpec", "systemTool", "modelTool", "cachePoint")
# OpenAI's name for the answer's JSON schema; Anthropic's own output_config is Claude's path there and is not ignored.
_STRUCTURED_KEYS = ("response_format",)


def _list(value) -> list:
    return value if isinstance(value, list) else []


def _tools(body: dict) -> list:
    config = body.get("toolConfig")
    return _list(config.get("tools")) if isinstance(config, dict) else []


def _ttl(block: dict) -> str:
    point = block.get("cachePoint")
    return point.get("ttl") or "5m" if isinstance(point, dict) else "5m"


def _anthropic_at(items: list, index: int) -> int:
    """The index, in the Anthropic request Bedrock builds, of the block a cache point at ``index`` marks: the block
    before it, cache points not counted."""
    return max(0, sum(1 for item in items[:index] if not (isinstance(item, dict) and "cachePoint" in item)) - 1)


def cache_points(body: dict) -> Iterator[tuple[str, str, str]]:
    """(0-based path, Anthropic's path of the block it marks, ttl) of every cache point, in the order Bedrock's
    Anthropic models process them: tools, system, messages."""
    tools = _tools(body)
    for i, tool in enumerate(tools):
        if isinstance(tool, dict) and "cachePoint" in tool:
            yield f"toolConfig.tools.{i}", f"tools.{_anthropic_at(tools, i)}", _ttl(tool)
    system = _list(body.get("system"))
    for i, block in enumerate(system):
        if isinstance(block, dict) and "cachePoint" in block:
            yield f"system.{i}", f"system.{_anthropic_at(system, i)}", _ttl(block)
    for i, message in messages(body):
        content = _list(message.get("content"))
        for j, block in blocks(message):
            if "cachePoint" in block:
                yield f"messages.{i}.content.{j}", f"messages.{i}.content.{_anthropic_at(content, j)}", _ttl(block)


def cache_point_in_tool_result(body: dict) -> Iterable[Problem]:
    """A cache point goes beside a toolResult, never inside toolResult.content, where it is no member (rule 31)."""
    for i, message in messages(body):
        for j, block in blocks(message):
            result = block.get("toolResult")
            for k, item in enumerate(_list(result.get("content")) if isinstance(result, dict) else ()):
                if isinstance(item, dict) and "cachePoint" in item:
                    # Not verbatim: botocore refuses it client-side and no report quotes Bedrock's answer.
                    path = f"messages.{i}.content.{j}.toolResult.content.{k}"
                    yield Problem("cache-point-in-tool-result", path,
                                  f"The cachePoint at {path} is not a member of ToolResultContentBlock. Put it after "
                                  f"the toolResult block, at messages.{i}.content, and try again.")


def cache_ttl_order(body: dict) -> Iterable[Problem]:
    """Claude: no 1h cache point after a 5m one, in the order tools, system, messages (rule 32)."""
    short = False
    for path, anthropic, ttl in cache_points(body):
        if ttl == "1h" and short:
            # Claude's text relayed by Bedrock, verbatim for a message block (Portkey-AI/gateway #1762).
            yield Problem("cache-ttl-order", f"{path}.cachePoint.ttl",
                          f"{WRAP}{anthropic}.cache_control.ttl: a ttl='1h' cache_control block must not come after "
                          "a ttl='5m' cache_control block. Note that blocks are processed in the following order: "
                          "`tools`, `system`, `messages`.")
        short = short or ttl == "5m"


def cache_ttl_extended(body: dict) -> Iterable[Problem]:
    """Nova: no 1h cache point; the extended TTL is Anthropic's only (a point without ttl is 5m)."""
    for path, _, ttl in cache_points(body):
        if ttl == "1h":
            # Bedrock's text, verbatim (timothy-agent/timothy PR #756, Nova 2 Lite on ConverseStream).
            yield Problem("cache-ttl-extended", f"{path}.cachePoint.ttl",
                          "Extended TTL prompt caching is only supported for Anthropic models")


def cache_point_in_tools(body: dict) -> Iterable[Problem]:
    """Nova: no cache point in toolConfig.tools; system and messages take one (rule 33)."""
    for i, tool in enumerate(_tools(body)):
        if isinstance(tool, dict) and "cachePoint" in tool:
            # Nova's text relayed by Bedrock, verbatim (NousResearch/hermes-agent #97281).
            yield Problem("cache-point-in-tools", f"toolConfig.tools.{i}",
                          f"{WRAP}Malformed input request: #/toolConfig/tools/{i}: extraneous key [cachePoint] is not "
                          "permitted, please reformat your input and try again.")


def tool_union(body: dict) -> Iterable[Problem]:
    """A toolConfig.tools element sets one member: a toolSpec and its cache point are two elements (rule 33a)."""
    for i, tool in enumerate(_tools(body)):
        if isinstance(tool, dict) and sum(1 for key in _TOOL_KEYS if tool.get(key) is not None) > 1:
            # Bedrock's text, verbatim (envoyproxy/ai-gateway PR #2476).
            yield Problem("tool-union", f"toolConfig.tools.{i}",
                          f"The value at toolConfig.tools.{i} can only set one of the following keys: "
                          f"{TOOL_MEMBERS_TEXT}.")


def cache_point_after_document(body: dict) -> Iterable[Problem]:
    """Claude: no cache point right after a document that is no PDF (rule 34)."""
    for i, message in messages(body):
        content = _list(message.get("content"))
        for j, block in blocks(message):
            before = content[j - 1] if j else None
            document = before.get("document") if isinstance(before, dict) and kind(before) == "document" else None
            if "cachePoint" in block and isinstance(document, dict) and document.get("format") != "pdf":
                # Claude's text relayed by Bedrock, verbatim (aws/aws-sdk-java-v2 #6277, strands #1966).
                yield Problem("cache-point-after-document", f"messages.{i}.content.{j}",
                              f"{WRAP}messages.{i}.content.{j}.type: Field required")


def structured_output_in_request_fields(body: dict) -> Iterable[Problem]:
    """A JSON schema for the answer goes in outputConfig.textFormat: in additionalModelRequestFields it is ignored."""
    fields = body.get("additionalModelRequestFields")
    for key in _STRUCTURED_KEYS if isinstance(fields, dict) else ():
        if fields.get(key) is not None:
            # Not Bedrock's text: Bedrock accepts the request and answers without the schema (Portkey-AI/gateway #1547).
            yield Problem("structured-output-in-request-fields", f"additionalModelRequestFields.{key}",
                          f"additionalModelRequestFields.{key} is not read by Bedrock: the answer is not held to the "
                          "schema. Send it as outputConfig.textFormat (type json_schema) instead.")


def tool_choice_without_tools(body: dict) -> Iterable[Problem]:
    """A tool choice goes only with tools: a toolless request carries none, in toolConfig or model fields (rule 40)."""
    fields = body.get("additionalModelRequestFields")
    choice = fields.get("tool_choice") if isinstance(fields, dict) else None
    config = body.get("toolConfig")
    if _tools(body) or (choice is None and not (isinstance(config, dict) and config.get("toolChoice") is not None)):
        return
    # Not verbatim: botocore refuses toolChoice without tools client-side (microsoft/agent-framework #5165), and no
    # report quotes Bedrock's own answer to either form (a missing tools member is also Coral's null, tools-empty).
    path = "toolConfig.toolChoice" if choice is None else "additionalModelRequestFields.tool_choice"
    yield Problem("tool-choice-without-tools", path,
                  f"The request sets {path} but defines no tools. Remove the tool choice, or add toolConfig.tools, "
                  "and try again.")


CACHING_RULES = (cache_point_in_tool_result, cache_ttl_order, cache_ttl_extended, cache_point_in_tools, tool_union,
                 cache_point_after_document, structured_output_in_request_fields, tool_choice_without_tools)
