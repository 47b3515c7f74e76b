"""Bedrock's request validation for Converse and ConverseStream, offline, with Bedrock's own error texts.

``check_request(body)`` runs every rule of ``RULES`` in order and returns every problem; the loopback endpoint
answers the first with HTTP 400 ``ValidationException`` (``validation_message``), as Bedrock reports one error at
a time. Each rule is a function ``(body) -> Iterable[Problem]`` whose docstring names the Bedrock rule
(bedrock-wire.md §9). Texts are Bedrock's verbatim where §9 quotes them; the others are marked "not verbatim".
Order follows Bedrock: the model id and the body against botocore's input shape first (input_shape), then the
shape checks of Coral (shape), the conversation rules, and the model's own (thinking). Every rule reads members
through helpers that pass over a member of the wrong type (``string``, ``blocks``, ...): the input-shape check
reports it, so no rule raises on a body of the wrong shape.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Hashable, Iterable

from harness.endpoint.rules.caching import CACHING_RULES
from harness.endpoint.rules.input_shape import RULE_IDS as INPUT_RULE_IDS, input_problems
from harness.endpoint.rules.shape import (
    CORAL_PREFIX,
    SHAPE_RULES,
    Problem,
    blocks,
    body_text,
    kind,
    messages,
    prompt_arn,
    string,
)
from harness.endpoint.rules.scope import verdict
from harness.endpoint.rules.thinking import THINKING_RULES

__all__ = ["RULES", "RULE_IDS", "Problem", "check_request", "validation_message"]

OPERATIONS = ("Converse", "ConverseStream")
MAX_IMAGES, MAX_DOCUMENTS = 20, 5


def _items(body: dict) -> list:
    value = body.get("messages")
    return value if isinstance(value, list) else []


def _role(message) -> str | None:
    return message.get("role") if isinstance(message, dict) else None


def first_message_user(body: dict) -> Iterable[Problem]:
    """The conversation starts with a user message (§9 rule 1)."""
    items = _items(body)
    if (items and _role(items[0]) != "user") or (not items and isinstance(body.get("messages"), list)
                                                 and not prompt_arn(body)):
        yield Problem("first-message-user", "messages.0" if items else "messages",
                      "A conversation must start with a user message. "
                      "Try again with a conversation that starts with a user message.")


def alternating_roles(body: dict) -> Iterable[Problem]:
    """Roles alternate: no two consecutive messages of the same role (§9 rule 2)."""
    items = _items(body)
    for i in range(1, len(items)):
        if _role(items[i]) is not None and _role(items[i]) == _role(items[i - 1]):
            yield Problem("alternating-roles", f"messages.{i}.role",
                          "A conversation must alternate between user and assistant roles. Make sure the "
                          "conversation alternates between user and assistant roles and try again.")


def content_empty(body: dict) -> Iterable[Problem]:
    """No message has an empty content list (§9 rule 4)."""
    for i, message in messages(body):
        if message.get("content") == []:
            yield Problem("content-empty", f"messages.{i}.content",
                          f"The content field in the Message object at messages.{i} is empty. "
                          "Add a ContentBlock object to the content field and try again.")


def text_blank(body: dict) -> Iterable[Problem]:
    """No text block is empty, nor whitespace-only where the message has no other text (§9 rule 5)."""
    for i, message in messages(body):
        texts = [(j, b["text"]) for j, b in blocks(message) if isinstance(b.get("text"), str)]
        # Whitespace-only text beside real text was accepted by Bedrock (a "\n" between a document and a
        # question in a real Claude recording); alone it is rejected, so only then is it blank.
        alone = not any(text.strip() for _, text in texts)
        for j, text in texts:
            if text == "" or (alone and not text.strip()):
                yield Problem("text-blank", f"messages.{i}.content.{j}.text",
                              f"The text field in the ContentBlock object at messages.{i}.content.{j} is blank. "
                              "Add text to the text field, and try again.")


def _uses(message) -> list[str]:
    """toolUseIds of the client (not server-side) toolUse blocks of an assistant message (§9 rule 10)."""
    if _role(message) != "assistant":
        return []
    uses = [b["toolUse"] for _, b in blocks(message) if isinstance(b.get("toolUse"), dict)]
    return [string(u, "toolUseId") for u in uses if u.get("type") != "server_tool_use"]


def _results(message) -> list[str]:
    """toolUseIds of the toolResult blocks of a user message."""
    if _role(message) != "user":
        return []
    return [string(b["toolResult"], "toolUseId") for _, b in blocks(message) if isinstance(b.get("toolResult"), dict)]


def toolconfig_required(body: dict) -> Iterable[Problem]:
    """toolConfig is defined when any message holds toolUse or toolResult blocks (§9 rule 9)."""
    used = any(kind(b) in ("toolUse", "toolResult") for _, m in messages(body) for _, b in blocks(m))
    if used and not body.get("toolConfig"):
        yield Problem("toolconfig-required", "toolConfig",
                      "The toolConfig field must be defined when using toolUse and toolResult content blocks.")


def tool_use_duplicate_id(body: dict) -> Iterable[Problem]:
    """toolUse ids are unique within a message (§9 rule 8)."""
    for i, message in messages(body):
        ids = [string(b["toolUse"], "toolUseId") for _, b in blocks(message) if isinstance(b.get("toolUse"), dict)]
        twice = [str(d) for d, n in Counter(ids).items() if n > 1 and d is not None]
        if twice:
            yield Problem("tool-use-duplicate-id", f"messages.{i}.content",
                          f"The toolUse blocks at messages.{i}.content contain duplicate Ids: {', '.join(twice)}")


def tool_result_exceeds(body: dict) -> Iterable[Problem]:
    """A user message holds no more toolResult blocks than the previous turn has toolUse blocks (§9 rule 7)."""
    items = _items(body)
    for i, message in enumerate(items):
        results = _results(message)
        if len(results) > len(_uses(items[i - 1]) if i else []):
            yield Problem("tool-result-exceeds", f"messages.{i}.content",
                          f"The number of toolResult blocks at messages.{i}.content exceeds the number of toolUse "
                          "blocks of previous turn.")


def tool_result_missing(body: dict) -> Iterable[Problem]:
    """Every client toolUse is answered by a toolResult with its id in the next message (§9 rules 6, 10, 11)."""
    items = _items(body)
    for i in range(len(items) - 1):  # a trailing assistant turn is not answered yet, and needs not be
        answered = set(_results(items[i + 1]))
        missing = list(dict.fromkeys(u for u in _uses(items[i]) if u is not None and u not in answered))
        if missing:
            yield Problem("tool-result-missing", f"messages.{i + 1}.content",
                          f"Expected toolResult blocks at messages.{i + 1}.content for the following Ids: "
                          f"{', '.join(map(str, missing))}")


def tool_result_unknown_id(body: dict) -> Iterable[Problem]:
    """A toolResult answers a toolUse id of the previous turn (§9 rule 7); an excess count is reported instead."""
    items = _items(body)
    for i in range(1, len(items)):
        uses, results = _uses(items[i - 1]), _results(items[i])
        strangers = [r for r in dict.fromkeys(results) if r is not None and r not in uses]
        if strangers and len(results) <= len(uses):
            # Not verbatim: Bedrock then also reports the unanswered ids (tool-result-missing), whose text is known.
            yield Problem("tool-result-unknown-id", f"messages.{i}.content",
                          f"The toolResult blocks at messages.{i}.content contain Ids that match no toolUse block "
                          f"of the previous turn: {', '.join(strangers)}")


def tool_result_first(body: dict) -> Iterable[Problem]:
    """A user message answering toolUse blocks begins with its toolResult blocks; text may follow (§9 rule 11)."""
    items = _items(body)
    for i in range(1, len(items)):
        wanted, results = len(_uses(items[i - 1])), _results(items[i])
        leading = [kind(b) for _, b in blocks(items[i]) if kind(b) != "cachePoint"][:wanted]
        if wanted and len(results) >= wanted and leading.count("toolResult") < wanted:
            # The model's (Anthropic's) text as Bedrock relayed it in-stream on ConverseStream (langchain-aws#451).
            yield Problem("tool-result-first", f"messages.{i}.content",
                          f"The model returned the following errors: messages.{i}: Did not find {wanted} "
                          "`tool_result` block(s) at the beginning of this message. Messages following `tool_use` "
                          "blocks must begin with a matching number of `tool_result` blocks.")


def tool_use_input_object(body: dict) -> Iterable[Problem]:
    """A toolUse input is a JSON object: a zero-argument call is {}, never "" or a list."""
    for i, message in messages(body):
        for j, block in blocks(message):
            use = block.get("toolUse")
            if isinstance(use, dict) and use.get("input") is not None and not isinstance(use["input"], dict):
                # Bedrock's own text, verbatim up to "is invalid." (vercel/ai#19023); the rest is rule 26's sentence.
                yield Problem("tool-use-input-object", f"messages.{i}.content.{j}.toolUse.input",
                              f"The format of the value at messages.{i}.content.{j}.toolUse.input is invalid. "
                              "Provide a json object for the field and try again.")


def tool_result_status(body: dict) -> Iterable[Problem]:
    """toolResult.status goes to no model that rejects it, as Writer Palmyra does (§9 rule 29; see scope.py)."""
    for i, message in messages(body):
        for j, block in blocks(message):
            if isinstance(block.get("toolResult"), dict) and block["toolResult"].get("status") is not None:
                # Bedrock's text for Writer Palmyra, verbatim (pydantic-ai #6318).
                yield Problem("tool-result-status", f"messages.{i}.content.{j}.toolResult.status",
                              "This model doesn't support the status field. Remove status and try again.")


def _json_items(body: dict) -> Iterable[tuple[str, object]]:
    """(path, value) of every toolResult.content[].json member."""
    for i, message in messages(body):
        for j, block in blocks(message):
            result = block.get("toolResult")
            content = result.get("content") if isinstance(result, dict) else None
            for k, item in enumerate(content if isinstance(content, list) else ()):
                if isinstance(item, dict) and "json" in item:
                    yield f"messages.{i}.content.{j}.toolResult.content.{k}.json", item["json"]


def _json_invalid(path: str) -> str:
    # Bedrock's text, verbatim (aws-sdk-js-v3#7330).
    return f"The format of the value at {path} is invalid. Provide a json object for the field and try again."


def tool_result_json_object(body: dict) -> Iterable[Problem]:
    """A toolResult json member is a JSON object; any other value goes as text or inside an object (§9 rule 26)."""
    for path, value in _json_items(body):
        if not isinstance(value, dict):
            yield Problem("tool-result-json-object", path, _json_invalid(path))


def _has_type_key(value: object) -> bool:
    if isinstance(value, dict):
        return "__type" in value or any(_has_type_key(v) for v in value.values())
    return isinstance(value, list) and any(_has_type_key(v) for v in value)


def tool_result_json_type_key(body: dict) -> Iterable[Problem]:
    """A toolResult json object holds no "__type" key at any depth (§9 rule 27: one report, a warning)."""
    for path, value in _json_items(body):
        if isinstance(value, dict) and _has_type_key(value):
            yield Problem("tool-result-json-type-key", path, _json_invalid(path))


def _result_parts(body: dict) -> Iterable[tuple[int, int, dict, int, dict]]:
    """(i, j, toolResult, k, part) of every toolResult.content[] part that is an object."""
    for i, message in messages(body):
        for j, block in blocks(message):
            result = block.get("toolResult")
            content = result.get("content") if isinstance(result, dict) else None
            for k, part in enumerate(content if isinstance(content, list) else ()):
                if isinstance(part, dict):
                    yield i, j, result, k, part


def tool_result_image(body: dict) -> Iterable[Problem]:
    """An image goes inside a toolResult only to a family that takes it there, else beside it (§13 rule 36)."""
    for i, j, _, k, part in _result_parts(body):
        if part.get("image") is not None:
            # Bedrock's text, verbatim (anomalyco/opencode#48069, OpenAI family on ConverseStream).
            yield Problem("tool-result-image", f"messages.{i}.content.{j}.toolResult.content.{k}.image",
                          "This model doesn't support the image field for user messages. Remove image and try again.")


def tool_result_error_text(body: dict) -> Iterable[Problem]:
    """A toolResult with status error holds text (or JSON) only, for Claude (§13 rule 35; see scope.py)."""
    reported = set()
    for i, j, result, _, part in _result_parts(body):
        if result.get("status") == "error" and kind(part) not in ("text", "json", None) and (i, j) not in reported:
            reported.add((i, j))
            # Claude's text as Bedrock relays it (can1357/oh-my-pi#12809), in the model-error form of §9.
            yield Problem("tool-result-error-text", f"messages.{i}.content.{j}.toolResult.content",
                          f"The model returned the following errors: messages.{i}.content.{j}.tool_result: all "
                          "content must be type `text` if `is_error` is true")


def document_needs_text(body: dict) -> Iterable[Problem]:
    """A message with a document block also holds a text block (§9 rule 18, Message.content doc)."""
    for i, message in messages(body):
        kinds = [(j, kind(b)) for j, b in blocks(message)]
        if not any(k == "text" for _, k in kinds):
            for j in (j for j, k in kinds if k == "document"):
                # Bedrock's text, verbatim (archestra#4220); it names no path.
                yield Problem("document-needs-text", f"messages.{i}.content.{j}",
                              "A text block must be included when using documents.")


def media_in_user(body: dict) -> Iterable[Problem]:
    """Images and documents appear only in user messages (§9 rule 18, Message.content doc)."""
    for i, message in messages(body):
        for j, block in blocks(message) if message.get("role") == "assistant" else ():
            if kind(block) in ("image", "document"):
                # Not verbatim: Bedrock's text was not captured.
                yield Problem("media-in-user", f"messages.{i}.content.{j}",
                              f"The {kind(block)} block at messages.{i}.content.{j} is only supported in user "
                              "messages. Move it to a user message and try again.")


def media_limit(body: dict) -> Iterable[Problem]:
    """A message holds at most 20 images and 5 documents (§9 rule 18, Message.content doc)."""
    for i, message in messages(body):
        counts = Counter(kind(b) for _, b in blocks(message))
        for name, most in (("image", MAX_IMAGES), ("document", MAX_DOCUMENTS)):
            if counts[name] > most:
                # Not verbatim: Bedrock's text was not captured.
                yield Problem("media-limit", f"messages.{i}.content",
                              f"The content field at messages.{i} has {counts[name]} {name} blocks, more than the "
                              f"maximum of {most}. Remove {name} blocks and try again.")


def _specs(body: dict) -> list[tuple[int, dict]]:
    """(index, toolSpec) of every toolSpec tool."""
    config = body.get("toolConfig")
    tools = config.get("tools") if isinstance(config, dict) else None
    pairs = enumerate(tools) if isinstance(tools, list) else ()
    return [(i, t["toolSpec"]) for i, t in pairs if isinstance(t, dict) and isinstance(t.get("toolSpec"), dict)]


def tool_schema_object(body: dict) -> Iterable[Problem]:
    """A tool's inputSchema.json has type object (§9 rule 22; index 0-based like Bedrock's other rules)."""
    for i, spec in _specs(body):
        schema = spec.get("inputSchema", {}).get("json") if isinstance(spec.get("inputSchema"), dict) else None
        if isinstance(schema, dict) and schema.get("type") != "object":
            yield Problem("tool-schema-object", f"toolConfig.tools.{i}.toolSpec.inputSchema.json.type",
                          f"The value at toolConfig.tools.{i}.toolSpec.inputSchema.json.type must be one of the "
                          "following: object.")


def tool_name_duplicate(body: dict) -> Iterable[Problem]:
    """Tool names in toolConfig.tools are unique."""
    seen = set()
    for i, spec in _specs(body):
        if string(spec, "name") is not None and string(spec, "name") in seen:
            # Anthropic's text for duplicate tool names; the Bedrock rendering is not verbatim.
            yield Problem("tool-name-duplicate", f"toolConfig.tools.{i}.toolSpec.name",
                          "The model returned the following errors: tools: Tool names must be unique.")
        seen.add(string(spec, "name"))


def tool_choice_unknown(body: dict) -> Iterable[Problem]:
    """toolChoice.tool names a tool defined in toolConfig.tools."""
    config = body.get("toolConfig") if isinstance(body.get("toolConfig"), dict) else {}
    choice = config.get("toolChoice") if isinstance(config.get("toolChoice"), dict) else {}
    forced = choice.get("tool") if isinstance(choice.get("tool"), dict) else None
    name = string(forced, "name")
    if name is not None and name not in {string(spec, "name") for _, spec in _specs(body)}:
        # Not verbatim: Bedrock's text was not captured.
        yield Problem("tool-choice-unknown", "toolConfig.toolChoice.tool.name",
                      f"The tool {name} in toolConfig.toolChoice doesn't match any tool in "
                      "toolConfig.tools. Specify a defined tool and try again.")


def streamed_tool_use(body: dict, operation: str) -> Iterable[Problem]:
    """Tools go on ConverseStream to no model that refuses them there, as Writer Palmyra does (§13 rule 38; see
    scope.py): its tool calls go through Converse."""
    # Whether tools stream depends on the model alone: a body checked without one says nothing of it.
    if operation == "ConverseStream" and isinstance(body.get("toolConfig"), dict) and body.get("modelId"):
        # Bedrock's text, verbatim (strands-agents/harness-sdk#393, Writer Palmyra X5).
        yield Problem("streamed-tool-use", "toolConfig", "This model doesn't support tool use in streaming mode.")


OPERATION_RULES = (streamed_tool_use,)  # rules over the body and the operation it was sent to
CONVERSATION_RULES = (first_message_user, alternating_roles, content_empty, text_blank, toolconfig_required,
                      tool_use_duplicate_id, tool_result_exceeds, tool_result_missing, tool_result_unknown_id,
                      tool_result_first, tool_use_input_object, tool_result_json_object, tool_result_json_type_key,
                      tool_result_status, tool_result_image, tool_result_error_text, document_needs_text, media_in_user, media_limit,
                      tool_schema_object, tool_name_duplicate, tool_choice_unknown)
RULES = (*SHAPE_RULES, *CONVERSATION_RULES, *CACHING_RULES, *THINKING_RULES)
# Every problem id a request can get: each rule function's name, and the input-shape check's own.
RULE_IDS = (*INPUT_RULE_IDS, *(rule.__name__.replace("_", "-") for rule in (*OPERATION_RULES, *RULES)))


def check_request(body: dict, operation: str = "ConverseStream", model_id: str | None = None, *,
                  raw: bytes | None = None) -> list[Problem]:
    """Every problem Bedrock would find in a Converse/ConverseStream request body to this model, in rule order
    (``harness.endpoint.rules.scope.split`` tells the ones its evidence shows rejected from the unsettled).
    ``raw``: the bytes ``body`` was parsed from, when the caller has them; with the model id they key the findings
    kept for a body sent again at once (the twin), and the body need not be written out as JSON text for that."""
    if operation not in OPERATIONS:
        raise ValueError(f"check_request: operation {operation!r} is not one of {', '.join(OPERATIONS)}")
    if not isinstance(body, dict):
        raise TypeError(f"check_request: the {operation} request body must be a JSON object, not "
                        f"{type(body).__name__}")
    if model_id is not None:  # modelId is a member of the request, carried in the URI
        body = {**body, "modelId": model_id}
    text = body_text(body) if raw is None else (raw, model_id)
    found = input_problems(body, operation, model_id, text=text) + \
        [problem for rule in OPERATION_RULES for problem in rule(body, operation)] + _rule_problems(body, text)
    # A problem the model's family was seen to accept is none (scope.py); the rest: rejected, or a warning there.
    return [p for p in found if verdict(p, body.get("modelId")) != "accept"]


_last: tuple[Hashable, list[Problem]] = ("", [])  # the last body the rules read (its key), and what they found


def _rule_problems(body: dict, text: Hashable) -> list[Problem]:
    """What RULES find in ``body`` (``text``: its ``body_text``, or its bytes and model id: a key only the same body
    has). They read the body alone, so the same body sent again at once (the Converse twin of a ConverseStream call,
    streaming parity) reuses their findings; the operation's input shape differs between the two and is checked
    apart (``input_problems``)."""
    global _last
    seen, found = _last
    if text != seen:
        found = [problem for rule in RULES for problem in rule(body)]
        _last = (text, found)
    return list(found)


def validation_message(problems: Iterable[Problem]) -> str:
    """The text of Bedrock's 400 ValidationException: Coral's shape failures together, else the first problem."""
    problems = list(problems)
    if not problems:
        raise ValueError("validation_message: there is no problem to report")
    coral = [p.message[len(CORAL_PREFIX):] for p in problems if p.message.startswith(CORAL_PREFIX)]
    if len(coral) > 1:
        return f"{len(coral)} validation errors detected: " + "; ".join(coral)
    return CORAL_PREFIX + coral[0] if coral else problems[0].message
