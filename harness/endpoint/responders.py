"""What the loopback endpoint answers (harness.endpoint.exchange's one-method ``Responder`` protocol): a cassette or scripts.

`CassetteResponder` replays a cassette's interactions in recorded order. Asked another operation than the
one recorded (recorded ConverseStream, asked InvokeModelWithResponseStream or Converse; recorded Converse,
asked a stream), it derives the emulator script from the recording (harness.endpoint.emulator.derive) and renders it
for the operation asked, tool ids verbatim, so one cassette and one golden certify every path. Each such
rendering is logged and kept in ``renderings``; ``Rendering.lost`` says what the asked operation cannot
carry, so the runner can skip a verdict the golden cannot give. `EmulatorResponder` renders scripts.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from harness.cassettes.masking import MaskingFilter
from harness.cassettes.match import same_body
from harness.endpoint.emulator import render as emulator
from harness.endpoint.emulator.derive import (
    delivered,
    for_operation,
    script_from_converse,
    script_from_frames,
)
from harness.endpoint.emulator.plan import check_style
from harness.endpoint.emulator.script import EmulatorScriptError
from harness.endpoint.faults import Faults
from harness.endpoint.exchange import INVALID_MODEL, CapturedRequest, Reply, RequestError

__all__ = ["DERIVABLE", "HTTP_ERRORS", "NO_ANTHROPIC_TWIN", "CassetteResponder", "EmulatorResponder", "Rendering",
           "render", "turn_seed"]

log = logging.getLogger(__name__)
log.addFilter(MaskingFilter())  # paths, queries and model ARNs are printed masked

DERIVABLE = ("ConverseStream", "Converse")  # recorded operations a script is derived from
# A whole Converse answer has no place for an in-stream failure: the call fails with the HTTP error (§1.5).
HTTP_ERRORS = {"internalServerException": (500, "InternalServerException"),
               "modelStreamErrorException": (424, "ModelErrorException"),
               "validationException": (400, "ValidationException"),
               "throttlingException": (429, "ThrottlingException"),
               "serviceUnavailableException": (503, "ServiceUnavailableException"),
               "modelTimeoutException": (408, "ModelTimeoutException")}
# Bedrock stop reasons the Anthropic-native stream cannot say: the emulator sends refusal / end_turn instead
# (a guardrail shows on InvokeModel as the body field amazon-bedrock-guardrailAction, outside Anthropic events).
NO_ANTHROPIC_TWIN = ("guardrail_intervened", "malformed_model_output", "malformed_tool_use")


def turn_seed(seed: str, turn: int) -> str:
    """The emulator seed of one turn, so tool ids differ from turn to turn yet replay identically."""
    return f"{seed}#{turn}"


def render(script: Any, operation: str, *, style: str, seed: str, model_id: str, tools: bool = True) -> Reply:
    """A script rendered as ``operation`` answers it: ConverseStream or Anthropic-native frames, or Converse JSON;
    ``tools``: whether the request carried toolConfig."""
    if operation == "Converse":
        return Reply.json(emulator.render_converse(script, style=style, seed=seed))
    if operation == "InvokeModelWithResponseStream":
        return Reply(frames=emulator.render_invoke_stream(script, seed=seed, model_id=model_id))
    return Reply(frames=emulator.render_stream(script, style=style, seed=seed, tools=tools))


@dataclass(frozen=True)
class Rendering:
    """One recorded answer served in another operation; ``lost`` is what that operation cannot carry."""

    turn: int
    recorded: str
    asked: str
    lost: str = ""


class CassetteResponder:
    """Replays a cassette's interactions in recorded order; another operation is rendered from the recording.

    ``cross_operation=False`` refuses a request whose operation differs from the recorded one instead.
    ``faults`` (the session's) tells which turns carry byte-offset faults, positions in the recorded bytes.
    """

    def __init__(self, loaded, *, cross_operation: bool = True, faults: Faults | None = None, seed: str = ""):
        self.cassette, self.cross_operation, self.faults = loaded, cross_operation, faults or Faults()
        self.name = str(loaded.path or "<cassette>")
        self.seed = seed or Path(self.name).name
        self.renderings: list[Rendering] = []

    @property
    def turns(self) -> int:
        """How many turns the cassette answers (its interactions)."""
        return len(self.cassette.interactions)

    def respond(self, request: CapturedRequest) -> Reply:
        recorded = self._recorded(request)
        if recorded.operation == request.operation or recorded.status >= 300:
            return _as_recorded(recorded)
        return self._rendered(recorded, request)

    def recorded_same(self, request: CapturedRequest) -> bool:
        """Whether the request equals the one recorded for its turn (same operation, model and normalized body)."""
        items = self.cassette.interactions
        recorded = items[request.turn] if request.turn is not None and request.turn < len(items) else None
        return recorded is not None and recorded.operation == request.operation and \
            recorded.model_id == request.model_id and same_body(recorded.request_body, request.raw_body)

    def _where(self, request: CapturedRequest) -> str:
        return f"cassette {self.name}, request {request.turn + 1} (turn {request.turn})"

    def _recorded(self, request: CapturedRequest):
        where, items = self._where(request), self.cassette.interactions
        if request.turn >= len(items):
            message = f"{where} is past the end of the cassette ({len(items)} interactions)"
            raise RequestError(400, "ValidationException", message)
        recorded = items[request.turn]
        if recorded.operation != request.operation and recorded.status < 300 and not self._renders(recorded):
            message = f"{where}: recorded {recorded.operation or recorded.uri}, got {request.operation}"
            raise RequestError(400, "ValidationException", message)
        if recorded.model_id != request.model_id:
            detail = f"{where}: recorded model {recorded.model_id!r}, got {request.model_id!r}"
            raise RequestError(400, "ValidationException", INVALID_MODEL, detail)
        return recorded

    def _renders(self, recorded) -> bool:
        return self.cross_operation and recorded.operation in DERIVABLE

    def _rendered(self, recorded, request: CapturedRequest) -> Reply:
        seed = turn_seed(self.seed, request.turn)
        try:
            script, style = _derived(recorded)
            script = for_operation(script, style, request.operation, seed)
            if request.operation == "Converse" and script.get("exception"):
                raise self._failed_call(script["exception"], recorded, request)
            reply = render(script, request.operation, style=style, seed=seed, model_id=request.model_id)
        except EmulatorScriptError as error:
            self._note(request, recorded, f"no {request.operation} rendering: {error}")
            message = f"{self._where(request)}: cannot render the recorded {recorded.operation} as " \
                      f"{request.operation}: {error}"
            raise RequestError(400, "ValidationException", message) from None
        self._note(request, recorded, self._lost(script, request, recorded, reply))
        return reply

    def _failed_call(self, failure: dict, recorded, request: CapturedRequest) -> RequestError:
        """A failure recorded mid-stream, as the HTTP error a Converse call gets (the turn stays, for retries)."""
        self._note(request, recorded, f"a whole Converse answer cannot hold the content streamed before the "
                                      f"recorded {failure['type']}")
        status, kind = HTTP_ERRORS[failure["type"]]
        detail = f"{self._where(request)}: recorded {failure['type']} mid-stream, answered as HTTP {status} {kind}"
        return RequestError(status, kind, failure["message"], detail, expected=True)

    def _lost(self, script: dict, request: CapturedRequest, recorded, reply: Reply) -> str:
        """What the rendering cannot carry of this recording ("" when nothing)."""
        lost = []
        if request.operation == "InvokeModelWithResponseStream" and script.get("stop_reason") in NO_ANTHROPIC_TWIN:
            lost.append(f"stop reason {script['stop_reason']} has no Anthropic-native twin")
        if any(not self._same_cut(cut, recorded, request, reply) for cut in self._byte_cuts(request.turn)):
            lost.append("a byte-offset fault lands elsewhere in its bytes than in the recorded ones")
        return "; ".join(lost)

    def _byte_cuts(self, turn: int) -> list[int]:
        return [cut for f in self.faults.faults if f.applies(turn)
                for cut in (f.truncate_after_byte, f.drop_after_byte) if cut is not None]

    @staticmethod
    def _same_cut(cut: int, recorded, request: CapturedRequest, reply: Reply) -> bool:
        """Whether cutting both streams at byte ``cut`` leaves the same content whole."""
        if recorded.frames is None or reply.frames is None:
            return False
        ours = delivered(reply.frames, request.operation, cut)
        return ours == delivered(recorded.frame_bytes(), recorded.operation, cut)

    def _note(self, request: CapturedRequest, recorded, lost: str) -> None:
        """Log a rendering once per turn (a refused call retried by the SDK is the same rendering)."""
        if self.renderings and self.renderings[-1].turn == request.turn:
            return
        self.renderings.append(Rendering(request.turn, recorded.operation, request.operation, lost))
        log.info("%s: recorded %s, rendered as %s%s", self._where(request), recorded.operation, request.operation,
                 f" (lost: {lost})" if lost else "")


def _derived(recorded) -> tuple[dict, str]:
    if recorded.frames is not None:
        return script_from_frames(recorded.frames)
    return script_from_converse(recorded.response_json)


def _as_recorded(recorded) -> Reply:
    headers = {k: ", ".join(map(str, v)) if isinstance(v, list) else str(v)
               for k, v in recorded.response_headers.items()}
    if recorded.frames is None:
        return Reply(recorded.status, headers, body=recorded.body)
    return Reply(recorded.status, headers, frames=recorded.frame_bytes())


class EmulatorResponder:
    """Renders turn ``i``'s script for request ``i``, in the shape of the operation asked for."""

    def __init__(self, scripts: Sequence, style: str = "claude", seed: str = "", name: str = "emulator",
                 model_id: str | None = None):
        check_style(style)
        for i, script in enumerate(scripts):
            emulator.parse_script(script, f"{name}: turns[{i}].script")  # fail at start, naming the turn
        self.scripts, self.style, self.seed, self.name = list(scripts), style, seed, name
        self.model_id = model_id  # the one model the scenario emulates (None: any), as a cassette has one

    @property
    def turns(self) -> int:
        """How many turns the scripts answer."""
        return len(self.scripts)

    def respond(self, request: CapturedRequest) -> Reply:
        if self.model_id is not None and request.model_id != self.model_id:
            detail = f"{self.name}: emulates model {self.model_id!r}, got {request.model_id!r}"
            raise RequestError(400, "ValidationException", INVALID_MODEL, detail)
        if request.turn >= len(self.scripts):
            turns = f"{len(self.scripts)} turn{'' if len(self.scripts) == 1 else 's'}"
            message = f"{self.name}: request {request.turn + 1} (turn {request.turn}) is past the scenario's {turns}"
            raise RequestError(400, "ValidationException", message)
        body = request.body_json if isinstance(request.body_json, dict) else {}
        return render(self.scripts[request.turn], request.operation, style=self.style,
                      seed=turn_seed(self.seed, request.turn), model_id=request.model_id,
                      tools=bool(body.get("toolConfig")))
