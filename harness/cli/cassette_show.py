"""``bedrock-harness cassette show``: a cassette printed as a readable conversation.

Every operation is folded into Converse-shaped content blocks first (ConverseStream events by
``contentBlockIndex``, Converse JSON as is, InvokeModelWithResponseStream's Anthropic events mapped
across), so one printer shows text, reasoning (with its signature), tool calls (id, name, assembled
input), tool results, the stop reason, usage and errors for all three. Events come from botocore itself.
"""

from __future__ import annotations

import base64
import json
from typing import Any, Iterator

from botocore.exceptions import EventStreamError

from harness.cassettes import cassette as cassettes
from harness.wire import eventstream

__all__ = ["render"]


def _short(text: str, full: bool, limit: int = 240) -> str:
    text = " ".join(str(text).split()) if not full else str(text)
    return text if full or len(text) <= limit else f"{text[:limit]}… ({len(text)} chars)"


def _named(value: dict, key: str) -> str:
    """An id or name as sent: a missing one (a fault cassette's tool use without toolUseId) is said, never None."""
    if value.get(key) is None:
        return f"(no {key})"
    return str(value[key]) or '""'


def _compact(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(", ", ": "), default=lambda b: f"<{len(b)} bytes>")


def _tool_input(raw: str) -> Any:
    try:
        return json.loads(raw) if raw.strip() else {}
    except ValueError:
        return raw  # an unfinished stream: show the partial JSON as it arrived


_PRIMARY = ("text", "toolUse", "toolResult", "reasoningContent")


def _block(block: dict, full: bool) -> str:
    """One Converse content block as a line (tool calls in full: id, name, input)."""
    kind = next((k for k in _PRIMARY if k in block), next(iter(block), "empty block"))
    value = block.get(kind, {})
    cited = f" [{len(block['citations'])} citation(s)]" if block.get("citations") else ""
    if kind == "text":
        return f"text: {_short(value, full) if value else '(empty)'}{cited}"
    if kind == "toolUse":
        return f"tool call {_named(value, 'toolUseId')} {_named(value, 'name')} {_compact(value.get('input'))}"
    if kind == "toolResult":
        content = "; ".join(_short(c.get("text", "") or _compact(c), full) for c in value.get("content") or [])
        status = f" ({value['status']})" if value.get("status") else ""  # only what was sent
        return f"tool result {_named(value, 'toolUseId')}{status}: {content}"
    if kind == "reasoningContent":
        return _reasoning(value, full)
    return f"{kind}: {_short(_compact(value), full, 120)}"


def _reasoning(value: dict, full: bool) -> str:
    if "redactedContent" in value:
        data = value["redactedContent"]
        shown = base64.b64encode(data).decode() if isinstance(data, bytes) else str(data)
        size = len(data) if isinstance(data, bytes) else len(base64.b64decode(shown + "==="[len(shown) % 4:]))
        return f"redacted reasoning: {shown}" if full else f"redacted reasoning ({size} bytes)"
    text = value.get("reasoningText") or {}
    return f"reasoning: {_short(text.get('text', ''), full)}{_signature(text, full)}"


def _signature(text: dict, full: bool) -> str:
    """The signature: whole with --full, else its ends; an empty one and a missing one are told apart."""
    if text.get("signature") is None:
        return " [no signature]"
    signature = text["signature"]
    if not signature:
        return ' [signature "" (empty)]'
    if full:
        return f" [signature {signature}]"
    return f" [signature {signature[:6]}…{signature[-4:]}, {len(signature)} chars]"


# ------------------------------------------------------------------------------ request side


def _anthropic_block(block: Any) -> dict:
    """An Anthropic-format content block in Converse shape, so one printer serves both."""
    if isinstance(block, str) or block.get("type") == "text":
        return {"text": block if isinstance(block, str) else block.get("text", "")}
    kind = block.get("type")
    if kind == "tool_use":
        return {"toolUse": {"toolUseId": block.get("id"), "name": block.get("name"), "input": block.get("input")}}
    if kind == "tool_result":
        content = block.get("content")
        content = [{"text": content}] if isinstance(content, str) else [_anthropic_block(c) for c in content or []]
        status = {"status": "error"} if block.get("is_error") else {}  # Anthropic sends is_error, never success
        return {"toolResult": {"toolUseId": block.get("tool_use_id"), "content": content, **status}}
    if kind in ("thinking", "redacted_thinking"):
        inner = {"redactedContent": block.get("data", "")} if kind == "redacted_thinking" else \
            {"reasoningText": {"text": block.get("thinking", ""), "signature": block.get("signature")}}
        return {"reasoningContent": inner}
    return {kind or "block": {k: v for k, v in block.items() if k != "type"}}


def _request_lines(it: cassettes.Interaction, full: bool) -> Iterator[str]:
    body = it.request_json
    if not isinstance(body, dict):
        yield f"body: {_short(it.request_body.decode('utf-8', 'replace'), full)}" if it.request_body else "(no body)"
        return
    anthropic = it.operation in ("InvokeModelWithResponseStream", "InvokeModel")
    system = body.get("system")
    for item in [system] if isinstance(system, str) else system or []:
        yield f"system: {_short(item if isinstance(item, str) else item.get('text', _compact(item)), full)}"
    tools = body.get("tools") if anthropic else (body.get("toolConfig") or {}).get("tools")
    names = [t.get("name") or (t.get("toolSpec") or {}).get("name") or (t.get("systemTool") or {}).get("name")
             for t in tools or []]
    if any(names):
        yield "tools: " + ", ".join(str(n) for n in names if n)
    choice = body.get("tool_choice") if anthropic else (body.get("toolConfig") or {}).get("toolChoice")
    if choice:
        yield f"tool choice: {_compact(choice)}"
    yield from _settings(body, anthropic)
    for message in body.get("messages") or []:
        content = message.get("content")
        blocks = [_anthropic_block(b) for b in ([content] if isinstance(content, str) else content or [])] \
            if anthropic else content or []
        yield from (f"{message.get('role')}: {_block(b, full)}" for b in blocks)


def _settings(body: dict, anthropic: bool) -> Iterator[str]:
    """The thinking and guardrail configuration of a request, when it has them."""
    fields = body if anthropic else body.get("additionalModelRequestFields") or {}
    # Claude's thinking, its older reasoning_config, Nova 2's reasoningConfig, gpt-oss's reasoning_effort
    for key, label in (("thinking", "thinking"), ("reasoning_config", "reasoning config"),
                       ("reasoningConfig", "reasoning config"), ("reasoning_effort", "reasoning effort")):
        if isinstance(fields, dict) and fields.get(key) is not None:
            yield f"{label}: {_compact(fields[key])}"
    if body.get("guardrailConfig"):
        yield f"guardrail: {_compact(body['guardrailConfig'])}"


# ----------------------------------------------------------------------------- response side


def _append(holder: dict, key: str, part: Any) -> None:
    """Gather a streamed part; the parts are joined once at the end (``+=`` on each would be quadratic)."""
    parts = holder.get(key)
    holder[key] = parts if isinstance(parts, list) else [] if parts is None else [parts]
    holder[key].append(part)


def _joined(block: dict) -> dict:
    """The block with every gathered list of parts joined into its text."""
    reasoning = (block.get("reasoningContent") or {}).get("reasoningText") or {}
    for holder, key in ((block, "text"), (block.get("toolUse") or {}, "input"), (reasoning, "text")):
        if isinstance(holder.get(key), list):
            holder[key] = "".join(holder[key])
    return block


def _stream_delta(block: dict, delta: dict) -> None:
    if "text" in delta:
        _append(block, "text", delta["text"])
    elif "toolUse" in delta:
        _append(block["toolUse"], "input", delta["toolUse"].get("input", ""))
    elif "reasoningContent" in delta:
        part, reasoning = delta["reasoningContent"], block.setdefault("reasoningContent", {})
        if "redactedContent" in part:
            reasoning["redactedContent"] = part["redactedContent"]
        else:
            text = reasoning.setdefault("reasoningText", {"text": ""})
            _append(text, "text", part.get("text", ""))
            text["signature"] = part.get("signature", text.get("signature"))
    elif "toolResult" in delta:
        block["toolResult"].setdefault("content", []).extend(delta["toolResult"])
    elif "citation" in delta:
        block.setdefault("citations", []).append(delta["citation"])
    else:
        block.setdefault("other", []).append(delta)


def _fold_converse_stream(events) -> tuple[list[dict], dict]:
    """ConverseStream events -> Converse-shaped content blocks (by contentBlockIndex) and the tail."""
    blocks, tail = {}, {}
    for event in events:
        (name, data), = event.items()
        if name == "contentBlockStart":
            (kind, start), = data["start"].items()
            blocks[data["contentBlockIndex"]] = {kind: dict(start)}
        elif name == "contentBlockDelta":
            _stream_delta(blocks.setdefault(data["contentBlockIndex"], {}), data["delta"])
        elif name in ("messageStop", "metadata"):
            tail.update(data)
    for block in map(_joined, blocks.values()):
        if "toolUse" in block:
            block["toolUse"]["input"] = _tool_input(block["toolUse"].get("input", ""))
    return [b for b in blocks.values() if b], tail


def _fold_anthropic(events) -> tuple[list[dict], dict]:
    """InvokeModelWithResponseStream chunks (Anthropic events) -> Converse-shaped blocks and the tail."""
    blocks, tail, inputs = {}, {"usage": {}}, {}
    for event in (json.loads(e["chunk"]["bytes"]) for e in events):
        kind, index = event.get("type"), event.get("index")
        if kind == "message_start":
            tail["usage"].update(event["message"].get("usage") or {})
        elif kind == "content_block_start":
            blocks[index] = _anthropic_block(event["content_block"])
        elif kind == "content_block_delta":
            delta = event["delta"]
            if delta.get("type") == "input_json_delta":
                _append(inputs, index, delta.get("partial_json", ""))
            else:
                _stream_delta(blocks[index], {"text_delta": {"text": delta.get("text")},
                                              "thinking_delta": {"reasoningContent": {"text": delta.get("thinking")}},
                                              "signature_delta": {"reasoningContent": {"signature": delta.get(
                                                  "signature")}}}.get(delta.get("type"), {"other": delta}))
        elif kind == "message_delta":
            tail["stopReason"] = event["delta"].get("stop_reason")
            tail["usage"].update(event.get("usage") or {})
    for index, raw in inputs.items():
        blocks[index]["toolUse"]["input"] = _tool_input("".join(raw))
    return [_joined(block) for block in blocks.values()], tail


_USAGE = (("input", ("inputTokens", "input_tokens")), ("output", ("outputTokens", "output_tokens")),
          ("total", ("totalTokens",)),
          ("cache read", ("cacheReadInputTokens", "cacheReadInputTokenCount", "cache_read_input_tokens")),
          ("cache write", ("cacheWriteInputTokens", "cacheWriteInputTokenCount", "cache_creation_input_tokens")),
          ("server tool usage", ("serverToolUsage",)))


def _usage(usage: dict) -> str:
    found = ((label, next((usage[k] for k in keys if k in usage), None)) for label, keys in _USAGE)
    return ", ".join(f"{label} {_compact(value) if isinstance(value, dict) else value}" for label, value in found
                     if value is not None)


def _http_error(it: cassettes.Interaction) -> str:
    body = it.response_json if isinstance(it.response_json, dict) else {}
    header = next((str(v) for k, v in it.response_headers.items() if k.lower() == "x-amzn-errortype"), "")
    code = header.split(":")[0] or body.get("__type") or body.get("code") or str(it.status)
    message = body.get("message") or body.get("Message") or it.body.decode("utf-8", "replace")
    return f"error: HTTP {it.status} {code}: {message}"


def _fold(it: cassettes.Interaction) -> tuple[list[dict], dict, list[str]]:
    """Converse-shaped content blocks, the tail (stop reason, usage) and any in-stream error."""
    if it.frames is None:
        body = it.response_json if isinstance(it.response_json, dict) else {}
        return ((body.get("output") or {}).get("message") or {}).get("content") or [], body, []
    errors: list[str] = []
    if it.operation == "InvokeModelWithResponseStream":
        return (*_fold_anthropic(list(_events(it, errors))), errors)
    blocks, tail = _fold_converse_stream(list(_events(it, errors)))
    return blocks, {**tail, **_raw_metadata(it)}, errors


def _raw_metadata(it: cassettes.Interaction) -> dict:
    """The metadata event as Bedrock sent it: botocore drops keys outside the model (serverToolUsage)."""
    for frame in it.frames:
        if frame.type == "metadata" and frame.message_type == "event":
            try:
                body = frame.json()
            except ValueError:
                return {}
            return {key: body[key] for key in ("usage", "trace") if isinstance(body.get(key), dict)}
    return {}


def _response_lines(it: cassettes.Interaction, full: bool) -> Iterator[str]:
    if it.status >= 300:
        yield _http_error(it)
        return
    try:
        blocks, tail, errors = _fold(it)
    except (KeyError, TypeError, ValueError, AttributeError) as err:
        blocks, tail, errors = [], {}, [f"cannot fold the response ({type(err).__name__}: {err})"]
    yield from (_block(b, full) for b in blocks)
    if tail.get("stopReason"):
        yield f"stop: {tail['stopReason']}"
    if tail.get("usage"):
        yield f"usage: {_usage(tail['usage'])}"
    trace = tail.get("trace")
    for name, value in (trace or {}).items() if isinstance(trace, dict) else ():
        yield f"trace {name}: {_short(_compact(value), full)}"
    yield from errors


def _events(it: cassettes.Interaction, errors: list) -> Iterator[dict]:
    """boto3's events for the stream; an exception frame ends it, noted in ``errors``."""
    try:
        yield from eventstream.decode_events(it.response_body(), it.operation)
    except EventStreamError as err:
        errors.append(f"error: {err.response['Error'].get('Code')}: {err.response['Error'].get('Message')}")
    except Exception as err:  # a corrupt-on-purpose frame: the client stops here too
        errors.append(f"error: the stream breaks ({type(err).__name__}: {err})")


_ABOUT = (("source", "source"), ("model", "model_id"), ("region", "region"), ("recorded", "recorded"))


def render(loaded: cassettes.Cassette, full: bool = False) -> Iterator[str]:
    """The cassette as a readable conversation, line by line."""
    meta = loaded.metadata
    about = [f"{label} {meta[key]}" for label, key in _ABOUT if meta.get(key) not in (None, "", [])]
    made = meta.get("synthesised")
    about += [f"synthesised {', '.join(made)}"] if made else []
    yield f"{loaded.path}: {len(loaded.interactions)} interaction(s)" + (f"; {', '.join(about)}" if about else "")
    for n, it in enumerate(loaded.interactions):
        yield f"\n[{n}] {it.operation or it.method + ' ' + it.uri} {it.model_id} -> HTTP {it.status}"
        yield "  request"
        yield from (f"    {line}" for line in _request_lines(it, full))
        yield "  response"
        yield from (f"    {line}" for line in _response_lines(it, full))
