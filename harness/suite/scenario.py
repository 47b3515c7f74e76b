"""Scenarios: the data in ``suites/<suite>/<name>.yaml`` and the adapter-level turns built from it.

A scenario is data only (briefs/scenario-format.md); its id is ``<suite>/<name>``. Loading validates every
field and fails with one line naming the file and the field. The turn builder makes the adapter-level
``turn`` of DESIGN.md's adapter protocol, ``conversation`` naming the scenario: turn 0 from the prompt; for a
stateless adapter turn k from turn k-1's request messages, the assistant message rebuilt from turn k-1's
normalized output, and one user message of tool results; for an adapter that owns its history (conversation
mode) turn k holds only that new user message, since the adapter appends the assistant message itself.
"""

from __future__ import annotations

import copy
import re
import string
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterable, Mapping, Sequence

from harness.cassettes.limits import MAX_RENDERED_CHARS, LimitError, path_kind, read_file, yaml_errors
from harness.cassettes.parsed import load_yaml_bytes
from harness.evidence import Claim, ClaimError, parse_claims
from harness.suite import checks
from harness.suite.discovered import Discovered, pack
from harness.suite.levels import LEVELS, REQUIRED
from harness.judge.judgement_ids import SCENARIO_JUDGEMENTS
from harness.judge.protocol import CAPABILITIES
from harness.endpoint.emulator.script import STYLES, EmulatorScriptError, parse_script


__all__ = [
    "DEFAULT_OPTIONS",
    "GOLDEN_SUFFIX",
    "Scenario",
    "SERVED_OPTIONS",
    "ScenarioError",
    "Turn",
    "assistant_message",
    "discover",
    "effective_options",
    "first_turn",
    "initial_messages",
    "load_scenario",
    "new_messages",
    "next_turn",
    "parse_scenario",
    "scenario_id",
    "scenario_ids",
    "select",
    "selected_ids",
    "turn_dict",
]

DEFAULT_OPTIONS = {"max_tokens": 1024, "temperature": None, "thinking_budget": None, "tool_choice": None}
OPTIONAL_OPTIONS = ("output_format", "stop_sequences")  # options a turn carries only when the scenario gives them
CACHE_TTLS = ("5m", "1h")
GOLDEN_SUFFIX = ".golden.yaml"
OPERATIONS = ("converse-stream", "converse", "invoke-with-response-stream")
STOP_REASONS = ("end_turn", "tool_use", "max_tokens", "stop_sequence", "guardrail_intervened", "content_filtered",
                "malformed_model_output", "malformed_tool_use", "model_context_window_exceeded")
FAULT_KINDS = ("http_error", "exception", "truncate_after_byte", "drop_after_byte")
DELIVERY = ("chunking", "delay")  # how the endpoint writes every reply of the scenario (harness.endpoint.faults)


class ScenarioError(ValueError):
    """A scenario file, id or turn that cannot be used; the one-line message names the file and field."""


@dataclass(frozen=True)
class Turn:
    """One turn: the messages it adds, its option overrides, the emulator script, the tool-result templates."""

    messages: tuple[dict, ...]
    options: dict
    script: dict | None
    tool_results: dict
    accepted_stop_reasons: tuple[str, ...] = ()  # besides the golden's own: what an adapter may report instead
    tools: tuple[str, ...] | None = None  # the names of the scenario's tools this turn offers (None: all of them)


@dataclass(frozen=True)
class Scenario:
    """A loaded scenario; ``options`` already holds the defaults under the scenario's own options."""

    id: str
    path: Path
    title: str
    description: str
    tags: tuple[str, ...]
    requires: frozenset[str]
    model_id: str
    style: str
    operation: str
    tools: tuple[dict, ...]
    system: str | list | None  # a string, or text blocks (a block's cache_control asks for a cache point after it)
    options: dict
    turns: tuple[Turn, ...]
    checks: dict
    faults: tuple[dict, ...]
    claims: tuple[Claim, ...] = ()  # what it says of Bedrock, with sources (harness.evidence)
    judgements: tuple[str, ...] = ()  # judgements of harness.judge.grade it names besides the general ones
    robustness: str = ""  # why its stream is a shape no real recording shows: every finding is then a warning
    level: str = REQUIRED  # required (evidence about Bedrock, laws, founding checks) or recommended (robustness)
    delivery: dict | None = None  # chunking ("whole", "frame" or bytes per write) and delay (seconds per frame)

    def __hash__(self) -> int:  # the generated hash would fail on the nested dicts
        return hash(self.id)

    @property
    def suite(self) -> str:
        return self.id.split("/", 1)[0]

    def unmet(self, capabilities: Iterable[str]) -> frozenset[str]:
        """The required capabilities the adapter does not declare (non-empty means skip)."""
        return self.requires - frozenset(capabilities)


def scenario_id(path: str | Path, root: str | Path = "suites") -> str:
    """``<suite>/<name>`` for ``<root>/<suite>/<name>.yaml``."""
    return _scenario_id(path, root, Path(root).resolve())


def _scenario_id(path: str | Path, root: str | Path, resolved_root: Path) -> str:
    kind = path_kind(path) if Path(path).is_symlink() else None
    if kind is not None:  # a link that loops, dangles or leads to a device: said as what it is
        raise ScenarioError(f"{path}: cannot read: not a regular file but {kind}")
    try:
        parts = Path(path).resolve().relative_to(resolved_root).parts
    except ValueError:
        parts = ()
    if len(parts) != 2 or not parts[1].endswith(".yaml"):
        raise ScenarioError(f"{path}: a scenario lives at {root}/<suite>/<name>.yaml")
    return f"{parts[0]}/{parts[1][: -len('.yaml')]}"


def load_scenario(path: str | Path, root: str | Path = "suites", sid: str | None = None) -> Scenario:
    """Load and validate one scenario file (``sid``: its id, when the caller has it already)."""
    path = Path(path)
    return _loaded(path, sid or scenario_id(path, root))[0]


def _loaded(path: Path, sid: str) -> tuple[Scenario, Any]:
    """(the validated scenario of the file at ``path``, the parsed document it was built from)."""
    try:
        data = load_yaml_bytes(read_file(path))
    except OSError as exc:
        kind = path_kind(path)
        said = f"not a regular file but {kind}" if kind not in (None, "missing") else " ".join(str(exc).split())
        raise ScenarioError(f"{path}: cannot read: {said}") from None
    except (UnicodeDecodeError, LimitError, *yaml_errors()) as exc:
        raise ScenarioError(f"{path}: cannot read: {' '.join(str(exc).split())}") from None
    try:
        scenario = _scenario(data, sid, path)
    except _Invalid as exc:
        raise ScenarioError(f"{path}: {exc}") from None
    _validate_parts(scenario)
    return scenario, data


def _rebuilt(sid: str, path: Path, data: Any) -> Scenario:
    """The Scenario of a document ``discover`` validated already (harness.suite.discovered builds it again)."""
    try:
        return _scenario(data, sid, path)
    except _Invalid as exc:  # not after discovery's validation; kept for a document changed in between
        raise ScenarioError(f"{path}: {exc}") from None


def _lean(path: Path, sid: str) -> tuple[str, str, Any]:
    """A Discovered entry for the file at ``path``: validated whole, kept as its packed document."""
    scenario, data = _loaded(path, sid)
    packed = pack(data)
    return sid, str(path), scenario if packed is None else packed


def _whole(path: Path, sid: str) -> tuple[str, str, Any]:
    """A Discovered entry for the file at ``path``: validated whole, kept as the built Scenario."""
    return sid, str(path), _loaded(path, sid)[0]


def parse_scenario(data: Any, sid: str, path: str | Path) -> Scenario:
    """A scenario from its parsed YAML document (what ``load_scenario`` reads from ``path``), validated alike: a
    drawn or generated scenario is an ordinary one (harness.studies.explore)."""
    try:
        scenario = _scenario(data, sid, Path(path))
    except _Invalid as exc:
        raise ScenarioError(f"{path}: {exc}") from None
    _validate_parts(scenario)
    return scenario


def _validate_parts(scenario: Scenario) -> None:
    """The checks and emulator scripts, by their own validators, so a misspelling fails at load."""
    try:
        checks.validate(scenario.checks, source=str(scenario.path))
        for index, turn in enumerate(scenario.turns):
            if turn.script is not None:
                parse_script(turn.script, where=f"{scenario.path}: turns[{index}].script")
    except (checks.CheckError, EmulatorScriptError) as exc:
        raise ScenarioError(str(exc)) from None


def discover(root: str | Path = "suites", suites: Sequence[str] = (), ids: Sequence[str] = (),
             keep: Callable[[str], bool] | None = None, lean: bool = True) -> Discovered:
    """The scenarios under ``root`` sorted by id: all, or those in ``suites`` plus those named in ``ids``; with
    ``keep``, only the ids it keeps (one shard's) are read at all. Every file is read and validated now; each
    scenario is kept lean until it is asked for (harness.suite.discovered), unless ``lean`` is false: a caller that
    holds every scenario at once anyway (``list``) saves packing each one and building it again."""
    paths = _scenario_paths(root)
    chosen = sorted(sid for sid in _select(paths, suites, ids) if keep is None or keep(sid))
    entry = _lean if lean else _whole
    return Discovered((entry(Path(paths[sid]), sid) for sid in chosen), _rebuilt)


def selected_ids(known: Iterable[str], suites: Sequence[str] = (), ids: Sequence[str] = ()) -> list[str]:
    """The ids of ``known`` that ``discover`` would pick for ``suites`` and ``ids``, sorted (ScenarioError for an
    unknown name), without reading a file."""
    return sorted(_select(dict.fromkeys(known), suites, ids))


def scenario_ids(root: str | Path = "suites") -> list[str]:
    """Every scenario id under ``root``, from the file names alone (no file is parsed)."""
    return sorted(_scenario_paths(root))


def select(scenarios: Sequence[Scenario], suites: Sequence[str] = (), ids: Sequence[str] = ()) -> list[Scenario]:
    """Those of already loaded ``scenarios`` that ``discover`` would pick for ``suites`` and ``ids``."""
    known = {s.id: s for s in scenarios}
    return [known[sid] for sid in sorted(_select(known, suites, ids))]


def _scenario_paths(root: str | Path) -> dict[str, Path]:
    root = Path(root)
    if not root.is_dir():
        raise ScenarioError(f"{root}: no such scenario directory (--root / --bedrock-root DIR names a folder "
                            "holding suites/ and cassettes/)")
    resolved, plain, paths = root.resolve(), {}, {}
    for path in root.glob("*/*.yaml"):
        if path.name.endswith(GOLDEN_SUFFIX):
            continue
        suite = path.parent.name
        if suite not in plain:  # a suite folder that is no symbolic link: its files resolve under the root as named
            plain[suite] = not path.parent.is_symlink()
        # A file that is no link, in such a folder, has the id its name says; a link is resolved (it may lead out)
        plainly = plain[suite] and not path.is_symlink()
        paths[f"{suite}/{path.name[:-len('.yaml')]}" if plainly else _scenario_id(path, root, resolved)] = path
    return paths


def _select(known: Mapping[str, Any], suites: Sequence[str], ids: Sequence[str]) -> set[str]:
    """Union of the named suites and ids; unknown names are errors listing the known ones."""
    names = sorted({sid.split("/", 1)[0] for sid in known})
    for suite in suites:
        if suite not in names:
            raise ScenarioError(f"unknown suite {suite!r} (known: {', '.join(names) or 'none'})")
    for sid in ids:
        if sid not in known:
            raise ScenarioError(f"unknown scenario {sid!r} (known: {', '.join(sorted(known)) or 'none'})")
    if not suites and not ids:
        return set(known)
    return {sid for sid in known if sid.split("/", 1)[0] in suites} | set(ids)


_FIELDS = ("title", "description", "tags", "requires", "model_id", "style", "operation", "tools", "system",
           "options", "turns", "checks", "faults", "claims", "judgements", "robustness", "level", "delivery")


def _scenario(data: Any, sid: str, path: Path) -> Scenario:
    """Validate the parsed YAML into a Scenario (raises _Invalid naming the field)."""
    data = _fields(data, "", _FIELDS, required=("title", "model_id", "turns"))
    tools = _items(data.get("tools", []), "tools", _tool)
    names = {tool["name"] for tool in tools}
    turns = _items(data["turns"], "turns", lambda value, where: _turn(value, where, names))
    _check(bool(turns), "turns", "expected at least one turn")
    _check(bool(turns[0].messages), "turns[0].messages", "the first turn needs at least one message (the prompt)")
    return Scenario(
        id=sid, path=path, title=_text(data["title"], "title"),
        description=_optional(_string)(data.get("description"), "description") or "",
        tags=tuple(_items(data.get("tags", []), "tags", _text)),
        requires=frozenset(_items(data.get("requires", []), "requires", _choice(CAPABILITIES, "capability"))),
        model_id=_text(data["model_id"], "model_id"),
        style=_choice(STYLES, "style")(data.get("style", "claude"), "style"),
        operation=_choice(OPERATIONS, "operation")(data.get("operation", "converse-stream"), "operation"),
        tools=tuple(tools), system=_optional(_system)(data.get("system"), "system"),
        options={**DEFAULT_OPTIONS, **_options(data.get("options", {}), "options")},
        turns=tuple(turns), checks=_checks(data.get("checks", {}), "checks", len(turns)),
        faults=tuple(_items(data.get("faults", []), "faults", lambda value, where: _fault(value, where, len(turns)))),
        claims=tuple(_claims(data.get("claims", []), sid)),
        judgements=tuple(_items(data.get("judgements", []), "judgements", _choice(SCENARIO_JUDGEMENTS, "judgement"))),
        robustness=_optional(_text)(data.get("robustness"), "robustness") or "",
        level=_choice(LEVELS, "level")(data.get("level", REQUIRED), "level"),
        delivery=_optional(_delivery)(data.get("delivery"), "delivery"),
    )


def _turn(value: Any, where: str, tool_names: set[str]) -> Turn:
    """Validate one entry of ``turns``."""
    turn = _fields(value, where, ("messages", "options", "script", "tool_results", "accepted_stop_reasons", "tools"))
    return Turn(
        messages=tuple(_items(turn.get("messages", []), f"{where}.messages", _message)),
        options=_options(turn.get("options", {}), f"{where}.options"),
        script=_optional(_script)(turn.get("script"), f"{where}.script"),
        tool_results=_tool_results(turn.get("tool_results", {}), f"{where}.tool_results", tool_names),
        accepted_stop_reasons=tuple(_items(turn.get("accepted_stop_reasons", []), f"{where}.accepted_stop_reasons",
                                           _choice(STOP_REASONS, "stop_reason"))),
        tools=None if turn.get("tools") is None else tuple(_items(turn["tools"], f"{where}.tools",
                                                                  _choice(tool_names, "tool"))),
    )


# ---- field validators: each takes (value, where) and returns the value or raises _Invalid ----

class _Invalid(Exception):
    """A field that fails validation; the message is ``<field>: <problem>``."""


def _check(ok: bool, where: str, problem: str) -> None:
    if not ok:
        raise _Invalid(f"{where or '(top level)'}: {problem}")


def _fields(value: Any, where: str, allowed: Sequence[str], required: Sequence[str] = ()) -> dict:
    """A mapping whose keys are all in ``allowed`` and include every ``required`` one."""
    _check(isinstance(value, dict), where, "expected a mapping")
    for key in value:
        if key not in allowed:  # the message is made only for a field that fails (every file is checked on load)
            _check(False, f"{where}.{key}" if where else str(key), f"unknown field (known: {', '.join(allowed)})")
    for key in required:
        if key not in value:
            _check(False, f"{where}.{key}" if where else key, "missing (required)")
    return value


def _items(value: Any, where: str, item: Any) -> list:
    """A list whose entries each pass ``item(entry, "where[i]")``."""
    _check(isinstance(value, list), where, "expected a list")
    return [item(entry, f"{where}[{i}]") for i, entry in enumerate(value)]


def _string(value: Any, where: str) -> str:
    _check(isinstance(value, str), where, "expected a string")
    return value


def _text(value: Any, where: str) -> str:
    _check(isinstance(value, str) and value.strip() != "", where, "expected a non-empty string")
    return value


def _integer(value: Any, where: str, low: int = 0, high: int | None = None) -> int:
    ok = isinstance(value, int) and not isinstance(value, bool) and low <= value and (high is None or value < high)
    if not ok:  # each message is made only for a field that fails: every file is checked on load
        _check(False, where, f"expected an integer {low}..{'' if high is None else high - 1}")
    return value


def _choice(known: Iterable[str], what: str) -> Any:
    def check(value: Any, where: str) -> str:
        if not (isinstance(value, str) and value in known):
            _check(False, where, f"unknown {what} {value!r} (known: {', '.join(sorted(known))})")
        return value
    return check


def _optional(check: Any) -> Any:
    return lambda value, where: None if value is None else check(value, where)


def _tool(value: Any, where: str) -> dict:
    _fields(value, where, ("name", "description", "input_schema", "cache_control", "strict"),
            required=("name", "input_schema"))
    _text(value["name"], f"{where}.name")
    _optional(_text)(value.get("description"), f"{where}.description")
    _mapping(value["input_schema"], f"{where}.input_schema")
    _optional(_cache_control)(value.get("cache_control"), f"{where}.cache_control")
    _check(isinstance(value.get("strict", False), bool), f"{where}.strict", "expected true or false")
    return value


def _cache_control(value: Any, where: str) -> dict:
    """Anthropic's ``{type: ephemeral, ttl?: 5m | 1h}``: a cache point after what carries it."""
    _fields(value, where, ("type", "ttl"), required=("type",))
    _choice(("ephemeral",), "cache_control type")(value["type"], f"{where}.type")
    _optional(_choice(CACHE_TTLS, "ttl"))(value.get("ttl"), f"{where}.ttl")
    return value


def _system(value: Any, where: str) -> str | list:
    """A string, or a list of text blocks (``{type: text, text, cache_control?}``)."""
    if isinstance(value, str):
        return _text(value, where)
    for i, block in enumerate(_items(value, where, _mapping)):
        _fields(block, f"{where}[{i}]", ("type", "text", "cache_control"), required=("type", "text"))
        _choice(("text",), "system block type")(block["type"], f"{where}[{i}].type")
        _text(block["text"], f"{where}[{i}].text")
        _optional(_cache_control)(block.get("cache_control"), f"{where}[{i}].cache_control")
    _check(bool(value), where, "expected a string or at least one text block")
    return value


def _message(value: Any, where: str) -> dict:
    _fields(value, where, ("role", "content"), required=("role", "content"))
    _choice(("user", "assistant"), "role")(value["role"], f"{where}.role")
    if not isinstance(value["content"], str):
        for i, block in enumerate(_items(value["content"], f"{where}.content", _mapping)):
            _text(block.get("type"), f"{where}.content[{i}].type")
            _optional(_cache_control)(block.get("cache_control"), f"{where}.content[{i}].cache_control")
    return value


def _mapping(value: Any, where: str) -> dict:
    _check(isinstance(value, dict), where, "expected a mapping")
    return value


def _tool_choice(value: Any, where: str) -> Any:
    if isinstance(value, dict):
        _fields(value, where, ("name",), required=("name",))
        return {"name": _text(value["name"], f"{where}.name")}
    return _choice(("auto", "any"), "tool_choice")(value, where)


def _number(value: Any, where: str) -> float:
    _check(isinstance(value, (int, float)) and not isinstance(value, bool), where, "expected a number")
    return value


def _output_format(value: Any, where: str) -> dict:
    """Structured output: ``{type: json_schema, schema: {...}, name?, description?}`` (sent as outputConfig)."""
    _fields(value, where, ("type", "schema", "name", "description"), required=("type", "schema"))
    _choice(("json_schema",), "output_format type")(value["type"], f"{where}.type")
    _mapping(value["schema"], f"{where}.schema")
    for key in ("name", "description"):
        _optional(_text)(value.get(key), f"{where}.{key}")
    return value


def _guardrail(value: Any, where: str) -> dict:
    _fields(value, where, ("identifier", "version", "trace", "stream_processing_mode"), required=("identifier", "version"))
    for key in ("identifier", "version"):
        _text(value[key], f"{where}.{key}")
    _optional(_choice(("enabled", "disabled", "enabled_full"), "trace"))(value.get("trace"), f"{where}.trace")
    _optional(_choice(("sync", "async"), "stream_processing_mode"))(value.get("stream_processing_mode"),
                                                                    f"{where}.stream_processing_mode")
    return value


_OPTION_CHECKS = {"max_tokens": lambda value, where: _integer(value, where, 1), "temperature": _optional(_number),
                  "thinking_budget": _optional(lambda value, where: _integer(value, where, 1)),
                  "tool_choice": _optional(_tool_choice), "output_format": _optional(_output_format),
                  # no default: a turn carries it only where a scenario sets it (inferenceConfig.stopSequences)
                  "stop_sequences": _optional(lambda value, where: _items(value, where, _text))}
# How the request is served (capabilities service_tier, guardrail, response_fields): in a turn only when a scenario
# sets them, so the turns of every other scenario stay as they were.
SERVED_OPTIONS = {"service_tier": _choice(("priority", "default", "flex", "reserved"), "service_tier"),
                  "latency": _choice(("standard", "optimized"), "latency"), "guardrail": _guardrail,
                  "response_field_paths": lambda value, where: _items(value, where, _text)}


def _options(value: Any, where: str) -> dict:
    checks = {**_OPTION_CHECKS, **SERVED_OPTIONS}
    _fields(value, where, tuple(checks))
    return {key: checks[key](item, f"{where}.{key}") for key, item in value.items()}


def _script(value: Any, where: str) -> dict:
    """The emulator owns the script's vocabulary; here only its outline is checked."""
    _mapping(value, where)
    _items(value.get("content", []), f"{where}.content", _mapping)
    _optional(_choice(STOP_REASONS, "stop_reason"))(value.get("stop_reason"), f"{where}.stop_reason")
    _optional(_mapping)(value.get("usage"), f"{where}.usage")
    return value


def _tool_results(value: Any, where: str, tool_names: set[str]) -> dict:
    for name, spec in _mapping(value, where).items():
        if name not in tool_names:
            _check(False, f"{where}.{name}", f"no such tool (tools: {', '.join(sorted(tool_names)) or 'none'})")
        _fields(spec, f"{where}.{name}", ("content", "is_error", "cache_control"), required=("content",))
        _optional(_cache_control)(spec.get("cache_control"), f"{where}.{name}.cache_control")
        _check(isinstance(spec["content"], (str, list, dict)), f"{where}.{name}.content", "expected a string, list or mapping")
        _check(isinstance(spec.get("is_error", False), bool), f"{where}.{name}.is_error", "expected true or false")
    return value


def _checks(value: Any, where: str, turns: int) -> dict:
    """Live-recording checks: ``hard`` and ``soft`` lists; a check's ``turn`` must exist."""
    _fields(value, where, ("hard", "soft"))
    for kind in ("hard", "soft"):
        for i, check in enumerate(_items(value.get(kind, []), f"{where}.{kind}", _mapping)):
            if "turn" in check:
                _integer(check["turn"], f"{where}.{kind}[{i}].turn", 0, turns)
    return {"hard": list(value.get("hard", [])), "soft": list(value.get("soft", []))}


def _claims(value: Any, sid: str) -> list[Claim]:
    try:
        return parse_claims(value, f"scenario {sid}", "claims")
    except ClaimError as exc:
        raise _Invalid(str(exc)) from None


def _delivery(value: Any, where: str) -> dict:
    """``chunking``: whole, frame or a byte count of at least 1; ``delay``: seconds before each frame, 0..5."""
    _fields(value, where, DELIVERY)
    chunking = value.get("chunking", "frame")
    _check(chunking in ("whole", "frame") or (isinstance(chunking, int) and not isinstance(chunking, bool)
                                             and chunking >= 1), f"{where}.chunking",
           "expected whole, frame or a byte count of at least 1")
    delay = value.get("delay", 0)
    _check(isinstance(delay, (int, float)) and not isinstance(delay, bool) and 0 <= delay <= 5, f"{where}.delay",
           "expected seconds from 0 to 5")
    return {"chunking": chunking, "delay": float(delay)}


def _fault(value: Any, where: str, turns: int) -> dict:
    _fields(value, where, ("turn", *FAULT_KINDS), required=("turn",))
    _integer(value["turn"], f"{where}.turn", 0, turns)
    _check(len(value) == 2, where, f"expected exactly one of {', '.join(FAULT_KINDS)}")
    return value


# ---- turn building (the runner calls these) ----

def effective_options(scenario: Scenario, index: int) -> dict:
    """Options of turn ``index``; precedence: the turn's own > the scenario's > DEFAULT_OPTIONS."""
    return {**scenario.options, **_turn_at(scenario, index).options}


def turn_dict(scenario: Scenario, index: int, messages: Sequence[dict]) -> dict:
    """The adapter-level turn (DESIGN.md adapter protocol) for turn ``index`` with these messages."""
    offered = _turn_at(scenario, index).tools
    tools = [t for t in scenario.tools if offered is None or t["name"] in offered]
    return fresh({
        "model_id": scenario.model_id, "system": scenario.system, "messages": list(messages),
        "tools": tools, "options": effective_options(scenario, index), "conversation": scenario.id,
    })


def initial_messages(scenario: Scenario, index: int = 0) -> list[dict]:
    """The messages turn ``index`` adds by itself (for turn 0: the prompt), as fresh copies."""
    return fresh(list(_turn_at(scenario, index).messages))


_SHARED = (str, int, float, bool, type(None), bytes)  # immutable: a copy may share them


def fresh(value: Any) -> Any:
    """A deep copy of a tree of dicts, lists and scalars (what scenarios and turns hold), several times faster than
    ``copy.deepcopy``; any other value inside is deep-copied."""
    kind = type(value)
    if kind is dict:
        return {key: fresh(item) for key, item in value.items()}
    if kind is list:
        return [fresh(item) for item in value]
    return value if kind in _SHARED else copy.deepcopy(value)


def first_turn(scenario: Scenario) -> dict:
    """Turn 0: the prompt alone."""
    return turn_dict(scenario, 0, initial_messages(scenario, 0))


def next_turn(scenario: Scenario, index: int, previous: Mapping, output: Sequence[Mapping]) -> dict:
    """Turn ``index`` (>= 1) from the previous turn dict and that turn's normalized output."""
    if not 1 <= index < len(scenario.turns):
        raise ScenarioError(f"{scenario.id}: no turn {index} to build (turns 1..{len(scenario.turns) - 1})")
    assistant = assistant_message(output)
    if not assistant["content"]:
        raise ScenarioError(f"{scenario.id}: turn {index - 1} produced no content to continue from")
    return turn_dict(scenario, index, [*previous["messages"], assistant, *_added(scenario, index, output)])


def new_messages(scenario: Scenario, index: int, output: Sequence[Mapping]) -> list[dict]:
    """What turn ``index`` (>= 1) adds after the assistant message: one user message with a tool result per call
    in the previous turn's normalized ``output`` (ids as the adapter reported them), then the turn's own content."""
    if not 1 <= index < len(scenario.turns):
        raise ScenarioError(f"{scenario.id}: no turn {index} to build (turns 1..{len(scenario.turns) - 1})")
    users = _added(scenario, index, output)
    if not users:
        raise ScenarioError(f"{scenario.id}: turn {index - 1} surfaced no tool call and turn {index} adds no message, "
                            "so there is nothing to continue with")
    return users


def _added(scenario: Scenario, index: int, output: Sequence[Mapping]) -> list[dict]:
    results = [_tool_result(scenario, index - 1, item) for item in output if item["type"] == "tool_call"]
    return _user_messages(results, initial_messages(scenario, index))


_REASONING = ("reasoning", "redacted_reasoning")
_BLOCKS = {
    "reasoning": lambda item: {"type": "thinking", "thinking": item["text"],
                               **({"signature": item["signature"]} if item.get("signature") is not None else {})},
    "redacted_reasoning": lambda item: {"type": "redacted_thinking", "data": item["data"]},
    "text": lambda item: {"type": "text", "text": item["text"]},
    "tool_call": lambda item: {"type": "tool_use", "id": item["id"], "name": item["name"],
                               "input": fresh(item.get("input", {}))},
}


def assistant_message(output: Sequence[Mapping]) -> dict:
    """The assistant message for a normalized output: reasoning blocks first, the rest in stream order; citations
    go with the text that follows them (Bedrock streams a block's citations before its text)."""
    items = [item for item in output if item["type"] in _BLOCKS]
    ordered = sorted(items, key=lambda item: item["type"] not in _REASONING)  # stable: keeps stream order
    return {"role": "assistant", "content": _cited([_BLOCKS[item["type"]](item) for item in ordered], output)}


def _cited(blocks: list[dict], output: Sequence[Mapping]) -> list[dict]:
    """The text blocks with the citations that came before them (each text item after its citations)."""
    pending, texts = [], iter(b for b in blocks if b["type"] == "text")
    for item in output:
        if item["type"] == "citation":
            pending.append(fresh(item["citation"]))
        elif item["type"] == "text" and pending:
            block = next(texts)
            block["citations"], pending = pending, []
        elif item["type"] == "text":
            next(texts)
    return blocks


def _user_messages(results: list[dict], own: list[dict]) -> list[dict]:
    """One user message: the tool results, then the content of the turn's leading user messages."""
    if not results:
        return own
    merged = {"role": "user", "content": results}
    while own and own[0]["role"] == "user":
        content = own.pop(0)["content"]
        merged["content"] += [{"type": "text", "text": content}] if isinstance(content, str) else content
    return [merged, *own]


def _tool_result(scenario: Scenario, index: int, call: Mapping) -> dict:
    """The tool_result block answering ``call`` from turn ``index``'s templates."""
    where = f"{scenario.path}: turns[{index}].tool_results"
    name = call["name"]  # an adapter may report any JSON value as the name: only a string names a template
    spec = scenario.turns[index].tool_results.get(name) if isinstance(name, str) else None
    if spec is None:
        raise ScenarioError(f"{where}: no template for tool {call['name']!r} (call {call['id']!r})")
    try:
        content = _render(spec["content"], call, _Template())
    except (LookupError, ValueError, TypeError) as exc:
        raise ScenarioError(f"{where}.{call['name']}.content: cannot fill in call {call['id']!r}: {exc!r}") from None
    cache = {"cache_control": fresh(spec["cache_control"])} if spec.get("cache_control") else {}
    return {"type": "tool_result", "tool_use_id": call["id"], "content": content,
            "is_error": spec.get("is_error", False), **cache}


class _Template(string.Formatter):
    """str.format that indexes into the call (``{input[path]}``) but never reaches attributes, and renders at most
    MAX_RENDERED_CHARS characters in all: a width or precision past that is refused before anything is made."""

    def __init__(self) -> None:
        self.rendered = 0  # characters rendered so far, every string of one template together

    def get_field(self, field_name: str, args: Sequence, kwargs: Mapping) -> Any:
        if "." in re.sub(r"\[[^\]]*\]", "", field_name):
            raise ValueError(f"attribute access in {{{field_name}}}")
        return super().get_field(field_name, args, kwargs)

    def format_field(self, value: Any, format_spec: str) -> Any:
        wide = [n for n in re.findall(r"\d+", format_spec) if len(n) > 7 or int(n) > MAX_RENDERED_CHARS]
        if wide:
            raise LimitError(f"a format width or precision of {wide[0][:40]} is over the limit of "
                             f"{MAX_RENDERED_CHARS} characters a template renders")
        return self.counted(super().format_field(value, format_spec))

    def counted(self, text: str) -> str:
        self.rendered += len(text)
        if self.rendered > MAX_RENDERED_CHARS:
            raise LimitError(f"it renders more than the limit of {MAX_RENDERED_CHARS} characters")
        return text

    def render(self, text: str, call: Mapping) -> str:
        self.counted(text)  # the literal text counts too (its fields are counted as they are formatted)
        return self.format(text, input=call.get("input", {}), id=call.get("id"), name=call.get("name"))


def _render(value: Any, call: Mapping, template: _Template) -> Any:
    """Fill in every string of a template (a string, list or mapping) with the call's input, id, name."""
    if isinstance(value, str):
        return template.render(value, call)
    if isinstance(value, list):
        return [_render(item, call, template) for item in value]
    if isinstance(value, dict):
        return {key: _render(item, call, template) for key, item in value.items()}
    return fresh(value)


def _turn_at(scenario: Scenario, index: int) -> Turn:
    if not 0 <= index < len(scenario.turns):
        raise ScenarioError(f"{scenario.id}: no turn {index} (the scenario has {len(scenario.turns)})")
    return scenario.turns[index]
