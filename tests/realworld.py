"""Read the real Bedrock recordings in ../shared/realworld, independently of the project's importer.

This loader is the test oracle: it knows every foreign format (vcrpy YAML, langchain-aws gzip, nock,
vercel, newrelic, raw bytes) just well enough to produce the original response bytes, so tests compare
what the project does against botocore's reading of those bytes. Nothing here is copied into the project.
"""

from __future__ import annotations

import base64
import gzip
import json
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from urllib.parse import unquote

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1].parent / "shared" / "realworld"

requires_realworld = pytest.mark.skipif(not ROOT.is_dir(), reason=f"{ROOT} is absent")

_OPERATIONS = {
    "converse-stream": "ConverseStream",
    "converse": "Converse",
    "invoke-with-response-stream": "InvokeModelWithResponseStream",
    "invoke": "InvokeModel",
}


@dataclass(frozen=True)
class Interaction:
    """One recorded request/response pair, reduced to what tests compare."""

    id: str  # "<dir>/<file>#<n>"
    file: Path  # the recording it came from
    operation: str  # ConverseStream | Converse | InvokeModelWithResponseStream | InvokeModel | ""
    model_id: str  # percent-decoded
    request: object  # parsed JSON request body, or None when not recorded
    status: int
    body: bytes  # the original response body bytes (event stream or JSON)
    chunks: tuple = ()  # original network chunking, where the recording kept it

    @property
    def is_stream(self) -> bool:
        return self.operation in ("ConverseStream", "InvokeModelWithResponseStream") and self.status == 200

    def json(self):
        return json.loads(self.body)


def _from_path(path: str) -> tuple[str, str]:
    """(operation, model id) from a /model/{id}/{op} path or URI."""
    rest = path.split("/model/", 1)[1] if "/model/" in path else ""
    model, _, op = rest.rpartition("/")
    return _OPERATIONS.get(op, ""), unquote(model)


def _as_bytes(value) -> bytes:
    if value is None:
        return b""
    return value if isinstance(value, bytes) else str(value).encode()


def _json_or_none(raw):
    if raw is None or raw == b"" or raw == "":
        return None
    if isinstance(raw, (dict, list)):
        return raw
    try:
        return json.loads(raw)
    except ValueError:
        return None


def _vcr_response_body(response: dict) -> bytes:
    body = response.get("body")
    if isinstance(body, dict) and "string" in body:
        return _as_bytes(body["string"])
    if "parsed_body" in response:
        return json.dumps(response["parsed_body"]).encode()
    return _as_bytes(body)


def _vcr_yaml(path: Path) -> list[Interaction]:
    doc = yaml.safe_load(path.read_text())
    out = []
    for n, item in enumerate(doc["interactions"]):
        req, resp = item["request"], item["response"]
        op, model = _from_path(req["uri"])
        request = req.get("parsed_body", _json_or_none(req.get("body")))
        out.append(Interaction(f"{path.parent.name}/{path.name}#{n}", path, op, model, request,
                               resp["status"]["code"], _vcr_response_body(resp)))
    return out


def _langchain_gz(path: Path) -> list[Interaction]:
    doc = yaml.safe_load(gzip.decompress(path.read_bytes()))
    out = []
    for n, (req, resp) in enumerate(zip(doc["requests"], doc["responses"])):
        op, model = _from_path(req["uri"])
        body = resp["body"]["string"] if isinstance(resp["body"], dict) else resp["body"]
        out.append(Interaction(f"{path.parent.name}/{path.name}#{n}", path, op, model,
                               _json_or_none(req.get("body")), resp["status"]["code"], _as_bytes(body)))
    return out


def _nock(path: Path) -> list[Interaction]:
    out = []
    for n, item in enumerate(json.loads(path.read_text())):
        op, model = _from_path(item["path"])
        body = bytes.fromhex(item["response"]) if item.get("responseIsBinary") else _as_bytes(item["response"])
        out.append(Interaction(f"{path.parent.name}/{path.name}#{n}", path, op, model,
                               item.get("body"), int(item["status"]), body))
    return out


def _vercel(path: Path) -> list[Interaction]:
    doc = json.loads(path.read_text())
    resp = doc["response"]
    return [Interaction(f"{path.parent.name}/{path.name}#0", path, "ConverseStream", doc["modelId"], None,
                        resp["status"], base64.b64decode(resp["bodyBase64"]))]


def _newrelic(path: Path) -> list[Interaction]:
    doc = json.loads(path.read_text())
    out = []
    for table, op in (("STREAMED_RESPONSES", "ConverseStream"), ("RESPONSES", "Converse")):
        for n, (_prompt, (_headers, status, body)) in enumerate(doc[table].items()):
            chunks = tuple(bytes.fromhex(c) for c in body) if isinstance(body, list) else ()
            raw = b"".join(chunks) if chunks else json.dumps(body).encode()
            out.append(Interaction(f"{path.parent.name}/{path.name}#{table}.{n}", path, op,
                                   "anthropic.claude-3-sonnet-20240229-v1:0", None, status, raw, chunks))
    return out


def _raw_bin(path: Path) -> list[Interaction]:
    op = "InvokeModelWithResponseStream" if "imwrs" in path.name else "ConverseStream"
    return [Interaction(f"{path.parent.name}/{path.name}#0", path, op, "", None, 200, path.read_bytes())]


def _reader(path: Path):
    name = path.name
    if name.endswith(".yaml.gz"):
        return _langchain_gz
    if name.endswith(".yaml"):
        return _vcr_yaml
    if name.endswith(".bin"):
        return _raw_bin
    if name == "converse_responses.json":
        return _newrelic
    if path.parent.name == "vercel__ai":
        return _vercel
    if name.endswith(".json"):
        return _nock
    return None


@lru_cache(maxsize=None)
def interactions() -> tuple[Interaction, ...]:
    """Every interaction of every recording, in a stable order."""
    if not ROOT.is_dir():
        return ()
    out = []
    for path in sorted(ROOT.rglob("*")):
        reader = _reader(path) if path.is_file() and path.name != "README.md" else None
        if reader:
            out.extend(reader(path))
    return tuple(out)


def streams(operation: str | None = None) -> list[Interaction]:
    """Successful event-stream interactions, optionally of one operation."""
    return [i for i in interactions() if i.is_stream and (operation is None or i.operation == operation)]


def recording_files() -> list[Path]:
    """Every recording file, whatever its format (`cassette import` accepts them all)."""
    if not ROOT.is_dir():
        return []
    return sorted(p for p in ROOT.rglob("*") if p.is_file() and p.name != "README.md" and _reader(p))


def cassette_files() -> list[Path]:
    """The recordings that keep their requests and model ids (vcrpy YAML and langchain-aws gzip)."""
    if not ROOT.is_dir():
        return []
    return sorted(p for p in ROOT.rglob("*") if p.name.endswith((".yaml", ".yaml.gz")))


def ids(items) -> list[str]:
    """pytest ids for a list of interactions or paths."""
    return [getattr(i, "id", None) or f"{i.parent.name}/{i.name}" for i in items]
