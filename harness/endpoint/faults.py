"""Fault injection for the loopback endpoint: what to break in a reply, and how to deliver its bytes.

A session's ``Faults`` holds turn-keyed faults (the scenario ``faults:`` list, or ``--fault`` options) plus
the delivery settings every reply shares (chunking, timing). It is pure data and pure functions; the server
keeps the per-turn attempt counters and does the writing.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, fields
from itertools import accumulate, chain, islice
from typing import Any

from harness.wire.eventstream import encode_exception

__all__ = [
    "EXCEPTION_TYPES",
    "HTTP_ERROR_TYPES",
    "Delivery",
    "Fault",
    "FaultError",
    "Faults",
    "HttpError",
    "StreamException",
    "as_option",
    "parse_chunking",
    "parse_fault",
]

# Exception members of each event-stream union (bedrock-wire.md §3, §8.2).
EXCEPTION_TYPES = {
    "ConverseStream": (
        "internalServerException",
        "modelStreamErrorException",
        "validationException",
        "throttlingException",
        "serviceUnavailableException",
    ),
}
EXCEPTION_TYPES["InvokeModelWithResponseStream"] = EXCEPTION_TYPES["ConverseStream"] + ("modelTimeoutException",)

# Status -> (modelled error type, a Bedrock-like message), for pre-stream HTTP errors (§1.5).
HTTP_ERROR_TYPES = {
    400: ("ValidationException", "The request was rejected."),
    403: ("AccessDeniedException", "You don't have access to the model with the specified model ID."),
    404: ("ResourceNotFoundException", "The requested resource was not found."),
    408: ("ModelTimeoutException", "Model has timed out in processing the request."),
    424: ("ModelErrorException", "The model returned an error."),
    429: ("ThrottlingException", "Too many requests, please wait before trying again."),
    500: ("InternalServerException", "The system encountered an unexpected error during processing. Try your request again."),
    503: ("ServiceUnavailableException", "Bedrock is unable to process your request."),
}

Chunking = str | int  # "whole" | "frame" | bytes per chunk


class FaultError(ValueError):
    """A fault description that cannot be used (names the fault and the field)."""


@dataclass(frozen=True)
class StreamException:
    """An exception frame that replaces the rest of the stream after ``after_event`` events."""

    type: str
    message: str = "The stream was interrupted by an injected fault."
    after_event: int = 0
    original_status_code: int | None = None
    original_message: str | None = None

    def encode(self) -> bytes:
        body: dict[str, Any] = {"message": self.message}
        if self.original_status_code is not None:
            body["originalStatusCode"] = self.original_status_code
        if self.original_message is not None:
            body["originalMessage"] = self.original_message
        return encode_exception(self.type, body)


@dataclass(frozen=True)
class HttpError:
    """A pre-stream HTTP error answered ``times`` times before the turn succeeds."""

    status: int
    type: str = ""
    message: str = ""
    times: int = 1

    def __post_init__(self):
        default_type, default_message = HTTP_ERROR_TYPES.get(self.status, ("InternalServerException", "Error."))
        object.__setattr__(self, "type", self.type or default_type)
        object.__setattr__(self, "message", self.message or default_message)


@dataclass(frozen=True)
class Fault:
    """One fault of the scenario ``faults:`` list; ``turn=None`` applies it to every turn."""

    turn: int | None = None
    exception: StreamException | None = None
    http_error: HttpError | None = None
    truncate_after_byte: int | None = None
    drop_after_byte: int | None = None

    def applies(self, turn: int) -> bool:
        return self.turn is None or self.turn == turn


@dataclass(frozen=True)
class Delivery:
    """The bytes of one reply, split into timed chunks on demand; ``drop`` closes the connection without finishing.

    ``bounds`` are the chunk start offsets (ascending, the first 0); a chunk waits for the ``delays`` of every
    frame whose offset in ``starts`` falls inside it. Chunks are produced lazily in one pass, so the first byte
    of a 20,000-frame reply leaves at once and 1-byte chunking never holds millions of chunks at a time.
    """

    body: bytes
    bounds: Sequence[int] = (0,)
    starts: Sequence[int] = ()
    delays: Sequence[float] = ()
    drop: bool = False

    @property
    def chunks(self) -> Iterator[tuple[float, bytes]]:
        marks = iter(zip(self.starts, self.delays))
        mark = next(marks, None)
        for lo, hi in zip(self.bounds, chain(islice(self.bounds, 1, None), [len(self.body)])):
            wait = 0.0
            while mark is not None and mark[0] < hi:
                wait += mark[1] if mark[0] >= lo else 0.0
                mark = next(marks, None)
            yield wait, self.body[lo:hi]


@dataclass(frozen=True)
class Faults:
    """A session's faults and delivery settings (chunking, fixed or recorded per-frame timing, scaled)."""

    faults: tuple[Fault, ...] = ()
    chunking: Chunking = "frame"
    delay: float = 0.0
    recorded_timing: bool = False
    scale: float = 1.0

    def __post_init__(self):
        object.__setattr__(self, "faults", tuple(self.faults))
        object.__setattr__(self, "chunking", parse_chunking(self.chunking))
        if self.delay < 0 or self.scale < 0:
            raise FaultError(f"delay ({self.delay}) and scale ({self.scale}) must not be negative")

    @classmethod
    def from_scenario(cls, items: Iterable[dict] | None, **settings) -> Faults:
        """Faults from a scenario's ``faults:`` list (see docs of the scenario format)."""
        return cls(tuple(_fault_from_dict(item, f"faults[{i}]") for i, item in enumerate(items or ())), **settings)

    @property
    def needs_socket(self) -> bool:
        """Whether a client sees these faults only over a real connection: a drop (a reset mid-reply) or a
        delivery that waits (a client's read timeout runs on its socket)."""
        waits = (self.delay > 0 or self.recorded_timing) and self.scale > 0
        return waits or any(fault.drop_after_byte is not None for fault in self.faults)

    def http_error(self, turn: int, attempt: int) -> HttpError | None:
        """The HTTP error for this turn's ``attempt``-th try (0-based), or None to serve the turn."""
        for fault in self.faults:
            if fault.http_error and fault.applies(turn):
                if attempt < fault.http_error.times:
                    return fault.http_error
                attempt -= fault.http_error.times
        return None

    def stream_body(self, frames: list[bytes], turn: int) -> tuple[list[bytes], int | None, bool]:
        """Apply exception faults to the frames; return them with the byte cut and whether it drops."""
        cut, drop = None, False
        for fault in (f for f in self.faults if f.applies(turn)):
            if fault.exception:
                frames = frames[: fault.exception.after_event] + [fault.exception.encode()]
            for limit, dropping in ((fault.truncate_after_byte, False), (fault.drop_after_byte, True)):
                if limit is not None and (cut is None or limit < cut):
                    cut, drop = limit, dropping
        return frames, cut, drop

    def deliver(self, frames: list[bytes], turn: int, offsets: list[float] | None = None) -> Delivery:
        """An event-stream reply as timed chunks, faults applied."""
        frames, cut, drop = self.stream_body(list(frames), turn)
        starts = [0, *accumulate(len(frame) for frame in frames)][:-1]
        body = b"".join(frames)[:cut]
        return Delivery(body, self._bounds(body, starts), starts, self._frame_delays(len(frames), offsets), drop)

    def deliver_json(self, body: bytes, turn: int) -> Delivery:
        """A JSON reply in one chunk, truncated or dropped when a fault says so."""
        _, cut, drop = self.stream_body([], turn)
        return Delivery(body[:cut], drop=drop)

    def _frame_delays(self, count: int, offsets: list[float] | None) -> list[float]:
        """Per-frame waits: recorded gaps where the reply has offsets, else the fixed delay; scaled."""
        gaps = [b - a for a, b in zip([0.0] + list(offsets or ()), offsets or ())] if self.recorded_timing else []
        return [max(gaps[i] if i < len(gaps) else self.delay, 0.0) * self.scale for i in range(count)]

    def _bounds(self, body: bytes, starts: list[int]) -> Sequence[int]:
        """Where the chunks of ``body`` start: once, at every frame, or every ``chunking`` bytes."""
        if self.chunking == "whole":
            return (0,)
        if self.chunking == "frame":
            return [s for s in starts if s < len(body)] or (0,)
        return range(0, max(len(body), 1), self.chunking)


def parse_chunking(value: Chunking) -> Chunking:
    """``whole``, ``frame`` or a positive byte count (an int or its decimal text)."""
    if value in ("whole", "frame"):
        return value
    try:
        size = int(value)
    except (TypeError, ValueError):
        raise FaultError(f"chunking must be 'whole', 'frame' or a positive byte count, not {value!r}") from None
    if size < 1:
        raise FaultError(f"chunking must be at least 1 byte, not {size}")
    return size


def _fault_from_dict(item: dict, where: str) -> Fault:
    """One ``faults:`` entry, checked field by field."""
    values = dict(_fields_of(Fault, item, where))
    for name, kind in (("exception", StreamException), ("http_error", HttpError)):
        if values.get(name) is not None:
            values[name] = _build(kind, values[name], f"{where}.{name}")
    fault = Fault(**values)
    _check(fault, where)
    return fault


def _fields_of(kind, spec: Any, where: str) -> dict:
    """``spec`` as a mapping holding only fields of the dataclass ``kind``."""
    if not isinstance(spec, dict):
        raise FaultError(f"{where}: expected a mapping, got {type(spec).__name__}")
    known = {f.name for f in fields(kind)}
    unknown = sorted(set(spec) - known)
    if unknown:
        raise FaultError(f"{where}: unknown key {unknown[0]!r} (expected one of {', '.join(sorted(known))})")
    return spec


def _build(kind, spec: Any, where: str):
    _fields_of(kind, spec, where)
    try:
        return kind(**spec)
    except TypeError as error:
        raise FaultError(f"{where}: {error}") from None


def _check(fault: Fault, where: str) -> None:
    """Refuse faults that name nothing, or an exception type no event stream has."""
    kinds = [f.name for f in fields(Fault) if f.name != "turn" and getattr(fault, f.name) is not None]
    if len(kinds) != 1:
        raise FaultError(f"{where}: give exactly one of exception, http_error, truncate_after_byte, drop_after_byte")
    if fault.exception and fault.exception.type not in EXCEPTION_TYPES["InvokeModelWithResponseStream"]:
        allowed = ", ".join(EXCEPTION_TYPES["InvokeModelWithResponseStream"])
        raise FaultError(f"{where}.exception.type: {fault.exception.type!r} is not one of {allowed}")
    numbers = (fault.turn, fault.truncate_after_byte, fault.drop_after_byte)
    if any(n is not None and (not isinstance(n, int) or n < 0) for n in numbers):
        raise FaultError(f"{where}: turn and byte offsets must be non-negative integers")
    if fault.http_error and not (400 <= fault.http_error.status <= 599 and fault.http_error.times >= 0):
        raise FaultError(f"{where}.http_error: status must be 4xx/5xx and times non-negative")


_CLI_KINDS = {"exception": "exception", "truncate": "truncate_after_byte", "drop": "drop_after_byte", "http": "http_error"}


def parse_fault(text: str) -> Fault:
    """A ``--fault`` option: ``exception:TYPE[:after=N][:message=M]``, ``truncate:N``, ``drop:N``,
    ``http:STATUS[:times=K][:type=T][:message=M]``; each may add ``:turn=T`` (default: every turn)."""
    kind, _, rest = text.partition(":")
    if kind not in _CLI_KINDS or not rest:
        raise FaultError(f"--fault {text!r}: expected exception:TYPE, truncate:N, drop:N or http:STATUS[...]")
    head, *options = rest.split(":")
    settings = _numbers(_options(options, text), text)
    turn = settings.pop("turn", None)
    spec: Any = {"exception": {"type": head}, "http": {"status": head}}.get(kind, head)
    if isinstance(spec, dict):
        spec.update(settings)
    elif settings:
        raise FaultError(f"--fault {text!r}: {kind} takes only turn=T")
    return _fault_from_dict({"turn": turn, _CLI_KINDS[kind]: _numbers(spec, text)}, f"--fault {text!r}")


def as_option(item: dict) -> str:
    """A scenario's fault (an item of its ``faults:`` list) as the ``--fault`` option ``parse_fault`` reads back into
    the same Fault, for a ``serve`` command line; a FaultError for a value the option cannot carry (a colon)."""
    fault = _fault_from_dict(item, "fault")
    kind = next(f.name for f in fields(Fault) if f.name != "turn" and getattr(fault, f.name) is not None)
    cli = {name: key for key, name in _CLI_KINDS.items()}[kind]
    value, parts = getattr(fault, kind), []
    if isinstance(value, int):
        parts = [str(value)]
    else:
        head, default = ("type", StreamException) if kind == "exception" else ("status", HttpError)
        options = {name: getattr(value, name) for name in (f.name for f in fields(value)) if name != head}
        spelled = {_SPELLED.get(name, name): option for name, option in options.items()
                   if option is not None and option != getattr(default(getattr(value, head)), name)}
        parts = [str(getattr(value, head)), *(f"{name}={option}" for name, option in spelled.items())]
    parts += [f"turn={fault.turn}"] if fault.turn is not None else []
    if any(":" in part for part in parts):
        raise FaultError(f"fault {item!r}: a value holds ':', which --fault cannot carry")
    return ":".join([cli, *parts])


_RENAMES = {"after": "after_event", "status_code": "original_status_code"}
_SPELLED = {name: option for option, name in _RENAMES.items()}


def _options(options: list[str], text: str) -> dict:
    settings = {}
    for option in options:
        name, sep, value = option.partition("=")
        if not sep:
            raise FaultError(f"--fault {text!r}: option {option!r} is not NAME=VALUE")
        settings[_RENAMES.get(name, name)] = value
    return settings


def _numbers(spec: Any, text: str) -> Any:
    """Turn the numeric CLI fields into ints; other values stay text."""
    numeric = {"after_event", "original_status_code", "status", "times", "turn"}
    try:
        if isinstance(spec, dict):
            return {k: int(v) if k in numeric else v for k, v in spec.items()}
        return int(spec)
    except ValueError:
        raise FaultError(f"--fault {text!r}: expected an integer") from None
