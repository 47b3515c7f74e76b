"""Serve any in-process adapter over the subprocess protocol: ``python -m harness.adapters.bridge SPEC``.

SPEC is what ``load_adapter`` takes (``reference``, a registered name, ``module:attribute``). The bridge
answers the hello with the adapter's name, version and capabilities, streams each turn's chunks as they come,
and reports an exception the adapter raises as ``{"type": "error", "message": "<Type>: <text>", "traceback":
"<its innermost frames>"}``, what the runner records for it in-process, so an adapter gets the same verdicts both
ways. Protocol lines go to
the real stdout only: whatever the adapter or its libraries print lands on stderr.
"""

from __future__ import annotations

import argparse
import base64
import io
import json
import os
import sys
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any, TextIO

from harness.adapters import AdapterFailure, AdapterLoadError, AdapterSkip, load_adapter
from harness.suite.runner import exception_chunk

__all__ = ["answer", "main", "serve"]


def _jsonable(value: Any) -> Any:
    """Bytes as base64 text (as the normalizer reads them), anything else unknown as its str."""
    return base64.b64encode(value).decode("ascii") if isinstance(value, (bytes, bytearray)) else str(value)


def _hello(adapter: Any) -> dict:
    differences = getattr(adapter, "native_differences", None) or {}
    vocabulary = getattr(adapter, "vocabulary", None) or {}
    return {"type": "hello", "name": str(adapter.name), "version": str(adapter.version),
            "capabilities": sorted(adapter.capabilities),
            **({"native_differences": dict(differences)} if differences else {}),
            **({"vocabulary": dict(vocabulary)} if vocabulary else {})}


def _turn(adapter: Any, message: dict) -> Iterator[dict]:
    """Chunk lines, then done; an exception is the closing error line, as the runner records it in-process."""
    try:
        for chunk in adapter.stream(message["turn"], message["endpoint"]):
            # A chunk that is not a mapping goes out as it is: the harness names it as a protocol error.
            yield {"type": "chunk", "chunk": dict(chunk) if isinstance(chunk, Mapping) else chunk}
    except AdapterSkip as exc:
        yield {"type": "skip", "reason": str(exc)}
        return
    except AdapterFailure:
        raise  # the adapter broke itself: the bridge exits, and the harness reports it with the stderr tail
    except Exception as exc:  # noqa: BLE001 - reported over the protocol, like the runner does in-process
        chunk = exception_chunk(exc, __file__)
        yield {"type": "error", "message": chunk["message"], "traceback": chunk["traceback"]}
        return
    yield {"type": "done"}


def answer(adapter: Any, message: Any) -> Iterator[dict]:
    """The protocol lines answering one message from the harness (nothing for one the bridge does not know)."""
    kind = message.get("type") if isinstance(message, dict) else None
    if kind == "hello":
        yield _hello(adapter)
    elif kind == "turn":
        yield from _turn(adapter, message)
    else:
        print(f"bridge: ignoring a message that is not hello or turn: {str(message)[:200]}", file=sys.stderr)


def serve(adapter: Any, lines: Iterable[str], write: Callable[[dict], None]) -> None:
    """Answer every line until EOF."""
    for line in lines:
        if not line.strip():
            continue
        try:
            message = json.loads(line)
        except ValueError:
            message = line.strip()
        for reply in answer(adapter, message):
            write(reply)


def _protocol_stdout() -> TextIO:
    """A private copy of stdout for protocol lines; fd 1 and sys.stdout are pointed at stderr."""
    out = io.TextIOWrapper(os.fdopen(os.dup(1), "wb"), encoding="utf-8", newline="\n")
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m harness.adapters.bridge",
                                     description="Serve an in-process adapter over the subprocess protocol.")
    parser.add_argument("spec", metavar="SPEC", help="reference, a registered adapter name, or module:attribute")
    spec = parser.parse_args(argv).spec
    out = _protocol_stdout()
    try:
        adapter = load_adapter(spec)
    except AdapterLoadError as exc:
        print(f"bridge: {exc}", file=sys.stderr)
        return 2

    def write(message: dict) -> None:
        out.write(json.dumps(message, ensure_ascii=False, default=_jsonable) + "\n")
        out.flush()
    try:
        serve(adapter, io.TextIOWrapper(sys.stdin.buffer, encoding="utf-8"), write)
    except AdapterFailure as exc:
        print(f"bridge: adapter {spec!r} failed: {exc}", file=sys.stderr)
        return 3
    return 0


if __name__ == "__main__":
    sys.exit(main())
