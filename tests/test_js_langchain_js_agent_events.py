"""What only the langchain-js-agent-events shim (harness/adapters/js/langchain_js_agent_events.mjs) does, driven over
the subprocess protocol against the fake of LangChain.js (tests/js_fake/langchain-js): a model call closes on the
model node's end event, with the message the node returns for the agent's state, in either shape langchain gives it.
The loop both createAgent shims share is tested for both in test_js_langchain_js_agent.py. Skipped when ``node`` is
absent."""

from __future__ import annotations

import pytest

from js_shim import NODE, chunks, needs_node, runner
from test_js_langchain_js_agent import CALL, CALLED, END, OPENING, RESULT, TOOL_STOP, turn

from harness.adapters.js.langchain_js import AGENT_EVENTS_PROGRAM, MODULES_ENV, shim_command

pytestmark = needs_node("langchain-js-agent-events")


@pytest.fixture
def shim(tmp_path, monkeypatch):
    monkeypatch.delenv(MODULES_ENV, raising=False)
    return runner(tmp_path, "langchain-js", "FAKE_LANGCHAIN_JS",
                  lambda folder: shim_command(folder, NODE, AGENT_EVENTS_PROGRAM))


def test_the_call_closes_on_the_message_the_model_node_adds_not_on_the_models_own_output(shim):
    # AgentNode may add another message than the model's (its "need more steps" reply): the state gets that one
    sorry = {"content": "Sorry, need more steps to process this request."}
    (_, answer), _ = shim([turn([OPENING])], [{"chunks": [{"content": "Par"}, {"content": "tial"}, END]}],
                          {"appended": [sorry]})
    assert chunks(answer) == [{"type": "text", "index": None, "text": "Par"},
                              {"type": "text", "index": None, "text": "tial"},
                              {"type": "message", "message": {"role": "assistant",
                                                              "content": [{"type": "text", "text": sorry["content"]}]}}]


@pytest.mark.parametrize("node_output", ["command", "state"])
def test_either_shape_of_the_model_nodes_output_closes_the_call(shim, node_output):
    # langchain 1.5's AgentNode returns [Command({update: {messages}})], 1.2's {messages}
    (_, first, second), log = shim([turn([OPENING]), turn([RESULT])],
                                   [{"chunks": [*CALL, TOOL_STOP]}, {"chunks": [{"content": "42."}, END]}],
                                   {"node_output": node_output})
    assert chunks(first) == CALLED
    assert chunks(second)[-1] == {"type": "message", "message": {"role": "assistant",
                                                                 "content": [{"type": "text", "text": "42."}]}}
    assert [entry["kind"] for entry in log] == ["agent", "stream", "stream"]
