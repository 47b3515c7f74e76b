"""Citations end to end in the reference (issue 28): delta.citation -> citation chunks -> the normalized item -> the
assembled text block -> citationsContent in the next request; text documents and search results in requests."""

from __future__ import annotations

import pytest

from harness.converse import TurnError, assemble_message, to_converse_messages
from harness.converse.stream import chunks_from_events, chunks_from_response
from harness.judge.normalize import ALL, normalize
from harness.suite.scenario import assistant_message

CITATION = {"title": "Returns policy", "sourceContent": [{"text": "Thirty days."}],
            "location": {"documentChar": {"documentIndex": 0, "start": 0, "end": 12}}}


def delta(index, **body):
    return {"contentBlockDelta": {"contentBlockIndex": index, "delta": body}}


EVENTS = [{"messageStart": {"role": "assistant"}}, delta(0, text="Per the policy, "), {"contentBlockStop": {"contentBlockIndex": 0}},
          delta(1, citation=CITATION), delta(1, text="thirty days"), delta(1, text="."),
          {"contentBlockStop": {"contentBlockIndex": 1}}, {"messageStop": {"stopReason": "end_turn"}}]


def test_a_citation_delta_is_a_citation_chunk_of_its_block_before_its_text():
    chunks = list(chunks_from_events(EVENTS))
    assert chunks[:4] == [{"type": "text", "index": 0, "text": "Per the policy, "},
                          {"type": "citation", "index": 1, "citation": CITATION},
                          {"type": "text", "index": 1, "text": "thirty days"}, {"type": "text", "index": 1, "text": "."}]


def test_a_converse_citations_content_block_gives_the_same_chunks():
    response = {"output": {"message": {"role": "assistant", "content": [
        {"text": "Per the policy, "}, {"citationsContent": {"content": [{"text": "thirty days."}], "citations": [CITATION]}}]}},
        "stopReason": "end_turn"}
    streamed = normalize(chunks_from_events(EVENTS))
    assert normalize(chunks_from_response(response)) == streamed


def test_the_citation_is_its_own_normalized_item_and_is_dropped_for_an_adapter_without_the_capability():
    items = normalize(chunks_from_events(EVENTS))
    assert items == [{"type": "text", "text": "Per the policy, "}, {"type": "citation", "citation": CITATION},
                     {"type": "text", "text": "thirty days."}, {"type": "stop", "reason": "end_turn"}]
    assert [i["type"] for i in normalize(chunks_from_events(EVENTS), ALL - {"citations"})] == ["text", "text", "stop"]


def test_assembly_and_the_harness_history_keep_the_citation_with_its_text_and_send_it_back_as_citations_content():
    expected = {"role": "assistant", "content": [{"type": "text", "text": "Per the policy, "},
                                                 {"type": "text", "text": "thirty days.", "citations": [CITATION]}]}
    assert assemble_message(chunks_from_events(EVENTS)) == expected
    assert assistant_message(normalize(chunks_from_events(EVENTS))) == expected
    [_, sent] = to_converse_messages([{"role": "user", "content": "Q?"}, expected])
    assert sent["content"] == [{"text": "Per the policy, "},
                               {"citationsContent": {"content": [{"text": "thirty days."}], "citations": [CITATION]}}]


def test_a_text_document_with_citations_and_search_results_go_as_bedrocks_own_blocks():
    document = {"type": "document", "title": "Returns policy", "citations": {"enabled": True},
                "source": {"type": "text", "media_type": "text/plain", "data": "Thirty days."}}
    found = {"type": "search_result", "source": "https://x", "title": "Returns", "citations": {"enabled": True},
             "content": [{"type": "text", "text": "Thirty days."}]}
    history = [{"role": "user", "content": [{"type": "text", "text": "Q?"}, document]},
               {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "s", "input": {}}]},
               {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": [found]}]}]
    first, _, last = to_converse_messages(history)
    assert first["content"][1] == {"document": {"format": "txt", "name": "Returns policy",
                                                "source": {"text": "Thirty days."}, "citations": {"enabled": True}}}
    assert last["content"][0]["toolResult"]["content"] == [{"searchResult": {
        "source": "https://x", "title": "Returns", "content": [{"text": "Thirty days."}], "citations": {"enabled": True}}}]


@pytest.mark.parametrize("block, error", [
    ({"type": "text", "text": "x", "citations": "all"}, "text citations must be a list"),
    ({"type": "document", "title": "d", "citations": {"on": True}, "source": {"type": "text", "data": "x"}},
     "document citations must be"),
])
def test_bad_citation_fields_name_their_position(block, error):
    with pytest.raises(TurnError, match=rf"messages\[0\]\.content\[0\]: {error}"):
        to_converse_messages([{"role": "user", "content": [block]}])


def test_a_search_result_without_passages_is_refused():
    bad = {"type": "search_result", "source": "https://x", "title": "t", "content": []}
    history = [{"role": "user", "content": "Q"}, {"role": "assistant", "content": [
        {"type": "tool_use", "id": "t1", "name": "s", "input": {}}]},
               {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": [bad]}]}]
    with pytest.raises(TurnError, match="search_result needs a source, a title and content"):
        to_converse_messages(history)


def test_the_invoke_path_gives_the_same_citation_and_sends_it_back_in_anthropics_shape():
    from harness.converse.invoke import anthropic_citation, bedrock_citation, build_invoke_body
    anthropic = anthropic_citation(CITATION)
    assert anthropic == {"type": "char_location", "cited_text": "Thirty days.", "document_index": 0,
                         "document_title": "Returns policy", "start_char_index": 0, "end_char_index": 12}
    assert bedrock_citation(anthropic) == CITATION
    cited = {"role": "assistant", "content": [{"type": "text", "text": "thirty days.", "citations": [CITATION]}]}
    body = build_invoke_body({"messages": [{"role": "user", "content": "Q?"}, cited], "options": {"max_tokens": 8}})
    assert body["messages"][1]["content"] == [{"type": "text", "text": "thirty days.", "citations": [anthropic]}]


@pytest.mark.parametrize("capability, sids", [
    ("citations", ("edge/document-citations", "edge/search-result-citations")),
    ("tool_result_media", ("edge/tool-result-media", "edge/openai-tool-result-image"))])
def test_an_adapter_without_the_feature_is_skipped_with_the_reason(capability, sids):
    from pathlib import Path

    from harness.converse import ConverseAdapter
    from harness.suite.runner import run
    from harness.suite.scenario import discover

    class Without(ConverseAdapter):
        capabilities = ConverseAdapter.capabilities - {capability}

    root = Path(__file__).resolve().parents[1]
    results = run(discover(root / "suites", ids=sids), Without(), root)
    assert [(r.scenario, r.status) for r in results] == [(sid, "skip") for sid in sorted(sids)]
    assert all(capability in r.reason for r in results)
