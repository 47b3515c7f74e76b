"""The normalized Bedrock request: a Converse body reduced to what scenarios pin.

Every removal of variance is a named ``body -> body`` step in ``REQUEST_STEPS`` (STYLE 4, 6): volatile or
adapter-specific fields go, Bedrock's defaults compare as absent, blobs compare as base64. ``conversation_content``
goes further, for grading only: what the model is given whatever its form, to tell a request that differs from the
golden in its content from one that holds the same content in another form.
"""

from __future__ import annotations

import base64
import json
from typing import Any, Callable, Iterable, Mapping

__all__ = ["PINNABLE", "REQUEST_STEPS", "asked_response_fields", "assistant_text_layout", "blobs_as_base64",
           "conversation_content", "converse_form", "drop_cache_points", "normalize_request", "paired",
           "tool_result_values", "wrapped_values"]


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def blobs_as_base64(body: Any) -> Any:
    """Raw bytes (boto3-level parameters) become the base64 strings the wire carries."""
    if isinstance(body, (bytes, bytearray)):
        return _b64(bytes(body))
    if isinstance(body, dict):
        return {key: blobs_as_base64(value) for key, value in body.items()}
    if isinstance(body, list):
        return [blobs_as_base64(value) for value in body]
    return body


_PINNED_MEMBERS = ("system", "messages", "toolConfig", "additionalModelRequestFields", "inferenceConfig",
                   "outputConfig", "tools", "tool_choice", "thinking")  # the last three: Anthropic-native (InvokeModel)
# How the turn asked to be served (the options service_tier, latency, guardrail, response_field_paths): what the
# application asked for, so a library that drops it sends other content than the turn gave.
_SERVED_MEMBERS = ("serviceTier", "performanceConfig", "guardrailConfig", "additionalModelResponseFieldPaths")


def pinned_members(body: dict) -> dict:
    """Members scenarios never pin (modelId, requestMetadata, promptVariables, ...) are adapter choices."""
    return {key: value for key, value in body.items() if key in _PINNED_MEMBERS or key in _SERVED_MEMBERS}


_SERVED_DEFAULTS = {"performanceConfig": {"latency": "standard"}, "serviceTier": {"type": "default"}}


def served_defaults(body: dict) -> dict:
    """Served defaults (standard latency, the default tier, a guardrail's sync processing) compare as absent."""
    body = {key: value for key, value in body.items() if _SERVED_DEFAULTS.get(key, ...) != value}
    guardrail = body.get("guardrailConfig")
    if isinstance(guardrail, dict) and guardrail.get("streamProcessingMode") == "sync":
        body["guardrailConfig"] = {k: v for k, v in guardrail.items() if k != "streamProcessingMode"}
    return body


def drop_inference_config(body: dict) -> dict:
    """inferenceConfig holds sampling defaults each adapter picks; the request rules check what matters."""
    return {key: value for key, value in body.items() if key != "inferenceConfig"}


def thinking_only(body: dict) -> dict:
    """additionalModelRequestFields is compared on its thinking config; other model fields vary by adapter."""
    fields = body.get("additionalModelRequestFields")
    if not isinstance(fields, dict):
        return body
    return {**body, "additionalModelRequestFields": {k: v for k, v in fields.items() if k == "thinking"}}


def _map_blocks(body: dict, step: Callable[[list], list]) -> dict:
    """Apply ``step`` to every message's content list."""
    messages = body.get("messages")
    if not isinstance(messages, list):
        return body
    return {**body, "messages": [{**m, "content": step(m["content"])}
                                 if isinstance(m, dict) and isinstance(m.get("content"), list) else m for m in messages]}


def _no_cache_points(blocks: list) -> list:
    return [block for block in blocks if not (isinstance(block, dict) and "cachePoint" in block)]


def drop_cache_points(body: dict) -> dict:
    """cachePoint blocks (system, messages, tools) left out: not a step of REQUEST_STEPS (where a library puts cache
    points, and their TTL, is conversation content: rules 31-34 reject misplaced ones), but the comparison without them
    for a library that declares its own placement (harness.judge.grade)."""
    body = _map_blocks(body, _no_cache_points)
    if isinstance(body.get("system"), list):
        body = {**body, "system": _no_cache_points(body["system"])}
    tools = body.get("toolConfig")
    if isinstance(tools, dict) and isinstance(tools.get("tools"), list):
        body = {**body, "toolConfig": {**tools, "tools": _no_cache_points(tools["tools"])}}
    return body


def _default_ttl(block: Any) -> Any:
    point = block.get("cachePoint") if isinstance(block, dict) and list(block) == ["cachePoint"] else None
    if not (isinstance(point, dict) and point.get("ttl") == "5m"):
        return block
    return {"cachePoint": {k: v for k, v in point.items() if k != "ttl"}}


def implicit_cache_ttl(body: dict) -> dict:
    """A cachePoint with ttl "5m" asks the same as one without a ttl: five minutes is Bedrock's default."""
    body = _map_blocks(body, lambda blocks: [_default_ttl(b) for b in blocks])
    if isinstance(body.get("system"), list):
        body = {**body, "system": [_default_ttl(b) for b in body["system"]]}
    tools = body.get("toolConfig")
    if isinstance(tools, dict) and isinstance(tools.get("tools"), list):
        body = {**body, "toolConfig": {**tools, "tools": [_default_ttl(b) for b in tools["tools"]]}}
    return body


def tool_spec_fields(body: dict) -> dict:
    """A toolSpec compares on name, description, inputSchema and ``strict`` true (false is the default)."""
    config = body.get("toolConfig")
    if not isinstance(config, dict) or not isinstance(config.get("tools"), list):
        return body
    keep = ("name", "description", "inputSchema", "strict")
    tools = [{"toolSpec": {k: v for k, v in tool["toolSpec"].items() if k in keep and not (k == "strict" and v is False)}}
             if isinstance(tool, dict) and isinstance(tool.get("toolSpec"), dict) else tool for tool in config["tools"]]
    return {**body, "toolConfig": {**config, "tools": tools}}


def implicit_auto_tool_choice(body: dict) -> dict:
    """``toolChoice: {auto: {}}`` is Bedrock's default: sending it and leaving it out ask the same."""
    config = body.get("toolConfig")
    if not isinstance(config, dict) or config.get("toolChoice") != {"auto": {}}:
        return body
    return {**body, "toolConfig": {k: v for k, v in config.items() if k != "toolChoice"}}


def _schema_without_empty_required(schema: Any) -> Any:
    if not isinstance(schema, dict):
        return schema
    cleaned = {k: _schema_without_empty_required(v) for k, v in schema.items() if not (k == "required" and v == [])}
    return cleaned


def empty_required_lists(body: dict) -> dict:
    """``"required": []`` in a tool's input schema means the same as no ``required`` at all."""
    config = body.get("toolConfig")
    if not isinstance(config, dict) or not isinstance(config.get("tools"), list):
        return body
    tools = [{"toolSpec": {**tool["toolSpec"], "inputSchema": _schema_without_empty_required(
        tool["toolSpec"].get("inputSchema"))}} if isinstance(tool, dict) and isinstance(tool.get("toolSpec"), dict)
             and "inputSchema" in tool["toolSpec"] else tool for tool in config["tools"]]
    return {**body, "toolConfig": {**config, "tools": tools}}


def _no_success_status(blocks: list) -> list:
    result = []
    for block in blocks:
        tool_result = block.get("toolResult") if isinstance(block, dict) else None
        if isinstance(tool_result, dict) and tool_result.get("status") == "success":
            block = {**block, "toolResult": {k: v for k, v in tool_result.items() if k != "status"}}
        result.append(block)
    return result


def implicit_success_status(body: dict) -> dict:
    """A toolResult with status "success" means the same as one without a status."""
    return _map_blocks(body, _no_success_status)


def _as_text(value: Any) -> dict:
    return {"text": value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)}


def _text_value(part: Any) -> Any:
    """A text tool-result part holding JSON that is not an object, rewritten canonically (spacing, quoting)."""
    if not (isinstance(part, dict) and list(part) == ["text"] and isinstance(part["text"], str)):
        return part
    try:
        parsed = json.loads(part["text"])
    except ValueError:
        return part
    return part if isinstance(parsed, dict) else _as_text(parsed)


def _tool_results(blocks: list, change) -> list:
    result = []
    for block in blocks:
        tool_result = block.get("toolResult") if isinstance(block, dict) else None
        if isinstance(tool_result, dict) and isinstance(tool_result.get("content"), list):
            block = {**block, "toolResult": {**tool_result, "content": change(tool_result["content"])}}
        result.append(block)
    return result


def tool_result_values(body: dict) -> dict:
    """A non-object JSON value sent as text (Bedrock takes objects only as json, §9 rule 26) compares in any spacing."""
    return _map_blocks(body, lambda blocks: _tool_results(blocks, lambda parts: [_text_value(p) for p in parts]))


def _unwrapped(expected: Any, actual: Any) -> Any:
    """``actual`` as ``expected`` when it wraps the very value ``expected`` sends as text in a one-member object."""
    if not (isinstance(expected, dict) and list(expected) == ["text"] and isinstance(actual, dict)
            and list(actual) == ["json"] and isinstance(actual["json"], dict) and len(actual["json"]) == 1):
        return actual
    inner = next(iter(actual["json"].values()))
    return expected if not isinstance(inner, dict) and _as_text(inner) == _text_value(expected) else actual


def asked_response_fields(expected: dict, actual: dict) -> dict:
    """``actual`` with its additionalModelResponseFieldPaths as ``expected``'s when it asks for every path the golden
    does: a path a library adds on its own (the AI SDK asks for ``/delta/stop_sequence`` on every call) only returns
    one more field; a path the turn asked for and the library left out is still a difference."""
    key = "additionalModelResponseFieldPaths"
    theirs, mine = actual.get(key), expected.get(key) or []
    if not isinstance(theirs, list) or not isinstance(mine, list) or not set(map(str, mine)) <= set(map(str, theirs)):
        return actual
    return {**actual, key: mine} if mine else {k: v for k, v in actual.items() if k != key}


def paired(expected: dict, actual: dict) -> dict:
    """``actual`` under the steps that read both sides: values wrapped in an object, response fields asked for besides
    the golden's."""
    return asked_response_fields(expected, wrapped_values(expected, actual))


def wrapped_values(expected: dict, actual: dict) -> dict:
    """``actual`` with each tool-result part that wraps, in an object of one member, the value ``expected`` sends as
    text taken as that text: a value that is not an object may go either way (§9 rule 26)."""
    def paired(message: Any, theirs: Any) -> Any:
        if not (isinstance(message, dict) and isinstance(theirs, dict) and isinstance(message.get("content"), list)
                and isinstance(theirs.get("content"), list)):
            return theirs
        return {**theirs, "content": [_paired_block(e, a) for e, a in zip(message["content"], theirs["content"])]
                + theirs["content"][len(message["content"]):]}
    mine, theirs = expected.get("messages"), actual.get("messages")
    if not isinstance(mine, list) or not isinstance(theirs, list):
        return actual
    return {**actual, "messages": [paired(e, a) for e, a in zip(mine, theirs)] + theirs[len(mine):]}


def _paired_block(expected: Any, actual: Any) -> Any:
    mine = expected.get("toolResult") if isinstance(expected, dict) else None
    theirs = actual.get("toolResult") if isinstance(actual, dict) else None
    if not (isinstance(mine, dict) and isinstance(theirs, dict) and isinstance(mine.get("content"), list)
            and isinstance(theirs.get("content"), list)):
        return actual
    parts = [_unwrapped(e, a) for e, a in zip(mine["content"], theirs["content"])] + theirs["content"][len(mine["content"]):]
    return {**actual, "toolResult": {**theirs, "content": parts}}


def _text_before_tool_uses(blocks: list) -> list:
    texts = [b for b in blocks if isinstance(b, dict) and list(b) == ["text"] and isinstance(b["text"], str)]
    rest = [b for b in blocks if not any(b is t for t in texts)]
    joined = "".join(t["text"] for t in texts)
    at = next((i for i, b in enumerate(rest) if isinstance(b, dict) and "toolUse" in b), len(rest))
    return rest[:at] + ([{"text": joined}] if joined.strip() else []) + rest[at:]


def assistant_text_layout(body: dict) -> dict:
    """An assistant turn's text compares as one block before its tool uses (merged, moved, blank ones omitted)."""
    # A library's own assembly may merge text blocks, omit an empty one or put text after the calls before them:
    # Bedrock accepts each, and the model reads the same words and calls (docs/adapters, "What the request comparison
    # treats as material"). Reasoning blocks, tool uses and tool results are left exactly as sent.
    messages = body.get("messages")
    if not isinstance(messages, list):
        return body
    return {**body, "messages": [{**m, "content": _text_before_tool_uses(m["content"])}
                                 if isinstance(m, dict) and m.get("role") == "assistant"
                                 and isinstance(m.get("content"), list) else m for m in messages]}


def output_format(body: dict) -> dict:
    """outputConfig compares on its textFormat (not ``effort``), its JSON schema text as the schema it holds."""
    config = body.get("outputConfig")
    if not isinstance(config, dict):
        return body
    text_format = config.get("textFormat")
    structure = text_format.get("structure") if isinstance(text_format, dict) else None
    definition = structure.get("jsonSchema") if isinstance(structure, dict) else None
    if isinstance(definition, dict) and isinstance(definition.get("schema"), str):
        try:
            definition = {**definition, "schema": json.loads(definition["schema"])}
        except ValueError:
            pass
        text_format = {**text_format, "structure": {**structure, "jsonSchema": definition}}
    return {**body, "outputConfig": {"textFormat": text_format} if text_format is not None else {}}


def converse_form(body: Any) -> Any:
    """A ConverseStream request as Converse takes it: its guardrailConfig has no streamProcessingMode (Converse's
    GuardrailConfiguration, not GuardrailStreamConfiguration); what a request through Converse is compared with."""
    guardrail = body.get("guardrailConfig") if isinstance(body, dict) else None
    if not isinstance(guardrail, dict) or "streamProcessingMode" not in guardrail:
        return body
    return {**body, "guardrailConfig": {k: v for k, v in guardrail.items() if k != "streamProcessingMode"}}


def drop_empty_members(body: dict) -> dict:
    """Empty members ("system": [], "inferenceConfig": {}, null) mean the same as absent ones."""
    return {key: value for key, value in body.items() if value not in (None, [], {})}


REQUEST_STEPS = (pinned_members, served_defaults, drop_inference_config, thinking_only, implicit_cache_ttl,
                 tool_spec_fields,
                 implicit_auto_tool_choice, empty_required_lists, implicit_success_status, tool_result_values,
                 output_format, assistant_text_layout, drop_empty_members)
PINNABLE = {"inferenceConfig": drop_inference_config}


def normalize_request(body: Mapping, pinned: Iterable[str] = ()) -> dict:
    """A Converse request body reduced to what scenarios pin; ``pinned`` keeps inferenceConfig."""
    unknown = sorted(set(pinned) - set(PINNABLE))
    if unknown:
        raise ValueError(f"cannot pin {', '.join(unknown)} (pinnable: {', '.join(sorted(PINNABLE))})")
    skipped = {PINNABLE[name] for name in pinned}
    result = blobs_as_base64(dict(body))
    for step in REQUEST_STEPS:
        result = step(result) if step not in skipped else result
    return result


def conversation_content(body: Any) -> Any:
    """What a normalized request gives the model, whatever its form: every member but the messages as it is, and
    the conversation as turns (consecutive messages of one role are one turn), each its text joined, its other
    blocks in order and its tool results sorted by id, a result as the values its parts hold (JSON text as its
    value; a part holding an array of scalars as its items)."""
    if not isinstance(body, dict):
        return body
    messages = body.get("messages")
    turns: list[list] = []
    for message in messages if isinstance(messages, list) else [] if messages is None else [messages]:
        if not (isinstance(message, dict) and isinstance(message.get("content"), list)):
            turns.append([None, message])
        elif turns and turns[-1][0] is not None and turns[-1][0] == message.get("role"):
            turns[-1][1] = turns[-1][1] + message["content"]
        else:
            turns.append([message.get("role"), list(message["content"])])
    return {"members": {k: v for k, v in body.items() if k != "messages"},
            "turns": [[role, _turn_content(blocks) if role is not None else blocks] for role, blocks in turns]}


def _turn_content(blocks: list) -> dict:
    texts, results, others = [], [], []
    for block in blocks:
        kind = list(block) if isinstance(block, dict) else None
        if kind == ["text"] and isinstance(block["text"], str):
            texts.append(block["text"])
        elif kind == ["toolResult"] and isinstance(block["toolResult"], dict):
            results.append({**{k: v for k, v in block["toolResult"].items() if k != "content"},
                            "values": _values(block["toolResult"].get("content"))})
        else:
            others.append(block)
    results.sort(key=lambda result: json.dumps(result, sort_keys=True, default=repr))
    return {"text": "".join(texts), "blocks": others, "results": results}


def _values(content: Any) -> Any:
    """A tool result's content as the values it holds: a text part as the JSON it holds (else its text), a json part
    as its value, any other part as it is; a part holding an array of scalars as its items (each its own part)."""
    if not isinstance(content, list):
        return content
    values = []
    for value in map(_part_value, content):
        scalars = isinstance(value, list) and not any(isinstance(v, (dict, list)) for v in value)
        values += value if scalars else [value]
    return values


def _part_value(part: Any) -> Any:
    if isinstance(part, dict) and list(part) == ["json"]:
        return part["json"]
    if isinstance(part, dict) and list(part) == ["text"] and isinstance(part["text"], str):
        try:
            return json.loads(part["text"])
        except ValueError:
            return part["text"]
    return part
