"""The bridge (harness/adapters/bridge.py) serves an in-process adapter over the subprocess protocol, and the
broken reference variants (tests/broken_adapters.py) fail through it exactly as they do in-process."""

from __future__ import annotations

import io
import json
import subprocess
import sys
import textwrap
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from broken_adapters import VARIANTS

from harness.adapters import AdapterFailure, AdapterSkip, bridge
from harness.adapters.subprocess import SubprocessAdapter
from harness.studies.certify import run
from harness.converse import ConverseAdapter, conversation_reference
from harness.suite.scenario import discover

ROOT = Path(__file__).resolve().parents[1]

# Per variant, the scenarios that exercise its bug (a subset keeps this module fast); core/smoke-text is added
# to every list as the scenario each variant passes. A variant not listed here gets DEFAULT_FOCUS.
FOCUS = {
    "no_tool_calls": ["core/single-call", "core/round-trip"],
    "last_started_slot": ["edge/interleaved-parallel-deltas"],
    "history_drops_tool_calls": ["core/round-trip"],
    "missing_id_as_empty": ["faults/missing-tool-use-id"],
    "dropped_signature": ["core/thinking-tools", "edge/signature-only-reasoning"],
    "signature_not_sent_back": ["core/thinking-tools"],
    "concatenated_signatures": ["edge/two-signed-reasoning-blocks"],
    "separate_tool_results": ["edge/parallel-results-round-trip"],
    "zero_arg_input_empty_string": ["edge/zero-arg-tool"],
    "swallowed_stream_error": ["faults/throttling-mid-tool", "faults/truncated-stream"],
    "cut_stream_as_complete": ["faults/truncated-stream"],
    "generic_error_code": ["faults/throttling-mid-tool", "faults/model-stream-error-mid-tool"],
    "empty_signature_for_unsigned_reasoning": ["edge/unsigned-reasoning-round-trip"],
    "status_for_every_model": ["edge/tool-result-no-status"],
    "assembly_concatenated_signatures": ["edge/two-signed-reasoning-blocks"],
    "assembly_drops_signature_only_block": ["edge/signature-only-reasoning"],
    "assembly_input_as_json_string": ["core/round-trip"],
    "assembly_drops_zero_arg_call": ["edge/zero-arg-tool"],
    "assembly_collapses_reasoning": ["edge/two-signed-reasoning-blocks"],
    "agent_loop_stops_on_end_turn": ["edge/end-turn-with-tool-use"],
    "signature_only_without_text": ["edge/signature-only-reasoning"],
    "parity_string_arguments_when_streamed": ["core/single-call"],
    "assembly_garbled_field": ["core/single-call"],
    "assembly_reply_split_in_two": ["core/interleaved-text"],
    "persisted_history_loses_signatures": ["core/thinking-tools"],
    "openai_index_from_content_block": ["core/interleaved-text"],
    "openai_second_choice": ["core/parallel-calls"],
    "cache_point_inside_tool_result": ["edge/cache-points"],
    "cache_ttl_dropped_on_tools": ["edge/cache-points"],
    "cache_point_shares_tool_element": ["edge/cache-points"],
    "tool_cache_point_for_every_family": ["edge/nova-cache-points"],
    "cache_point_at_message_end": ["edge/cache-point-before-document"],
    "schema_in_model_fields": ["edge/structured-output"],
    "tool_choice_without_tools": ["edge/toolless-final-turn"],
    "tools_streamed_to_every_model": ["edge/tool-result-no-status"],
    "crash_on_unknown_stop_reason": ["edge/every-stop-reason"],
    "agent_loop_resends_after_tool_use_stop": ["edge/tool-use-stop-without-tool-use"],
    "media_flattened_to_text": ["edge/tool-result-media", "edge/openai-tool-result-image"],
    "media_dropped_from_tool_results": ["edge/nova-tool-result-media"],
    "image_in_tool_result_for_every_model": ["edge/openai-tool-result-image"],
    "error_result_keeps_media": ["edge/tool-result-error-with-image"],
    "unsigned_reasoning_for_every_model": ["edge/unsigned-reasoning-to-claude"],
    "citation_delta_under_wrong_key": ["edge/document-citations", "edge/search-result-citations"],
    "citations_not_sent_back": ["edge/document-citations"],
    "served_options_dropped": ["edge/service-tier-flex", "edge/latency-optimized"],
    "invoked_model_dropped": ["edge/prompt-router-trace"],
    "response_fields_dropped": ["edge/response-field-paths"],
    "clean_after_async_guardrail": ["edge/guardrail-async", "edge/guardrail-intervened"],
    "image_glued_into_text": ["edge/image-output-block"],
    "crash_on_unknown_block": ["edge/future-block-kind"],
    "server_result_as_answer": ["edge/server-tool-text-result", "edge/server-tool-then-client-tool"],
}
DEFAULT_FOCUS = ["core/round-trip", "core/thinking-tools", "edge/parallel-results-round-trip", "faults/truncated-stream"]


def focus(key: str) -> list[str]:
    return ["core/smoke-text", *FOCUS.get(key, DEFAULT_FOCUS)]


REFERENCES = {"reference": ConverseAdapter, "reference-conversation": conversation_reference}


def _both_ways(key: str, cls: type, scenarios: dict) -> tuple:
    """(in-process results, subprocess results) of one variant (or the reference) on its focus scenarios."""
    chosen = [scenarios[sid] for sid in (focus(key) if key not in REFERENCES else sorted({s for k in FOCUS
                                                                                          for s in focus(k)}))]
    command = [sys.executable, "-m", "harness.adapters.bridge", f"tests.broken_adapters:{cls.__name__}"
               if key not in REFERENCES else key]
    with SubprocessAdapter(command, cwd=str(ROOT), timeout=60) as adapter:
        through = run(chosen, adapter, ROOT)
        name = adapter.name
    return run(chosen, cls(), ROOT), through, name


@pytest.fixture(scope="module")
def runs() -> dict:
    """key -> (in-process results, subprocess results, adapter name), all runs in parallel threads."""
    scenarios = {s.id: s for s in discover(ROOT / "suites")}
    adapters = {**REFERENCES, **VARIANTS}
    # At most 6 adapter processes at once: each starts boto3, and a burst of ~20 on a loaded 2-core machine can
    # outlast the hello's start timeout.
    with ThreadPoolExecutor(min(len(adapters), 6)) as pool:
        done = pool.map(lambda item: _both_ways(item[0], item[1], scenarios), adapters.items())
        return dict(zip(adapters, done))


def first_line(text: str, name: str) -> str:
    return text.splitlines()[0].replace(name, "<adapter>") if text else ""


def findings(result) -> list:
    return [(t.index, t.chunk_text(), t.request_texts(), [(w.finding, w.reason) for w in t.warnings]) for t in result.turns]


@pytest.mark.parametrize("key", [*REFERENCES, *VARIANTS])
def test_a_variant_gets_the_same_verdicts_through_the_subprocess_protocol(runs, key):
    in_process, through, name = runs[key]
    assert [r.scenario for r in through] == [r.scenario for r in in_process]
    assert [(r.scenario, r.status, first_line(r.reason, name)) for r in through] == \
           [(r.scenario, r.status, first_line(r.reason, name)) for r in in_process]


@pytest.mark.parametrize("key", [*REFERENCES, *VARIANTS])
def test_a_variant_gets_the_same_findings_per_turn_through_the_subprocess_protocol(runs, key):
    in_process, through, _ = runs[key]
    assert [findings(r) for r in through] == [findings(r) for r in in_process]


@pytest.mark.parametrize("key", VARIANTS)
def test_each_variant_is_caught_and_passes_smoke_text(runs, key):
    """The comparison above is not about passes only: every variant fails a focus scenario both ways."""
    in_process, through, _ = runs[key]
    assert any(r.status in ("fail", "error", "warn") for r in in_process), [(r.scenario, r.status) for r in in_process]
    assert [r.status for r in through if r.scenario == "core/smoke-text"] == ["pass"]


@pytest.mark.parametrize("key", REFERENCES)
def test_the_reference_passes_through_the_bridge(runs, key):
    _, through, name = runs[key]
    assert name == key and [(r.scenario, r.status, r.reason) for r in through if r.status != "pass"] == []


# ---- the bridge itself -------------------------------------------------------------------------------------

class Scripted:
    """An in-process adapter whose turn says what to do."""

    name, version, capabilities = "scripted", "2.0", frozenset({"text", "usage"})

    def stream(self, turn, endpoint):
        yield {"type": "text", "text": f"to {endpoint['endpoint_url']}"}
        if turn.get("raise"):
            raise KeyError("toolUseId")
        if turn.get("skip"):
            raise AdapterSkip("not today")
        if turn.get("broken"):
            raise AdapterFailure("lost its mind")
        yield {"type": "redacted_reasoning", "data": b"\x00\x01"}


TURN = {"type": "turn", "scenario": "core/x", "index": 0, "endpoint": {"endpoint_url": "http://127.0.0.1:1"}}


def test_hello_is_answered_with_the_adapters_identity():
    assert list(bridge.answer(Scripted(), {"type": "hello", "protocol": 1})) == [
        {"type": "hello", "name": "scripted", "version": "2.0", "capabilities": ["text", "usage"]}]


def test_a_turn_streams_its_chunks_then_done():
    replies = list(bridge.answer(Scripted(), {**TURN, "turn": {}}))
    assert replies == [{"type": "chunk", "chunk": {"type": "text", "text": "to http://127.0.0.1:1"}},
                       {"type": "chunk", "chunk": {"type": "redacted_reasoning", "data": b"\x00\x01"}},
                       {"type": "done"}]


def test_an_exception_is_the_closing_error_line_with_the_runners_text_and_traceback():
    replies = list(bridge.answer(Scripted(), {**TURN, "turn": {"raise": True}}))
    assert replies[-1]["message"] == "KeyError: 'toolUseId'" and len(replies) == 2
    trace = replies[-1]["traceback"]
    assert trace.startswith(f'  File "{__file__}", line ') and trace.endswith('raise KeyError("toolUseId")')
    assert "adapters/bridge.py" not in trace


def test_adapter_skip_is_a_skip_line_and_adapter_failure_propagates():
    assert list(bridge.answer(Scripted(), {**TURN, "turn": {"skip": True}}))[-1] == {"type": "skip",
                                                                                     "reason": "not today"}
    with pytest.raises(AdapterFailure):
        list(bridge.answer(Scripted(), {**TURN, "turn": {"broken": True}}))


def test_serve_answers_each_line_and_skips_blank_and_unknown_ones(capsys):
    written = []
    bridge.serve(Scripted(), io.StringIO('\n{"type": "hello"}\nnot json\n{"type": "bye"}\n'), written.append)
    assert [m["type"] for m in written] == ["hello"]
    assert "ignoring a message that is not hello or turn" in capsys.readouterr().err


PRINTING = textwrap.dedent('''
    import os, sys

    class Printing:
        name, version, capabilities = "printing", "1", frozenset({"text"})

        def stream(self, turn, endpoint):
            print("a library printing to stdout")
            os.write(1, b"and a C extension writing to fd 1\\n")
            yield {"type": "text", "text": "fine"}
''')


def test_what_the_adapter_prints_goes_to_stderr_never_into_the_protocol(tmp_path, monkeypatch):
    (tmp_path / "printing_adapter.py").write_text(PRINTING)
    monkeypatch.setenv("PYTHONPATH", str(tmp_path))
    with SubprocessAdapter([sys.executable, "-m", "harness.adapters.bridge", "printing_adapter:Printing"],
                           cwd=str(ROOT)) as adapter:
        assert list(adapter.stream({}, {"endpoint_url": "http://127.0.0.1:1"})) == [{"type": "text", "text": "fine"}]
        tail = adapter._child.stderr
        assert adapter.close() == 0
    assert "a library printing to stdout" in tail and "and a C extension writing to fd 1" in tail


def test_a_spec_that_does_not_load_exits_2_with_one_line():
    done = subprocess.run([sys.executable, "-m", "harness.adapters.bridge", "surely_missing_module_xyz:Adapter"],
                          capture_output=True, text=True, cwd=ROOT, input="", timeout=60, check=False)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.strip() == "bridge: module 'surely_missing_module_xyz' not found"


def test_the_bridge_serves_until_eof_and_exits_0():
    lines = json.dumps({"type": "hello", "protocol": 1}) + "\n"
    done = subprocess.run([sys.executable, "-m", "harness.adapters.bridge", "reference"], capture_output=True,
                          text=True, cwd=ROOT, input=lines, timeout=60, check=False)
    assert done.returncode == 0 and json.loads(done.stdout)["name"] == "reference"
