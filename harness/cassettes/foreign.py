"""Readers of foreign Bedrock fixtures: each turns one format into vcrpy-shaped (request, response) pairs.

Formats, as found in public projects' test data (the importer tells them apart, ``FORMATS`` names them):

- vcrpy YAML or JSON: ``interactions[].request/response`` (``!!binary`` bodies, pydantic-ai's ``parsed_body``,
  crewAI's plain JSON strings);
- langchain-aws gzip: ``requests:`` / ``responses:`` lists, every header value ``**REDACTED**``;
- nock JSON (JavaScript): a list of ``{scope, method, path, body, status, response, rawHeaders}``, a binary
  response as a hex string with ``responseIsBinary``;
- a capture JSON (vercel): ``{modelId, region, prompt, capturedAt, response: {status, bodyBase64}}``;
- response tables (newrelic): ``{"STREAMED_RESPONSES"|"RESPONSES": {prompt: [headers, status, body]}}``, a
  streamed body as its network chunks in hex;
- raw event-stream bytes;
- decoded events, one per line (``{"contentBlockDelta": {...}}``; ``{"chunk": ...}`` or Anthropic events for
  InvokeModelWithResponseStream), no framing and no request: frames are encoded the way Bedrock writes them.

Where a format holds no request (or no model id), the pair carries a synthesised one and ``Foreign.synthesised``
names what was made up, so the cassette's metadata can say so.
"""

from __future__ import annotations

import base64
import json
import random
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote

from harness.cassettes.cassette import EVENTSTREAM, STREAM_OPERATIONS, operation_of, status_code
from harness.wire import eventstream
from harness.wire.kinds import kind_of

__all__ = ["FORMATS", "Foreign", "ShapeError", "UNKNOWN_MODEL", "decoded_events", "is_event", "langchain", "newrelic",
           "nock", "raw_stream", "synthetic_request", "uri", "vercel", "vcrpy"]

FORMATS = ("vcrpy YAML/JSON (interactions:)", "langchain-aws (requests:/responses:)", "nock JSON (a list of "
           "{scope, path, response})", "capture JSON ({modelId, response: {bodyBase64}})", "newrelic response tables "
           "(STREAMED_RESPONSES/RESPONSES)", "raw event-stream bytes", "decoded events, one JSON object per line")
UNKNOWN_MODEL = "imported.unknown-model"  # the model id of a recording that names none (marked synthesised)
_REDACTED = "**REDACTED**"
_PATHS = {"ConverseStream": "converse-stream", "Converse": "converse",
          "InvokeModelWithResponseStream": "invoke-with-response-stream"}
_EVENTS = ("messageStart", "contentBlockStart", "contentBlockDelta", "contentBlockStop", "messageStop", "metadata")
_ANTHROPIC = ("message_start", "content_block_start", "content_block_delta", "content_block_stop", "message_delta",
              "message_stop", "ping", "error")


@dataclass
class Foreign:
    """What a reader found: vcrpy-shaped pairs, when it was recorded, and what had to be synthesised."""

    pairs: list[tuple[dict, dict]]
    recorded: str | None = None
    region: str | None = None
    synthesised: list[str] = field(default_factory=list)


class ShapeError(ValueError):
    """A recognised format with an item that is not shaped as the format has it: names the item and the field."""


def _numbered(kind: str, items: Any, read) -> list:
    """``read`` applied to each item; a malformed one raises ShapeError naming it (``interaction 2: ...``)."""
    if not isinstance(items, (list, dict)):
        raise ShapeError(f"the {kind}s are {kind_of(items)}, not a list")
    out = []
    for n, item in enumerate(items.items() if isinstance(items, dict) else items):
        name = f"{kind} {item[0]!r}" if isinstance(items, dict) else f"{kind} {n}"
        try:
            out.append(read(item))
        except ShapeError as err:
            raise ShapeError(f"{name}: {err}") from None
        except KeyError as err:
            raise ShapeError(f"{name}: missing field {err}") from None
        except (TypeError, ValueError, AttributeError, IndexError) as err:
            raise ShapeError(f"{name}: wrong shape ({type(err).__name__}: {err})") from None
    return out


def uri(model_id: str, operation: str, region: str = "us-east-1") -> str:
    """The URI botocore calls for ``operation`` on ``model_id`` (percent-encoded like botocore)."""
    return f"https://bedrock-runtime.{region}.amazonaws.com/model/{quote(model_id, safe='-._~')}/{_PATHS[operation]}"


def synthetic_request(prompt: str, operation: str) -> bytes:
    """A minimal request body asking ``prompt`` (Anthropic-native for InvokeModel streams)."""
    content = [{"text": prompt}] if operation != "InvokeModelWithResponseStream" else prompt
    body: dict = {"messages": [{"role": "user", "content": content}]}
    if operation == "InvokeModelWithResponseStream":
        body = {"anthropic_version": "bedrock-2023-05-31", "max_tokens": 1024, **body}
    return json.dumps(body).encode()


def _status(code: Any) -> dict:
    status = code if isinstance(code, dict) else {"code": code, "message": ""}
    code = status_code(status.get("code"))
    if code is None:
        raise ShapeError(f"the status code {status.get('code')!r} is not a whole number")
    return {**status, "code": code}


def _pair(method: str, where: str, body: Any, headers: dict, status: Any, answer: Any, answer_headers: dict) -> tuple:
    request = {"method": method, "uri": where, "body": body, "headers": headers}
    return request, {"status": _status(status), "headers": answer_headers, "body": {"string": answer}}


def _as_body(value: Any) -> bytes | str | None:
    if isinstance(value, (dict, list)):
        return json.dumps(value).encode()
    return value


def _clean_headers(headers: Any) -> dict:
    """Header values as lists, without the ones a recorder replaced by ``**REDACTED**``."""
    out = {}
    for name, value in (headers or {}).items():
        values = [v for v in (value if isinstance(value, list) else [value]) if v != _REDACTED]
        if values:
            out[str(name)] = values
    return out


# ---- vcrpy and langchain-aws ----

def _mapping(item: Any, name: str) -> dict:
    if not isinstance(item, dict):
        raise ShapeError(f"{name} is {kind_of(item)}, not a mapping")
    return item


def _string(value: Any, name: str) -> str:
    if not isinstance(value, str):
        raise ShapeError(f"{name} is {kind_of(value)}, not a string")
    return value


def _hex(value: Any, name: str) -> bytes:
    try:
        return bytes.fromhex(value)
    except (TypeError, ValueError):
        raise ShapeError(f"{name} is not a hex string") from None


def _vcr_request(item: dict) -> dict:
    item = _mapping(item, "request")
    body = json.dumps(item["parsed_body"]).encode() if "parsed_body" in item else item.get("body")
    body = body.get("string") if isinstance(body, dict) else body
    return {"method": _string(item.get("method", "POST"), "request.method"), "uri": _string(item["uri"], "request.uri"),
            "body": body, "headers": _clean_headers(item.get("headers"))}


def _vcr_response(item: dict) -> dict:
    item = _mapping(item, "response")
    body = item.get("body")
    if "parsed_body" in item:
        body = json.dumps(item["parsed_body"], separators=(",", ":"), ensure_ascii=False).encode()
    body = body.get("string") if isinstance(body, dict) else body
    return {"status": _status(item["status"]), "headers": _clean_headers(item.get("headers")),
            "body": {"string": body}}


def _typed(request: dict, response: dict) -> tuple[dict, dict]:
    """A response without Content-Type (redacted) gets the one its URI implies: event stream or JSON."""
    if not any(k.lower() == "content-type" for k in response["headers"]):
        stream = response["status"]["code"] < 300 and operation_of(request["uri"]) in STREAM_OPERATIONS
        response["headers"]["Content-Type"] = [EVENTSTREAM if stream else "application/json"]
    return request, response


def vcrpy(doc: dict) -> Foreign:
    return Foreign(_numbered("interaction", doc["interactions"], lambda i: _typed(
        _vcr_request(_mapping(i, "the interaction")["request"]), _vcr_response(i["response"]))))


def langchain(doc: dict) -> Foreign:
    requests, responses = doc["requests"], doc["responses"]
    if len(requests) != len(responses):
        raise ShapeError(f"{len(requests)} request(s) but {len(responses)} response(s)")
    return Foreign(_numbered("interaction", list(zip(requests, responses)),
                             lambda pair: _typed(_vcr_request(pair[0]), _vcr_response(pair[1]))))


# ---- JavaScript and other captures ----

def _raw_headers(flat: Any) -> dict:
    """nock's ``rawHeaders``: a flat [name, value, name, value, ...] list."""
    out: dict[str, list] = {}
    for name, value in zip(flat[::2], flat[1::2]) if isinstance(flat, list) else ():
        out.setdefault(str(name), []).append(str(value))
    return out


def _nock_pair(item: dict) -> tuple:
    answer = _hex(item["response"], "response") if item.get("responseIsBinary") else _as_body(item.get("response"))
    return _pair(item.get("method", "POST"), item["scope"].rstrip("/") + item["path"], _as_body(item.get("body")),
                 _clean_headers(item.get("reqheaders")), item["status"], answer, _raw_headers(item.get("rawHeaders")))


def nock(doc: list) -> Foreign:
    return Foreign(_numbered("interaction", doc, _nock_pair))


def vercel(doc: dict, model: str | None) -> Foreign:
    response, model_id = doc["response"], model or doc.get("modelId") or UNKNOWN_MODEL
    region = doc.get("region") or "us-east-1"
    headers = {"Content-Type": [response["contentType"]]} if response.get("contentType") else {}
    pair = _pair("POST", uri(model_id, "ConverseStream", region), synthetic_request(doc.get("prompt") or "", "ConverseStream"),
                 {"Content-Type": ["application/json"]}, response["status"], base64.b64decode(response["bodyBase64"]),
                 headers)
    made = ["request"] + (["model_id"] if model_id == UNKNOWN_MODEL else [])
    return Foreign([pair], doc.get("capturedAt"), region, made)


def newrelic(doc: dict, model: str | None) -> Foreign:
    pairs, model_id = [], model or UNKNOWN_MODEL

    def pair(operation: str, prompt: str, entry: Any) -> tuple:
        if not isinstance(entry, list) or len(entry) != 3:
            raise ShapeError(f"expected [headers, status, body], found {kind_of(entry)}"
                             + (f" of {len(entry)}" if isinstance(entry, list) else ""))
        headers, status, body = entry
        answer = b"".join(_hex(c, f"body chunk {n}") for n, c in enumerate(body)) if isinstance(body, list) \
            else _as_body(body)
        return _pair("POST", uri(model_id, operation), synthetic_request(prompt, operation),
                     {"Content-Type": ["application/json"]}, status, answer, _clean_headers(headers))

    for table, operation in (("STREAMED_RESPONSES", "ConverseStream"), ("RESPONSES", "Converse")):
        pairs += _numbered(f"{table} entry", doc.get(table) or {}, lambda item, op=operation: pair(op, *item))
    return Foreign(pairs, synthesised=["request"] + ([] if model else ["model_id"]))


# ---- bodies without any request ----

def _stream_operation(frames: list) -> str:
    return "InvokeModelWithResponseStream" if any(f.type == "chunk" for f in frames) else "ConverseStream"


def _bare(body: bytes, operation: str, model: str | None, prompt: str) -> Foreign:
    model_id = model or UNKNOWN_MODEL
    headers = {"Content-Type": [EVENTSTREAM]}
    pair = _pair("POST", uri(model_id, operation), synthetic_request(prompt, operation),
                 {"Content-Type": ["application/json"]}, 200, body, headers)
    return Foreign([pair], synthesised=["request"] + ([] if model else ["model_id"]))


def raw_stream(body: bytes, model: str | None) -> Foreign:
    """Raw event-stream bytes: one streamed answer, its operation read from the frames."""
    from botocore.eventstream import ParserError

    try:
        frames = eventstream.decode_frames(body)
    except ParserError as err:  # a checksum that fails says which (prelude or message), and in which frame
        raise ShapeError(f"raw event-stream bytes that do not decode ({type(err).__name__}: {err})") from None
    operation = _stream_operation(frames)
    return _bare(body, operation, model, "(the recording holds no request)")


def _frame(event: dict, rng: random.Random) -> bytes:
    """One decoded event encoded the way Bedrock writes it (sorted compact JSON, a padding key ``p``)."""
    if event.get("type") in _ANTHROPIC:
        return eventstream.encode_chunk(event, eventstream.random_padding_length(rng))
    (name, body), = event.items()
    pad = eventstream.random_padding_length(rng)
    if name == "chunk":
        inner = body.get("bytes") if isinstance(body, dict) else None
        return eventstream.encode_chunk(inner if isinstance(inner, dict) else base64.b64decode(inner or ""), pad)
    if name.endswith("Exception"):
        return eventstream.encode_exception(name, body if isinstance(body, dict) else {"message": str(body)})
    return eventstream.encode_event(name, body, pad)


def is_event(value: Any) -> bool:
    """Whether a JSON value reads as one decoded stream event."""
    if not isinstance(value, dict):
        return False
    if value.get("type") in _ANTHROPIC:
        return True
    return len(value) == 1 and (next(iter(value)) in (*_EVENTS, "chunk") or next(iter(value)).endswith("Exception"))


def decoded_events(events: list[dict], model: str | None, seed: str = "") -> Foreign:
    """Decoded events (no framing): frames encoded with seeded padding, so an import is reproducible."""
    rng = random.Random(seed)
    return raw_stream(b"".join(_frame(event, rng) for event in events), model)
