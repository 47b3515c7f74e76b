"""The emulator standing in for real Bedrock behind the recording proxy, for the live tests (offline, loopback).

``HistoryEmulator`` is a responder (harness.endpoint.exchange's protocol) that answers any number of attempts at
a scenario: it picks the scenario's turn from the request's history (one turn per assistant message already in
it), as real Bedrock has no turn cursor either. It can answer the first ``flaky`` conversations with a script
that fails the scenario's checks, alter the rendered frames (``alter``: a wire drift), and it checks every
request's SigV4 signature with botocore's signer for the credentials the proxy was given.
"""

from __future__ import annotations

import re

from botocore.auth import SigV4Auth
from botocore.awsrequest import AWSRequest
from botocore.credentials import Credentials

from harness.endpoint.responders import render, turn_seed

PROXY_CREDENTIALS = Credentials("AKIATESTPROXYKEY0001", "proxy-test-secret-0123456789abcdef")
CLIENT_KEY, CLIENT_SECRET = "AKIAFAKEFAKEFAKEFAKE", "fake-secret-for-loopback"  # harness.suite.runner.DUMMY_KEYS
REFUSAL = {"content": [{"text": "I would rather not use any tool."}], "stop_reason": "end_turn",
           "usage": {"input_tokens": 10, "output_tokens": 8}}
_AUTHORIZATION = re.compile(r"AWS4-HMAC-SHA256 Credential=(?P<key>[^/]+)/(?P<date>\d{8})/(?P<region>[^/]+)/"
                            r"(?P<service>[^/]+)/aws4_request, SignedHeaders=(?P<signed>[^,]+), "
                            r"Signature=(?P<signature>[0-9a-f]{64})$")


def sigv4_problem(request, credentials=PROXY_CREDENTIALS) -> str:
    """Why ``request`` (as the upstream received it) is not validly signed with ``credentials`` ("" when it is)."""
    headers = {k.lower(): v for k, v in request.headers.items()}
    found = _AUTHORIZATION.match(headers.get("authorization", ""))
    if not found:
        return f"no SigV4 Authorization header: {headers.get('authorization')!r}"
    if found["key"] != credentials.access_key:
        return f"signed with key {found['key']!r}"
    signed = {name: headers[name] for name in found["signed"].split(";")}
    aws = AWSRequest(method=request.method, url=f"http://{signed['host']}{request.path}", data=request.raw_body,
                     headers=signed)
    aws.context["timestamp"] = headers["x-amz-date"]
    signer = SigV4Auth(credentials, found["service"], found["region"])
    expected = signer.signature(signer.string_to_sign(aws, signer.canonical_request(aws)), aws)
    return "" if expected == found["signature"] else f"signature {found['signature']} != {expected}"


def turn_of(body) -> int:
    """The scenario turn a request asks for: one per assistant message already in its history."""
    return sum(1 for m in (body or {}).get("messages", ()) if m.get("role") == "assistant")


class HistoryEmulator:
    """Answers a scenario's turns by history, so every attempt starts afresh; see the module docstring."""

    def __init__(self, scenario, *, flaky: int = 0, alter=None, credentials=PROXY_CREDENTIALS):
        self.scenario, self.flaky, self.alter, self.credentials = scenario, flaky, alter, credentials
        self.conversations = 0
        self.signature_problems: list[str] = []
        self.replies = []  # what was sent, in order

    def respond(self, request):
        turn = min(turn_of(request.body_json), len(self.scenario.turns) - 1)
        self.conversations += turn == 0
        self.signature_problems.append(sigv4_problem(request, self.credentials))
        script = REFUSAL if self.conversations <= self.flaky else self.scenario.turns[turn].script
        reply = render(script, request.operation, style=self.scenario.style,
                       seed=turn_seed(self.scenario.id, turn), model_id=request.model_id)
        if self.alter and reply.frames is not None:
            reply.frames = self.alter(list(reply.frames))
        self.replies.append(reply)
        return reply
