"""``bedrock-harness cassette show``: a cassette printed as a readable conversation.

Every operation is folded into Converse-shaped content blocks first (ConverseStream events by
``contentBlockIndex``, Converse JSON as is, InvokeModelWithResponseStream's Anthropic events mapped
across), so one printer shows text, reasoning (with its signature), tool calls (id, name, assembled
input), tool results, the stop reason, usage and errors for all three. Events come from botocore itself. A
recorded value of another type than Bedrock's (a message that is a number, a block that is a list) is shown as its
JSON, never a traceback: what ``verify`` passes, ``show`` prints.
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


def _mapping(value: Any) -> dict:
    """``value`` when it is a mapping, else an empty one: a recorded body may hold any JSON where a mapping goes."""
    return value if isinstance(value, dict) else {}


def _items(value: Any) -> list:
    """``value`` when it is a list, else none: a recorded body may hold any JSON where a list goes."""
    return value if isinstance(value, list) else []


def _block(block: Any, full: bool) -> str:
    """One Converse content block as a line (tool calls in full: id, name, input); anything else as its JSON."""
    if not isinstance(block, dict):
        return f"block: {_short(_compact(block), full, 120)}"
    kind = next((k for k in _PRIMARY if k in block), next(iter(block), "empty block"))
    value = block.get(kind, {})
    citations = block.get("citations")
    cited = f" [{len(citations)} citation(s)]" if isinstance(citations, list) and citations else ""
    if kind == "text":
        return f"text: {_short(value, full) if value else '(empty)'}{cited}"
    if not isinstance(value, dict):
        return f"{kind}: {_short(_compact(value), full, 120)}"
    if kind == "toolUse":
        return f"tool call {_named(value, 'toolUseId')} {_named(value, 'name')} {_compact(value.get('input'))}"
    if kind == "toolResult":
        content = "; ".join(_short(_mapping(c).get("text", "") or _compact(c), full) for c in _items(value.get("content")))
        status = f" ({value['status']})" if value.get("status") else ""  # only what was sent
        return f"tool result {_named(value, 'toolUseId')}{status}: {content}"
    if kind == "reasoningContent":
        return _reasoning(value, full)
    return f"{kind}: {_short(_compact(value), full, 120)}"


def _size(data: Any) -> str:
    """The size of a redacted blob: its bytes, or the bytes its base64 text stands for."""
    if isinstance(data, bytes):
        return f"{len(data)} bytes"
    shown = str(data)
    try:
        return f"{len(base64.b64decode(shown + '==='[len(shown) % 4:]))} bytes"
    except ValueError:
        return f"{len(shown)} characters, not base64"


def _reasoning(value: dict, full: bool) -> str:
    if "redactedContent" in value:
        data = value["redactedContent"]
        shown = base64.b64encode(data).decode() if isinstance(data, bytes) else str(data)
        return f"redacted reasoning: {shown}" if full else f"redacted reasoning ({_size(data)})"
    text = _mapping(value.get("reasoningText"))
    return f"reasoning: {_short(text.get('text', ''), full)}{_signature(text, full)}"


def _signature(text: dict, full: bool) -> str:
    """The signature: whole with --full, else its ends; an empty one and a missing one are told apart."""
    if text.get("signature") is None:
        return " [no signature]"
    signature = str(text["signature"])
    if not signature:
        return ' [signature "" (empty)]'
    if full:
        return f" [signature {signature}]"
    return f" [signature {signature[:6]}…{signature[-4:]}, {len(signature)} chars]"


# ------------------------------------------------------------------------------ request side


def _anthropic_block(block: Any) -> Any:
    """An Anthropic-format content block in Converse shape, so one printer serves both (anything else as it is)."""
    if not isinstance(block, (str, dict)):
        return block
    if isinstance(block, str) or block.get("type") == "text":
        return {"text": block if isinstance(block, str) else block.get("text", "")}
    kind = block.get("type")
    if kind == "tool_use":
        return {"toolUse": {"toolUseId": block.get("id"), "name": block.get("name"), "input": block.get("input")}}
    if kind == "tool_result":
        content = block.get("content")
        content = [{"text": content}] if isinstance(content, str) else [_anthropic_block(c) for c in _items(content)]
        status = {"status": "error"} if block.get("is_error") else {}  # Anthropic sends is_error, never success
        return {"toolResult": {"toolUseId": block.get("tool_use_id"), "content": content, **status}}
    if kind in ("thinking", "redacted_thinking"):
        inner = {"redactedContent": block.get("data", "")} if kind == "redacted_thinking" else \
            {"reasoningText": {"text": block.get("thinking", ""), "signature": block.get("signature")}}
        return {"reasoningContent": inner}
    return {str(kind or "block"): {k: v for k, v in block.items() if k != "type"}}


def _request_lines(it: cassettes.Interaction, full: bool) -> Iterator[str]:
    body = it.request_json
    if not isinstance(body, dict):
        yield f"body: {_short(it.request_body.decode('utf-8', 'replace'), full)}" if it.request_body else "(no body)"
        return
    anthropic = it.operation in ("InvokeModelWithResponseStream", "InvokeModel")
    system = body.get("system")
    for item in system if isinstance(system, list) else [system] if system is not None else []:
        shown = item if isinstance(item, str) else _mapping(item).get("text", _compact(item))
        yield f"system: {_short(shown, full)}"
    config = _mapping(body.get("toolConfig"))
    names = [_tool_name(t) for t in _items(body.get("tools") if anthropic else config.get("tools"))]
    if any(names):
        yield "tools: " + ", ".join(str(n) for n in names if n)
    choice = body.get("tool_choice") if anthropic else config.get("toolChoice")
    if choice:
        yield f"tool choice: {_compact(choice)}"
    yield from _settings(body, anthropic)
    for message in _items(body.get("messages")):
        yield from _message_lines(message, anthropic, full)


def _tool_name(tool: Any) -> Any:
    tool = _mapping(tool)
    return tool.get("name") or _mapping(tool.get("toolSpec")).get("name") or \
        _mapping(tool.get("systemTool")).get("name")


def _message_lines(message: Any, anthropic: bool, full: bool) -> Iterator[str]:
    if not isinstance(message, dict):
        yield f"message: {_short(_compact(message), full, 120)}"
        return
    content = message.get("content")
    blocks = [content] if isinstance(content, str) and anthropic else \
        _items(content) if isinstance(content, list) else [content] if content is not None else []
    for block in blocks:
        yield f"{message.get('role')}: {_block(_anthropic_block(block) if anthropic else block, full)}"


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


def _usage(usage: Any) -> str:
    if not isinstance(usage, dict):
        return _compact(usage)
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
        body = _mapping(it.response_json)
        content = _mapping(_mapping(body.get("output")).get("message")).get("content")
        return _items(content) if isinstance(content, list) else [content] if content else [], body, []
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
        yield from (eventstream.frame_events(it.frames, it.operation) if it.wire is None
                    else eventstream.decode_events(it.response_body(), it.operation))
    except EventStreamError as err:
        errors.append(f"error: {err.response['Error'].get('Code')}: {err.response['Error'].get('Message')}")
    except Exception as err:  # a corrupt-on-purpose frame: the client stops here too
        errors.append(f"error: the stream breaks ({type(err).__name__}: {err})")


_ABOUT = (("source", "source"), ("model", "model_id"), ("region", "region"), ("recorded", "recorded"))


def _guarded(lines: Iterator[str], what: str) -> Iterator[str]:
    """The lines, and one saying where showing stopped should a recorded value be shaped past what is handled."""
    try:
        yield from lines
    except (KeyError, TypeError, ValueError, AttributeError, IndexError, RecursionError) as err:
        yield f"cannot show the rest of the {what} ({type(err).__name__}: {err})"


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
        yield from (f"    {line}" for line in _guarded(_request_lines(it, full), "request"))
        yield "  response"
        yield from (f"    {line}" for line in _guarded(_response_lines(it, full), "response"))
