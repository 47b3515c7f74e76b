"""The model families explore draws for, and the claims each drawing choice rests on.

A ``Family`` is one model id with its emulator style and what the family may stream: reasoning (signed, unsigned or
none), redacted reasoning, tool use, cache counts, which stop reasons. Every choice the drawing makes names a claim of
``CLAIMS`` (``{id, says, sources}`` in the format of harness.evidence, sources from ``sources.yaml``); the claims of an
example are written into its scenario, so a shrunk failure carries the evidence that Bedrock sends such a stream.
Choices no recording shows (deltas of parallel calls interleaved, a toolUse start without toolUseId) are
``ROBUSTNESS`` claims: an example holding one is a robustness scenario, and its findings are warnings (the contract
laws aside, which fail wherever they are broken). A new block kind is one more claim here and one more drawer in
``draw``.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["CLAIMS", "FAMILIES", "ROBUSTNESS", "Family", "claims_of", "family"]

CLAIMS: dict[str, tuple[str, tuple[str, ...]]] = {
    # the stream of every family
    "text-stream": ("Bedrock streams an answer as text deltas with no contentBlockStart, then messageStop and "
                    "metadata.", ("R-vercel", "R-think", "R-newrelic", "R-nova1")),
    "blocks-in-order": ("A stream sends its blocks one after another by contentBlockIndex.",
                        ("R-arize", "R-otel", "R-nova2", "R-kimi-stream")),
    "text-before-call": ("Claude streams explanatory text, then a toolUse block, in one response.",
                         ("R-arize", "R-langchain-loop")),
    "text-after-call": ("Claude (5-family) can stream more text after a toolUse block in the same message.",
                        ("hermes-agent#112303",)),
    "parallel-calls": ("Claude answers with leading text and several toolUse blocks, each with its own id, in one "
                       "message.", ("R-crewai",)),
    "tool-use-start": ("Claude starts a toolUse block with a contentBlockStart carrying its name and a tooluse_ id of "
                       "22 url-safe characters, sends \"\" as the first input delta and the JSON after it in fragments "
                       "of a few characters.", ("R-haiku", "R-otel", "R-arize", "R-langchain-loop")),
    "fragments-split-anywhere": ("Claude cuts tool input JSON anywhere, inside keys, strings and escapes too.",
                                 ("R-haiku", "R-arize", "R-otel")),
    "raw-utf8": ("Non-ASCII text arrives as raw UTF-8 in the event payloads, split across deltas.", ("R-deepseek",)),
    "zero-arg-call": ("A toolUse of a tool without parameters streams only the empty \"\" input delta; its input is "
                      "{}.", ("R-think-rt", "R-llama4-rt", "R-writer-rt")),
    "stop-tool-use": ("A response that calls tools ends with stopReason tool_use.", ("R-haiku", "R-otel")),
    "tool-use-stop-without-call": ("Bedrock sometimes closes a text-only Claude message with stopReason tool_use and no "
                                   "toolUse block; there is no call to run, and the application's next question goes "
                                   "out as the next user message.", ("strands-env#252-tool-use-stop",)),
    "text-follow-up-accepted": ("Claude accepts a follow-up whose assistant turn is text only and whose next user "
                                "message is the application's new question.", ("R-otel", "R-langchain-loop")),
    "end-turn-with-call": ("Bedrock can close a message holding a complete toolUse with stopReason end_turn.",
                           ("strands#1827", "strands-env#252")),
    "max-tokens-stream": ("A stream cut by the output budget still ends with messageStop max_tokens and metadata.",
                          ("R-newrelic",)),
    "cut-mid-call": ("Bedrock ends a response with stopReason max_tokens while a toolUse's input is still incomplete.",
                     ("goose#11838", "ai-sdk-go#116", "spring-ai#4374")),
    "guardrail-stop": ("A guardrail intervention ends the stream normally, with stopReason guardrail_intervened and "
                       "metadata after it.", ("R-titan", "doc-guardrails-streaming")),
    "cache-counts": ("Usage reports cache reads and writes (cacheReadInputTokens, cacheWriteInputTokens), some streams "
                     "under both spellings.", ("R-cache", "R-langchain-loop")),
    "server-tool-usage": ("Current streams end with usage carrying serverToolUsage {}.",
                          ("R-haiku", "R-nova1", "R-gptoss", "R-kimi-stream")),
    # reasoning
    "reasoning-stream": ("With thinking, Claude streams reasoningContent.text deltas with no contentBlockStart, then "
                         "one signature delta last in the block.", ("R-think",)),
    "several-signed-blocks": ("Claude 4.x emits several signed thinking blocks in one message, each with its own "
                              "signature.", ("hermes-agent#36260", "strands#3425")),
    "signature-only": ("Claude's adaptive thinking emits reasoning blocks with empty text and a real signature.",
                       ("rig#1674",)),
    "redacted-one-delta": ("Claude 3.7 streams redacted reasoning as one redactedContent delta per block.",
                           ("R-redacted",)),
    "thinking-block-first": ("With thinking on, Claude rejects a follow-up whose assistant message does not start "
                             "with its reasoning blocks, unmodified.", ("langchain-aws#844", "pydantic-ai#2453")),
    "gpt-oss-shape": ("gpt-oss-120b streams an empty text block \"\" first, then reasoning with no signature, then the "
                      "answer.", ("R-gptoss",)),
    "gpt-oss-calls": ("Bedrock streams gpt-oss's tool calls on ConverseStream.", ("langchain-aws#588",)),
    "kimi-stream": ("Kimi K2 Thinking streams an empty text block, unsigned reasoning, another empty text block, then "
                    "a toolUse whose input arrives whole, ids functions.<name>:<n>.",
                    ("R-kimi-stream", "vercel-ai#17710")),
    # Nova and Titan
    "nova-whole-input": ("Nova v1 writes <thinking> text, then toolUse blocks whose compact JSON input arrives whole "
                         "in one delta.", ("R-nova1",)),
    "nova-parallel-calls": ("Nova Pro answers with several toolUse blocks in one response.", ("agno#6242",)),
    "titan-whole-text": ("Titan streams its answer in one text delta.", ("R-titan",)),
    # round trips
    "results-paired": ("Every toolUse of the assistant turn needs a toolResult with its id in the next user message.",
                       ("agno#6698", "hermes-agent#108584", "opencode#41780")),
    "round-trip-accepted": ("Bedrock accepts the follow-up holding the assistant's toolUse blocks and the toolResults, "
                            "and answers.", ("R-otel", "R-langchain-loop", "R-think-rt", "R-nova1", "R-kimi-rt")),
    "result-forms": ("A toolResult carries text or JSON-object content, and status error for a failed call where the "
                     "family documents it.", ("doc-tool-result-status", "R-think-rt", "R-langchain-loop")),
    # the service's own blocks
    "nova2-server-tool": ("Nova 2 Lite, asked with a system tool, streams a toolUse of type server_tool_use with its "
                          "input whole, then a toolResult block (its start names the toolUseId, a status and a type; "
                          "its delta is a list of text or json items), then the answer.",
                          ("R-nova2", "doc-tool-result-block-start", "doc-tool-result-block-delta")),
    "image-output": ("Nova 2 Omni streams an image it makes as its own block: a contentBlockStart with image "
                     "{format}, then contentBlockDelta events with image {source}.",
                     ("doc-image-block-start", "doc-image-block-delta", "nova2-omni-samples")),
    "writer-refuses-streamed-tools": ("Writer Palmyra refuses tool use on ConverseStream (\"This model doesn't "
                                      "support tool use in streaming mode.\"): its streams carry text only.",
                                      ("strands#393",)),
    "writer-accepts-without": ("Writer Palmyra answers tool calls in the Converse stream and accepts a history whose "
                               "toolResult has no status.", ("R-writer-rt",)),
    "writer-rejects-status": ("Writer Palmyra rejects a toolResult carrying status (\"This model doesn't support the "
                              "status field\").", ("strands#393", "pydantic-ai#6318")),
    # transport
    "network-chunks": ("Bedrock's event stream reaches the client in network chunks of their own size, not one frame "
                       "per read: a frame may be split anywhere, several may arrive together.", ("R-newrelic",)),
    "throttled-before-stream": ("Bedrock can answer a ConverseStream request HTTP 429 ThrottlingException before the "
                                "stream starts.", ("R-429",)),
    "mid-stream-throttling": ("A Bedrock stream can end in a throttlingException frame.", ("genai-chatbot#220",)),
    "mid-stream-model-error": ("Bedrock can end a ConverseStream with a modelStreamErrorException frame while a tool "
                               "use is being streamed.", ("idp#895",)),
    "stream-cut": ("A finished stream ends with messageStop and metadata; a connection cut before them leaves the "
                   "client a stream without its end, which it must report, not finish.",
                   ("R-think", "R-haiku", "R-nova1", "R-gptoss")),
    # the stop reasons newer than the first four
    "newer-stop-reasons": ("Converse and ConverseStream document nine stop reasons (stop_sequence, content_filtered, "
                           "malformed_model_output, malformed_tool_use and model_context_window_exceeded beside the "
                           "first four), and the newer values reach adapters from Bedrock.",
                           ("pydantic-ai#5640", "inspect-ai#2941", "pi#1868", "any-llm#1358")),
    # what the request marks and carries (cache points, documents, media in tool results)
    "cache-placed": ("Claude takes cache points after its tools, after the system prompt and in a message's content "
                     "(beside a toolResult), in two TTLs when the 1h ones come first in the order tools, system, "
                     "messages (rule 32); a cache point is no member of toolResult.content (rule 31), nor of a tools "
                     "element holding a toolSpec (rule 33a).",
                     ("R-cache", "strands#2232", "doc-cache-point", "portkey#1762", "envoy-ai-gateway#2476",
                      "model-shapes")),
    "nova-cache-placement": ("Nova takes cache points in system and messages and rejects one in toolConfig.tools "
                             "(rule 33).", ("hermes-agent#97281", "librechat#13838")),
    "cache-before-document": ("Claude rejects a cache point right after a non-PDF document (rule 34) and takes one "
                              "after a text block that precedes the document.",
                              ("aws-sdk-java-v2#6277", "agentcore-public-stack#668", "strands#2001", "R-cache")),
    "document-citations": ("Claude, given a text document with citations enabled beside a text block, streams a "
                           "citation delta (title, sourceContent, a documentChar location) before the text deltas of "
                           "the block it cites; a cited answer goes back as a citationsContent block.",
                           ("R-citations", "doc-message-content", "doc-citations-content", "doc-citations-config")),
    "result-media": ("A tool result may carry image and document members; Claude and Nova take an image inside "
                     "toolResult.content, and Claude takes an image beside the results of an error result.",
                     ("opencode#50272", "llumiverse#655", "doc-tool-result-content", "pi#8643",
                      "doc-message-content")),
    "claude-error-text-only": ("Claude rejects a toolResult with status error that holds a non-text block (rule 35).",
                               ("oh-my-pi#12809",)),
    "openai-result-image-beside": ("OpenAI-family models reject an image inside toolResult.content (rule 36) and take "
                                   "it beside the result.", ("opencode#48069", "pi#8643", "opencode#49444",
                                                             "llumiverse#655")),
    # how a request is served (the options of harness.converse.request.served_options) and what the service reports
    "async-guardrail": ("ConverseStream's guardrailConfig takes streamProcessingMode async (sync is the default); in "
                        "async mode text streams before the scan completes, and a finding ends the stream with "
                        "stopReason guardrail_intervened.", ("doc-guardrail-stream-config", "doc-guardrails-streaming")),
    "response-field-paths": ("ConverseStream takes additionalModelResponseFieldPaths (JSON Pointers such as "
                             "/stop_sequence); a Claude stream's messageStop carries additionalModelResponseFields.",
                             ("doc-response-field-paths", "R-vercel-request-metadata", "R-vercel")),
    "prompt-router": ("A prompt router's ARN is a model id that routes each request to one model of its family; the "
                      "stream's metadata trace carries promptRouter.invokedModelId.",
                      ("doc-prompt-routing", "doc-prompt-router-trace", "doc-stream-metadata")),
    "service-tier": ("Nova Pro takes serviceTier {type: flex} and the stream's metadata reports the tier that served "
                     "the request.", ("R-nova-service-tier", "doc-service-tier", "doc-stream-metadata")),
    "latency-optimized": ("Nova Pro takes performanceConfig {latency: optimized} and the stream's metadata reports the "
                          "configuration that served the request.",
                          ("R-nova-performance", "doc-latency-optimized", "doc-stream-metadata")),
    "structured-output": ("Claude Sonnet 4.5 takes a JSON schema for its answer in outputConfig.textFormat; an OpenAI "
                          "response_format in additionalModelRequestFields is ignored.", ("portkey#1547",)),
    "no-choice-without-tools": ("A request without tools carries no tool choice: toolChoice without toolConfig.tools "
                                "is refused (rule 40).", ("agent-framework#5165", "litellm#34276", "model-shapes")),
    # robustness: no recording shows these; a finding on them is a warning (contract laws aside)
    "interleaved-deltas": ("Real streams send one block after another; no recording shows the deltas of parallel "
                           "toolUse blocks interleaved (the grammar allows it).",
                           ("R-arize", "R-otel", "R-nova2", "R-kimi-stream")),
    "id-always-sent": ("Every real toolUse start carries a toolUseId, and the service model marks it required.",
                       ("R-haiku", "R-nova1", "R-kimi-stream", "model-shapes")),
    "unions-grow": ("ContentBlockStart and ContentBlockDelta are unions whose members have grown (image joined toolUse "
                    "and toolResult); botocore hands a member newer than its model over as SDK_UNKNOWN_MEMBER. No "
                    "model streams the drawn kind: it stands for the next one.",
                    ("doc-content-block-start", "doc-image-block-start", "botocore-unknown-union-member")),
}
ROBUSTNESS = {"interleaved-deltas": "no real recording shows Bedrock interleaving the deltas of parallel toolUse "
                                    "blocks (drawn by explore)",
              "id-always-sent": "every real toolUse start carries a toolUseId; this stream leaves it out (drawn by "
                                "explore)",
              "unions-grow": "no model streams this block kind: it stands for the next member Bedrock adds to the "
                             "content block unions (drawn by explore)"}


@dataclass(frozen=True)
class Family:
    """One model and what its streams may hold (each ``True`` rests on the claims in ``claims``)."""

    name: str
    model_id: str
    style: str
    reasoning: str = "none"  # signed | unsigned | none
    redacted: bool = False
    tools: bool = True
    cache: bool = False
    status: bool = True  # toolResult.status is documented for the family
    server_tools: bool = False  # the service runs a tool of its own and streams its use and result
    images: bool = False  # the model makes images, streamed as image blocks
    whole: bool = False  # its tool calls go through Converse (rule 38): answers arrive whole, no stream faults
    parallel: bool = True  # may call several tools in one message
    points: tuple[str, ...] = ()  # where the family takes cache points: tools, system, messages
    media: bool = False  # tool results may carry images and documents
    router: str | None = None  # a prompt router: the model it invokes, reported in the metadata trace
    served: tuple[str, ...] = ()  # the served options the family takes (service_tier, latency)
    structured: bool = False  # takes a JSON schema for the answer (outputConfig)
    stops: tuple[str, ...] = ("end_turn", "tool_use")
    claims: tuple[str, ...] = ("text-stream", "blocks-in-order", "server-tool-usage")


CLAUDE_POINTS = ("tools", "system", "messages")
NEWER_STOPS = ("stop_sequence", "content_filtered", "malformed_model_output", "malformed_tool_use",
               "model_context_window_exceeded")
FAMILIES = (
    Family("claude", "us.anthropic.claude-sonnet-4-20250514-v1:0", "claude", reasoning="signed", cache=True,
           points=CLAUDE_POINTS, media=True,
           stops=("end_turn", "tool_use", "max_tokens", "guardrail_intervened", *NEWER_STOPS)),
    Family("claude-4-5", "us.anthropic.claude-sonnet-4-5-20250929-v1:0", "claude", reasoning="signed", cache=True,
           structured=True, points=CLAUDE_POINTS, media=True, stops=("end_turn", "tool_use", "max_tokens", *NEWER_STOPS)),
    Family("claude-3-7", "us.anthropic.claude-3-7-sonnet-20250219-v1:0", "claude", reasoning="signed", redacted=True,
           cache=True, points=CLAUDE_POINTS, media=True, stops=("end_turn", "tool_use", "max_tokens")),
    Family("nova", "us.amazon.nova-pro-v1:0", "nova", served=("service_tier", "latency"), points=("system", "messages"),
           media=True),
    Family("gpt-oss", "openai.gpt-oss-120b-1:0", "openai", reasoning="unsigned", status=False, media=True),
    Family("kimi", "moonshot.kimi-k2-thinking", "open-weight", reasoning="unsigned", status=False),
    # Writer refuses tool use on ConverseStream (rule 38, streamed-tool-use): a request with tools goes through
    # Converse, whose answer arrives whole (one call a message: the recording shows no parallel calls).
    Family("writer", "us.writer.palmyra-x5-v1:0", "claude", status=False, whole=True, parallel=False,
           claims=("text-stream", "blocks-in-order", "server-tool-usage", "writer-refuses-streamed-tools",
                   "writer-accepts-without", "writer-rejects-status")),
    # Nova 2: the service's own blocks (a system tool's use and result; Omni's images), which are never calls for the
    # application nor answer text. Their client tool calls are not drawn: no recording shows their stream yet.
    Family("nova-2", "us.amazon.nova-2-lite-v1:0", "nova-2", tools=False, server_tools=True),
    Family("nova-2-omni", "us.amazon.nova-2-omni-v1:0", "nova-2", tools=False, images=True),
    Family("prompt-router", "arn:aws:bedrock:us-east-1:111111111111:default-prompt-router/anthropic.claude:1", "claude",
           tools=False, router="arn:aws:bedrock:us-east-1:111111111111:inference-profile/"
                               "us.anthropic.claude-3-5-haiku-20241022-v1:0",
           claims=("text-stream", "blocks-in-order", "server-tool-usage", "prompt-router")),
    Family("titan", "amazon.titan-text-express-v1", "titan", tools=False, stops=("end_turn", "guardrail_intervened"),
           claims=("text-stream", "titan-whole-text")),
)


def family(name: str) -> Family:
    """The family called ``name``; ValueError names the known ones."""
    for known in FAMILIES:
        if known.name == name:
            return known
    raise ValueError(f"unknown family {name!r} (known: {', '.join(f.name for f in FAMILIES)})")


def claims_of(ids: list[str] | tuple[str, ...]) -> list[dict]:
    """The scenario ``claims:`` list for these claim ids, each once, in first-use order."""
    return [{"id": cid, "says": CLAIMS[cid][0], "sources": list(CLAIMS[cid][1])} for cid in dict.fromkeys(ids)]
