"""What the shims share: the library's version, the model an application keeps between turns, the history it keeps
(conversation mode), and the check that the library's client points at the loopback endpoint and nowhere else."""

from __future__ import annotations

import base64
import copy
import importlib.metadata
from collections.abc import AsyncIterable, Iterator
from typing import Any, Callable, Iterable
from urllib.parse import urlsplit

from harness.judge.protocol import FEATURES, OWN_HISTORY, SURFACE_FEATURES, AdapterFailure

__all__ = ["EXTRAS", "EndpointRefused", "History", "MEDIA", "Shim", "assert_endpoint", "boto_endpoint", "has_media",
           "install_hint", "installed_version", "jsonable", "message_chunk", "native_chunk", "relayed",
           "returned_value", "same_endpoint"]

# shim module -> the bedrock-harness extra that installs its library (pyproject.toml's optional-dependencies)
EXTRAS = {"langchain_aws": "langchain-aws", "strands": "strands", "pydantic_ai": "pydantic-ai", "litellm": "litellm",
          "llama_index": "llama-index", "haystack": "haystack",
          "strands_agent": "strands", "pydantic_ai_agent": "pydantic-ai", "langchain_aws_agent": "langchain-aws"}


MEDIA = ("image", "document")  # tool result parts a library holds typed, not as a value a tool returns


def has_media(content: Any) -> bool:
    """Whether a tool_result's content holds an image or a document part."""
    return isinstance(content, list) and any(isinstance(p, dict) and p.get("type") in MEDIA for p in content)


def returned_value(content: Any) -> Any:
    """The value a tool function returned, as a tool_result's content holds it (for a library whose tool invoker
    converts the value itself): a string or object as it is, one part as its text or JSON value, several as the
    list of their values."""
    if not isinstance(content, list):
        return content
    values = [part if isinstance(part, str) else part["json"] if "json" in part and "type" not in part
              else part.get("text", "") for part in content]
    return values[0] if len(values) == 1 else values


def install_hint(extra: str) -> str:
    return f"pip install 'bedrock-harness[{extra}]'"


def installed_version(distribution: str, extra: str) -> str:
    """The installed library's version; a clear error naming the extra when it is missing."""
    try:
        return importlib.metadata.version(distribution)
    except importlib.metadata.PackageNotFoundError:
        raise ImportError(f"{distribution} is not installed: {install_hint(extra)}") from None


class EndpointRefused(AdapterFailure):
    """The library's client would talk to another host than the loopback endpoint it was given: never sent."""


def same_endpoint(actual: Any, expected: str) -> bool:
    """Scheme, host and port equal (a trailing slash or path on the client's side is no difference)."""
    if not isinstance(actual, str) or not actual:
        return False
    mine, theirs = urlsplit(actual), urlsplit(expected)
    return (mine.scheme, mine.hostname, mine.port) == (theirs.scheme, theirs.hostname, theirs.port)


def assert_endpoint(actual: Any, endpoint: dict, what: str) -> None:
    """Refuse (``EndpointRefused``) unless ``actual``, the URL the library's client will call, is the endpoint's."""
    if not same_endpoint(actual, endpoint["endpoint_url"]):
        raise EndpointRefused(f"{what} points at {actual!r}, not the loopback endpoint {endpoint['endpoint_url']!r}: "
                              "refused, so that the library never reaches a real AWS host")


def boto_endpoint(client: Any) -> Any:
    """The endpoint URL a boto3 / botocore client sends to (None when it is not one)."""
    return getattr(getattr(client, "meta", None), "endpoint_url", None)


def message_chunk(content: Iterable[dict]) -> dict:
    """The closing chunk reporting the assistant message the library assembled (Anthropic format)."""
    return {"type": "message", "message": {"role": "assistant", "content": copy.deepcopy(list(content))}}


def native_chunk(path: str, build: Callable[[], Any], failed: BaseException | None = None,
                 sent: Callable[[], Any] | None = None) -> dict:
    """The closing ``native`` chunk of one call (``path``: stream or converse): ``build()``, the message its library
    built in the library's own serialization, made JSON-safe, with ``sent()``, the message as the library's own
    request formatter would send it back, when given and it runs; or the error the call raised (``failed``, or what
    ``build`` raised)."""
    try:
        if failed is None:
            return {"type": "native", "path": path, "message": jsonable(build()), **_sent(sent)}
    except Exception as exc:  # noqa: BLE001 - the call's failure is its outcome, compared with the other path's
        failed = exc
    return {"type": "native", "path": path, "error": f"{type(failed).__name__}: {failed}"}


def _sent(sent: Callable[[], Any] | None) -> dict:
    """``{"sent": ...}``, or nothing when there is no formatter to ask or it fails: parity then stays strict."""
    try:
        return {"sent": jsonable(sent())} if sent is not None else {}
    except Exception:  # noqa: BLE001 - a release without the formatter says nothing of what it sends
        return {}


def jsonable(value: Any) -> Any:
    """``value`` as JSON can carry it, nothing repaired: bytes as base64 text, tuples as lists, other keys as text."""
    if isinstance(value, (bytes, bytearray)):
        return base64.b64encode(bytes(value)).decode("ascii")
    if isinstance(value, dict):
        return {key if isinstance(key, str) else str(key): jsonable(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [jsonable(item) for item in value]
    return value


class History:
    """One conversation in the library's own types, as an application keeps it between turns.

    ``turn(turn, convert)`` is the whole history to send: on a new ``conversation`` id the turn's messages alone
    (the scenario's opening), else what came before, the assistant message the library assembled last turn, then
    the turn's new messages. ``convert(messages, history)`` makes library messages of Anthropic-format ones (it
    may read the history, e.g. for the call a tool result answers). A turn without ``conversation`` (a harness
    that does not drive conversation mode) carries its whole history, so it starts afresh.

    ``store``: ``(dump, load)``, the library's own way to persist a conversation (``dump(messages)``, its stored form:
    JSON text or the bytes its serializer writes, and ``load(stored) -> messages``): the history goes through it before every later turn, as an application
    with a checkpointer or a session store saves the conversation after each response and restores it for the next
    request, so messages the library cannot rebuild from their stored form show in what it sends.
    """

    def __init__(self, store: tuple[Callable[[list], Any], Callable[[Any], list]] | None = None) -> None:
        self.id: Any = None
        self.messages: list = []
        self.assistant: list = []
        self.store = store

    def turn(self, turn: dict, convert: Callable[[list[dict], list], list]) -> list:
        """The library-typed history for ``turn`` (kept: the next turn continues from it)."""
        if "conversation" not in turn or turn["conversation"] != self.id:
            self.id, self.messages = turn.get("conversation"), []
        else:
            self.messages.extend(self.assistant)
            if self.store is not None:
                dump, load = self.store
                self.messages = list(load(dump(self.messages)))
        self.assistant = []
        self.messages.extend(convert(list(turn.get("messages") or ()), self.messages))
        return self.messages

    def assembled(self, *messages: Any) -> None:
        """The library's assembled assistant message(s) of this turn, appended before the next turn's messages."""
        self.assistant = list(messages)


class Shim:
    """A third-party library as an adapter; subclasses set ``distribution`` and ``extra`` and write ``stream``."""

    name = "?"
    distribution = "?"
    extra = "?"
    # conversation mode; a shim that cannot express a feature leaves it out (today's surface: until it is reached)
    capabilities = (FEATURES - SURFACE_FEATURES) | {OWN_HISTORY}

    def __init__(self) -> None:
        self.version = installed_version(self.distribution, self.extra)
        self._last: tuple[str, Any] = ("", None)
        self.history = History(self.store())

    def store(self) -> tuple[Callable[[list], Any], Callable[[Any], list]] | None:
        """The library's own (dump, load) of a conversation, for a ``persisted`` variant (see ``History``)."""
        return None

    def kept(self, key: Any, build: Callable[[], Any]) -> Any:
        """The model built for the last turn when ``key`` is unchanged (an app keeps its model between turns)."""
        cached, model = self._last  # one read: threads sharing the adapter never mix endpoints
        if cached != repr(key):
            model = build()
            self._last = (repr(key), model)
        return model


def relayed(items: AsyncIterable) -> Iterator:
    """Each item of a library's async stream as it comes, for a shim's synchronous ``stream``: the stream runs on an
    event loop of its own, one step per item, so a chunk reaches the harness while the library is still streaming
    (and a stream that raises or hangs has relayed what came before). Closing the generator early closes the stream;
    the loop then ends as ``asyncio.run`` ends one (pending tasks cancelled, async generators and executor shut)."""
    import asyncio  # only a shim of an async library relays: the registry, and the reference, need none of it

    loop = asyncio.new_event_loop()
    asyncio.set_event_loop(loop)  # as asyncio.run does: a library may ask for the current loop
    iterator = items.__aiter__()
    try:
        while True:
            try:
                item = loop.run_until_complete(iterator.__anext__())
            except StopAsyncIteration:
                return
            yield item
    finally:
        try:
            if hasattr(iterator, "aclose"):
                loop.run_until_complete(iterator.aclose())
            pending = asyncio.all_tasks(loop)
            for task in pending:
                task.cancel()
            loop.run_until_complete(asyncio.gather(*pending, return_exceptions=True))
            loop.run_until_complete(loop.shutdown_asyncgens())
            loop.run_until_complete(loop.shutdown_default_executor())
        finally:
            asyncio.set_event_loop(None)
            loop.close()
