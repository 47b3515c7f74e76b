"""What the request's members must look like (Bedrock's Coral validation and member checks), and shared walkers.

Coral runs before any conversation rule and names members 1-based with a ``.member`` step
(``messages.1.member.role``); inside ``messages`` Bedrock leaves the offending value out of the text
(``Value at 'messages.73.member.content.2.member.toolUse.name' ...``), elsewhere it quotes it.
Every other rule names paths 0-based. ``Problem.path`` is always the 0-based dotted path.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

__all__ = ["CORAL_PREFIX", "SHAPE_RULES", "Problem", "blocks", "body_text", "kind", "messages", "prompt_arn", "string"]

CORAL_PREFIX = "1 validation error detected: "
CONTENT_MEMBERS = ("text", "image", "document", "video", "audio", "toolUse", "toolResult", "guardContent",
                   "cachePoint", "reasoningContent", "citationsContent", "searchResult")
RESULT_MEMBERS = ("json", "text", "image", "document", "video", "searchResult")
TOOL_MEMBERS = ("toolSpec", "systemTool", "cachePoint")
CHOICE_MEMBERS = ("auto", "any", "tool")
TOOL_NAME = ("[a-zA-Z0-9_-]+", 64)
TOOL_USE_ID = ("[a-zA-Z0-9_.:-]+", 64)
_MAX_RANGES = (("temperature", 0, 1), ("topP", 0, 1), ("maxTokens", 1, None))
_PROMPT_ARN = re.compile(r"arn:aws(-[^:]+)?:bedrock:[a-z0-9-]{1,20}:[0-9]{12}:prompt/")
_PROMPT_FORBIDDEN = ("system", "inferenceConfig", "toolConfig", "additionalModelRequestFields")
_POINTER = re.compile(r"(/([^~/]|~[01])*)+")


def body_text(body: dict) -> str:
    """A request body as JSON text, where ``1``, ``1.0`` and ``true`` and the order of members differ as they do on
    the wire: what the findings kept for a body sent again at once (the streaming-parity twin) are keyed by."""
    return json.dumps(body, ensure_ascii=False, default=repr)


@dataclass(frozen=True)
class Problem:
    """One violated rule: its stable id, the 0-based dotted path, and Bedrock's text."""

    rule: str
    path: str
    message: str

    def __str__(self) -> str:
        return self.message


def messages(body: dict) -> list[tuple[int, dict]]:
    """(index, message) for every message that is an object."""
    raw = body.get("messages")
    return [(i, m) for i, m in enumerate(raw) if isinstance(m, dict)] if isinstance(raw, list) else []


def blocks(message: dict) -> list[tuple[int, dict]]:
    """(index, block) for every content block that is an object (none when the message is not an object)."""
    raw = message.get("content") if isinstance(message, dict) else None
    return [(j, b) for j, b in enumerate(raw) if isinstance(b, dict)] if isinstance(raw, list) else []


def string(item, name: str) -> str | None:
    """A string member of an object, or None when it is absent or of another type (the input shape reports that)."""
    value = item.get(name) if isinstance(item, dict) else None
    return value if isinstance(value, str) else None


def kind(block: dict) -> str | None:
    """The one member a union block sets, or None when it sets zero or several."""
    names = [name for name, value in block.items() if value is not None]
    return names[0] if len(names) == 1 else None


def prompt_arn(body: dict) -> bool:
    """Whether modelId is a prompt-management ARN (which supplies messages and forbids some members)."""
    return isinstance(body.get("modelId"), str) and bool(_PROMPT_ARN.match(body["modelId"]))


def _coral_path(*parts) -> str:
    """Coral's member path: list indices 1-based, each followed by ``member``."""
    return ".".join(f"{p + 1}.member" if isinstance(p, int) else p for p in parts)


def _coral(rule: str, parts: tuple, constraint: str, value: object = None, quote: bool = True) -> Problem:
    """A Coral constraint failure in Bedrock's wording."""
    # A member that is absent reads "Value at" (quote=False), as in Bedrock's real text for rule 28.
    shown = "null" if value is None and quote else f"'{_java(value)}'" if quote else ""
    subject = f"Value {shown} at" if shown else "Value at"
    path = ".".join(str(p) for p in parts)
    return Problem(rule, path, f"{CORAL_PREFIX}{subject} '{_coral_path(*parts)}' failed to satisfy constraint: "
                               f"Member must {constraint}")


def _java(value) -> str:
    """A value the way Coral prints it."""
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, list):
        return "[" + ", ".join(_java(v) for v in value) + "]"
    return str(value)


def _union(rule: str, block, members: tuple, shape: str, path: str) -> Iterator[Problem]:
    # Not verbatim: Bedrock's text for a malformed union was not captured (§9 lists none).
    names = sorted(n for n, v in block.items() if v is not None) if isinstance(block, dict) else []
    unknown = [n for n in names if n not in members]
    if unknown:
        yield Problem(rule, path, f"The {shape} object at {path} has an unsupported member: {unknown[0]}. "
                                  f"Use one of: {', '.join(members)}.")
    elif len(names) != 1:
        yield Problem(rule, path, f"The {shape} object at {path} must set exactly one member, but it sets "
                                  f"{len(names)}{': ' + ', '.join(names) if names else ''}.")
    elif names[0] not in ("text", "json") and not isinstance(block[names[0]], dict):
        yield Problem(rule, path, f"The {names[0]} member of the {shape} object at {path} must be an object.")


def _list(value) -> list:
    return value if isinstance(value, list) else []


def _tools(body: dict) -> list[tuple[int, dict]]:
    config = body.get("toolConfig")
    tools = config.get("tools") if isinstance(config, dict) else None
    return [(i, t) for i, t in enumerate(_list(tools)) if isinstance(t, dict)]


def messages_missing(body: dict) -> Iterable[Problem]:
    """messages is a list; only a prompt-management ARN as modelId may leave it out (§2 operation doc)."""
    if not isinstance(body.get("messages"), list) and not (body.get("messages") is None and prompt_arn(body)):
        # Not verbatim: Bedrock's text for a missing messages member was not captured.
        yield Problem("messages-missing", "messages",
                      "The messages field is missing. Add a list of messages that starts with a user message, "
                      "and try again.")


def block_shape(body: dict) -> Iterable[Problem]:
    """Messages are objects; every ContentBlock, ToolResultContentBlock, Tool and ToolChoice sets one known member."""
    for i, message in enumerate(_list(body.get("messages"))):
        if not isinstance(message, dict):
            # Not verbatim, like the union texts below.
            yield Problem("block-shape", f"messages.{i}", f"The Message object at messages.{i} must be an object "
                                                          "with role and content.")
            continue
        for j, block in enumerate(_list(message.get("content"))):
            yield from _union("block-shape", block, CONTENT_MEMBERS, "ContentBlock", f"messages.{i}.content.{j}")
            result = block.get("toolResult") if isinstance(block, dict) else None
            for k, item in enumerate(_list(result.get("content") if isinstance(result, dict) else None)):
                if not (isinstance(item, dict) and list(item) == ["cachePoint"]):  # rule 31's (rules.caching)
                    yield from _union("block-shape", item, RESULT_MEMBERS, "ToolResultContentBlock",
                                      f"messages.{i}.content.{j}.toolResult.content.{k}")
    config = body.get("toolConfig")
    for i, tool in enumerate(_list(config.get("tools") if isinstance(config, dict) else None)):
        known = isinstance(tool, dict) and len([n for n, v in tool.items() if v is not None and n in TOOL_MEMBERS]) > 1
        if not known:  # two known members: Bedrock's own text is rule 33a's (rules.caching)
            yield from _union("block-shape", tool, TOOL_MEMBERS, "Tool", f"toolConfig.tools.{i}")
    if isinstance(config, dict) and config.get("toolChoice") is not None:
        yield from _union("block-shape", config["toolChoice"], CHOICE_MEMBERS, "ToolChoice", "toolConfig.toolChoice")


def role_enum(body: dict) -> Iterable[Problem]:
    """Message.role is one of the ConversationRole enum (Coral, 1-based, §9 rule 3)."""
    for i, message in messages(body):
        role = message.get("role")
        if role is not None and role not in ("user", "assistant"):
            yield _coral("role-enum", ("messages", i, "role"), "satisfy enum value set: [user, assistant]", role)


_REQUIRED = {"toolUse": ("toolUseId", "name", "input"), "toolResult": ("toolUseId", "content")}


def member_required(body: dict) -> Iterable[Problem]:
    """Required members are present: Message.role/content, ToolUseBlock and ToolResultBlock ids (Coral)."""
    for i, message in messages(body):
        for name in ("role", "content"):
            if message.get(name) is None:
                yield _coral("member-required", ("messages", i, name), "not be null", quote=False)
        for j, block in blocks(message):
            for member, required in _REQUIRED.items():
                inner = block.get(member)
                for name in required if isinstance(inner, dict) else ():
                    if inner.get(name) is None:
                        yield _coral("member-required", ("messages", i, "content", j, member, name), "not be null",
                                     quote=False)


def reasoning_text_null(body: dict) -> Iterable[Problem]:
    """A reasoningText sent back has its text: a signature-only block goes back with text "" (§9 rule 28)."""
    for i, message in messages(body):
        for j, block in blocks(message):
            reasoning = block.get("reasoningContent")
            text = reasoning.get("reasoningText") if isinstance(reasoning, dict) else None
            if isinstance(text, dict) and text.get("text") is None:
                # Bedrock's text, verbatim (LibreChat agents#248, langchainjs#11164).
                yield _coral("reasoning-text-null", ("messages", i, "content", j, "reasoningContent", "reasoningText",
                                                     "text"), "not be null", quote=False)


def _pattern(rule: str, value, parts: tuple, spec: tuple, quote: bool) -> Iterator[Problem]:
    """Coral's pattern and length checks of one string member."""
    pattern, longest = spec
    if not isinstance(value, str):
        return
    if not re.fullmatch(pattern, value):
        yield _coral(rule, parts, f"satisfy regular expression pattern: {pattern}", value, quote)
    if not value:
        yield _coral(rule, parts, "have length greater than or equal to 1", value, quote)
    if len(value) > longest:
        yield _coral(rule, parts, f"have length less than or equal to {longest}", value, quote)


def tool_name_pattern(body: dict) -> Iterable[Problem]:
    """Tool names match [a-zA-Z0-9_-]+ and are 1..64 long: toolSpec, systemTool, toolChoice and toolUse (Coral)."""
    for i, tool in _tools(body):
        for member in ("toolSpec", "systemTool"):
            spec = tool.get(member)
            if isinstance(spec, dict):
                yield from _pattern("tool-name-pattern", spec.get("name"),
                                    ("toolConfig", "tools", i, member, "name"), TOOL_NAME, True)
    config = body.get("toolConfig")
    choice = config.get("toolChoice") if isinstance(config, dict) else None
    forced = choice.get("tool") if isinstance(choice, dict) else None
    if isinstance(forced, dict):
        yield from _pattern("tool-name-pattern", forced.get("name"),
                            ("toolConfig", "toolChoice", "tool", "name"), TOOL_NAME, True)
    for i, message in messages(body):
        for j, block in blocks(message):
            if isinstance(block.get("toolUse"), dict):
                yield from _pattern("tool-name-pattern", block["toolUse"].get("name"),
                                    ("messages", i, "content", j, "toolUse", "name"), TOOL_NAME, False)


def non_empty_string(body: dict) -> Iterable[Problem]:
    """NonEmptyString members are not empty: toolSpec.description and system[].text (Coral length min 1)."""
    for i, tool in _tools(body):
        spec = tool.get("toolSpec")
        if isinstance(spec, dict) and spec.get("description") == "":
            yield _coral("non-empty-string", ("toolConfig", "tools", i, "toolSpec", "description"),
                        "have length greater than or equal to 1", "")
    for i, block in enumerate(_list(body.get("system"))):
        if isinstance(block, dict) and block.get("text") == "":
            yield _coral("non-empty-string", ("system", i, "text"), "have length greater than or equal to 1", "")


def tool_use_id_pattern(body: dict) -> Iterable[Problem]:
    """toolUseId matches [a-zA-Z0-9_.:-]+ and is 1..64 long, in toolUse and toolResult blocks (Coral)."""
    for i, message in messages(body):
        for j, block in blocks(message):
            for member in ("toolUse", "toolResult"):
                if isinstance(block.get(member), dict):
                    yield from _pattern("tool-use-id-pattern", block[member].get("toolUseId"),
                                        ("messages", i, "content", j, member, "toolUseId"), TOOL_USE_ID, False)


def inference_range(body: dict) -> Iterable[Problem]:
    """inferenceConfig: temperature and topP within 0..1, maxTokens at least 1 (Coral numeric min/max)."""
    config = body.get("inferenceConfig")
    for name, low, high in _MAX_RANGES if isinstance(config, dict) else ():
        value = config.get(name)
        if not isinstance(value, (int, float)) or isinstance(value, bool):
            continue
        # Wording is Coral's usual one; the exact rendering of the value for Bedrock was not captured.
        if value < low:
            yield _coral("inference-range", ("inferenceConfig", name), f"have value greater than or equal to {low}",
                        value)
        elif high is not None and value > high:
            yield _coral("inference-range", ("inferenceConfig", name), f"have value less than or equal to {high}",
                        value)


def tools_empty(body: dict) -> Iterable[Problem]:
    """toolConfig.tools is present and holds at least one tool (Coral list min 1)."""
    config = body.get("toolConfig")
    if not isinstance(config, dict):
        return
    tools = config.get("tools")
    if tools is None:
        yield _coral("tools-empty", ("toolConfig", "tools"), "not be null")
    elif isinstance(tools, list) and not tools:
        # Coral's wording; how it prints an empty list value is not verbatim.
        yield _coral("tools-empty", ("toolConfig", "tools"), "have length greater than or equal to 1", tools)


def prompt_arn_conflict(body: dict) -> Iterable[Problem]:
    """A prompt ARN as modelId forbids system, inferenceConfig, toolConfig and model fields (§9 rule 20)."""
    for name in _PROMPT_FORBIDDEN if prompt_arn(body) else ():
        if body.get(name) is not None:
            # Not verbatim: Bedrock's text was not captured.
            yield Problem("prompt-arn-conflict", name,
                          f"The {name} field can't be used with a prompt resource as modelId. Remove {name} "
                          "and try again.")


def response_field_paths(body: dict) -> Iterable[Problem]:
    """additionalModelResponseFieldPaths holds at most 10 well-formed JSON Pointers (§9 rule 21)."""
    paths = body.get("additionalModelResponseFieldPaths")
    for i, pointer in enumerate(paths if isinstance(paths, list) else ()):
        if i >= 10 or not isinstance(pointer, str) or len(pointer) > 256 or not _POINTER.fullmatch(pointer):
            # Not verbatim: Bedrock's text was not captured.
            yield Problem("response-field-paths", f"additionalModelResponseFieldPaths.{i}",
                          f"The value at additionalModelResponseFieldPaths.{i} must be a JSON Pointer such as "
                          "/stop_sequence, at most 10 of them.")


SHAPE_RULES = (messages_missing, block_shape, role_enum, member_required, reasoning_text_null, tool_name_pattern,
               non_empty_string,
               tool_use_id_pattern, inference_range, tools_empty, prompt_arn_conflict, response_field_paths)
