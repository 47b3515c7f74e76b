"""A planted-secret corpus, generated (never checked in): fake credentials of common formats, hidden the ways a
recording or a fixture file hides them.

``TOKENS`` are the fake credentials (assembled here, so no source file holds one whole). ``EXCHANGES`` plants each
of them in each of ``EXCHANGE_PLACES``: an exchange through the recording proxy, the secret in what the upstream
answers (one delta, split across two deltas, two text blocks, reasoning or tool-input deltas or two
InvokeModel chunks, glued between capital letters, base64, gzip+base64, an error body sent gzip- or
deflate-encoded, a second gzip member, UTF-16, a response header) or in what the client sends (a message's
text, split across two text blocks or two system blocks, a query). ``write_files`` writes one file per token and
``FILE_PLACES`` entry for ``cassette scan``: this project's cassettes with the secret split across frames or
blocks, vcrpy cassettes with ``!!binary`` bodies (gzip, a second gzip member, bz2, deflate, a raw event stream),
whole files gzip'd in two members, bz2'd, in UTF-16 or UTF-32, every format the importer reads, and frames kept as
``frame_base64`` (the secret in one delta, split across two, in a header, base64 in a delta, in an aliased frame
item, or base64 in a comment beside the items).
``PlantedUpstream`` is the responder that answers an exchange's request with its planted reply.
"""

from __future__ import annotations

import base64
import bz2
import gzip
import json
import zlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable
from urllib.parse import quote

import yaml

from harness.endpoint.exchange import Reply
from harness.wire.eventstream import encode_chunk, encode_event

__all__ = ["CONTROL", "EXCHANGES", "EXCHANGE_PLACES", "FILE_PLACES", "KINDS", "TOKENS", "UNRECOGNISABLE", "Exchange",
           "PlantedUpstream", "controls", "write_files"]

_B64 = base64.b64encode
TOKENS = {
    "aws-access-key-id": "AKIA" + "PLANTEDCANARY123",
    "aws-secret-key": "Pl4nted/Secret+Key" + "0123456789abcdefGHIJKL",
    "aws-session-token": "IQoJb3JpZ2luX2Vj" + "PlantedSessionToken0" * 8,
    "bedrock-api-key": "ABSK" + _B64(b"BedrockAPIKey-planted-canary:" + b"k" * 40).decode(),
    "bedrock-short-term-key": "bedrock-api-key-" + _B64(b"bedrock.amazonaws.com/?Action=CallWithBearerToken&"
                                                         b"planted=canary" * 2).decode(),
    "bearer": "Bearer " + "pl4ntedOpaqueBearerToken" + "0123456789abcdef",
    "openai-project": "sk-proj-" + "Pl4ntedOpenAIProjectKey_" + "0123456789-abcdefghijklmnopqrstuvwxyzABCDEF",
    "anthropic": "sk-ant-api03-" + "Pl4ntedAnthropicKey" + "0123456789abcdefghij-_ABCDEFGHIJKLMNOPQ-AA",
    "github-classic": "ghp_" + "Pl4ntedGitHubToken" + "0123456789abcdefgh",
    "github-fine-grained": "github_pat_" + "11PLANTED0" + "Pl4ntedFineGrained_" + "0123456789abcdefghij" * 3,
    "slack": "xoxb-" + "123456789012-1234567890123-" + "Pl4ntedSlackBotToken0000",
    "stripe": "sk_live_" + "Pl4ntedStripeKey0123456789",
    "google": "AIza" + "SyPl4ntedGoogleApiKey" + "0123456789ab_-",
    "huggingface": "hf_" + "Pl4ntedHuggingFaceToken" + "0123456789abc",
    "gitlab": "glpat-" + "Pl4ntedGitLab-Token_01",
    "npm": "npm_" + "Pl4ntedNpmToken" + "0123456789abcdefghijk",
    "jwt": "eyJhbGciOiJIUzI1NiJ9." + base64.urlsafe_b64encode(b'{"sub":"planted-canary","iat":1700000000}').decode()
           .rstrip("=") + "." + "Pl4ntedSignature0123456789abcdefghijklmnop",
    "private-key": "-----BEGIN RSA " + "PRIVATE KEY-----\nMIIEpAIBAAKCAQEAPl4ntedPrivateKey0123456789\n"
                   "-----END RSA PRIVATE KEY-----",
}
# token -> the kind of finding it must give (harness.cassettes.tokens)
KINDS = {"aws-access-key-id": "AWS access key id", "aws-secret-key": "AWS secret access key",
         "aws-session-token": "AWS session token", "bedrock-api-key": "Bedrock API key",
         "bedrock-short-term-key": "Bedrock API key", "bearer": "bearer token", "openai-project": "OpenAI API key",
         "anthropic": "Anthropic API key", "github-classic": "GitHub token", "github-fine-grained": "GitHub token",
         "slack": "Slack token", "stripe": "Stripe key", "google": "Google API key",
         "huggingface": "Hugging Face token", "gitlab": "GitLab token", "npm": "npm token", "jwt": "JSON web token",
         "private-key": "private key"}
CONTROL = "Nothing-secret here, only a Bearer of news and a sk-proj-plan"  # planted anywhere, it must pass
MODEL = "us.anthropic.claude-sonnet-4-20250514-v1:0"
_STREAM = {"Content-Type": "application/vnd.amazon.eventstream"}
_JSON = {"Content-Type": "application/json"}


def _halves(token: str) -> tuple[str, str]:
    """The prose around a token, cut in the middle of the token."""
    middle = len(token) // 2
    return f"the value is {token[:middle]}", f"{token[middle:]} and that is all"


def _prose(token: str) -> str:
    return "".join(_halves(token))


def _percent(text: str) -> str:
    """Every byte as a %XX escape."""
    return "".join(f"%{b:02X}" for b in text.encode())


def _entities(text: str) -> str:
    """Every character as an HTML entity, decimal and hexadecimal in turn."""
    return "".join(f"&#{ord(c)};" if n % 2 else f"&#x{ord(c):x};" for n, c in enumerate(text))


def _hex_spaced(text: str) -> str:
    return " ".join(f"{b:02x}" for b in text.encode())


def _escaped_halves(token: str, escape) -> tuple[str, str]:
    """The prose around ``escape(token)``, cut in the middle of the escaped token."""
    written = escape(token)
    return f"the value is {written[:len(written) // 2]}", f"{written[len(written) // 2:]} and that is all"


# ------------------------------------------------------------------ what the upstream answers


def _event(name: str, body: dict) -> bytes:
    return encode_event(name, body, 12)


def _stream(*blocks: list[bytes]) -> list[bytes]:
    """A ConverseStream answer: messageStart, the blocks' frames, messageStop and metadata."""
    usage = {"usage": {"inputTokens": 9, "outputTokens": 9, "totalTokens": 18}, "metrics": {"latencyMs": 10}}
    return [_event("messageStart", {"role": "assistant"}), *[f for block in blocks for f in block],
            _event("messageStop", {"stopReason": "end_turn"}), _event("metadata", usage)]


def _text_block(index: int, *texts: str) -> list[bytes]:
    deltas = [_event("contentBlockDelta", {"contentBlockIndex": index, "delta": {"text": t}}) for t in texts]
    return deltas + [_event("contentBlockStop", {"contentBlockIndex": index})]


def _reasoning_block(*texts: str) -> list[bytes]:
    deltas = [{"reasoningContent": {"text": t}} for t in texts] + [{"reasoningContent": {"signature": "c2ln"}}]
    return [_event("contentBlockDelta", {"contentBlockIndex": 0, "delta": d}) for d in deltas] + [
        _event("contentBlockStop", {"contentBlockIndex": 0})]


def _tool_block(token: str, unicode_escaped: bool = False) -> list[bytes]:
    """A tool use whose input's JSON holds the token, cut in two deltas in the middle of the token; with
    ``unicode_escaped`` its first character written as a JSON ``\\u`` escape (a JSON writer may choose to)."""
    json_text = json.dumps({"note": _prose(token)})
    middle = json_text.index(token[:10]) + len(token) // 2  # an escape (\\n) may be cut too
    if unicode_escaped:
        at = json_text.index(token[:10])
        json_text = json_text[:at] + f"\\u{ord(token[0]):04x}" + json_text[at + 1:]
        middle += 5
    start = {"contentBlockIndex": 0, "start": {"toolUse": {"toolUseId": "tooluse_planted01", "name": "save"}}}
    deltas = [_event("contentBlockDelta", {"contentBlockIndex": 0, "delta": {"toolUse": {"input": part}}})
              for part in (json_text[:middle], json_text[middle:])]
    return [_event("contentBlockStart", start), *deltas, _event("contentBlockStop", {"contentBlockIndex": 0})]


def _invoke_stream(*texts: str) -> list[bytes]:
    events = [{"type": "message_start", "message": {"role": "assistant", "content": []}},
              {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
              *[{"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": t}} for t in texts],
              {"type": "content_block_stop", "index": 0},
              {"type": "message_delta", "delta": {"stop_reason": "end_turn"}, "usage": {"output_tokens": 9}},
              {"type": "message_stop"}]
    return [encode_chunk(e, 12) for e in events]


def _said(text: str) -> Reply:
    return Reply(200, dict(_STREAM), frames=_stream(_text_block(0, text)))


def _error(body: bytes, headers: dict | None = None) -> Reply:
    return Reply(400, {**_JSON, "x-amzn-ErrorType": "ValidationException", **(headers or {})}, body=body)


def _message(token: str) -> bytes:
    return json.dumps({"message": _prose(token)}).encode()


def _gzip_two_members(token: str) -> bytes:
    text = _message(token)
    return gzip.compress(text[:10]) + gzip.compress(text[10:])


@dataclass(frozen=True)
class Exchange:
    """One planted exchange: the request a client sends (``case NAME`` in its first text) and the planted reply."""

    name: str
    token: str
    path: str
    body: dict
    reply: Reply = field(repr=False)


def _request(name: str, operation: str = "converse-stream", extra: list | None = None,
             system: list | None = None, query: str = "", first: list | None = None) -> tuple[str, dict]:
    content = (first or []) + [{"text": f"case {name}"}] + (extra or [])
    body: dict[str, Any] = {"messages": [{"role": "user", "content": content}]}
    if system:
        body["system"] = system
    if operation == "invoke-with-response-stream":
        body = {"anthropic_version": "bedrock-2023-05-31", "max_tokens": 64, **body}
    return f"/model/{MODEL.replace(':', '%3A')}/{operation}{query}", body


# place -> (token -> (request path, request body, reply)); each builds one exchange for any token
def _answer(reply: Callable[[str], Reply], operation: str = "converse-stream"):
    return lambda name, token: (*_request(name, operation), reply(token))


def _asked(extra: Callable[[str], dict]):
    return lambda name, token: (*_request(name, **extra(token)), _said("ok"))


EXCHANGE_PLACES: dict[str, Callable[[str, str], tuple[str, dict, Reply]]] = {
    "one-delta": _answer(lambda t: _said(_prose(t))),
    "split-deltas": _answer(lambda t: Reply(200, dict(_STREAM), frames=_stream(_text_block(0, *_halves(t))))),
    "split-text-blocks": _answer(lambda t: Reply(200, dict(_STREAM), frames=_stream(
        _text_block(0, _halves(t)[0]), _text_block(1, _halves(t)[1])))),
    "split-reasoning-deltas": _answer(lambda t: Reply(200, dict(_STREAM), frames=_stream(_reasoning_block(
        *_halves(t)), _text_block(1, "done")))),
    "split-tool-input-deltas": _answer(lambda t: Reply(200, dict(_STREAM), frames=_stream(_tool_block(t)))),
    "split-invoke-chunks": _answer(lambda t: Reply(200, dict(_STREAM), frames=_invoke_stream(*_halves(t))),
                                   "invoke-with-response-stream"),
    "glued-capitals": _answer(lambda t: _said(f"XQZW{t}QWZX")),
    "equals-suffix": _answer(lambda t: _said(f"key={t}== here")),
    "base64": _answer(lambda t: _said("blob " + _B64(_prose(t).encode()).decode())),
    "gzip-base64": _answer(lambda t: _said("blob " + _B64(gzip.compress(_prose(t).encode())).decode())),
    "error-body": _answer(lambda t: _error(_message(t))),
    "error-gzip": _answer(lambda t: _error(gzip.compress(_message(t)), {"Content-Encoding": "gzip"})),
    "error-gzip-second-member": _answer(lambda t: _error(_gzip_two_members(t), {"Content-Encoding": "gzip"})),
    "error-deflate": _answer(lambda t: _error(zlib.compress(_message(t)), {"Content-Encoding": "deflate"})),
    "error-utf16": _answer(lambda t: _error(_message(t).decode().encode("utf-16"),
                                            {"Content-Type": "application/json; charset=utf-16"})),
    "converse-gzip": _answer(lambda t: Reply(200, {**_JSON, "Content-Encoding": "gzip"}, body=gzip.compress(
        json.dumps({"output": {"message": {"role": "assistant", "content": [{"text": h} for h in _halves(t)]}},
                    "stopReason": "end_turn"}).encode())), "converse"),
    "response-header": _answer(lambda t: Reply(200, {**_STREAM, "x-debug-note": _prose(t).replace("\n", " ")},
                                               frames=_stream(_text_block(0, "ok")))),
    # written escaped, then split (issue 31): read as what the escapes stand for, the pieces joined
    "split-tool-input-unicode-escaped": _answer(lambda t: Reply(200, dict(_STREAM), frames=_stream(
        _tool_block(t, unicode_escaped=True)))),
    "split-deltas-percent-escaped": _answer(lambda t: Reply(200, dict(_STREAM), frames=_stream(_text_block(
        0, *_escaped_halves(t, _percent))))),
    "split-deltas-html-entities": _answer(lambda t: Reply(200, dict(_STREAM), frames=_stream(_text_block(
        0, *_escaped_halves(t, _entities))))),
    "hex-spaced": _answer(lambda t: _said("bytes " + _hex_spaced(_prose(t)))),
    "request-split-system-and-user": _asked(lambda t: {"system": [{"text": _halves(t)[0]}],
                                                       "first": [{"text": _halves(t)[1]}]}),
    "request-text": _asked(lambda t: {"extra": [{"text": _prose(t)}]}),
    "request-split-blocks": _asked(lambda t: {"extra": [{"text": h} for h in _halves(t)]}),
    "request-split-system": _asked(lambda t: {"system": [{"text": h} for h in _halves(t)]}),
    "request-query": _asked(lambda t: {"query": "?X-Amz-Security-Token=" + quote(t, safe="")}),
}


# A secret access key is known by its shape alone (40 characters of base64's alphabet, bounded): glued into a longer
# run it is indistinguishable from a piece of any base64 text. (Its key id beside it, or its value in the
# environment, is still found.) No other token is left out anywhere.
UNRECOGNISABLE = {"glued-capitals/aws-secret-key", "ours-glued-capitals/aws-secret-key"}


def _planted(places: dict) -> list[tuple[str, str, Callable]]:
    """(name, token, build) for every place and token that a scan can recognise."""
    return [(f"{place}/{kind}", token, build) for place, build in places.items() for kind, token in TOKENS.items()
            if f"{place}/{kind}" not in UNRECOGNISABLE]


def _exchanges() -> list[Exchange]:
    return [Exchange(name, token, *build(name, token)) for name, token, build in _planted(EXCHANGE_PLACES)]


def controls() -> list[Exchange]:
    """Every place with CONTROL planted instead of a token: what a scan must let through."""
    return [Exchange(f"{place}/control", CONTROL, *build(f"{place}/control", CONTROL))
            for place, build in EXCHANGE_PLACES.items()]


EXCHANGES = _exchanges()


class PlantedUpstream:
    """A responder answering each planted exchange's request (named by ``case NAME``) with its planted reply."""

    def __init__(self, exchanges: list[Exchange] = EXCHANGES):
        self.replies = {e.name: e.reply for e in exchanges}

    def respond(self, request) -> Reply:
        content = (((request.body_json or {}).get("messages") or [{}])[0].get("content") or [{}])
        named = next((b["text"] for b in content if isinstance(b, dict) and str(b.get("text", "")).startswith("case ")),
                     "")
        return self.replies.get(named.removeprefix("case "), _said("unknown case"))


# ------------------------------------------------------------------ files for `cassette scan`


def _frame_item(frame: bytes) -> dict:
    """A frame as this project's cassettes write it (an event and its JSON; a chunk decoded)."""
    from harness.cassettes.frames import frame_to_doc, frames_from_body

    return frame_to_doc(frames_from_body(frame)[0])


def _ours(frames: list[bytes], operation: str = "converse-stream", request: dict | None = None,
          items: list | None = None) -> bytes:
    uri = f"https://bedrock-runtime.us-east-1.amazonaws.com/model/{MODEL.replace(':', '%3A')}/{operation}"
    request = request or {"messages": [{"role": "user", "content": [{"text": "hi"}]}]}
    doc = {"metadata": {"format_version": 1, "source": "live", "model_id": MODEL},
           "interactions": [{"request": {"method": "POST", "uri": uri, "headers": _JSON, "json": request},
                             "response": {"status": {"code": 200, "message": "OK"}, "headers": _STREAM,
                                          "frames": items or [_frame_item(f) for f in frames]}}]}
    return yaml.safe_dump(doc, sort_keys=False).encode()


def _ours_base64(frames: list[bytes], aliased: int = 0, comment: str = "") -> bytes:
    """Our cassette with every frame kept as ``frame_base64`` (the form of frames nothing else writes exactly); the
    second frame item ``aliased`` more times (one YAML anchor), ``comment`` a YAML comment after the last."""
    items = [{"frame_base64": _B64(f).decode()} for f in frames]
    items[2:2] = [items[1]] * aliased  # the same object again: yaml writes an anchor and aliases to it
    return _ours([], items=items) + (f"# {comment}\n".encode() if comment else b"")


def _frame_with_header(token: str) -> bytes:
    """A delta frame with one more string header, holding the token (no form but ``frame_base64`` keeps it so)."""
    from harness.wire.eventstream import encode_frame

    headers = ((":event-type", "contentBlockDelta"), (":content-type", "application/json"),
               (":message-type", "event"), ("x-note", _prose(token).replace("\n", " ")))
    return encode_frame(headers, json.dumps({"contentBlockIndex": 0, "delta": {"text": "hi"}}).encode())


def _vcrpy(body: bytes, headers: dict, status: int = 200) -> bytes:
    uri = f"https://bedrock-runtime.us-east-1.amazonaws.com/model/{MODEL.replace(':', '%3A')}/converse-stream"
    doc = {"interactions": [{"request": {"method": "POST", "uri": uri, "body": b'{"messages": []}', "headers": {}},
                             "response": {"status": {"code": status, "message": "OK"},
                                          "headers": {k: [v] for k, v in headers.items()}, "body": {"string": body}}}],
           "version": 1}
    return yaml.safe_dump(doc, sort_keys=False).encode()


def _split_stream(token: str) -> bytes:
    return b"".join(_stream(_text_block(0, *_halves(token))))


def _utf(encoding: str):
    return lambda t: _ours(_stream(_text_block(0, _prose(t)))).decode().encode(encoding)


def _in_two_chunks(stream: bytes, token: str) -> list[str]:
    """The stream's bytes as network chunks in hex, cut in the middle of the token."""
    middle = stream.index(token[:8].encode()) + len(token) // 2
    return [stream[:middle].hex(), stream[middle:].hex()]


FILE_PLACES: dict[str, Callable[[str], bytes]] = {
    "ours-one-delta": lambda t: _ours(_stream(_text_block(0, _prose(t)))),
    "ours-split-frames": lambda t: _ours(_stream(_text_block(0, *_halves(t)))),
    "ours-split-blocks": lambda t: _ours(_stream(_text_block(0, _halves(t)[0]), _text_block(1, _halves(t)[1]))),
    "ours-split-reasoning": lambda t: _ours(_stream(_reasoning_block(*_halves(t)))),
    "ours-split-tool-input": lambda t: _ours(_stream(_tool_block(t))),
    "ours-split-invoke-chunks": lambda t: _ours(_invoke_stream(*_halves(t)), "invoke-with-response-stream"),
    "ours-glued-capitals": lambda t: _ours(_stream(_text_block(0, f"XQZW{t}QWZX"))),
    "ours-split-tool-input-unicode-escaped": lambda t: _ours(_stream(_tool_block(t, unicode_escaped=True))),
    "ours-split-percent-escaped": lambda t: _ours(_stream(_text_block(0, *_escaped_halves(t, _percent)))),
    "ours-split-html-entities": lambda t: _ours(_stream(_text_block(0, *_escaped_halves(t, _entities)))),
    "ours-hex-spaced": lambda t: _ours(_stream(_text_block(0, "bytes " + _hex_spaced(_prose(t))))),
    "ours-split-system-and-user": lambda t: _ours(_stream(_text_block(0, "ok")), request={
        "system": [{"text": _halves(t)[0]}], "messages": [{"role": "user", "content": [{"text": _halves(t)[1]}]}]}),
    "ours-gzip-base64": lambda t: _ours(_stream(_text_block(0, _B64(gzip.compress(_prose(t).encode())).decode()))),
    "ours-frame-base64-one-delta": lambda t: _ours_base64(_stream(_text_block(0, _prose(t)))),
    "ours-frame-base64-split-frames": lambda t: _ours_base64(_stream(_text_block(0, *_halves(t)))),
    "ours-frame-base64-header": lambda t: _ours_base64(_stream([_frame_with_header(t), _event(
        "contentBlockStop", {"contentBlockIndex": 0})])),
    "ours-frame-base64-base64-delta": lambda t: _ours_base64(_stream(_text_block(0, _B64(_prose(t).encode())
                                                                                  .decode()))),
    "ours-frame-base64-aliased": lambda t: _ours_base64(_stream(_text_block(0, _prose(t))), aliased=3),
    "ours-frame-base64-comment": lambda t: _ours_base64(_stream(_text_block(0, "hi")),
                                                        comment=_B64(_prose(t).encode()).decode()),
    "vcrpy-binary-stream-split": lambda t: _vcrpy(_split_stream(t), _STREAM),
    "vcrpy-binary-gzip-stream-split": lambda t: _vcrpy(gzip.compress(_split_stream(t)),
                                                       {**_STREAM, "Content-Encoding": "gzip"}),
    "vcrpy-binary-gzip-error": lambda t: _vcrpy(gzip.compress(_message(t)), {**_JSON, "Content-Encoding": "gzip"},
                                                400),
    "vcrpy-binary-gzip-second-member": lambda t: _vcrpy(_gzip_two_members(t), {**_JSON, "Content-Encoding": "gzip"},
                                                        400),
    "vcrpy-binary-bz2": lambda t: _vcrpy(bz2.compress(_message(t)), _JSON, 400),
    "vcrpy-binary-deflate": lambda t: _vcrpy(zlib.compress(_message(t)), {**_JSON, "Content-Encoding": "deflate"},
                                             400),
    "file-gzip-two-members": lambda t: gzip.compress(b"# a cassette\n") + gzip.compress(
        _ours(_stream(_text_block(0, _prose(t))))),
    "file-bz2": lambda t: bz2.compress(_ours(_stream(_text_block(0, _prose(t))))),
    "file-utf16": _utf("utf-16"),
    "file-utf16-be-no-bom": _utf("utf-16-be"),
    "file-utf32": _utf("utf-32"),
    "nock-hex-stream-split": lambda t: json.dumps([{"scope": "https://bedrock-runtime.us-east-1.amazonaws.com:443",
                                                    "method": "POST", "path": "/model/m/converse-stream",
                                                    "status": 200, "response": _split_stream(t).hex(),
                                                    "responseIsBinary": True}]).encode(),
    "newrelic-hex-network-chunks": lambda t: json.dumps({"STREAMED_RESPONSES": {"hi": [
        {"content-type": "application/vnd.amazon.eventstream"}, 200,
        _in_two_chunks(b"".join(_stream(_text_block(0, _prose(t)))), t)]}}).encode(),
    "vercel-base64-stream-split": lambda t: json.dumps({"modelId": MODEL, "response": {
        "status": 200, "bodyBase64": _B64(_split_stream(t)).decode()}}).encode(),
    "json-lines-events-split": lambda t: b"\n".join(json.dumps({"contentBlockDelta": {
        "contentBlockIndex": 0, "delta": {"text": h}}}).encode() for h in _halves(t)) + b"\n",
}


def write_files(folder: Path, control: bool = False) -> dict[str, tuple[Path, str]]:
    """One file per place and token in ``folder`` (``control``: per place, CONTROL instead): name -> (path, token)."""
    folder.mkdir(parents=True, exist_ok=True)
    out = {}
    planted = [(f"{place}/control", CONTROL, build) for place, build in FILE_PLACES.items()] if control else \
        _planted(FILE_PLACES)
    for name, token, build in planted:
        path = folder / f"{name.replace('/', '--')}.yaml"
        path.write_bytes(build(token))
        out[name] = (path, token)
    return out
