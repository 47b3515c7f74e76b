"""Canaries in every place a secret can hide: none reaches disk through the recorder or a save, none is missed by
the scan; and the scan stays quiet on the shipped cassettes and on real recordings."""

from __future__ import annotations

import base64
import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from vcr.request import Request

from harness.cassettes import cassette as cs
from harness.cassettes import secrets
from harness.cli import main
from realworld import ROOT as REALWORLD, requires_realworld

ROOT = Path(__file__).resolve().parents[1]
KEY_ID = "AKIA" + "CANARYKEY0123456"
SECRET_KEY = "wJalrXUtnFEMI/K7MDENG/" + "bPxRfiCYCANARYKEYZ"  # 40 characters, never in the environment here
ENV_SECRET = "Zx9/canary+env/secret"  # a value of $AWS_SECRET_ACCESS_KEY with characters that get escaped
TOKENS = {"FQoG": "FQoGZXIvYXdzE" + "CanaryLegacy" * 8, "AQoD": "AQoDYXdzE" + "CanaryOlder" * 8,
          "IQoJ": "IQoJb3JpZ2luX2Vj" + "Canary" * 12}
ENV = {"AWS_SECRET_ACCESS_KEY": ENV_SECRET}


def _wrapped(text: str, width: int) -> str:
    encoded = base64.b64encode(text.encode()).decode()
    return "\n".join(encoded[i:i + width] for i in range(0, len(encoded), width))


def _block(text: str, indent: str = "    ") -> str:
    return "|\n" + "\n".join(indent + line for line in text.splitlines())


# position -> YAML text holding a canary there (each one alone in an otherwise clean document)
POSITIONS = {
    "comment": f"a: 1\n# leaked {KEY_ID}\nb: 2\n",
    "mapping key": f"headers:\n  {KEY_ID}: x\n",
    "base64 wrapped at 16": f"blob: {_block(_wrapped('key=' + KEY_ID, 16))}\n",
    "base64 wrapped at 76": f"blob: {_block(_wrapped('padding ' * 9 + 'secret=' + SECRET_KEY, 76))}\n",
    "binary wrapped at 76": f"blob: !!binary {_block(_wrapped('padding ' * 9 + KEY_ID, 76))}\n",
    "percent-encoded arn": "uri: /model/arn%3Aaws%3Abedrock%3Aus-east-1%3A987654321098%3Aapplication/converse\n",
    "percent-escaped env secret": "q: 'k=" + ENV_SECRET.replace("/", "%2F").replace("+", "%2B") + "'\n",
    "json-escaped env secret": "payload: '{\"k\": \"" + ENV_SECRET.replace("/", "\\/") + "\"}'\n",
    "unicode escapes": "payload: '{\"k\": \"\\u0041\\u004bIA" + KEY_ID[4:] + "\"}'\n",
    "split plain scalar": f"text: my key is {KEY_ID[:10]}\n  {KEY_ID[10:]} ok\n",
    "split quoted scalar": f"text: 'my key is {SECRET_KEY[:20]}\n  {SECRET_KEY[20:]}'\n",
    "legacy token FQoG": f"token: {TOKENS['FQoG']}\n",
    "legacy token AQoD": f"token: {TOKENS['AQoD']}\n",
    "bare secret key": f"body: 'the key {SECRET_KEY} here'\n",
    "hex key id": f"id: {KEY_ID.encode().hex()}\n",
    "hex secret key": f"id: {SECRET_KEY.encode().hex()}\n",
}


@pytest.mark.parametrize("position", sorted(POSITIONS))
def test_the_scan_misses_no_canary(tmp_path, position):
    path = tmp_path / "leak.yaml"
    path.write_text(POSITIONS[position])
    findings = secrets.scan_file(path, environ=ENV)
    assert findings, position
    assert all("\n" not in str(f) for f in findings)


def test_the_scan_names_the_line_of_a_raw_find(tmp_path):
    path = tmp_path / "leak.yaml"
    path.write_text(POSITIONS["comment"])
    assert [str(f) for f in secrets.scan_file(path, environ=ENV)] == ["line 2: AWS access key id AKIA…56"]


# request body -> what the recorder must refuse (a JSON body as an SDK sends it)
BODIES = {
    "bare secret key": json.dumps({"messages": [{"content": [{"text": f"key {SECRET_KEY}"}]}]}),
    "escaped secret key": json.dumps({"k": SECRET_KEY}).replace("/", "\\/"),
    "legacy FQoG token": json.dumps({"k": TOKENS["FQoG"]}),
    "legacy AQoD token": json.dumps({"k": TOKENS["AQoD"]}),
    "hex key id": json.dumps({"k": KEY_ID.encode().hex()}),
    "unicode-escaped key id": json.dumps({"k": KEY_ID}).replace("AKIA", "\\u0041KIA"),
    "wrapped base64": json.dumps({"k": _wrapped("x " * 30 + SECRET_KEY, 16)}),
    "percent-escaped env secret": json.dumps({"k": ENV_SECRET.replace("/", "%2F")}),
}


def _interaction(body: str) -> cs.Interaction:
    return cs.Interaction("POST", "http://127.0.0.1/model/m/converse", {"Content-Type": "application/json"},
                          body.encode(), 200, "OK", {"Content-Type": "application/json"}, None, b"{}")


@pytest.mark.parametrize("name", sorted(BODIES))
def test_no_canary_reaches_disk(tmp_path, monkeypatch, name):
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", ENV_SECRET)
    request = Request("POST", "http://127.0.0.1/model/m/converse", BODIES[name].encode(), {})
    with pytest.raises(secrets.SecretFound) as refused:
        secrets.refuse_request_secrets(request)
    assert "\n" not in str(refused.value) and "--allow-secret" in str(refused.value)
    path = tmp_path / "c.yaml"
    with pytest.raises(secrets.SecretFound):
        cs.save(path, cs.Cassette(None, cs.metadata_for([_interaction(BODIES[name])]), (_interaction(BODIES[name]),)))
    assert list(tmp_path.iterdir()) == []


def test_an_allowed_value_is_recorded_and_only_that_one():
    request = Request("POST", "http://127.0.0.1/model/m/converse", BODIES["bare secret key"].encode(), {})
    assert secrets.refuse_request_secrets(request, allowed=(SECRET_KEY,)) is request
    both = Request("POST", request.uri, json.dumps({"a": SECRET_KEY, "b": TOKENS["FQoG"]}).encode(), {})
    with pytest.raises(secrets.SecretFound, match="session token"):
        secrets.refuse_request_secrets(both, allowed=(SECRET_KEY,))


def test_the_shipped_cassettes_scan_clean():
    result = CliRunner().invoke(main, ["cassette", "scan", str(ROOT / "cassettes"), str(ROOT / "suites")])
    assert result.exit_code == 0 and result.output.startswith("ok: no secrets in "), result.output


@requires_realworld
def test_real_recordings_give_no_secret_key_or_token_findings():
    found = [f for path in sorted(p for p in REALWORLD.rglob("*") if p.is_file() and p.suffix in (".yaml", ".gz",
                                                                                                  ".json"))
             for f in secrets.scan_file(path, environ={})]
    # the one find is a test key id a recorder left in an Authorization header (AKIATEST...)
    assert [f.kind for f in found] == ["AWS access key id"], found
