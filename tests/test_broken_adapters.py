"""The suite catches the bugs it exists for: each broken variant of the reference adapter (tests/broken_adapters.py)
fails exactly the scenarios that exercise its bug, with a report that says where and what, and nothing else. The
conversation-mode variants stream correct chunks: run stateless (the harness supplies the history) the assembly
ones pass everything, and the OpenAI-format ones are caught by OpenAI laws alone.

Every variant runs the whole suite once (module fixture, in threads: each run has its own loopback servers).
A catch whose status, report or reason the harness cannot give yet is marked xfail(strict) naming the part
of the harness that should change, so fixing that part turns the test red until the mark is removed.
"""

from __future__ import annotations

import os
import re
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from pathlib import Path

import pytest
from broken_adapters import CONVERSATION, OPENAI, VARIANTS, OpenAIFormat

from harness import load_adapter
from harness.converse import ConverseAdapter
from harness.suite.golden import load_golden
from harness.judge.excerpt import brief, pair
from harness.report import render_text
from harness.report.recurring import generic
from harness.suite.runner import NO_REQUEST, run
from harness.suite.scenario import discover

ROOT = Path(__file__).resolve().parents[1]

@dataclass(frozen=True)
class Catch:
    """How one scenario catches one variant: where the report shows it and what the one-line reason says."""

    turn: int  # the first turn the bug shows in
    where: tuple[str, ...]  # texts the scenario's part of the report must hold (chunk diff lines, rule texts)
    reason: str  # a regex the result's reason must match: it says what is wrong
    prefixed: bool = True  # the reason starts with "<scenario> turn <n> " (a law finding names only its chunk)
    status: str = "fail"  # warn: the finding rests on a judgement or on a stream no recording shows


def warned(catch: Catch) -> Catch:
    return replace(catch, status="warn")


def missing_call(chunk: int, turn: int = 0) -> str:
    return f"turn {turn} chunk {chunk} (tool_call): missing; expected tool_call"


def call_never_surfaced(chunk: int) -> Catch:
    return Catch(0, (missing_call(chunk),), r"\(tool_call\): missing; expected tool_call")


def tool_use_dropped(*also: str) -> Catch:
    exceeds = ("The number of toolResult blocks at messages.2.content exceeds the number of toolUse blocks of "
               "previous turn.")
    where = (exceeds, "turn 1 request expected messages[1].content[", '] {"toolUse": {"toolUseId": "tooluse_', *also)
    return Catch(1, where, r"toolUse|toolResult")


def request_lacks_call(block: int, tool_id: str) -> Catch:
    return Catch(1, (f'turn 1 request expected messages[1].content[{block}] {{"toolUse": {{"toolUseId": "{tool_id}',),
                 r"toolUse|toolResult")


def results_split() -> Catch:
    """Bedrock's rules reject the split (the same results in two user messages is only another form of the golden's)."""
    return Catch(1, ("A conversation must alternate between user and assistant roles.",
                     "Expected toolResult blocks at messages.2.content for the following Ids: tooluse_",
                     'turn 1 request expected no messages[3] / actual messages[3] {"role": "user", "content": '
                     '[{"toolRe'), r"alternate|toolResult", prefixed=False)


EMPTY_MESSAGE = "The content field in the Message object at messages.1 is empty."
CACHE_ORDER = ("The model returned the following errors: system.0.cache_control.ttl: a ttl='1h' cache_control block "
               "must not come after a ttl='5m' cache_control block. Note that blocks are processed in the following "
               "order: `tools`, `system`, `messages`.")
SIGNATURE_REQUIRED = "messages.1.content.0.thinking.signature: Field required"
THINKING_FIRST = "messages.1.content.0.type: Expected `thinking` or `redacted_thinking`, but found `tool_use`."
SIGNATURE_DIFF = "turn 1 request expected messages[1].content[0].reasoningContent.reasoningText.signature '"


def signature_not_sent_back(*where: str) -> Catch:
    return Catch(1, where, r"signature")


def error_swallowed(code: str) -> Catch:
    return Catch(0, (f'turn 0 chunk 1 (error): missing; expected error {{"code": "{code}"}} / actual nothing',),
                 r"\(error\): missing; expected error")


def assembled(what: str, *also: str, reason: str) -> Catch:
    """Caught at turn 0 by the assembled message the variant reports, and in turn 1 by what its library sent."""
    return Catch(0, (f"turn 0 assembled message{what}", *also), reason)


INPUT_NOT_A_DICT = "toolUse.input is invalid. Provide a json object for the field and try again."
SIGNATURE_FIELD = ("This model doesn't support the reasoningContent.reasoningText.signature field. Remove "
                   "reasoningContent.reasoningText.signature and try again.")
# Media inside tool results sent back (issue 28): as their own blocks, inside the result or beside it per family.
MEDIA = ("edge/tool-result-media", "edge/nova-tool-result-media", "edge/openai-tool-result-image",
         "edge/tool-result-error-with-image")
PARALLEL_MEDIA = ("edge/tool-result-media", "edge/nova-tool-result-media")  # text, then two calls
ROUND_TRIPS = ("core/round-trip", "core/thinking-tools", "edge/cache-usage", "edge/end-turn-with-tool-use",
               "edge/nova-style", "edge/parallel-results-round-trip", "edge/redacted-reasoning-tool",
               "edge/signature-only-reasoning", "edge/tool-result-is-error", "edge/two-signed-reasoning-blocks",
               "edge/zero-arg-tool", "edge/cache-both-spellings", "edge/interleaved-reasoning-tools",
               "edge/nova-parallel-calls", "edge/tool-result-json-values", "edge/unsigned-reasoning-round-trip",
               "edge/zero-arg-after-text", "edge/cache-points", "edge/nova-cache-points", "edge/structured-output",
               *MEDIA, "edge/search-result-citations")
ONE_TURN_CALLS = ("core/interleaved-text", "core/parallel-calls", "core/single-call", "edge/interleaved-parallel-deltas",
                  "edge/server-tool-then-client-tool", "edge/unicode-nested-input", "faults/http-429-then-success")


NOT_EXCUSED = ("not excused by judgement arguments-as-object: it applies only where the adapter cites its library's "
               "own type that cannot hold it")


def input_as_string(sid: str) -> Catch:
    """Held as JSON text where no library type says text, the input fails at turn 0 (arguments-as-object excuses only
    a declared text type); sent back as text in a round trip, the request's changed input fails at turn 1 with
    Bedrock's own text beside it, for every model (vercel/ai #19023)."""
    sent_back = ("turn 1 request expected messages[1].content[", INPUT_NOT_A_DICT) if sid in ROUND_TRIPS else ()
    return assembled(" block ", "(tool_call): streamed input ", NOT_EXCUSED, *sent_back,
                     reason=r"assembled message block \d+ \(tool_call\): streamed input \{.* / assembled '(\{|')")


ROBUSTNESS = ("edge/interleaved-parallel-deltas", "faults/missing-tool-use-id",  # streams no recording shows
              "edge/search-result-citations", "edge/future-block-kind", "edge/web-search-server-tool")
MISSING_ID_AS_EMPTY = Catch(
    0, ('turn 0 actual chunk 1 (tool_call): unexpected; expected nothing / actual tool_call {"id": ""',
        'turn 0 chunk 1 (error): missing; expected error {"code": "adapter_error"}',
        "tool_call_ids_present: chunk 3 (tool_call) has an empty id"),
    r"^tool_call_ids_present: chunk 3 \(tool_call\) has an empty id \(a missing toolUseId must be reported, not "
    r"passed on as ''\)$", prefixed=False)


def media_lost(sid: str, flattened: bool) -> Catch:
    """An image (and a document) a tool result sent back lost as its own block: inside the result where the family
    takes it there, else beside it; flattened, the base64 shows as the result's text."""
    inside = sid in PARALLEL_MEDIA
    where = ('turn 1 request expected messages[2].content[0].toolResult.content[1] {"image": {"format": "png"',
             'turn 1 request expected messages[2].content[1].toolResult.content[1] {"document": {"format": "pdf", '
             '"name": "quarterly-report"') if inside else ('turn 1 request expected messages[2].content[1] {"image": ',)
    shown = () if inside or not flattened else ('{"text": "data:image/png;base64,iVBOR',)
    return Catch(1, (*where, *shown), r'"image": |toolResult\.content\[1\]')


def robust(sid: str, catch: Catch) -> Catch:
    """In a robustness scenario every finding is a warning."""
    return warned(catch) if sid in ROBUSTNESS else catch


def law(name: str, text: str) -> Catch:
    """Caught by an OpenAI streaming law alone (the law names the chunk; the report names the turn)."""
    return Catch(0, (f"{name}: chunk ", text), rf"^{name}: chunk \d+ \(openai_chunk\) ", prefixed=False)


CALLS = ROUND_TRIPS + ONE_TURN_CALLS  # every scenario that streams a tool call
# Where a streamed response holds text or reasoning before its first tool use (a split reply shows there).
SPLIT = ("core/interleaved-text", "core/parallel-calls", "core/thinking-tools", "edge/end-turn-with-tool-use",
         "edge/interleaved-parallel-deltas", "edge/interleaved-reasoning-tools", "edge/nova-parallel-calls",
         "edge/nova-style", "edge/redacted-reasoning-tool", "edge/server-tool-then-client-tool",
         "edge/signature-only-reasoning", "edge/two-signed-reasoning-blocks", "edge/unsigned-reasoning-round-trip",
         "edge/zero-arg-after-text", "edge/cache-points", *PARALLEL_MEDIA)
CONTENT_BLOCK_INDEX = ("edge/zero-arg-after-text", "core/interleaved-text", "core/parallel-calls", "core/thinking-tools", "edge/end-turn-with-tool-use",
                       "edge/interleaved-parallel-deltas", "edge/max-tokens-mid-tool", "edge/nova-style",
                       "edge/redacted-reasoning-tool", "edge/server-tool-then-client-tool",
                       "edge/signature-only-reasoning", "edge/two-signed-reasoning-blocks",
                       "faults/model-stream-error-mid-tool", "faults/throttling-mid-tool", "faults/truncated-stream",
                       "edge/interleaved-reasoning-tools", "edge/nova-parallel-calls", "edge/unsigned-reasoning-round-trip",
                       "edge/cache-points", *PARALLEL_MEDIA)

CATCHES: dict[str, dict[str, Catch]] = {
    "no_tool_calls": {
        "core/interleaved-text": Catch(0, (missing_call(1),),
                                       # the texts around the missing call arrive glued into one
                                       r"chunk 0 \(text\): expected text .* / actual .*reading the file\.Once I have"),
        "core/parallel-calls": call_never_surfaced(1),
        "core/round-trip": call_never_surfaced(0),
        "core/single-call": call_never_surfaced(0),
        "core/thinking-tools": call_never_surfaced(1),
        "edge/cache-usage": call_never_surfaced(0),
        "edge/cache-both-spellings": call_never_surfaced(0),
        "edge/cache-points": call_never_surfaced(1),
        "edge/nova-cache-points": call_never_surfaced(0),
        "edge/structured-output": call_never_surfaced(0),
        "edge/interleaved-reasoning-tools": call_never_surfaced(2),
        "edge/nova-parallel-calls": call_never_surfaced(1),
        "edge/tool-result-json-values": call_never_surfaced(0),
        "edge/unsigned-reasoning-round-trip": call_never_surfaced(1),
        "edge/end-turn-with-tool-use": call_never_surfaced(1),
        "edge/interleaved-parallel-deltas": warned(call_never_surfaced(1)),  # robustness: a stream no recording shows
        "edge/nova-style": call_never_surfaced(1),
        "edge/parallel-results-round-trip": call_never_surfaced(0),
        "edge/redacted-reasoning-tool": call_never_surfaced(2),
        "edge/server-tool-then-client-tool": call_never_surfaced(1),
        "edge/signature-only-reasoning": call_never_surfaced(1),
        "edge/tool-result-is-error": call_never_surfaced(0),
        "edge/two-signed-reasoning-blocks": call_never_surfaced(2),
        "edge/unicode-nested-input": call_never_surfaced(0),
        "edge/zero-arg-tool": call_never_surfaced(0),
        "edge/zero-arg-after-text": call_never_surfaced(1),
        "faults/http-429-then-success": call_never_surfaced(0),
        **{sid: call_never_surfaced(1 if sid in PARALLEL_MEDIA else 0) for sid in MEDIA},
        # robustness: the missing call is a warning, the turns it never reached fail
        "edge/search-result-citations": Catch(0, (missing_call(0),), r"expected 3 turn\(s\) / actual 1",
                                              prefixed=False),
    },
    "last_started_slot": {  # caught only where deltas interleave, a robustness scenario: a warning
        "edge/interleaved-parallel-deltas": warned(Catch(
            0, ("turn 0 chunk 1 (tool_call): expected input.path '/tmp/a.txt' / actual no input.path", missing_call(3)),
            r"chunk 1 \(tool_call\): expected input\.path '/tmp/a\.txt'")),
    },
    "history_drops_tool_calls": {
        "core/round-trip": tool_use_dropped(EMPTY_MESSAGE),
        "core/thinking-tools": tool_use_dropped(),
        "edge/cache-usage": tool_use_dropped(EMPTY_MESSAGE),
        "edge/cache-points": tool_use_dropped(),
        "edge/nova-cache-points": tool_use_dropped(EMPTY_MESSAGE),
        "edge/structured-output": tool_use_dropped(EMPTY_MESSAGE),
        "edge/end-turn-with-tool-use": tool_use_dropped(),
        "edge/cache-both-spellings": tool_use_dropped(EMPTY_MESSAGE),
        "edge/nova-style": tool_use_dropped(),
        "edge/nova-parallel-calls": tool_use_dropped(),
        "edge/tool-result-json-values": tool_use_dropped(EMPTY_MESSAGE),
        # Outside Claude and Nova the pairing rules are warnings (no evidence): the golden request catches it.
        "edge/interleaved-reasoning-tools": request_lacks_call(1, "functions.glob_search:0"),
        "edge/unsigned-reasoning-to-claude": Catch(0, ('turn 0 request expected messages[1].content[0] {"toolUse": '
                                                       '{"toolUseId": "tooluse_uR9sGnD0ReAs0nInGhIsT1"',),
                                                   r"toolUse|toolResult"),
        "edge/tool-result-no-status": Catch(0, ('turn 0 request expected messages[1].content[0] {"toolUse": {"toolUseId": '
                                                '"tooluse_wr1TeR0s7aTuSNoStAtUs1"',), r"toolUse|toolResult"),
        "edge/unsigned-reasoning-round-trip": request_lacks_call(1, "tooluse_"),
        "edge/parallel-results-round-trip": tool_use_dropped(EMPTY_MESSAGE),
        "edge/redacted-reasoning-tool": tool_use_dropped(),
        "edge/signature-only-reasoning": tool_use_dropped(),
        "edge/tool-result-is-error": tool_use_dropped(EMPTY_MESSAGE),
        "edge/two-signed-reasoning-blocks": tool_use_dropped(),
        "edge/zero-arg-tool": tool_use_dropped(EMPTY_MESSAGE),
        "edge/zero-arg-after-text": request_lacks_call(1, "tooluse_"),
        **{sid: request_lacks_call(1 if sid in PARALLEL_MEDIA else 0, "tooluse_") for sid in MEDIA},
        "edge/search-result-citations": Catch(1, (EMPTY_MESSAGE, "The number of toolResult blocks at messages.2.content "
                                                  "exceeds the number of toolUse blocks of previous turn."),
                                              r"content field", prefixed=False),
    },
    # No recording shows Bedrock omitting toolUseId (a robustness scenario: its diffs are warnings), but passing the
    # call on with id "" breaks the adapter contract's law: a failure.
    "missing_id_as_empty": {"faults/missing-tool-use-id": MISSING_ID_AS_EMPTY},
    "dropped_signature": {
        "core/thinking-tools": Catch(0, ("turn 0 chunk 0 (reasoning): expected signature '", SIGNATURE_REQUIRED),
                                     r"chunk 0 \(reasoning\): expected signature '\S+'(… \(\d+ characters\))? / actual null"),
        "edge/signature-only-reasoning": Catch(
            0, ('turn 0 chunk 0 (reasoning): missing; expected reasoning {"text": "", "signature": "', THINKING_FIRST),
            r'chunk 0 \(reasoning\): missing; expected reasoning \{"text": "", "signature": '),
        "edge/two-signed-reasoning-blocks": Catch(
            0, ("turn 0 chunk 0 (reasoning): expected signature '", "turn 0 chunk 1 (reasoning): expected signature '",
                SIGNATURE_REQUIRED), r"chunk 0 \(reasoning\): expected signature '\S+'(… \(\d+ characters\))? / actual null"),
    },
    "signature_not_sent_back": {
        "core/thinking-tools": signature_not_sent_back(SIGNATURE_REQUIRED, SIGNATURE_DIFF),
        "edge/signature-only-reasoning": signature_not_sent_back(
            THINKING_FIRST, 'turn 1 request expected messages[1].content[0] {"reasoningContent": {"reasoningText": '
                            '{"text": "", "signature": "'),
        "edge/two-signed-reasoning-blocks": signature_not_sent_back(SIGNATURE_REQUIRED, SIGNATURE_DIFF),
    },
    "concatenated_signatures": {  # the exact SIG1SIG2 text is checked by its own test below
        "edge/two-signed-reasoning-blocks": Catch(
            0, ("turn 0 chunk 1 (reasoning): expected signature '",
                "turn 1 request expected messages[1].content[1].reasoningContent.reasoningText.signature '"),
            r"actual chunk 1 \(reasoning\): actual signature .* is the signatures of expected chunks 0 and 1 joined: "),
    },
    "separate_tool_results": {
        "edge/parallel-results-round-trip": results_split(),
        "edge/zero-arg-after-text": results_split(),
        "edge/tool-result-json-values": results_split(),
        "edge/tool-result-media": results_split(),
        **{sid: Catch(  # Nova: the pairing rules hold, alternation is Claude's (a warning)
            1, ("The number of toolResult blocks at messages.3.content exceeds the number of toolUse blocks of "
                "previous turn.",
                'turn 1 request expected no messages[3] / actual messages[3] {"role": "user", "content": [{"toolRe'),
            r"toolResult", prefixed=False) for sid in ("edge/nova-parallel-calls", "edge/nova-tool-result-media")},
    },
    "zero_arg_input_empty_string": {
        "edge/zero-arg-tool": Catch(
            1, ("The format of the value at messages.1.content.0.toolUse.input is invalid. Provide a json object for "
                "the field and try again.",
                "turn 1 request expected messages[1].content[0].toolUse.input {} / actual ''"),
            r"tool_?[uU]se\.input"),
        "edge/zero-arg-after-text": Catch(
            1, ("The format of the value at messages.1.content.1.toolUse.input is invalid. Provide a json object for "
                "the field and try again.",
                "turn 1 request expected messages[1].content[1].toolUse.input {} / actual ''"),
            r"tool_?[uU]se\.input"),
    },
    "swallowed_stream_error": {
        "faults/model-stream-error-mid-tool": error_swallowed("modelStreamErrorException"),
        "faults/throttling-mid-tool": error_swallowed("throttlingException"),
        # a transport failure the adapter ends quietly on: the application is handed a cut answer as a complete one
        "faults/truncated-stream": error_swallowed("adapter_error"),
    },
    "cut_stream_as_complete": {
        "faults/truncated-stream": Catch(
            0, ('turn 0 actual chunk 1 (stop): unexpected; expected nothing / actual stop {"reason": "end_turn"}',
                'turn 0 chunk 1 (error): missing; expected error {"code": "adapter_error"}'),
            r'\(stop\): unexpected; expected nothing / actual stop \{"reason": "end_turn"\}'),
    },
    "generic_error_code": {  # Bedrock's text survives, its code does not: throttling and a model error look alike
        sid: Catch(0, (f"turn 0 chunk 1 (error): expected code '{code}' / actual 'adapter_error'",
                       "turn 0 adapter error provider_error: "),
                   rf"chunk 1 \(error\): expected code '{code}' / actual 'adapter_error'")
        for sid, code in (("faults/model-stream-error-mid-tool", "modelStreamErrorException"),
                          ("faults/throttling-mid-tool", "throttlingException"))},
    # gpt-oss is shown rejecting a signature field (strands #682, pi #686), Kimi and other open-weight families are
    # reported to (pi #727): Bedrock's text, a failure for both.
    "empty_signature_for_unsigned_reasoning": {
        "edge/unsigned-reasoning-round-trip": Catch(
            1, (SIGNATURE_FIELD,
                "turn 1 request expected no messages[1].content[0].reasoningContent.reasoningText.signature / actual "
                "messages[1].content[0].reasoningContent.reasoningText.signature ''"), r"signature", prefixed=False),
    },
    # Writer Palmyra rejects toolResult.status (strands #393, pydantic-ai #6318); most families accept it (Kimi: a real 200), and
    # for gpt-oss nothing settles it: a warning.
    "status_for_every_model": {
        "edge/tool-result-no-status": Catch(
            0, ("This model doesn't support the status field. Remove status and try again.",), r"status field",
            prefixed=False),
        **{sid: warned(Catch(
            1, ("warning tool-result-status (not enforced: its evidence rejects for writer;",),
            r"^warning tool-result-status", prefixed=False))
           for sid in ("edge/unsigned-reasoning-round-trip", "edge/openai-tool-result-image")},
    },
    # Writer Palmyra refuses tool use on ConverseStream (strands #393): its tools go through Converse.
    "tools_streamed_to_every_model": {
        "edge/tool-result-no-status": Catch(
            0, ("This model doesn't support tool use in streaming mode.",), r"streaming mode", prefixed=False),
    },
    # Bedrock documents nine stop reasons (pydantic-ai #5640); a table of four crashes on the first other one.
    "crash_on_unknown_stop_reason": {
        "edge/every-stop-reason": Catch(
            0, ('turn 0 chunk 1 (stop): missing; expected stop {"reason": "stop_sequence"} / actual nothing',
                "turn 0 adapter error adapter_exception: ValueError: Unhandled stop reason: stop_sequence"),
            r"\(error\): unexpected; expected nothing"),
    },
    # Media inside tool results goes back as its own blocks (issue 28): flattened or dropped, the request changed.
    "media_flattened_to_text": {sid: media_lost(sid, flattened=True) for sid in MEDIA},
    "media_dropped_from_tool_results": {sid: media_lost(sid, flattened=False) for sid in MEDIA},
    # OpenAI-family models reject an image inside a tool result (opencode #48069), Claude one in an error result
    # (oh-my-pi #12809): Bedrock's texts, failures there alone.
    "image_in_tool_result_for_every_model": {"edge/openai-tool-result-image": Catch(
        1, ("This model doesn't support the image field for user messages. Remove image and try again.",
            "turn 1 request expected no messages[2].content[0].toolResult.content[1] / actual messages[2].content[0]."
            'toolResult.content[1] {"image": '), r"toolResult\.content\[1\]")},
    "error_result_keeps_media": {"edge/tool-result-error-with-image": Catch(
        1, ("The model returned the following errors: messages.2.content.0.tool_result: all content must be type "
            "`text` if `is_error` is true", 'turn 1 request expected messages[2].content[1] {"image": '),
        r"toolResult\.content\[1\]")},
    # Unsigned reasoning sent back (rule 37): Claude without thinking rejects it (vercel/ai #17591), for Kimi nothing
    # settles it (a warning).
    "unsigned_reasoning_for_every_model": {
        "edge/unsigned-reasoning-to-claude": Catch(
            0, ("User messages cannot contain reasoning content. Please remove the reasoning content and try again.",
                "turn 0 actual chunk 0 (error): unexpected; expected nothing / actual error"),
            r"reasoning content", prefixed=False),
        "edge/interleaved-reasoning-tools": warned(Catch(
            1, ("warning reasoning-unsigned (not enforced: its evidence rejects for anthropic, deepseek, nova;",),
            r"^warning reasoning-unsigned", prefixed=False)),
    },
    # Citations stream under delta.citation (R-citations) and go back as citationsContent; the search-result scenario
    # is a robustness one (no recording streams a searchResultLocation): a warning there.
    "citation_delta_under_wrong_key": {
        "edge/document-citations": Catch(
            0, ('turn 0 chunk 1 (citation): missing; expected citation {"citation": {"title": "Returns policy"',
                "turn 0 native content[1].citations: streamed nothing / non-streamed [{"),
            r"chunk 0 \(text\): expected text"),
        "edge/search-result-citations": warned(Catch(
            1, ('turn 1 chunk 1 (citation): missing; expected citation {"citation": {"title": "Returns policy"',),
            r"chunk 0 \(text\): expected text")),
    },
    "citations_not_sent_back": {
        "edge/document-citations": Catch(
            1, ('turn 1 request expected messages[1].content[0] {"citationsContent": {"content": [{"text": "the return',),
            r"citationsContent"),
        "edge/search-result-citations": warned(Catch(
            2, ('turn 2 request expected messages[3].content[0] {"citationsContent": {"content": [{"text": "you have',),
            r"citationsContent")),
    },
    # ---- conversation mode: correct chunks, a broken assembly ----
    "assembly_concatenated_signatures": {  # the exact SIG1SIG2 text is checked by its own test below
        "edge/two-signed-reasoning-blocks": assembled(
            " block 1 (reasoning): streamed signature '", SIGNATURE_DIFF.replace("[0]", "[1]"),
            reason=r"assembled message block 1 \(reasoning\): streamed signature '.+ / assembled '.+, first difference at"),
    },
    "assembly_drops_signature_only_block": {
        "edge/signature-only-reasoning": assembled(
            ': streamed reasoning {"text": "", "signature": "', THINKING_FIRST,
            'turn 1 request expected messages[1].content[0] {"reasoningContent": {"reasoningText": {"text": "", ',
            reason=r'assembled message: streamed reasoning \{"text": "", "signature": .* / assembled nothing'),
    },
    "assembly_input_as_json_string": {sid: input_as_string(sid) for sid in sorted(ROUND_TRIPS + ONE_TURN_CALLS)},
    "assembly_drops_zero_arg_call": {sid: assembled(
        ': streamed tool_call {"id": "tooluse_', '"name": "list_files", "input": {}} / assembled nothing',
        "The number of toolResult blocks at messages.", "exceeds the number of toolUse blocks",
        reason=r'assembled message: streamed tool_call \{.*"input": \{\}\} / assembled nothing')
        for sid in ("edge/zero-arg-tool", "edge/zero-arg-after-text")},
    "assembly_collapses_reasoning": {
        "edge/two-signed-reasoning-blocks": assembled(
            ": streamed reasoning {", "assembled nothing (block dropped)", SIGNATURE_DIFF,
            "turn 1 request expected messages[1].content[1] {\"reasoningContent\"",
            reason=r"assembled message: streamed reasoning \{.* / assembled nothing \(block dropped\)"),
    },
    "signature_only_without_text": {
        "edge/signature-only-reasoning": Catch(
            1, ("1 validation error detected: Value at 'messages.2.member.content.1.member.reasoningContent."
                "reasoningText.text' failed to satisfy constraint: Member must not be null",
                "turn 1 request expected messages[1].content[0].reasoningContent.reasoningText.text '' / actual no"),
            r"reasoningText\.text '' / actual no"),
    },
    # ---- what only the library's own objects show: parity, garbled fields, split replies, a store ----
    "parity_string_arguments_when_streamed": {sid: robust(sid, Catch(
        0, ("turn 0 native content[", ".input: streamed a str '"),
        r"native content\[\d+\]\.input: streamed a str '.*, non-streamed a dict")) for sid in CALLS},
    "assembly_garbled_field": {sid: robust(sid, Catch(
        0, ("(tool_call): assembled with fields no stream carries {\"input_delta\": ",),
        r"assembled message block \d+ \(tool_call\): assembled with fields no stream carries")) for sid in CALLS},
    "assembly_reply_split_in_two": {sid: robust(sid, Catch(
        0, ("turn 0 assembled message: the library holds 2 assistant messages (chunks ",),
        r"assembled message: the library holds 2 assistant messages")) for sid in SPLIT},
    "persisted_history_loses_signatures": {
        "core/thinking-tools": signature_not_sent_back(SIGNATURE_REQUIRED, SIGNATURE_DIFF),
        "edge/signature-only-reasoning": signature_not_sent_back(
            'turn 1 request expected messages[1].content[0] {"reasoningContent": {"reasoningText": {"text": "", '
            '"signature": "'),
        "edge/two-signed-reasoning-blocks": signature_not_sent_back(SIGNATURE_REQUIRED, SIGNATURE_DIFF),
    },
    "agent_loop_stops_on_end_turn": {
        "edge/end-turn-with-tool-use": Catch(1, (f"turn 1 {NO_REQUEST}", "turn 1 chunk 0 (text): missing"),
                                             r"^no request reached the endpoint"),
    },
    # A tool_use stop without a toolUse block (strands-env #252): the loop's empty results message is rejected.
    "agent_loop_resends_after_tool_use_stop": {
        "edge/tool-use-stop-without-tool-use": Catch(
            1, ("The content field in the Message object at messages.2 is empty. Add a ContentBlock object to the "
                "content field and try again.", "turn 1 actual chunk 0 (error): unexpected"),
            r"alternate|content field", prefixed=False),
    },
    "openai_index_from_content_block": {
        sid: robust(sid, law("openai_tool_call_index", "; expected 0 (indexes run 0..n-1 in order of first appearance, "
                                                       "never Bedrock's contentBlockIndex)")) for sid in CONTENT_BLOCK_INDEX},
    "openai_second_choice": {
        sid: robust(sid, law("openai_single_choice", "has choices[0].index 1; a single-choice stream uses index 0 only"))
        for sid in ("core/parallel-calls", "edge/interleaved-parallel-deltas", "edge/parallel-results-round-trip",
                    "edge/nova-parallel-calls", "edge/tool-result-json-values", "edge/zero-arg-after-text",
                    *PARALLEL_MEDIA)},
    # ---- today's surface (issue 28): each caught by its own scenario, with Bedrock's text where one is known ----
    "cache_point_inside_tool_result": {"edge/cache-points": Catch(
        1, ("turn 1 request expected no messages[2].content[0].toolResult.content[1] / actual", "warning "
            "cache-point-in-tool-result (not enforced: its evidence rejects for no family"),
        r"toolResult\.content\[1\] \{\"cachePoint\"")},
    "cache_ttl_dropped_on_tools": {"edge/cache-points": Catch(
        0, (CACHE_ORDER, "turn 0 request expected toolConfig.tools[1].cachePoint.ttl '1h' / actual no"),
        r"toolConfig\.tools\[1\]\.cachePoint\.ttl '1h'")},
    "cache_point_shares_tool_element": {"edge/cache-points": Catch(
        0, ("The value at toolConfig.tools.0 can only set one of the following keys: toolSpec, systemTool, modelTool, "
            "or cachePoint.", 'turn 0 request expected toolConfig.tools[1] {"cachePoint": {"type": "default", "ttl": '
            '"1h"}} / actual no toolConfig.tools[1]'), r"toolConfig\.tools\[1\] \{\"cachePoint\"")},
    "tool_cache_point_for_every_family": {"edge/nova-cache-points": Catch(
        0, ("Malformed input request: #/toolConfig/tools/1: extraneous key [cachePoint] is not permitted",
            "turn 0 request expected no toolConfig.tools[1] / actual toolConfig.tools[1]"), r"toolConfig\.tools\[1\]")},
    "cache_point_at_message_end": {"edge/cache-point-before-document": Catch(
        0, ("The model returned the following errors: messages.0.content.2.type: Field required",
            'turn 0 request expected messages[0].content[1] {"cachePoint": {"type": "default"}} / actual {"document"'),
        r"messages\[0\]\.content\[1\] \{\"cachePoint\"")},
    "schema_in_model_fields": {"edge/structured-output": Catch(
        0, ('turn 0 request expected outputConfig {"textFormat": {"type": "json_schema"', "warning "
            "structured-output-in-request-fields"), r"expected outputConfig .* / actual no outputConfig")},
    "tool_choice_without_tools": {"edge/toolless-final-turn": Catch(
        1, ("1 validation error detected: Value null at 'toolConfig.tools' failed to satisfy constraint: Member must "
            "not be null", 'turn 1 actual chunk 0 (error): unexpected; expected nothing / actual error {"code": '
            '"validationException"}', "warning tool-choice-without-tools"), r"Value null at 'toolConfig\.tools'", prefixed=False)},
    # ---- today's surface: how a request is served, blocks the chunks do not carry (issue 28) ----
    "served_options_dropped": {
        "edge/service-tier-flex": Catch(
            0, ('turn 0 request expected serviceTier {"type": "flex"} / actual no serviceTier',), r"serviceTier"),
        "edge/latency-optimized": Catch(
            0, ('turn 0 request expected performanceConfig {"latency": "optimized"} / actual no performanceConfig',),
            r"performanceConfig"),
    },
    "invoked_model_dropped": {"edge/prompt-router-trace": Catch(
        0, ("turn 0 chunk 3 (metadata): expected invoked_model_id 'arn:aws:bedrock:us-east-1:111111111111:"
            "inference-profile/us.anthropic.claude-3-5-haiku-20241022-v1:0' / actual null",),
        r"\(metadata\): expected invoked_model_id 'arn:aws:bedrock:.*inference-profile/.* / actual null")},
    "response_fields_dropped": {"edge/response-field-paths": Catch(
        0, ('turn 0 chunk 2 (response_fields): missing; expected response_fields {"fields": {"stop_sequence": null}}',),
        r"\(response_fields\): missing; expected response_fields")},
    "clean_after_async_guardrail": {"edge/guardrail-async": Catch(
        0, ("turn 0 chunk 1 (stop): expected reason 'guardrail_intervened' / actual 'end_turn'",),
        r"\(stop\): expected reason 'guardrail_intervened' / actual 'end_turn'")},
    "image_glued_into_text": {"edge/image-output-block": Catch(
        0, ("turn 0 chunk 0 (text): expected text …'the image you asked for.It is a single red pixel'… / actual "
            "…'the image you asked for.iVBORw0KGgoAAAANSUhEUgAA'…",),
        r"\(text\): expected text .* / actual .*iVBORw0KGgo")},
    # No model streams a block kind newer than every SDK (a robustness scenario): the crash is a warning there.
    "crash_on_unknown_block": {"edge/future-block-kind": warned(Catch(
        0, ('turn 0 actual chunk 1 (error): unexpected; expected nothing / actual error {"code": "adapter_error"}',
            "ValueError: unsupported content block 'videoOutput'"),
        r"\(text\): expected text 'Here is the clip\.A red ball .* / actual 'Here is the clip\.'"))},
    "server_result_as_answer": {
        "edge/server-tool-text-result": Catch(
            0, ("turn 0 chunk 0 (text): expected text 'The computation timed ou'… / actual 'Execution failed: the sn'…",),
            r"\(text\): expected text 'The computation timed ou'… / actual 'Execution failed"),
        "edge/web-search-server-tool": warned(Catch(
            0, ("turn 0 chunk 0 (text): expected text 'According to the search '… / actual 'Tour de France - Wikiped'…",),
            r"\(text\): expected text 'According to the search '… / actual 'Tour de France")),
    },
}


def _dummy_aws(mp: pytest.MonkeyPatch) -> None:
    """conftest's dummy credentials, for a module-scoped fixture (conftest's own is per test)."""
    for name in [n for n in os.environ if n.startswith("AWS_")]:
        mp.delenv(name)
    for name, value in {"AWS_ACCESS_KEY_ID": "AKIAFAKEBROKENADAPTER", "AWS_SECRET_ACCESS_KEY": "testing",
                        "AWS_DEFAULT_REGION": "us-east-1", "AWS_CONFIG_FILE": os.devnull,
                        "AWS_SHARED_CREDENTIALS_FILE": os.devnull}.items():
        mp.setenv(name, value)


@pytest.fixture(scope="module")
def runs() -> dict:
    """key -> (adapter, results, text report) for the reference and every variant, each over the whole suite."""
    adapters = {"reference": ConverseAdapter(), "reference-conversation": ConverseAdapter(conversation=True),
                **{key: cls() for key, cls in VARIANTS.items()},
                **{f"{key}@stateless": VARIANTS[key](conversation=False) for key in CONVERSATION}}
    scenarios = discover(ROOT / "suites")
    with pytest.MonkeyPatch.context() as mp:
        _dummy_aws(mp)
        with ThreadPoolExecutor(len(adapters)) as pool:
            results = list(pool.map(lambda adapter: run(scenarios, adapter, ROOT), adapters.values()))
    return {key: (adapter, found, render_text(found, adapter))
            for (key, adapter), found in zip(adapters.items(), results)}


def result_of(runs: dict, key: str, sid: str):
    return next(r for r in runs[key][1] if r.scenario == sid)


def section(report: str, sid: str) -> str:
    """The details block a text report prints for a failing scenario (empty when there is none)."""
    found = re.search(rf"^== {re.escape(sid)}: .*?(?=^== |\Z)", report, re.MULTILINE | re.DOTALL)
    return found.group(0) if found else ""


def catch_params(check: str) -> list:
    """(variant, scenario, catch) for every catch."""
    return [pytest.param(key, sid, catch, id=f"{key}-{sid}")
            for key, catches in CATCHES.items() for sid, catch in catches.items()]


# ---- the variants are adapters ----------------------------------------------------------------------------

def test_every_variant_has_its_catches():
    assert set(CATCHES) == set(VARIANTS)


@pytest.mark.parametrize("key", VARIANTS)
def test_a_variant_loads_as_an_adapter_spec_like_any_other(key):
    adapter = load_adapter(f"broken_adapters:{VARIANTS[key].__name__}")
    assert isinstance(adapter, VARIANTS[key])
    assert adapter.name.startswith("broken-") and adapter.bug
    # it claims everything the reference does, and owns its history when it is a conversation-mode variant
    assert adapter.capabilities == ConverseAdapter.capabilities | ({"own_history"} if key in CONVERSATION else set())


def test_variant_names_are_distinct():
    names = [cls.name for cls in VARIANTS.values()]
    assert len(set(names)) == len(names)


# ---- the reference passes; each variant fails exactly what exercises its bug -----------------------------

@pytest.mark.parametrize("key", ["reference", "reference-conversation"])
def test_the_reference_passes_every_scenario(runs, key):
    _, results, report = runs[key]
    assert {r.scenario for r in results} == {s.id for s in discover(ROOT / "suites")}
    assert [(r.scenario, r.status, r.reason) for r in results if r.status != "pass"] == [], report


@pytest.mark.parametrize("key", VARIANTS)
def test_a_variant_fails_exactly_the_scenarios_that_exercise_its_bug(runs, key):
    _, results, report = runs[key]
    assert {r.scenario for r in results if r.status != "pass"} == set(CATCHES[key]), report
    assert result_of(runs, key, "core/smoke-text").status == "pass"


@pytest.mark.parametrize("key, sid, catch", catch_params("status"))
def test_a_catch_is_graded_fail_or_warn_as_its_evidence_allows(runs, key, sid, catch):
    result = result_of(runs, key, sid)
    assert result.status == catch.status, f"{sid}: {result.status}: {result.reason}"


@pytest.mark.parametrize("key, sid, catch", catch_params("report"))
def test_the_report_names_scenario_turn_and_chunk_or_rule(runs, key, sid, catch):
    report = runs[key][2]
    part, top = section(report, sid), report.split("\nscenario ", 1)[0]  # top: findings common to most scenarios
    assert part.startswith(f"== {sid}: {catch.status}"), part or report
    common = [text for text in catch.where if text not in part and generic(sid, text) in top]
    # a scenario whose findings are all common ones shows its reason alone, no turn
    alone = "\n  turn " not in part and any(generic(sid, text) in top for text in catch.where)
    assert f"\n  turn {catch.turn}:\n" in part or common == list(catch.where) or alone, part
    missing = [text for text in catch.where if text not in part and text not in common]
    assert not missing, f"{missing} not in:\n{part}\nnor stated once at the top:\n{top}"


@pytest.mark.parametrize("key, sid, catch", catch_params("reason"))
def test_the_reason_says_what_is_wrong(runs, key, sid, catch):
    result, where = result_of(runs, key, sid), f"{sid} turn {catch.turn} " if catch.prefixed else ""
    assert result.reason.startswith(where), result.reason
    assert re.search(catch.reason, result.reason[len(where):]), result.reason  # not in the scenario id


# ---- conversation mode: each variant streams correct chunks ------------------------------------------------

@pytest.mark.parametrize("key", sorted(CONVERSATION - OPENAI))
def test_an_assembly_variant_passes_every_scenario_when_the_harness_supplies_the_history(runs, key):
    """Stateless, the variant's own assembly never runs: only conversation mode sees the bug."""
    adapter, results, report = runs[f"{key}@stateless"]
    assert "own_history" not in adapter.capabilities
    assert [(r.scenario, r.status, r.reason) for r in results if r.status != "pass"] == [], report


@pytest.mark.parametrize("key", sorted(OPENAI))
@pytest.mark.parametrize("mode", ["", "@stateless"])
def test_an_openai_variant_is_caught_by_the_openai_laws_alone(runs, key, mode):
    """Its harness chunks, requests and assembled messages are right: every finding is an OpenAI law on a native
    chunk, in either mode (the native chunks are reported either way)."""
    _, results, report = runs[key + mode]
    failing = [r for r in results if r.status != "pass"]
    assert {r.scenario for r in failing} == set(CATCHES[key]), report
    findings = [t for r in failing for t in r.turns if not t.ok]
    assert findings and all(not t.diffs and not t.request_problems for t in findings)
    assert all(law.startswith("openai_") for t in findings for law in t.laws)


def test_the_correct_openai_format_base_breaks_no_law():
    adapter = OpenAIFormat()
    scenarios = discover(ROOT / "suites")
    with pytest.MonkeyPatch.context() as mp:
        _dummy_aws(mp)
        results = run(scenarios, adapter, ROOT)
    assert [(r.scenario, r.reason) for r in results if r.status != "pass"] == []


def test_concatenated_signatures_at_assembly_send_sig1sig2_back(runs):
    sid = "edge/two-signed-reasoning-blocks"
    scenario = next(s for s in discover(ROOT / "suites") if s.id == sid)
    first, second = [c["signature"] for c in load_golden(scenario)[0]["chunks"] if c["type"] == "reasoning"]
    part = section(runs["assembly_concatenated_signatures"][2], sid)
    expected, actual, at = pair(second, first + second)  # long: shown around where they part
    assert f"turn 0 assembled message block 1 (reasoning): streamed signature {expected} / assembled {actual}{at}" in part
    assert (f"turn 1 request expected messages[1].content[1].reasoningContent.reasoningText.signature {expected} / "
            f"actual {actual}{at}") in part


# ---- details a generic catch does not spell out ------------------------------------------------------------

def test_concatenated_signatures_show_sig1sig2_on_the_second_block(runs):
    sid = "edge/two-signed-reasoning-blocks"
    scenario = next(s for s in discover(ROOT / "suites") if s.id == sid)
    first, second = [c["signature"] for c in load_golden(scenario)[0]["chunks"] if c["type"] == "reasoning"]
    part = section(runs["concatenated_signatures"][2], sid)
    expected, actual, at = pair(second, first + second)  # long: shown around where they part
    assert f"turn 0 chunk 1 (reasoning): expected signature {expected} / actual {actual}{at}" in part
    assert (f"turn 0 actual chunk 1 (reasoning): actual signature {brief(first + second)} is the signatures of expected "
            f"chunks 0 and 1 joined: {brief(first)} + {brief(second)}") in part
    assert "turn 0 chunk 0 (reasoning)" not in part  # the first block is right


def test_separated_results_report_the_unanswered_ids(runs):
    sid = "edge/parallel-results-round-trip"
    scenario = next(s for s in discover(ROOT / "suites") if s.id == sid)
    ids = [c["id"] for c in load_golden(scenario)[0]["chunks"] if c["type"] == "tool_call"]
    part = section(runs["separate_tool_results"][2], sid)
    assert f"Expected toolResult blocks at messages.2.content for the following Ids: {ids[1]}, {ids[2]}" in part
    assert all(f"user: toolResult({i})" in part for i in ids)  # the listing shows one user message per result


def test_a_missing_tool_use_id_is_named_by_the_id_law_which_fails_though_the_diffs_are_warnings(runs):
    result = result_of(runs, "missing_id_as_empty", "faults/missing-tool-use-id")
    laws = [law for turn in result.turns for law in turn.laws]
    assert laws and all(law.startswith("tool_call_ids_present: ") and "has an empty id" in law for law in laws)
    assert all(w.reason.startswith("robustness: ") for turn in result.turns for w in turn.warnings)
    assert [w for turn in result.turns for w in turn.warnings]  # the chunk diff is there, as a warning
