#!/usr/bin/env python3
"""A minimal Bedrock ConverseStream adapter speaking bedrock-harness's subprocess protocol (stdlib + boto3).

Certify it:  bedrock-harness certify --command "python examples/python_adapter/adapter.py"
Conversation mode (the adapter keeps the history and sends back the message it assembled itself):
             bedrock-harness certify --command "python examples/python_adapter/adapter.py --conversation"

The protocol is JSON lines: the harness writes one message per line on stdin, the adapter answers on stdout
(and logs on stderr only). {"type": "hello"} is answered with the adapter's name, version and capabilities;
each {"type": "turn"} with {"type": "chunk"} lines and a closing {"type": "done"} (or {"type": "error"}).
EOF on stdin means: exit 0. The harness points boto3 at its loopback Bedrock endpoint through the environment
(AWS_ENDPOINT_URL_BEDROCK_RUNTIME, AWS_REGION, dummy credentials), so the client below is an ordinary one.
"""

import base64
import json
import os
import sys

import boto3
from botocore.config import Config
from botocore.exceptions import BotoCoreError, ClientError

NAME, VERSION = "example-python-boto3", "1.0.0"
CAPABILITIES = ["text", "tool_use", "parallel_tool_use", "reasoning", "reasoning_signature", "redacted_reasoning",
                "usage", "cache_usage", "stop_reason", "round_trip", "errors", "streaming", "non_streaming",
                "cache_points", "cache_details", "structured_output", "tool_result_media", "citations",
                "service_tier", "guardrail", "response_fields", "response_metadata"]
GUARDRAIL = {"identifier": "guardrailIdentifier", "version": "guardrailVersion", "trace": "trace",
             "stream_processing_mode": "streamProcessingMode"}
IMAGE_FORMATS = {"image/png": "png", "image/jpeg": "jpeg", "image/gif": "gif", "image/webp": "webp"}


# The families seen accepting toolResult.status; Writer Palmyra rejects it, others are unknown: leave it out there.
STATUS_MODELS = ("anthropic.", "amazon.nova", "moonshot", "meta.", "mistral.", "cohere.")
DOCUMENT_FORMATS = {"application/pdf": "pdf", "text/csv": "csv", "text/plain": "txt", "text/markdown": "md",
                    "text/html": "html"}
UNSIGNED_REASONING_MODELS = ("openai.",)
# The families that take an image inside a tool result; the others take it beside the result.
RESULT_IMAGE_MODELS = ("anthropic.", "amazon.nova", "meta.")
# Writer Palmyra refuses tools on ConverseStream ("This model doesn't support tool use in streaming mode."): its tool
# calls go through Converse.
NO_STREAMED_TOOLS = ("writer.",)


def send(message):
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()  # one line per message, flushed: the harness reads line by line


# ---- the turn (Anthropic-format history) -> converse_stream arguments ----

def tool_result_content(content):
    """A tool result's content: a string, a list of text, JSON, image and document parts, or one JSON object."""
    if content in (None, ""):
        return []
    if isinstance(content, str):
        return [{"text": content}]
    if isinstance(content, dict):
        return [{"json": content}]
    return [{"text": part} if isinstance(part, str) else {"text": part["text"]} if part.get("type") == "text"
            else media_block(part) if part.get("type") in ("image", "document")
            else search_result(part) if part.get("type") == "search_result"
            else json_part(part.get("json", part)) for part in content]


def search_result(part):
    """A RAG tool's search result as Bedrock's own block, so the model can cite it (searchResultLocation)."""
    block = {"source": part["source"], "title": part["title"], "content": [{"text": c["text"]} for c in part["content"]]}
    return {"searchResult": {**block, **({"citations": part["citations"]} if "citations" in part else {})}}


def media_block(block):
    """An image or a document as its own Converse block (never its base64 as text: the model would not see it)."""
    source = block["source"]
    if block["type"] == "image":
        return {"image": {"format": IMAGE_FORMATS[source["media_type"]],
                          "source": {"bytes": base64.b64decode(source["data"])}}}
    name, citations = block.get("title") or "document", ({"citations": block["citations"]} if "citations" in block
                                                          else {})
    if source["type"] == "text":  # a plain-text document (citations need it enabled)
        return {"document": {"format": "txt", "name": name, "source": {"text": source["data"]}, **citations}}
    return {"document": {"format": DOCUMENT_FORMATS[source["media_type"]], "name": name,
                         "source": {"bytes": base64.b64decode(source["data"])}, **citations}}


def hoisted(blocks, model_id, errors):
    """A user turn's blocks with the media a family takes only beside a tool result moved there, as their own blocks:
    images for every family but Claude, Nova and Llama ("This model doesn't support the image field for user
    messages"), and anything but text in a Claude error result ("all content must be type `text` if `is_error`")."""
    images = any(family in model_id for family in RESULT_IMAGE_MODELS)
    text_only_errors = "anthropic." in model_id
    results, moved, rest = [], [], []
    for block in blocks:
        result = block.get("toolResult")
        if result is None:
            rest.append(block)
            continue
        error = result["toolUseId"] in errors  # the ids of the failed results, status sent or not
        out = [p for p in result["content"]
               if ("image" in p and not images) or (text_only_errors and error and "text" not in p and "json" not in p)]
        result["content"] = [p for p in result["content"] if p not in out] or (
            [{"text": "(attached after the tool results)"}] if out else [])
        results.append(block)
        moved += out
    return results + moved + rest


def json_part(value):
    """Bedrock takes only a JSON object as json ("Provide a json object for the field"): anything else goes as text."""
    if isinstance(value, dict):
        return {"json": value}
    return {"text": value if isinstance(value, str) else json.dumps(value)}


def converse_block(block, status=True):
    """One Anthropic content block as a Converse content block (None: drop it; Bedrock rejects blank text)."""
    kind = block["type"]
    if kind == "text" and block.get("citations") and block["text"].strip():  # a cited answer keeps its citations
        return {"citationsContent": {"content": [{"text": block["text"]}], "citations": block["citations"]}}
    if kind == "text":
        return {"text": block["text"]} if block["text"].strip() else None
    if kind == "tool_use":  # the id stays exactly as Bedrock sent it; a zero-argument input is {}, never ""
        return {"toolUse": {"toolUseId": block["id"], "name": block["name"], "input": block.get("input") or {}}}
    if kind == "tool_result":  # status only where Bedrock documents it (Claude, Nova); other models reject it
        result = {"toolUseId": block["tool_use_id"], "content": tool_result_content(block.get("content"))}
        return {"toolResult": {**result, **({"status": "error" if block.get("is_error") else "success"}
                                            if status else {})}}
    if kind == "thinking":  # the signature goes back byte for byte; unsigned reasoning goes back without one
        text = {"text": block.get("thinking", "")}
        return {"reasoningContent": {"reasoningText": {**text, **({"signature": block["signature"]}
                                                                  if block.get("signature") else {})}}}
    if kind == "redacted_thinking":
        return {"reasoningContent": {"redactedContent": base64.b64decode(block["data"])}}
    if kind in ("image", "document"):
        return media_block(block)
    raise ValueError(f"unsupported content block type {kind!r}")


def converse_messages(history, status=True, model_id=""):
    """Same-role messages merged (parallel tool results share ONE user turn); reasoning first in an assistant
    turn and tool results first in a user turn, as Bedrock requires."""
    merged = []
    # Unsigned reasoning goes back to gpt-oss only: Nova and Claude without thinking reject it ("User messages cannot
    # contain reasoning content"), and every model tried accepts the follow-up without it.
    unsigned = any(family in model_id for family in UNSIGNED_REASONING_MODELS)
    errors = {b["tool_use_id"] for m in history if isinstance(m["content"], list) for b in m["content"]
              if b["type"] == "tool_result" and b.get("is_error")}
    for message in history:
        content = message["content"]
        if message["role"] == "assistant" and not unsigned and not isinstance(content, str):
            content = [b for b in content if b["type"] != "thinking" or b.get("signature")]
        blocks = [made for b in ([{"type": "text", "text": content}] if isinstance(content, str) else content)
                  for made in with_cache_point(converse_block(b, status), b)]
        if blocks and merged and merged[-1]["role"] == message["role"]:
            merged[-1]["content"] += blocks
        elif blocks:
            merged.append({"role": message["role"], "content": blocks})
    for message in merged:
        first = "reasoningContent" if message["role"] == "assistant" else "toolResult"
        message["content"].sort(key=lambda block: first not in block)  # a stable sort keeps the rest in order
        if message["role"] == "user":
            message["content"] = hoisted(message["content"], model_id, errors)
    return merged


def cache_point(control):
    """Anthropic's cache_control as Bedrock's cachePoint block (no ttl: Bedrock's default, 5m)."""
    return {"cachePoint": {"type": "default", **({"ttl": control["ttl"]} if control.get("ttl") else {})}}


def with_cache_point(made, block):
    """A converted block and, when the block asks for one, the cache point after it: beside a tool result in the
    message's content (never inside toolResult.content, where it is no member)."""
    if made is None:
        return []
    return [made, cache_point(block["cache_control"])] if block.get("cache_control") else [made]


def tool_config(tools, choice, thinking):
    if not tools:
        return None  # Bedrock rejects an empty tool list; a turn without tools sends no tool choice either
    specs = []
    for t in tools:
        spec = {k: v for k, v in (("name", t["name"]), ("description", t.get("description")),
                                  ("inputSchema", {"json": t["input_schema"]}), ("strict", t.get("strict") or None))
                if v is not None}
        # a tool's cache point is its own toolConfig.tools element: a tools element sets exactly one member
        specs += [{"toolSpec": spec}] + ([cache_point(t["cache_control"])] if t.get("cache_control") else [])
    if thinking:
        choice = "auto"  # Bedrock refuses forced tool use while thinking
    if choice in ("auto", "any"):
        return {"tools": specs, "toolChoice": {choice: {}}}
    if isinstance(choice, dict):
        return {"tools": specs, "toolChoice": {"tool": {"name": choice["name"]}}}
    return {"tools": specs}


def converse_request(turn):
    options = turn.get("options") or {}
    budget = options.get("thinking_budget")
    inference = {"maxTokens": options.get("max_tokens"), "stopSequences": options.get("stop_sequences") or None}
    if not budget and options.get("temperature") is not None:
        inference["temperature"] = options["temperature"]  # Bedrock rejects a temperature with thinking on
    status = any(family in turn["model_id"] for family in STATUS_MODELS)
    request = {"modelId": turn["model_id"], "messages": converse_messages(turn["messages"], status, turn["model_id"]),
               "inferenceConfig": {k: v for k, v in inference.items() if v is not None}}
    system = turn.get("system")
    if isinstance(system, str) and system:
        request["system"] = [{"text": system}]
    elif system:  # text blocks, each maybe asking for a cache point after it
        request["system"] = [made for b in system for made in with_cache_point({"text": b["text"]}, b)]
    wanted = options.get("output_format")
    if wanted:  # structured output: outputConfig (Bedrock ignores a response_format in additionalModelRequestFields)
        definition = {k: v for k, v in (("schema", json.dumps(wanted["schema"])), ("name", wanted.get("name")),
                                        ("description", wanted.get("description"))) if v is not None}
        request["outputConfig"] = {"textFormat": {"type": "json_schema", "structure": {"jsonSchema": definition}}}
    config = tool_config(turn.get("tools"), options.get("tool_choice"), bool(budget))
    if config:
        request["toolConfig"] = config
    if budget:
        request["additionalModelRequestFields"] = {"thinking": {"type": "enabled", "budget_tokens": budget}}
    request.update(served(options))
    return request


def served(options):
    """How the turn asks to be served: service tier, latency, guardrail, the response fields to return."""
    out = {}
    if options.get("service_tier"):
        out["serviceTier"] = {"type": options["service_tier"]}
    if options.get("latency"):
        out["performanceConfig"] = {"latency": options["latency"]}
    if options.get("guardrail"):
        out["guardrailConfig"] = {GUARDRAIL[k]: v for k, v in options["guardrail"].items() if v}
    if options.get("response_field_paths"):
        out["additionalModelResponseFieldPaths"] = options["response_field_paths"]
    return out


def converse_twin(request):
    """Converse's guardrailConfig has no streamProcessingMode: the non-streaming call leaves it out."""
    guardrail = request.get("guardrailConfig")
    if not guardrail or "streamProcessingMode" not in guardrail:
        return request
    return {**request, "guardrailConfig": {k: v for k, v in guardrail.items() if k != "streamProcessingMode"}}


# ---- ConverseStream events -> stream chunks ----

def error_chunk(exc):
    """Bedrock's own error code when there is one (an in-stream exception keeps its lowerCamel name)."""
    if isinstance(exc, ClientError):
        error = exc.response.get("Error", {})
        return {"type": "error", "code": error.get("Code") or "unknown", "message": error.get("Message") or str(exc)}
    return {"type": "error", "code": type(exc).__name__, "message": str(exc)}


def delta_chunks(index, delta, calls):
    if "citation" in delta:  # Bedrock's key is citation (not citationsContent); it comes before the text it cites
        yield {"type": "citation", "index": index, "citation": delta["citation"]}
    if delta.get("text"):
        yield {"type": "text", "index": index, "text": delta["text"]}
    reasoning = delta.get("reasoningContent") or {}
    if reasoning.get("text"):
        yield {"type": "reasoning", "index": index, "text": reasoning["text"]}
    if reasoning.get("signature"):
        yield {"type": "reasoning", "index": index, "signature": reasoning["signature"]}
    if reasoning.get("redactedContent"):
        yield {"type": "redacted_reasoning", "index": index,
               "data": base64.b64encode(reasoning["redactedContent"]).decode("ascii")}
    tool = delta.get("toolUse")
    if tool and tool.get("input") and index in calls:  # deltas of server-side tools are not ours to surface
        yield {"type": "tool_call", "index": index, **calls[index], "input_delta": tool["input"]}


def metadata_chunk(metadata):
    """How the service served the turn: a prompt router's invoked model, the service tier, the latency (or None)."""
    chunk = {"invoked_model_id": metadata.get("trace", {}).get("promptRouter", {}).get("invokedModelId"),
             "service_tier": metadata.get("serviceTier", {}).get("type"),
             "latency": metadata.get("performanceConfig", {}).get("latency")}
    return {"type": "metadata", **chunk} if any(v is not None for v in chunk.values()) else None


def event_chunks(events):
    """Blocks tracked by contentBlockIndex, so parallel tool calls never mix."""
    calls, stopped = {}, False
    for event in events:
        if "contentBlockStart" in event:
            index, start = event["contentBlockStart"]["contentBlockIndex"], event["contentBlockStart"]["start"]
            tool = start.get("toolUse")
            if tool is None and "toolResult" not in start:  # an image, or a kind newer than botocore: never text
                unknown = start.get("SDK_UNKNOWN_MEMBER", {}).get("name")
                yield {"type": "other", "index": index, "kind": unknown or next(iter(start), "unknown")}
            if tool is None or tool.get("type") == "server_tool_use":
                continue  # a server-side tool ran inside Bedrock: not a call for the application
            if not tool.get("toolUseId") or not tool.get("name"):
                yield {"type": "error", "code": "invalidToolUse",
                       "message": f"toolUse at contentBlockIndex {index} has no toolUseId or name"}
                return
            calls[index] = {"id": tool["toolUseId"], "name": tool["name"]}
            yield {"type": "tool_call", "index": index, **calls[index], "input_delta": ""}
        elif "contentBlockDelta" in event:
            yield from delta_chunks(event["contentBlockDelta"]["contentBlockIndex"],
                                    event["contentBlockDelta"]["delta"], calls)
        elif "messageStop" in event:
            stopped = True
            yield {"type": "stop", "reason": event["messageStop"]["stopReason"]}
            if "additionalModelResponseFields" in event["messageStop"]:
                yield {"type": "response_fields", "fields": event["messageStop"]["additionalModelResponseFields"]}
        elif "metadata" in event and "usage" in event["metadata"]:
            usage = event["metadata"]["usage"]
            yield usage_chunk(usage)
            served_by = metadata_chunk(event["metadata"])
            if served_by:
                yield served_by
    if not stopped:  # a cut-off stream: never let a half-streamed tool call pass as complete
        yield {"type": "error", "code": "incompleteStream", "message": "the stream ended before messageStop"}


def usage_chunk(usage):
    """Bedrock's usage; cacheDetails (the cache writes per TTL, 1h before 5m) when it sent any."""
    chunk = {"type": "usage", "input_tokens": usage["inputTokens"], "output_tokens": usage["outputTokens"],
             "cache_read_input_tokens": usage.get("cacheReadInputTokens", 0),
             "cache_write_input_tokens": usage.get("cacheWriteInputTokens", 0)}
    details = [{"ttl": d["ttl"], "input_tokens": d["inputTokens"]} for d in usage.get("cacheDetails") or []]
    return {**chunk, "cache_details": details} if details else chunk


def stream(client, turn):
    """The turn's chunks; when the turn asks (non_streaming), then the message assembled from the stream and the one
    from the non-streaming converse call on the same request, which the harness holds equal. A model refusing tools
    on ConverseStream gets the turn through converse alone (both paths are then that one call)."""
    request, chunks = converse_request(turn), []
    streams = "toolConfig" not in request or not any(name in request["modelId"] for name in NO_STREAMED_TOOLS)
    for chunk in streamed(client, request) if streams else whole(client, request):
        chunks.append(chunk)
        yield chunk
    if turn.get("non_streaming") and not streams:
        yield native("stream", chunks)
        yield native("converse", chunks)
    elif turn.get("non_streaming"):
        yield native("stream", chunks)
        try:
            yield {"type": "native", "path": "converse",
                   "message": whole_message(client.converse(**converse_twin(request)))}
        except Exception as exc:  # noqa: BLE001 - the non-streaming call failed: that is its result
            yield {"type": "native", "path": "converse", "error": f"{type(exc).__name__}: {exc}"}


def streamed(client, request):
    try:
        response = client.converse_stream(**request)
    except (ClientError, BotoCoreError) as exc:  # after boto3's retries (a 429 is retried)
        yield error_chunk(exc)
        return
    try:
        yield from event_chunks(response["stream"])
    except Exception as exc:  # noqa: BLE001 - in-stream exceptions and broken connections end the stream
        yield error_chunk(exc)


def whole(client, request):
    """The chunks of a non-streaming converse call: each block whole, then the stop reason and usage."""
    try:
        response = client.converse(**request)
    except (ClientError, BotoCoreError) as exc:
        yield error_chunk(exc)
        return
    for index, block in enumerate(whole_message(response)["content"]):
        if block["type"] == "text":
            yield from ({"type": "citation", "index": index, "citation": c} for c in block.get("citations", ()))
            yield {"type": "text", "index": index, "text": block["text"]}
        elif block["type"] == "tool_use":
            yield {"type": "tool_call", "index": index, "id": block["id"], "name": block["name"], "input": block["input"]}
        elif block["type"] == "thinking":
            yield {"type": "reasoning", "index": index, "text": block["thinking"]}
            if block.get("signature"):
                yield {"type": "reasoning", "index": index, "signature": block["signature"]}
        elif block["type"] == "redacted_thinking":
            yield {"type": "redacted_reasoning", "index": index, "data": block["data"]}
    yield {"type": "stop", "reason": response["stopReason"]}
    usage = response["usage"]
    yield {"type": "usage", "input_tokens": usage["inputTokens"], "output_tokens": usage["outputTokens"],
           "cache_read_input_tokens": usage.get("cacheReadInputTokens", 0),
           "cache_write_input_tokens": usage.get("cacheWriteInputTokens", 0)}


def native(path, chunks):
    failed = next((c for c in chunks if c["type"] == "error"), None)
    if failed:
        return {"type": "native", "path": path, "error": f"{failed['code']}: {failed['message']}"}
    return {"type": "native", "path": path, "message": assemble(chunks)}


def whole_message(response):
    """A Converse response's message as the Anthropic-format message assemble() builds from a stream."""
    blocks = []
    for block in response["output"]["message"]["content"]:
        reasoning = block.get("reasoningContent") or {}
        if block.get("text"):
            blocks.append({"type": "text", "text": block["text"]})
        elif "citationsContent" in block:
            cited = block["citationsContent"]
            blocks.append({"type": "text", "text": "".join(c.get("text", "") for c in cited.get("content", [])),
                           "citations": cited.get("citations", [])})
        elif "toolUse" in block and block["toolUse"].get("type") != "server_tool_use":
            use = block["toolUse"]
            if not use.get("toolUseId") or not use.get("name"):
                raise ValueError("a toolUse without toolUseId or name")
            blocks.append({"type": "tool_use", "id": use["toolUseId"], "name": use["name"], "input": use["input"]})
        elif "reasoningText" in reasoning:
            text = reasoning["reasoningText"]
            blocks.append({"type": "thinking", "thinking": text.get("text", ""),
                           **({"signature": text["signature"]} if text.get("signature") else {})})
        elif "redactedContent" in reasoning:
            blocks.append({"type": "redacted_thinking",
                           "data": base64.b64encode(reasoning["redactedContent"]).decode("ascii")})
    return {"role": "assistant", "content": blocks}


# ---- conversation mode: the history is ours, and so is the assistant message we send back ----

def assemble(chunks):
    """The assistant message of one streamed turn: a block per contentBlockIndex, in stream order."""
    blocks, arguments = {}, {}
    for chunk in chunks:
        kind, key = chunk["type"], (chunk["type"], chunk.get("index"))
        if kind == "text":
            blocks.setdefault(key, {"type": "text", "text": ""})["text"] += chunk["text"]
        elif kind == "citation":  # it belongs to the text block of its index
            block = blocks.setdefault(("text", chunk.get("index")), {"type": "text", "text": ""})
            block.setdefault("citations", []).append(chunk["citation"])
        elif kind == "reasoning":
            block = blocks.setdefault(key, {"type": "thinking", "thinking": ""})
            block["thinking"] += chunk.get("text", "")
            if chunk.get("signature"):
                block["signature"] = chunk["signature"]
        elif kind == "redacted_reasoning":
            blocks[(kind, len(blocks))] = {"type": "redacted_thinking", "data": chunk["data"]}
        elif kind == "tool_call":
            blocks.setdefault(key, {"type": "tool_use", "id": chunk["id"], "name": chunk["name"]})
            # a non-streamed call arrives whole, with its input
            arguments[key] = json.dumps(chunk["input"]) if "input" in chunk else \
                arguments.get(key, "") + chunk["input_delta"]
    for key, text in arguments.items():
        try:  # a zero-argument call streams no input at all: its input is {}
            blocks[key]["input"] = json.loads(text) if text.strip() else {}
        except ValueError:  # cut off by max_tokens: it cannot be executed or sent back
            del blocks[key]
    return {"role": "assistant", "content": list(blocks.values())}


class Conversation:
    """The history of the conversation a turn names; a new name starts afresh."""

    def __init__(self):
        self.name, self.messages, self.assistant = None, [], None

    def turn(self, turn):
        """The turn with the whole history: what came before, our assembled message, then the new messages."""
        if turn["conversation"] != self.name:
            self.name, self.messages, self.assistant = turn["conversation"], [], None
        if self.assistant:
            self.messages.append(self.assistant)
        self.messages += turn["messages"]
        return {**turn, "messages": list(self.messages)}

    def stream(self, client, turn):
        chunks = []
        for chunk in stream(client, self.turn(turn)):
            chunks.append(chunk)
            yield chunk
        self.assistant = None if any(c["type"] == "error" for c in chunks) else assemble(chunks)
        if self.assistant:  # reported, so the harness compares it with what we streamed
            yield {"type": "message", "message": self.assistant}


def make_client(endpoint):
    """boto3 reads AWS_ENDPOINT_URL_BEDROCK_RUNTIME, AWS_REGION and the keys from the environment the harness
    sets; the turn's endpoint is the fallback when the adapter runs without it."""
    fallback = {} if os.environ.get("AWS_ENDPOINT_URL_BEDROCK_RUNTIME") else {
        "endpoint_url": endpoint["endpoint_url"], "region_name": endpoint["region"],
        "aws_access_key_id": endpoint["aws_access_key_id"], "aws_secret_access_key": endpoint["aws_secret_access_key"]}
    return boto3.client("bedrock-runtime", config=Config(retries={"mode": "standard", "max_attempts": 3}), **fallback)


def main(argv):
    conversation = Conversation() if "--conversation" in argv else None
    capabilities = CAPABILITIES + (["own_history"] if conversation else [])
    client = None
    for line in sys.stdin:
        message = json.loads(line)
        if message["type"] == "hello":
            send({"type": "hello", "name": NAME, "version": VERSION, "capabilities": capabilities})
        elif message["type"] == "turn":
            print(f"{message['scenario']} turn {message['index']}", file=sys.stderr)
            client = client or make_client(message["endpoint"])
            turn = conversation.stream(client, message["turn"]) if conversation else stream(client, message["turn"])
            try:
                for chunk in turn:
                    send({"type": "chunk", "chunk": chunk})
            except Exception as exc:  # noqa: BLE001 - a turn this adapter cannot send: say so, keep serving
                send({"type": "error", "message": f"{type(exc).__name__}: {exc}"})
            else:
                send({"type": "done"})
    return 0  # EOF on stdin: the harness is done


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
